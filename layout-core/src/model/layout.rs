//! XLA's `Layout`: `minor_to_major`, tiles and attributes, plus tessera's
//! padding extension. Plain `Copy` data with fixed capacity.
//!
//! A `Layout` on its own is checked only for what it can check without a
//! shape (capacities, tile entries, value ranges); the rules that relate it
//! to a shape are in [`validate`](crate::validate), applied by
//! [`Shape::with_layout`](crate::Shape::with_layout).

use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind, Locus};
use crate::limits::{MAX_RANK, MAX_SPLIT_CONFIGS, MAX_SPLIT_INDICES, MAX_TILE_LEVELS};
use crate::model::tile::Tile;

/// What padding slots of tessera's `pad(...)` extension hold (XLA's old
/// `PaddingValue`).
///
/// ```
/// use tessera::{ArrayLayout, PaddingValue};
/// let a: ArrayLayout = "f32[3,5]{1,0:pad(4,8:lowest)}".parse()?;
/// assert_eq!(a.layout().padding().unwrap().value(), PaddingValue::Lowest);
/// assert_eq!(PaddingValue::from_name("lowest"), Some(PaddingValue::Lowest));
/// assert_eq!(PaddingValue::default().name(), ""); // `Unspecified`, not written
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PaddingValue {
    /// Nothing is promised about padding slots (the default; also what
    /// XLA says of tile padding).
    #[default]
    Unspecified,
    /// Padding slots hold zero.
    Zero,
    /// Padding slots hold one.
    One,
    /// Padding slots hold the element type's lowest value.
    Lowest,
    /// Padding slots hold the element type's highest value.
    Highest,
}

impl PaddingValue {
    /// The word used in `pad(...:word)`; empty for `Unspecified`.
    pub const fn name(self) -> &'static str {
        match self {
            PaddingValue::Unspecified => "",
            PaddingValue::Zero => "zero",
            PaddingValue::One => "one",
            PaddingValue::Lowest => "lowest",
            PaddingValue::Highest => "highest",
        }
    }

    /// The value named `word` (`zero`, `one`, `lowest`, `highest`).
    pub const fn from_name(word: &str) -> Option<Self> {
        use crate::element::bytes_eq;
        let w = word.as_bytes();
        if bytes_eq(w, b"zero") {
            Some(PaddingValue::Zero)
        } else if bytes_eq(w, b"one") {
            Some(PaddingValue::One)
        } else if bytes_eq(w, b"lowest") {
            Some(PaddingValue::Lowest)
        } else if bytes_eq(w, b"highest") {
            Some(PaddingValue::Highest)
        } else {
            None
        }
    }
}

/// Tessera's padding extension (XLA's old `padded_dimensions` and
/// `padding_value`): each logical dimension `i` is padded to width
/// `padded_dims[i] >= dims[i]` before `minor_to_major` and tiling apply.
///
/// Written `pad(8,16)` or `pad(8,16:zero)` at the end of the layout's
/// attributes. XLA has no text for it, and lower-case attribute names
/// cannot collide with XLA's upper-case letters.
///
/// ```
/// use tessera::{ArrayLayout, PaddingValue};
/// let a: ArrayLayout = "f32[3,5]{1,0:pad(4,8:zero)}".parse()?;
/// let p = a.layout().padding().unwrap();
/// assert_eq!((p.padded_dims(), p.value()), (&[4, 8][..], PaddingValue::Zero));
/// // y is padded to 4 rows, x to 8 columns: rows are 8 slots apart.
/// assert_eq!(a.buffer_len(), 32);
/// assert_eq!(a.offset(&[1, 0]), 8);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Padding {
    rank: u8,
    padded_dims: [usize; MAX_RANK],
    value: PaddingValue,
}

impl Padding {
    /// Padding to `padded_dims` (indexed by logical dimension).
    ///
    /// # Errors
    /// More than [`MAX_RANK`] entries.
    pub const fn new(padded_dims: &[usize], value: PaddingValue) -> Result<Padding, Error> {
        if padded_dims.len() > MAX_RANK {
            return Err(Error::at(
                ErrorKind::RankTooLarge {
                    rank: padded_dims.len(),
                    max: MAX_RANK,
                },
                Locus::Attribute("pad"),
            ));
        }
        let mut dims = [0usize; MAX_RANK];
        let mut i = 0;
        while i < padded_dims.len() {
            dims[i] = padded_dims[i];
            i += 1;
        }
        Ok(Padding {
            rank: padded_dims.len() as u8,
            padded_dims: dims,
            value,
        })
    }

    /// The padded widths, by logical dimension.
    pub const fn padded_dims(&self) -> &[usize] {
        self.padded_dims.split_at(self.rank as usize).0
    }

    /// What padding slots hold.
    pub const fn value(&self) -> PaddingValue {
        self.value
    }
}

/// One `SC(d:i,j,...)` entry: physical dimension `d` (counted from the
/// major end) is split at the given indices. Tessera stores, prints and
/// compares split configs and uses them in [`xla_array_size_bytes`]; they do
/// not move elements.
///
/// ```
/// use tessera::{Layout, SplitConfig};
/// let l: Layout = "{1,0:SC(0:10)(1:4,5)}".parse()?;
/// assert_eq!(l.split_configs(), [SplitConfig::new(0, &[10])?, SplitConfig::new(1, &[4, 5])?]);
/// assert_eq!(l.split_configs()[1].dimension(), 1);
/// assert_eq!(l.split_configs()[1].split_indices(), &[4, 5]);
/// # Ok::<(), tessera::Error>(())
/// ```
///
/// [`xla_array_size_bytes`]: crate::xla::layout_util::xla_array_size_bytes
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitConfig {
    dimension: usize,
    count: u8,
    split_indices: [u64; MAX_SPLIT_INDICES],
}

impl SplitConfig {
    /// A split of physical dimension `dimension` at `split_indices`.
    ///
    /// # Errors
    /// More than [`MAX_SPLIT_INDICES`] indices.
    pub const fn new(dimension: usize, split_indices: &[u64]) -> Result<SplitConfig, Error> {
        if split_indices.len() > MAX_SPLIT_INDICES {
            return Err(Error::new(ErrorKind::TooManySplits {
                max: MAX_SPLIT_INDICES,
            }));
        }
        let mut idx = [0u64; MAX_SPLIT_INDICES];
        let mut i = 0;
        while i < split_indices.len() {
            idx[i] = split_indices[i];
            i += 1;
        }
        Ok(SplitConfig {
            dimension,
            count: split_indices.len() as u8,
            split_indices: idx,
        })
    }

    /// The physical dimension, counted from the major end.
    pub const fn dimension(&self) -> usize {
        self.dimension
    }

    /// Where the dimension is split.
    pub const fn split_indices(&self) -> &[u64] {
        self.split_indices.split_at(self.count as usize).0
    }
}

/// XLA's `physical_shape` layout field, `P(s32[10,20]{1,0})`: the dense
/// shape that stores a sparse array. Only sparse layouts use it and tessera
/// does not support them, so validation against a shape rejects it; it is
/// stored so that XLA layouts can be represented, printed and compared.
///
/// ```
/// use tessera::{Layout, PrimitiveType, Shape, SparsePhysicalShape};
/// let l: Layout = "{0:P(s32[10,20]{1,0})}".parse()?;
/// let p = l.sparse_physical_shape().unwrap();
/// assert_eq!(p, SparsePhysicalShape::new(PrimitiveType::S32, &[10, 20], &[1, 0])?);
/// assert_eq!(l.to_string(), "{0:P(s32[10,20]{1,0})}");
/// assert!("f32[8]{0:P(s32[10,20]{1,0})}".parse::<Shape>().is_err()); // sparse
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SparsePhysicalShape {
    element_type: PrimitiveType,
    rank: u8,
    dims: [usize; MAX_RANK],
    minor_to_major: [u8; MAX_RANK],
}

impl SparsePhysicalShape {
    /// A physical shape of `dims` with `minor_to_major`, which the rules
    /// of [`validate`](crate::validate) accept for them (the checked
    /// [`SparsePhysicalShape::new`] calls this).
    pub(crate) const fn from_valid_parts(
        element_type: PrimitiveType,
        dims: &[usize],
        minor_to_major: &[u8],
    ) -> SparsePhysicalShape {
        let mut d = [0usize; MAX_RANK];
        let mut m = [0u8; MAX_RANK];
        let mut i = 0;
        while i < dims.len() {
            d[i] = dims[i];
            m[i] = minor_to_major[i];
            i += 1;
        }
        SparsePhysicalShape {
            element_type,
            rank: dims.len() as u8,
            dims: d,
            minor_to_major: m,
        }
    }

    /// The element type.
    pub const fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// The dimensions.
    pub const fn dims(&self) -> &[usize] {
        self.dims.split_at(self.rank as usize).0
    }

    /// Its `minor_to_major`.
    pub const fn minor_to_major(&self) -> &[u8] {
        self.minor_to_major.split_at(self.rank as usize).0
    }
}

/// Which fields [`Layout::equal_ignoring`] leaves out (XLA's
/// `Layout::Equal` builder).
///
/// ```
/// use tessera::{Layout, LayoutEquality};
/// let tiled: Layout = "{1,0:T(8,128)}".parse()?;
/// let plain: Layout = "{1,0}".parse()?;
/// assert!(!tiled.equal_ignoring(&plain, LayoutEquality::XLA));
/// assert!(tiled.equal_ignoring(&plain, LayoutEquality::MINOR_TO_MAJOR_ONLY));
/// let no_tiles = LayoutEquality { ignore_tiles: true, ..LayoutEquality::XLA };
/// assert!(tiled.equal_ignoring(&plain, no_tiles));
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LayoutEquality {
    /// Ignore tiles (`IgnoreTiles`).
    pub ignore_tiles: bool,
    /// Ignore `L(n)` (`IgnoreTailPaddingAlignmentInElements`).
    pub ignore_tail_padding_alignment: bool,
    /// Ignore `#(..)` (`IgnoreIndexPrimitiveType`).
    pub ignore_index_primitive_type: bool,
    /// Ignore `*(..)` (`IgnorePointerPrimitiveType`).
    pub ignore_pointer_primitive_type: bool,
    /// Ignore `S(n)` (`IgnoreMemorySpace`).
    pub ignore_memory_space: bool,
    /// Ignore `SC(..)` (`IgnoreSplitConfigs`).
    pub ignore_split_configs: bool,
    /// Ignore `E(n)` (`IgnoreElementSize`).
    pub ignore_element_size: bool,
    /// Ignore tessera's `pad(..)`.
    pub ignore_padding: bool,
    /// Ignore `P(..)` (`IgnorePhysicalShape`).
    pub ignore_physical_shape: bool,
    /// Compare `M(n)` too (XLA's `Layout::Equal` never does).
    pub compare_dynamic_shape_metadata_prefix_bytes: bool,
}

impl LayoutEquality {
    /// Compare everything XLA's `Layout::Equal` compares (all but `M`).
    pub const XLA: LayoutEquality = LayoutEquality {
        ignore_tiles: false,
        ignore_tail_padding_alignment: false,
        ignore_index_primitive_type: false,
        ignore_pointer_primitive_type: false,
        ignore_memory_space: false,
        ignore_split_configs: false,
        ignore_element_size: false,
        ignore_padding: false,
        ignore_physical_shape: false,
        compare_dynamic_shape_metadata_prefix_bytes: false,
    };

    /// Compare `minor_to_major` only (XLA's `MinorToMajorOnly`).
    pub const MINOR_TO_MAJOR_ONLY: LayoutEquality = LayoutEquality {
        ignore_tiles: true,
        ignore_tail_padding_alignment: true,
        ignore_index_primitive_type: true,
        ignore_pointer_primitive_type: true,
        ignore_memory_space: true,
        ignore_split_configs: true,
        ignore_element_size: true,
        ignore_padding: true,
        ignore_physical_shape: true,
        compare_dynamic_shape_metadata_prefix_bytes: false,
    };
}

/// XLA's `Layout`: how an array's elements are placed in memory.
///
/// - `minor_to_major` lists the logical dimensions from fastest-varying to
///   slowest; `{1,0}` is row-major for rank 2 (XLA's default, descending).
/// - `tiles` (`T(8,128)(2,1)`): each level pads the most-minor physical
///   dimensions to whole tiles and lays tiles out one after another.
/// - `L(n)` tail padding alignment in elements, `E(n)` element size in bits
///   (sub-byte packing), `S(n)` memory space, `SC(..)` split configs,
///   `M(n)` dynamic shape metadata prefix bytes.
/// - `pad(..)`: tessera's padding extension ([`Padding`]).
///
/// Equality with `==` compares every field. [`Layout::equal_ignoring`]
/// gives XLA's `Layout::Equal` (which leaves `M` out) and its variants.
///
/// ```
/// use tessera::{Layout, Tile};
/// let l = Layout::new(&[1, 0]).unwrap()
///     .with_tiles(&[Tile::from_sizes(&[8, 128]).unwrap(), Tile::from_sizes(&[2, 1]).unwrap()])
///     .unwrap();
/// assert_eq!(l.to_string(), "{1,0:T(8,128)(2,1)}");
/// assert_eq!(l.minor_to_major(), &[1, 0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    rank: u8,
    minor_to_major: [u8; MAX_RANK],
    tile_count: u8,
    tiles: [Tile; MAX_TILE_LEVELS],
    tail_padding_alignment_in_elements: usize,
    index_primitive_type: Option<PrimitiveType>,
    pointer_primitive_type: Option<PrimitiveType>,
    element_size_in_bits: u32,
    memory_space: u8,
    split_config_count: u8,
    split_configs: [SplitConfig; MAX_SPLIT_CONFIGS],
    dynamic_shape_metadata_prefix_bytes: usize,
    physical_shape: Option<SparsePhysicalShape>,
    padding: Option<Padding>,
}

const EMPTY_TILE: Tile = match Tile::from_sizes(&[1]) {
    Ok(t) => t,
    Err(_) => panic!("unreachable"),
};
const EMPTY_SPLIT: SplitConfig = match SplitConfig::new(0, &[]) {
    Ok(s) => s,
    Err(_) => panic!("unreachable"),
};

impl Layout {
    /// The layout with no dimensions and no attributes, `{}` (a scalar's).
    pub const EMPTY: Layout = Layout {
        rank: 0,
        minor_to_major: [0; MAX_RANK],
        tile_count: 0,
        tiles: [EMPTY_TILE; MAX_TILE_LEVELS],
        tail_padding_alignment_in_elements: 1,
        index_primitive_type: None,
        pointer_primitive_type: None,
        element_size_in_bits: 0,
        memory_space: 0,
        split_config_count: 0,
        split_configs: [EMPTY_SPLIT; MAX_SPLIT_CONFIGS],
        dynamic_shape_metadata_prefix_bytes: 0,
        physical_shape: None,
        padding: None,
    };

    /// A layout with the given `minor_to_major` and no attributes
    /// (`LayoutUtil::MakeLayout`). Whether it fits a shape is checked when
    /// it is put on one.
    ///
    /// # Errors
    /// More than [`MAX_RANK`] entries, or an entry that cannot be a
    /// dimension of a shape of this rank.
    pub const fn new(minor_to_major: &[usize]) -> Result<Layout, Error> {
        let n = minor_to_major.len();
        if n > MAX_RANK {
            return Err(Error::at(
                ErrorKind::RankTooLarge {
                    rank: n,
                    max: MAX_RANK,
                },
                Locus::MinorToMajor,
            ));
        }
        let mut l = Layout::EMPTY;
        let mut i = 0;
        while i < n {
            if minor_to_major[i] >= MAX_RANK {
                return Err(Error::at(
                    ErrorKind::MinorToMajorOutOfRange {
                        value: if minor_to_major[i] > i64::MAX as usize {
                            i64::MAX
                        } else {
                            minor_to_major[i] as i64
                        },
                        rank: n,
                    },
                    Locus::MinorToMajorEntry(i),
                ));
            }
            l.minor_to_major[i] = minor_to_major[i] as u8;
            i += 1;
        }
        l.rank = n as u8;
        Ok(l)
    }

    /// `{rank-1,...,1,0}`: row-major, XLA's default
    /// (`LayoutUtil::MakeDescendingLayout`).
    ///
    /// # Panics
    /// If `rank > MAX_RANK`.
    pub const fn descending(rank: usize) -> Layout {
        assert!(rank <= MAX_RANK, "rank above MAX_RANK");
        let mut l = Layout::EMPTY;
        let mut i = 0;
        while i < rank {
            l.minor_to_major[i] = (rank - 1 - i) as u8;
            i += 1;
        }
        l.rank = rank as u8;
        l
    }

    /// `{0,1,...,rank-1}`: column-major (`LayoutUtil::MakeAscendingLayout`).
    ///
    /// # Panics
    /// If `rank > MAX_RANK`.
    pub const fn ascending(rank: usize) -> Layout {
        assert!(rank <= MAX_RANK, "rank above MAX_RANK");
        let mut l = Layout::EMPTY;
        let mut i = 0;
        while i < rank {
            l.minor_to_major[i] = i as u8;
            i += 1;
        }
        l.rank = rank as u8;
        l
    }

    /// A layout from its major-to-minor order
    /// (`LayoutUtil::MakeLayoutFromMajorToMinor`).
    ///
    /// # Errors
    /// As [`Layout::new`].
    pub const fn from_major_to_minor(major_to_minor: &[usize]) -> Result<Layout, Error> {
        let n = major_to_minor.len();
        if n > MAX_RANK {
            return Err(Error::at(
                ErrorKind::RankTooLarge {
                    rank: n,
                    max: MAX_RANK,
                },
                Locus::MinorToMajor,
            ));
        }
        let mut m2m = [0usize; MAX_RANK];
        let mut i = 0;
        while i < n {
            m2m[i] = major_to_minor[n - 1 - i];
            i += 1;
        }
        Layout::new(m2m.split_at(n).0)
    }

    /// The same layout with `tiles`.
    ///
    /// # Errors
    /// More than [`MAX_TILE_LEVELS`] levels.
    pub const fn with_tiles(mut self, tiles: &[Tile]) -> Result<Layout, Error> {
        if tiles.len() > MAX_TILE_LEVELS {
            return Err(Error::at(
                ErrorKind::TooManyTileLevels {
                    max: MAX_TILE_LEVELS,
                },
                Locus::Tile(MAX_TILE_LEVELS),
            ));
        }
        let mut i = 0;
        while i < MAX_TILE_LEVELS {
            self.tiles[i] = if i < tiles.len() {
                tiles[i]
            } else {
                EMPTY_TILE
            };
            i += 1;
        }
        self.tile_count = tiles.len() as u8;
        Ok(self)
    }

    /// The same layout with `L(alignment)`: the buffer length is rounded up
    /// to a multiple of `alignment` elements.
    ///
    /// # Errors
    /// `alignment == 0`.
    pub const fn with_tail_padding_alignment(mut self, alignment: usize) -> Result<Layout, Error> {
        if alignment == 0 {
            return Err(Error::at(
                ErrorKind::TailPaddingAlignmentZero,
                Locus::Attribute("L"),
            ));
        }
        self.tail_padding_alignment_in_elements = alignment;
        Ok(self)
    }

    /// The same layout with `E(bits)` (0 means the type's natural width).
    /// Checked against the element type when put on a shape.
    pub const fn with_element_size_in_bits(mut self, bits: u32) -> Layout {
        self.element_size_in_bits = bits;
        self
    }

    /// The same layout with `S(space)`.
    ///
    /// # Errors
    /// `space > 127` (XLA keeps it in an `int8`).
    pub const fn with_memory_space(mut self, space: u32) -> Result<Layout, Error> {
        if space > 127 {
            return Err(Error::at(
                ErrorKind::MemorySpaceOutOfRange,
                Locus::Attribute("S"),
            ));
        }
        self.memory_space = space as u8;
        Ok(self)
    }

    /// The same layout with `SC(...)`.
    ///
    /// # Errors
    /// More than [`MAX_SPLIT_CONFIGS`] configs.
    pub const fn with_split_configs(mut self, configs: &[SplitConfig]) -> Result<Layout, Error> {
        if configs.len() > MAX_SPLIT_CONFIGS {
            return Err(Error::at(
                ErrorKind::TooManySplits {
                    max: MAX_SPLIT_CONFIGS,
                },
                Locus::Attribute("SC"),
            ));
        }
        let mut i = 0;
        while i < MAX_SPLIT_CONFIGS {
            self.split_configs[i] = if i < configs.len() {
                configs[i]
            } else {
                EMPTY_SPLIT
            };
            i += 1;
        }
        self.split_config_count = configs.len() as u8;
        Ok(self)
    }

    /// The same layout with `M(bytes)`.
    pub const fn with_dynamic_shape_metadata_prefix_bytes(mut self, bytes: usize) -> Layout {
        self.dynamic_shape_metadata_prefix_bytes = bytes;
        self
    }

    /// The same layout with tessera's `pad(...)` extension. A padding of no
    /// dims (what deleting a rank-1 shape's dim leaves) pads nothing and is
    /// dropped, as `pad()` is not text that parses.
    pub const fn with_padding(mut self, padding: Option<Padding>) -> Layout {
        self.padding = match padding {
            Some(p) if p.padded_dims().is_empty() => None,
            other => other,
        };
        self
    }

    /// The same layout with `#(type)`. Only sparse layouts use it, and
    /// tessera does not support them: validation against a shape fails. It
    /// exists so XLA layouts can be represented, printed and compared.
    pub const fn with_index_primitive_type(mut self, t: Option<PrimitiveType>) -> Layout {
        self.index_primitive_type = t;
        self
    }

    /// The same layout with `*(type)`; see
    /// [`Layout::with_index_primitive_type`].
    pub const fn with_pointer_primitive_type(mut self, t: Option<PrimitiveType>) -> Layout {
        self.pointer_primitive_type = t;
        self
    }

    /// The same layout with another `minor_to_major` (of any rank) and
    /// `padding`, every other attribute kept, `P(..)` included: what XLA's
    /// utilities do when they permute, insert or delete dimensions (copy
    /// the layout, edit its `minor_to_major`).
    ///
    /// # Errors
    /// As [`Layout::new`].
    pub(crate) const fn with_minor_to_major_and_padding(
        mut self,
        minor_to_major: &[usize],
        padding: Option<Padding>,
    ) -> Result<Layout, Error> {
        let order = match Layout::new(minor_to_major) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        self.rank = order.rank;
        self.minor_to_major = order.minor_to_major;
        self.padding = padding;
        Ok(self)
    }

    /// The same layout with `P(shape)`; see
    /// [`Layout::with_index_primitive_type`].
    pub const fn with_sparse_physical_shape(
        mut self,
        shape: Option<SparsePhysicalShape>,
    ) -> Layout {
        self.physical_shape = shape;
        self
    }

    /// `P(shape)`, sparse only.
    pub const fn sparse_physical_shape(&self) -> Option<SparsePhysicalShape> {
        self.physical_shape
    }

    /// Number of `minor_to_major` entries.
    pub const fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The logical dimensions from most minor (fastest-varying) to most
    /// major.
    pub const fn minor_to_major(&self) -> &[u8] {
        self.minor_to_major.split_at(self.rank as usize).0
    }

    /// `minor_to_major[i]` (`LayoutUtil::Minor`).
    ///
    /// # Panics
    /// If `i >= rank`.
    pub const fn minor(&self, i: usize) -> usize {
        assert!(i < self.rank as usize, "physical position out of range");
        self.minor_to_major[i] as usize
    }

    /// The logical dimension at physical position `i` counted from the
    /// major end (`LayoutUtil::Major`).
    ///
    /// # Panics
    /// If `i >= rank`.
    pub const fn major(&self, i: usize) -> usize {
        assert!(i < self.rank as usize, "physical position out of range");
        self.minor_to_major[self.rank as usize - 1 - i] as usize
    }

    /// The tile levels, outermost first.
    pub const fn tiles(&self) -> &[Tile] {
        self.tiles.split_at(self.tile_count as usize).0
    }

    /// `L(n)`, 1 by default.
    pub const fn tail_padding_alignment_in_elements(&self) -> usize {
        self.tail_padding_alignment_in_elements
    }

    /// `E(n)`, 0 meaning the element type's natural width.
    pub const fn element_size_in_bits(&self) -> u32 {
        self.element_size_in_bits
    }

    /// `S(n)`, 0 by default.
    pub const fn memory_space(&self) -> u32 {
        self.memory_space as u32
    }

    /// `SC(...)`.
    pub const fn split_configs(&self) -> &[SplitConfig] {
        self.split_configs
            .split_at(self.split_config_count as usize)
            .0
    }

    /// `M(n)`, 0 by default.
    pub const fn dynamic_shape_metadata_prefix_bytes(&self) -> usize {
        self.dynamic_shape_metadata_prefix_bytes
    }

    /// Tessera's `pad(...)` extension, if present.
    pub const fn padding(&self) -> Option<Padding> {
        self.padding
    }

    /// `#(type)`, sparse only.
    pub const fn index_primitive_type(&self) -> Option<PrimitiveType> {
        self.index_primitive_type
    }

    /// `*(type)`, sparse only.
    pub const fn pointer_primitive_type(&self) -> Option<PrimitiveType> {
        self.pointer_primitive_type
    }

    /// Whether `minor_to_major` is `{rank-1,...,0}` (row-major;
    /// `LayoutUtil::HasDescendingLayout` without the tile check).
    pub const fn is_descending(&self) -> bool {
        let n = self.rank as usize;
        let mut i = 0;
        while i < n {
            if self.minor_to_major[i] as usize != n - 1 - i {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether `minor_to_major` is `{0,...,rank-1}`.
    pub const fn is_ascending(&self) -> bool {
        let mut i = 0;
        while i < self.rank as usize {
            if self.minor_to_major[i] as usize != i {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether the layout has any tiles.
    pub const fn is_tiled(&self) -> bool {
        self.tile_count > 0
    }

    /// XLA's `Layout::Equal` with the given fields ignored.
    ///
    /// ```
    /// use tessera::{Layout, LayoutEquality};
    /// let a = Layout::new(&[1, 0]).unwrap().with_memory_space(1).unwrap();
    /// let b = Layout::new(&[1, 0]).unwrap();
    /// assert!(!a.equal_ignoring(&b, LayoutEquality::XLA));
    /// assert!(a.equal_ignoring(&b, LayoutEquality { ignore_memory_space: true, ..LayoutEquality::XLA }));
    /// ```
    pub fn equal_ignoring(&self, other: &Layout, ignore: LayoutEquality) -> bool {
        self.minor_to_major() == other.minor_to_major()
            && (ignore.ignore_tiles || self.tiles() == other.tiles())
            && (ignore.ignore_tail_padding_alignment
                || self.tail_padding_alignment_in_elements
                    == other.tail_padding_alignment_in_elements)
            && (ignore.ignore_index_primitive_type
                || self.index_primitive_type == other.index_primitive_type)
            && (ignore.ignore_pointer_primitive_type
                || self.pointer_primitive_type == other.pointer_primitive_type)
            && (ignore.ignore_memory_space || self.memory_space == other.memory_space)
            && (ignore.ignore_split_configs || self.split_configs() == other.split_configs())
            && (ignore.ignore_element_size
                || self.element_size_in_bits == other.element_size_in_bits)
            && (ignore.ignore_padding || self.padding == other.padding)
            && (ignore.ignore_physical_shape || self.physical_shape == other.physical_shape)
            && (!ignore.compare_dynamic_shape_metadata_prefix_bytes
                || self.dynamic_shape_metadata_prefix_bytes
                    == other.dynamic_shape_metadata_prefix_bytes)
    }

    /// The layout with logical dimension `dim` removed from
    /// `minor_to_major` and the higher dimensions renumbered
    /// (`Layout::DeleteDimension`). Tiles are left as they are, as XLA does.
    ///
    /// # Errors
    /// `dim` not in `minor_to_major`.
    pub const fn delete_dimension(mut self, dim: usize) -> Result<Layout, Error> {
        let n = self.rank as usize;
        let mut out = [0u8; MAX_RANK];
        let mut k = 0;
        let mut found = false;
        let mut i = 0;
        while i < n {
            let d = self.minor_to_major[i] as usize;
            if d == dim {
                found = true;
            } else {
                out[k] = if d > dim { (d - 1) as u8 } else { d as u8 };
                k += 1;
            }
            i += 1;
        }
        if !found {
            return Err(Error::new(ErrorKind::DimensionOutOfRange {
                dim: dim as i64,
                rank: n,
            }));
        }
        self.minor_to_major = out;
        self.rank = k as u8;
        Ok(self)
    }

    /// The same `minor_to_major` with every attribute at its default (no
    /// tiles, no padding): XLA's `MinorToMajorOnly` view of a layout.
    pub const fn minor_to_major_only(&self) -> Layout {
        let mut l = Layout::EMPTY;
        l.rank = self.rank;
        l.minor_to_major = self.minor_to_major;
        l
    }

    /// Whether the layout prints as `{}`: no dimensions and every attribute
    /// at its default.
    pub const fn is_empty(&self) -> bool {
        self.rank == 0 && !self.has_attributes()
    }

    /// Whether any attribute is set to a non-default value (so the printed
    /// form has a `:` part).
    pub const fn has_attributes(&self) -> bool {
        self.tile_count > 0
            || self.tail_padding_alignment_in_elements != 1
            || self.index_primitive_type.is_some()
            || self.pointer_primitive_type.is_some()
            || self.element_size_in_bits != 0
            || self.memory_space != 0
            || self.split_config_count > 0
            || self.dynamic_shape_metadata_prefix_bytes > 0
            || self.physical_shape.is_some()
            || self.padding.is_some()
    }
}

/// A [`Layout`]'s fields by name, to assemble one from parts: the one
/// constructor behind the static and mixed layouts' types and
/// [`ArrayLayout::make_shape_with_dense_layout`]. Start from
/// [`LayoutParts::new`] (every attribute at its default) and set fields
/// with struct update syntax; [`LayoutParts::build`] checks them in the
/// order [`Layout::new`] and the `with_` methods do.
///
/// ```
/// use tessera::{LayoutParts, Tile};
/// let tiles = [Tile::from_sizes(&[2, 2])?];
/// let layout = LayoutParts {
///     tiles: &tiles,
///     tail_padding_alignment: 8,
///     ..LayoutParts::new(&[1, 0])
/// }
/// .build()?;
/// assert_eq!(layout.tiles().len(), 1);
/// assert_eq!(layout.tail_padding_alignment_in_elements(), 8);
/// # Ok::<(), tessera::Error>(())
/// ```
///
/// [`ArrayLayout::make_shape_with_dense_layout`]: crate::ArrayLayout::make_shape_with_dense_layout
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutParts<'a> {
    /// `minor_to_major`: logical dimensions from most minor to most major.
    pub minor_to_major: &'a [usize],
    /// `T(..)`: the tile levels, outermost first.
    pub tiles: &'a [Tile],
    /// `L(n)`: tail padding alignment in elements (1 for none).
    pub tail_padding_alignment: usize,
    /// `E(n)`: element size in bits, stored as given (0 for natural).
    pub element_size_in_bits: u32,
    /// `S(n)`: memory space.
    pub memory_space: u32,
    /// `SC(..)`: split configs.
    pub split_configs: &'a [SplitConfig],
    /// `M(n)`: dynamic shape metadata prefix bytes.
    pub dynamic_shape_metadata_prefix_bytes: usize,
    /// `pad(..)`: padded dims, if any.
    pub padding: Option<Padding>,
}

impl<'a> LayoutParts<'a> {
    /// `minor_to_major` with every other attribute at its default.
    pub const fn new(minor_to_major: &'a [usize]) -> LayoutParts<'a> {
        LayoutParts {
            minor_to_major,
            tiles: &[],
            tail_padding_alignment: 1,
            element_size_in_bits: 0,
            memory_space: 0,
            split_configs: &[],
            dynamic_shape_metadata_prefix_bytes: 0,
            padding: None,
        }
    }

    /// The layout, checked field by field in this order: `minor_to_major`,
    /// `tiles`, `L`, `S`, `SC` (`E`, `M` and `pad` are stored as given;
    /// `pad` is checked against a shape by [`Shape::with_layout`]).
    ///
    /// # Errors
    /// The first field that breaks a rule, as [`Layout::new`] and the
    /// `with_` methods report it.
    ///
    /// [`Shape::with_layout`]: crate::Shape::with_layout
    pub const fn build(&self) -> Result<Layout, Error> {
        let layout = match Layout::new(self.minor_to_major) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let layout = match layout.with_tiles(self.tiles) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let layout = match layout.with_tail_padding_alignment(self.tail_padding_alignment) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let layout = match layout
            .with_element_size_in_bits(self.element_size_in_bits)
            .with_memory_space(self.memory_space)
        {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let layout = match layout.with_split_configs(self.split_configs) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        Ok(layout
            .with_dynamic_shape_metadata_prefix_bytes(self.dynamic_shape_metadata_prefix_bytes)
            .with_padding(self.padding))
    }
}
