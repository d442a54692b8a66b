//! [`ArrayLayout`]: a validated array shape with its layout, the run-time
//! face of the engine. Static `layout!` types hold one as an associated
//! const and call the same methods.

pub mod terms;

use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind, Locus};
use crate::index;
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK};
use crate::model::layout::{Layout, LayoutParts};
use crate::model::shape::{Dim, Shape};

/// Up to [`MAX_RANK`] numbers, one per logical dimension: an index, sizes
/// or strides. Dereferences to `[usize]`.
///
/// ```
/// use tessera::{ArrayLayout, DimVec};
/// let a: ArrayLayout = "f32[3,5]{0,1}".parse()?;
/// let sizes: DimVec = a.sizes();
/// assert_eq!(sizes.as_slice(), &[3, 5]); // y, x
/// assert_eq!(sizes.len(), 2); // a slice method, through `Deref`
/// assert_eq!(sizes.to_array::<2>(), [3, 5]);
/// assert_eq!(a.strides(), Some(DimVec::from_slice(&[1, 3])));
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DimVec {
    len: u8,
    values: [usize; MAX_RANK],
}

impl DimVec {
    /// Copies `values`.
    ///
    /// # Panics
    /// If `values.len() > MAX_RANK`.
    #[inline]
    pub const fn from_slice(values: &[usize]) -> Self {
        assert!(values.len() <= MAX_RANK, "more values than MAX_RANK");
        let mut v = [0usize; MAX_RANK];
        let mut i = 0;
        while i < values.len() {
            v[i] = values[i];
            i += 1;
        }
        DimVec {
            len: values.len() as u8,
            values: v,
        }
    }

    pub(crate) const fn from_array(len: usize, mut values: [usize; MAX_RANK]) -> Self {
        // Zero the unused tail so that derived equality compares only the
        // numbers.
        let mut i = len;
        while i < MAX_RANK {
            values[i] = 0;
            i += 1;
        }
        DimVec {
            len: len as u8,
            values,
        }
    }

    /// A copy with entry `dim` set to `value`; the same numbers when
    /// `dim` is not below the length (the unused tail stays zero). Every
    /// entry is chosen in turn, a constant count, so the copy can live
    /// in registers ([`LayoutIndex::with_entry`](crate::LayoutIndex)).
    #[inline(always)]
    pub(crate) const fn with_entry(self, dim: usize, value: usize) -> Self {
        let set = dim < self.len as usize;
        let mut values = self.values;
        let mut k = 0;
        while k < MAX_RANK {
            if set && k == dim {
                values[k] = value;
            }
            k += 1;
        }
        DimVec {
            len: self.len,
            values,
        }
    }

    /// The numbers.
    #[inline]
    pub const fn as_slice(&self) -> &[usize] {
        self.values.split_at(self.len as usize).0
    }

    /// The numbers, writable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [usize] {
        self.values.split_at_mut(self.len as usize).0
    }

    /// The numbers as an array of `R` entries.
    ///
    /// # Panics
    /// If `R` is not the length.
    pub const fn to_array<const R: usize>(&self) -> [usize; R] {
        assert!(R == self.len as usize, "array length differs from the rank");
        let mut out = [0usize; R];
        let mut i = 0;
        while i < R {
            out[i] = self.values[i];
            i += 1;
        }
        out
    }
}

impl core::ops::Deref for DimVec {
    type Target = [usize];
    #[inline]
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl core::fmt::Debug for DimVec {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// What a slot of the buffer holds: an element (its logical index), or
/// padding.
///
/// ```
/// use tessera::{ArrayLayout, DimVec, Slot};
/// let a: ArrayLayout = "f32[3]{0:T(2)}".parse()?;
/// assert_eq!(a.buffer_len(), 4); // two tiles of 2
/// assert_eq!(a.slot(2), Slot::Element(DimVec::from_slice(&[2])));
/// assert_eq!(a.slot(3), Slot::Padding); // the second tile holds one element
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The slot holds the element at this logical index.
    Element(DimVec),
    /// The slot is padding (tile padding, `pad(..)` or `L(n)` tail).
    Padding,
}

/// The physical (tiled) shape: the dims, major to minor, whose row-major
/// linearization gives offsets. For `f32[3,5]{1,0:T(2,2)}` it is
/// `[2,3,2,2]`: 2×3 tiles of 2×2.
///
/// ```
/// use tessera::ArrayLayout;
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p = a.physical_shape();
/// // 2 tile rows (y), 3 tile columns (x), then the 2x2 inside of a tile.
/// assert_eq!(p.dims(), &[2, 3, 2, 2]);
/// assert_eq!(p.dims().iter().product::<usize>(), a.buffer_len());
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PhysicalShape {
    rank: u8,
    dims: [usize; MAX_PHYSICAL_RANK],
}

impl PhysicalShape {
    /// The dims, major to minor.
    pub const fn dims(&self) -> &[usize] {
        self.dims.split_at(self.rank as usize).0
    }
}

impl core::fmt::Debug for PhysicalShape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.dims(), f)
    }
}

/// What one physical dimension indexes: a digit of one logical index,
/// nothing (always 0), or a mix of several logical indices.
///
/// ```
/// use tessera::{ArrayLayout, DigitSource};
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// // The third physical dim is y % 2: the row inside a 2x2 tile.
/// let row = DigitSource::Logical { dim: 0, div: 1, modulus: Some(2) };
/// assert_eq!(a.physical_dims()[2].source, row);
/// // `*` merges y into x before tiling by 4: no digit formula.
/// let m: ArrayLayout = "f32[3,5]{1,0:T(*,4)}".parse()?;
/// assert!(m.physical_dims().iter().any(|d| d.source == DigitSource::Mixed));
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigitSource {
    /// The dimension's index is always 0 (a tile entry of 1, a dimension
    /// of size 1, or padding that no element reaches).
    Constant,
    /// The dimension's index is `(index[dim] / div) % modulus` (no modulus
    /// when `None`).
    Logical {
        /// The logical dimension.
        dim: usize,
        /// The divisor.
        div: usize,
        /// The modulus, if any.
        modulus: Option<usize>,
    },
    /// No digit formula: a `*` merged two varying dimensions, or a later
    /// tile does not divide the earlier tile it cuts (`T(3)(2)`).
    Mixed,
}

/// One dimension of the physical (tiled) shape: its size, its stride in
/// the buffer, and what it indexes.
///
/// ```
/// use tessera::{ArrayLayout, DigitSource, PhysicalDim};
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// // The innermost dim: x % 2, the column inside a 2x2 tile, stride 1.
/// let column = PhysicalDim {
///     size: 2,
///     stride: 1,
///     source: DigitSource::Logical { dim: 1, div: 1, modulus: Some(2) },
/// };
/// assert_eq!(a.physical_dims()[3], column);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhysicalDim {
    /// Its extent (tile counts and tile sizes, padding included).
    pub size: usize,
    /// Elements between consecutive indices of this dimension.
    pub stride: usize,
    /// What its index is, in terms of the logical index.
    pub source: DigitSource,
}

/// The physical dims of a layout, major to minor, as
/// [`ArrayLayout::physical_dims`] gives them.
///
/// ```
/// use tessera::ArrayLayout;
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let dims = a.physical_dims();
/// assert_eq!(dims.len(), 4); // a slice of `PhysicalDim`, through `Deref`
/// assert_eq!(dims.iter().map(|d| d.stride).collect::<Vec<_>>(), [12, 4, 2, 1]);
/// assert!(dims.is_separable()); // every dim is a digit of y or x
/// let merged: ArrayLayout = "f32[3,5]{1,0:T(*,4)}".parse()?;
/// assert!(!merged.physical_dims().is_separable());
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PhysicalDims {
    rank: u8,
    dims: [PhysicalDim; MAX_PHYSICAL_RANK],
}

impl PhysicalDims {
    /// The dims, major to minor.
    #[inline]
    pub const fn as_slice(&self) -> &[PhysicalDim] {
        self.dims.split_at(self.rank as usize).0
    }

    /// Whether every dim has a digit formula (no [`DigitSource::Mixed`]).
    pub const fn is_separable(&self) -> bool {
        let mut p = 0;
        while p < self.rank as usize {
            if let DigitSource::Mixed = self.dims[p].source {
                return false;
            }
            p += 1;
        }
        true
    }
}

impl core::ops::Deref for PhysicalDims {
    type Target = [PhysicalDim];
    fn deref(&self) -> &[PhysicalDim] {
        self.as_slice()
    }
}

impl core::fmt::Debug for PhysicalDims {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A validated array shape with its layout and known sizes: the run-time
/// layout type. Everything is `const fn`, needs no allocation, and is
/// computed by the one engine that static `layout!` types use too.
///
/// ```
/// use tessera::{ArrayLayout, Slot};
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
/// assert_eq!(a.offset(&[2, 3]), 17);
/// assert_eq!(a.buffer_len(), 24);
/// assert_eq!(a.physical_shape().dims(), &[2, 3, 2, 2]);
/// assert_eq!(a.slot(17), Slot::Element(tessera::DimVec::from_slice(&[2, 3])));
/// assert_eq!(a.slot(22), Slot::Padding); // row 3 does not exist
/// assert_eq!(a.strides(), None); // tiling reorders elements
/// assert!(a.try_offset(&[3, 0]).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayLayout {
    shape: Shape,
    buffer_len: usize,
    element_count: usize,
    physical_byte_size: usize,
}

impl ArrayLayout {
    /// Checks `shape` and computes its sizes. A shape without a layout gets
    /// XLA's default (descending) layout; bounded dimensions take their
    /// bound's room.
    ///
    /// # Errors
    /// A non-array type, an unbounded (`?`) dimension, or a buffer whose
    /// length or byte size is above XLA's `int64` ([`MAX_DIM_SIZE`](crate::limits::MAX_DIM_SIZE)), as
    /// `L(n)` can make it.
    pub const fn new(shape: Shape) -> Result<ArrayLayout, Error> {
        if !shape.is_array() {
            return Err(Error::at(
                ErrorKind::NotAnArrayType {
                    element_type: shape.element_type(),
                },
                Locus::ElementType,
            ));
        }
        let shape = if shape.layout().is_none() {
            shape.with_default_layout()
        } else {
            shape
        };
        let mut i = 0;
        while i < shape.rank() {
            if let Dim::Unbounded = shape.dims()[i] {
                return Err(Error::at(
                    ErrorKind::UnboundedDimension { dim: i },
                    Locus::Dim(i),
                ));
            }
            i += 1;
        }
        let element_count = match shape.element_count() {
            Ok(n) => n,
            Err(e) => return Err(e),
        };
        let buffer_len = match index::buffer_len(&shape) {
            Ok(n) => n,
            Err(e) => return Err(e),
        };
        let physical_byte_size = match bytes_for(&shape, buffer_len) {
            Some(n) => n,
            None => {
                return Err(Error::new(ErrorKind::Overflow {
                    what: "the buffer's byte size",
                }));
            }
        };
        if bytes_for(&shape, element_count).is_none() {
            return Err(Error::new(ErrorKind::Overflow {
                what: "the byte size",
            }));
        }
        Ok(ArrayLayout {
            shape,
            buffer_len,
            element_count,
            physical_byte_size,
        })
    }

    /// An array of static `dims` with XLA's default (row-major) layout
    /// (`ShapeUtil::MakeShape`).
    ///
    /// ```
    /// use tessera::{ArrayLayout, PrimitiveType};
    /// let a = ArrayLayout::make_shape(PrimitiveType::F32, &[3, 5]).unwrap();
    /// assert_eq!(a.to_string(), "f32[3,5]{1,0}");
    /// ```
    ///
    /// # Errors
    /// As [`Shape::new`] and [`ArrayLayout::new`].
    pub const fn make_shape(
        element_type: PrimitiveType,
        dims: &[usize],
    ) -> Result<ArrayLayout, Error> {
        match Shape::new(element_type, dims) {
            Ok(s) => ArrayLayout::new(s),
            Err(e) => Err(e),
        }
    }

    /// An array of static `dims` with the given dense layout
    /// (`ShapeUtil::MakeShapeWithDenseLayout`): `minor_to_major`, `tiles`,
    /// `L(tail_padding_alignment)`, `E(element_size_in_bits)` and
    /// `S(memory_space)`. `E` of 0 means the natural width; `E` equal to a
    /// byte-sized type's own width is stored as 0, as XLA does, while on a
    /// sub-byte type it means packing and is kept.
    ///
    /// ```
    /// use tessera::{ArrayLayout, PrimitiveType, Tile};
    /// let tile = Tile::from_sizes(&[8, 128]).unwrap();
    /// let a = ArrayLayout::make_shape_with_dense_layout(
    ///     PrimitiveType::S4, &[64, 256], &[1, 0], &[tile], 1, 4, 0,
    /// ).unwrap();
    /// assert_eq!(a.to_string(), "s4[64,256]{1,0:T(8,128)E(4)}");
    /// assert_eq!(a.physical_byte_size(), 64 * 256 / 2);
    /// ```
    ///
    /// # Errors
    /// The first rule the layout breaks, or a size that overflows.
    pub const fn make_shape_with_dense_layout(
        element_type: PrimitiveType,
        dims: &[usize],
        minor_to_major: &[usize],
        tiles: &[crate::model::tile::Tile],
        tail_padding_alignment: usize,
        element_size_in_bits: u32,
        memory_space: u32,
    ) -> Result<ArrayLayout, Error> {
        let shape = match Shape::new(element_type, dims) {
            Ok(s) => s,
            Err(e) => return Err(e),
        };
        // XLA stores E equal to the natural width as 0. On a sub-byte type
        // that would turn packing off, so there E(n) is kept.
        let bits =
            if element_size_in_bits == element_type.bit_width() && !element_type.is_sub_byte() {
                0
            } else {
                element_size_in_bits
            };
        let layout = match (LayoutParts {
            tiles,
            tail_padding_alignment,
            element_size_in_bits: bits,
            memory_space,
            ..LayoutParts::new(minor_to_major)
        })
        .build()
        {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        match shape.without_layout().with_layout(layout) {
            Ok(s) => ArrayLayout::new(s),
            Err(e) => Err(e),
        }
    }

    /// Parses XLA's text, e.g. `f32[3,5]{1,0:T(2,2)}` (also `<...>` for the
    /// layout); the same as [`str::parse`].
    ///
    /// # Errors
    /// A syntax error or a broken rule, with the byte span of the offending
    /// part.
    pub fn parse(text: &str) -> Result<ArrayLayout, Error> {
        match crate::text::parse_shape(text) {
            Ok(parsed) => ArrayLayout::new(parsed.shape).map_err(|e| parsed.spans.locate(e)),
            Err(e) => Err(e),
        }
    }

    /// The shape, with its layout.
    #[inline]
    pub const fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The layout.
    #[inline]
    pub const fn layout(&self) -> &Layout {
        match self.shape.layout() {
            Some(l) => l,
            None => panic!("ArrayLayout always has a layout"),
        }
    }

    /// The element type.
    #[inline]
    pub const fn element_type(&self) -> PrimitiveType {
        self.shape.element_type()
    }

    /// Number of dimensions.
    #[inline]
    pub const fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Size of logical dimension `dim` (a bounded dimension's bound).
    ///
    /// # Panics
    /// If `dim >= rank`.
    #[inline]
    pub const fn size(&self, dim: usize) -> usize {
        match self.shape.dims()[dim].size() {
            Some(n) => n,
            None => panic!("ArrayLayout has no unbounded dimensions"),
        }
    }

    /// The sizes of all logical dimensions.
    #[inline]
    pub const fn sizes(&self) -> DimVec {
        let mut v = [0usize; MAX_RANK];
        let mut i = 0;
        while i < self.rank() {
            v[i] = self.size(i);
            i += 1;
        }
        DimVec::from_array(self.rank(), v)
    }

    /// Number of logical elements (`ShapeUtil::ElementsIn`).
    #[inline]
    pub const fn element_count(&self) -> usize {
        self.element_count
    }

    /// Number of slots in the buffer (elements and padding): what offsets
    /// need, rounded up to `L(n)`. For repeated tiling this is the product
    /// of the final tiled shape, which can exceed XLA's `ArraySize` (see
    /// [`layout_util::xla_array_size_bytes`](crate::xla::layout_util::xla_array_size_bytes)).
    #[inline]
    pub const fn buffer_len(&self) -> usize {
        self.buffer_len
    }

    /// Bits one element takes in the buffer: `E(n)`, or the type's width
    /// rounded up to whole bytes when there is no `E(n)`.
    #[inline]
    pub const fn element_size_in_bits(&self) -> usize {
        let e = self.layout().element_size_in_bits();
        if e != 0 {
            e as usize
        } else {
            self.element_type().byte_width() * 8
        }
    }

    /// Bytes of the elements alone: XLA's `ShapeUtil::ByteSizeOf`
    /// (elements × byte width, or `ceil(elements × E / 8)` when packed).
    pub const fn logical_byte_size(&self) -> usize {
        match bytes_for(&self.shape, self.element_count) {
            Some(n) => n,
            None => panic!("checked by ArrayLayout::new"),
        }
    }

    /// Bytes of the whole buffer, padding included (`buffer_len` slots,
    /// packed by `E(n)`).
    pub const fn physical_byte_size(&self) -> usize {
        self.physical_byte_size
    }

    /// The offset (linear index into the buffer, in slots) of the element
    /// at logical `index`, or why there is none.
    ///
    /// # Errors
    /// Wrong number of entries, or an entry out of bounds.
    pub const fn try_offset(&self, index: &[usize]) -> Result<usize, Error> {
        match self.check_index(index) {
            Ok(()) => Ok(index::linear_index(&self.shape, index)),
            Err(e) => Err(e),
        }
    }

    /// The offset of the element at logical `index`.
    ///
    /// # Panics
    /// If `index` has the wrong number of entries or an entry is out of
    /// bounds, with the engine's message naming the dimension, the index
    /// and the bound ([`ArrayLayout::try_offset`] returns it instead).
    #[track_caller]
    pub const fn offset(&self, index: &[usize]) -> usize {
        match self.try_offset(index) {
            Ok(o) => o,
            Err(e) => e.panic(),
        }
    }

    /// The offset of an `index` the caller knows to be in bounds, without
    /// the check. For an index in bounds it equals
    /// [`ArrayLayout::offset`]; otherwise the result is unspecified (but
    /// this never panics, overflows or touches memory).
    pub const fn offset_in_bounds(&self, index: &[usize]) -> usize {
        index::linear_index(&self.shape, index)
    }

    /// Whether `index` has one entry per dimension, each below its size
    /// (`IndexUtil::IndexInBounds`).
    #[inline]
    pub const fn is_in_bounds(&self, index: &[usize]) -> bool {
        index::in_bounds(self.sizes().as_slice(), index)
    }

    /// Checks `index` against the dimensions.
    ///
    /// # Errors
    /// [`ErrorKind::IndexRankMismatch`] or [`ErrorKind::IndexOutOfBounds`]
    /// naming the first offending dimension.
    pub const fn check_index(&self, index: &[usize]) -> Result<(), Error> {
        let sizes = self.sizes();
        index::check_index(sizes.as_slice(), index)
    }

    /// What the slot at `offset` holds: the logical index of its element,
    /// or padding. The inverse of [`ArrayLayout::offset`]
    /// (`LayoutUtil::DelinearizeIndexForNestedTiling`, with padding told
    /// apart).
    ///
    /// # Errors
    /// `offset >= buffer_len`.
    pub const fn try_slot(&self, offset: usize) -> Result<Slot, Error> {
        if offset >= self.buffer_len {
            return Err(Error::new(ErrorKind::OffsetOutOfBounds {
                offset,
                buffer_len: self.buffer_len,
            }));
        }
        match index::delinearize(&self.shape, offset) {
            Some(idx) => Ok(Slot::Element(DimVec::from_array(self.rank(), idx))),
            None => Ok(Slot::Padding),
        }
    }

    /// What the slot at `offset` holds.
    ///
    /// # Panics
    /// If `offset >= buffer_len`, with the engine's message
    /// ([`ArrayLayout::try_slot`] returns it instead).
    #[track_caller]
    pub const fn slot(&self, offset: usize) -> Slot {
        match self.try_slot(offset) {
            Ok(s) => s,
            Err(e) => e.panic(),
        }
    }

    /// The physical (tiled) shape, major to minor.
    pub const fn physical_shape(&self) -> PhysicalShape {
        match index::physical_dims(&self.shape) {
            Ok(w) => {
                // Zero the unused tail so that derived equality compares
                // only the dims.
                let mut dims = [0usize; MAX_PHYSICAL_RANK];
                let mut i = 0;
                while i < w.rank {
                    dims[i] = w.dims[i];
                    i += 1;
                }
                PhysicalShape {
                    rank: w.rank as u8,
                    dims,
                }
            }
            Err(_) => panic!("checked by ArrayLayout::new"),
        }
    }

    /// The physical dims, major to minor, each with its stride and the
    /// digit of the logical index it holds. When
    /// [`is_separable`](PhysicalDims::is_separable), every element's offset
    /// is `sum(stride * digit)` over these dims, which is what iterators and
    /// relayout kernels build their loops from.
    ///
    /// ```
    /// use tessera::{ArrayLayout, DigitSource};
    /// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    /// let dims = a.physical_dims();
    /// // [2 tile rows, 3 tile columns, 2 rows, 2 columns] with strides 12, 4, 2, 1.
    /// assert_eq!(dims.iter().map(|d| (d.size, d.stride)).collect::<Vec<_>>(),
    ///            [(2, 12), (3, 4), (2, 2), (2, 1)]);
    /// assert_eq!(dims[0].source, DigitSource::Logical { dim: 0, div: 2, modulus: None });
    /// assert_eq!(dims[3].source, DigitSource::Logical { dim: 1, div: 1, modulus: Some(2) });
    /// // offset of (2,3) = 12*(2/2) + 4*(3/2) + 2*(2%2) + 1*(3%2) = 17
    /// ```
    pub const fn physical_dims(&self) -> PhysicalDims {
        let map = index::digit_map(&self.shape);
        let empty = PhysicalDim {
            size: 0,
            stride: 0,
            source: DigitSource::Constant,
        };
        let mut dims = [empty; MAX_PHYSICAL_RANK];
        let mut p = 0;
        while p < map.rank {
            let g = map.digits[p];
            dims[p] = PhysicalDim {
                size: map.dims[p],
                stride: map.strides[p],
                source: match g.var {
                    index::CONSTANT => DigitSource::Constant,
                    index::MIXED => DigitSource::Mixed,
                    dim => DigitSource::Logical {
                        dim,
                        div: g.div,
                        modulus: if g.modulus == 0 {
                            None
                        } else {
                            Some(g.modulus)
                        },
                    },
                },
            };
            p += 1;
        }
        PhysicalDims {
            rank: map.rank as u8,
            dims,
        }
    }

    /// Element strides per logical dimension, when the offset is
    /// `sum(index[d] * stride[d])`: untiled layouts, and tiles that keep
    /// row-major order (such as `T(8,128)` on `f32[24,128]`). `None` when
    /// tiling reorders elements.
    pub const fn strides(&self) -> Option<DimVec> {
        if !index::is_strided(&self.shape) {
            return None;
        }
        let n = self.rank();
        let mut unit = [0usize; MAX_RANK];
        let mut out = [0usize; MAX_RANK];
        let mut d = 0;
        while d < n {
            unit[d] = 1;
            out[d] = index::linear_index(&self.shape, unit.split_at(n).0);
            unit[d] = 0;
            d += 1;
        }
        Some(DimVec::from_array(n, out))
    }

    /// Byte strides per logical dimension (`ShapeUtil::ByteStrides`):
    /// element strides times the element size; `None` when not strided,
    /// when elements are packed below a byte (`E(n)` not a multiple of 8),
    /// or when a byte stride does not fit `usize` (a dimension of size 0
    /// leaves the buffer empty but the strides of the others as large as
    /// their sizes make them: `f32[0,9223372036854775807]`).
    ///
    /// ```
    /// use tessera::ArrayLayout;
    /// let a: ArrayLayout = "f32[3,5]{0,1}".parse()?;
    /// assert_eq!(a.byte_strides().unwrap().as_slice(), [4, 12]);
    /// let huge: ArrayLayout = "f32[0,9223372036854775807]".parse()?;
    /// assert_eq!(huge.byte_strides(), None);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub const fn byte_strides(&self) -> Option<DimVec> {
        let bits = self.element_size_in_bits();
        if !bits.is_multiple_of(8) {
            return None;
        }
        match self.strides() {
            Some(s) => {
                let mut v = [0usize; MAX_RANK];
                let mut i = 0;
                while i < self.rank() {
                    v[i] = match s.values[i].checked_mul(bits / 8) {
                        Some(b) => b,
                        None => return None,
                    };
                    i += 1;
                }
                Some(DimVec::from_array(self.rank(), v))
            }
            None => None,
        }
    }

    /// Whether the layout is plain row-major: descending `minor_to_major`,
    /// offsets `0..element_count` in logical order with no padding.
    pub const fn is_row_major_dense(&self) -> bool {
        if !self.layout().is_descending() || self.buffer_len != self.element_count {
            return false;
        }
        match self.strides() {
            Some(s) => {
                let mut expect = 1usize;
                let mut d = self.rank();
                while d > 0 {
                    d -= 1;
                    if self.size(d) > 1 && s.values[d] != expect {
                        return false;
                    }
                    expect = expect.wrapping_mul(self.size(d));
                }
                true
            }
            None => false,
        }
    }
}

/// Bytes for `slots` elements of `shape`'s element type under its layout's
/// `E(n)`, or `None` above XLA's `int64` (`MAX_DIM_SIZE`).
const fn bytes_for(shape: &Shape, slots: usize) -> Option<usize> {
    let e = match shape.layout() {
        Some(l) => l.element_size_in_bits(),
        None => 0,
    };
    crate::element::bytes_of_slots(shape.element_type(), e, slots)
}

impl core::str::FromStr for ArrayLayout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        ArrayLayout::parse(s)
    }
}

impl core::fmt::Display for ArrayLayout {
    /// XLA's canonical text, e.g. `f32[3,5]{1,0:T(2,2)}`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.shape, f)
    }
}
