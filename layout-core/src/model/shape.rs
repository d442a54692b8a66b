//! XLA's `Shape` for arrays (and `token`/`opaque`): element type,
//! dimensions and an optional [`Layout`].

use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind, Locus};
use crate::limits::{MAX_DIM_SIZE, MAX_RANK};
use crate::model::layout::Layout;

/// One dimension of a shape: a size, or XLA's dynamic forms.
///
/// ```
/// use tessera::{Dim, Shape};
/// let s: Shape = "f32[<=8,?,5]".parse()?;
/// assert_eq!(s.dims(), [Dim::Bounded(8), Dim::Unbounded, Dim::Static(5)]);
/// assert_eq!(s.dims()[0].size(), Some(8)); // laid out with room for 8
/// assert_eq!(s.dims()[1].size(), None);
/// assert!(s.dims()[1].is_dynamic() && !s.dims()[2].is_dynamic());
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A size known when the shape is written, e.g. `5`.
    Static(usize),
    /// `<=N`: dynamic, at most `N`. Takes `N`'s room in a buffer.
    Bounded(usize),
    /// `?`: dynamic with no bound.
    Unbounded,
}

impl Dim {
    /// The size, or the bound of a bounded dimension; `None` for `?`.
    pub const fn size(self) -> Option<usize> {
        match self {
            Dim::Static(n) | Dim::Bounded(n) => Some(n),
            Dim::Unbounded => None,
        }
    }

    /// Whether the dimension is dynamic (`<=N` or `?`).
    pub const fn is_dynamic(self) -> bool {
        !matches!(self, Dim::Static(_))
    }
}

/// An XLA array shape (`f32[3,5]{1,0}`), or the non-array `token[]` /
/// `opaque[]`.
///
/// A `Shape` always holds a layout that is valid for it, or no layout:
/// [`Shape::with_layout`] applies every rule of
/// [`crate::validate`]. Shapes made by [`Shape::new`] get XLA's
/// default layout, as `ShapeUtil::MakeShape` does.
///
/// ```
/// use tessera::{Dim, PrimitiveType, Shape};
/// let s = Shape::new(PrimitiveType::F32, &[3, 5]).unwrap();
/// assert_eq!(s.to_string(), "f32[3,5]{1,0}");
/// assert_eq!(s.dim(-1).unwrap(), Dim::Static(5));
/// assert_eq!(s.element_count().unwrap(), 15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    element_type: PrimitiveType,
    rank: u8,
    dims: [Dim; MAX_RANK],
    layout: Option<Layout>,
}

impl Shape {
    /// An array of static dimensions with the default (descending) layout
    /// (`ShapeUtil::MakeShape`).
    ///
    /// # Errors
    /// A non-array type, rank above [`MAX_RANK`], a size above
    /// [`MAX_DIM_SIZE`], or an element count or byte size above XLA's
    /// `i64` (XLA: "size may overflow int64_t").
    pub const fn new(element_type: PrimitiveType, dims: &[usize]) -> Result<Shape, Error> {
        if dims.len() > MAX_RANK {
            return Err(Error::at(
                ErrorKind::RankTooLarge {
                    rank: dims.len(),
                    max: MAX_RANK,
                },
                Locus::Dims,
            ));
        }
        let mut d = [Dim::Static(0); MAX_RANK];
        let mut i = 0;
        while i < dims.len() {
            d[i] = Dim::Static(dims[i]);
            i += 1;
        }
        Shape::with_dims(element_type, d.split_at(dims.len()).0)
    }

    /// An array of possibly dynamic dimensions with the default layout
    /// (`ShapeUtil::MakeShape` with dynamic dimensions).
    ///
    /// # Errors
    /// As [`Shape::new`].
    pub const fn with_dims(element_type: PrimitiveType, dims: &[Dim]) -> Result<Shape, Error> {
        match Shape::without_layout_from_dims(element_type, dims) {
            Ok(s) => Ok(s.with_default_layout()),
            Err(e) => Err(e),
        }
    }

    /// An array with no layout (XLA's `has_layout() == false`).
    ///
    /// # Errors
    /// As [`Shape::new`].
    pub const fn without_layout_from_dims(
        element_type: PrimitiveType,
        dims: &[Dim],
    ) -> Result<Shape, Error> {
        if !element_type.is_array() {
            if dims.is_empty() {
                return Ok(Shape::non_array(element_type));
            }
            return Err(Error::at(
                ErrorKind::NonArrayWithDims { element_type },
                Locus::Dims,
            ));
        }
        if dims.len() > MAX_RANK {
            return Err(Error::at(
                ErrorKind::RankTooLarge {
                    rank: dims.len(),
                    max: MAX_RANK,
                },
                Locus::Dims,
            ));
        }
        let mut out = [Dim::Static(0); MAX_RANK];
        let mut count: u128 = 1;
        let mut i = 0;
        while i < dims.len() {
            if let Some(n) = dims[i].size() {
                if n > MAX_DIM_SIZE {
                    return Err(Error::at(
                        ErrorKind::DimSizeTooLarge {
                            dim: i,
                            size: n,
                            max: MAX_DIM_SIZE,
                        },
                        Locus::Dim(i),
                    ));
                }
                count = count.saturating_mul(n as u128);
            }
            out[i] = dims[i];
            i += 1;
        }
        if count > i64::MAX as u128 {
            return Err(Error::at(
                ErrorKind::Overflow {
                    what: "the element count",
                },
                Locus::Dims,
            ));
        }
        // XLA's `ShapeUtil::ValidateShapeSize`: elements times the byte
        // width fit `int64` (`?` dims left out, as in `ExtentProduct<true>`).
        if count * element_type.byte_width() as u128 > i64::MAX as u128 {
            return Err(Error::at(
                ErrorKind::SizeMayOverflowInt64 {
                    what: "the byte size",
                },
                Locus::Dims,
            ));
        }
        Ok(Shape {
            element_type,
            rank: dims.len() as u8,
            dims: out,
            layout: None,
        })
    }

    /// A rank-0 array of `element_type` with the empty layout.
    ///
    /// # Errors
    /// A non-array type.
    pub const fn scalar(element_type: PrimitiveType) -> Result<Shape, Error> {
        if !element_type.is_array() {
            return Err(Error::at(
                ErrorKind::NotAnArrayType { element_type },
                Locus::ElementType,
            ));
        }
        Ok(Shape::non_array(element_type).with_default_layout())
    }

    /// `token[]`.
    pub const fn token() -> Shape {
        Shape::non_array(PrimitiveType::Token)
    }

    /// `opaque[]`.
    pub const fn opaque() -> Shape {
        Shape::non_array(PrimitiveType::Opaque)
    }

    const fn non_array(element_type: PrimitiveType) -> Shape {
        Shape {
            element_type,
            rank: 0,
            dims: [Dim::Static(0); MAX_RANK],
            layout: None,
        }
    }

    /// The same shape with `layout`, which the rules of
    /// [`validate`](crate::validate) accept for it (the checked
    /// constructors there call this); `token` and `opaque` shapes keep none.
    pub(crate) const fn with_valid_layout(mut self, layout: Layout) -> Shape {
        self.layout = if self.element_type.is_array() {
            Some(layout)
        } else {
            None
        };
        self
    }

    /// The same shape with `layout` before the last rule of
    /// [`validate_layout_for_shape`](crate::validate::validate_layout_for_shape)
    /// (the size rule) has run: that rule measures the
    /// buffer of the shape with this layout. Every other rule has passed.
    pub(crate) const fn with_layout_before_size_rule(mut self, layout: Layout) -> Shape {
        self.layout = Some(layout);
        self
    }

    /// The same shape with no layout (`LayoutUtil::ClearLayout`).
    pub const fn without_layout(mut self) -> Shape {
        self.layout = None;
        self
    }

    /// The same shape with XLA's default layout: descending for arrays,
    /// none for `token`/`opaque` (`LayoutUtil::SetToDefaultLayout`).
    pub const fn with_default_layout(mut self) -> Shape {
        self.layout = if self.element_type.is_array() {
            Some(Layout::descending(self.rank()))
        } else {
            None
        };
        self
    }

    /// The element type.
    #[inline]
    pub const fn element_type(&self) -> PrimitiveType {
        self.element_type
    }

    /// Whether this is an array shape (not `token`/`opaque`).
    pub const fn is_array(&self) -> bool {
        self.element_type.is_array()
    }

    /// Number of dimensions.
    #[inline]
    pub const fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The dimensions, by logical index.
    #[inline]
    pub const fn dims(&self) -> &[Dim] {
        self.dims.split_at(self.rank as usize).0
    }

    /// The logical index of dimension `dim`, where negative numbers count
    /// from the end (`-1` is the last).
    ///
    /// # Errors
    /// `dim` outside `-rank..rank`.
    pub const fn dimension_index(&self, dim: i64) -> Result<usize, Error> {
        let rank = self.rank as i64;
        let d = if dim < 0 { dim + rank } else { dim };
        if d < 0 || d >= rank {
            return Err(Error::new(ErrorKind::DimensionOutOfRange {
                dim,
                rank: self.rank(),
            }));
        }
        Ok(d as usize)
    }

    /// Dimension `dim`, negative numbers counting from the end
    /// (`ShapeUtil::GetDimension`).
    ///
    /// # Errors
    /// `dim` outside `-rank..rank`.
    pub const fn dim(&self, dim: i64) -> Result<Dim, Error> {
        match self.dimension_index(dim) {
            Ok(i) => Ok(self.dims[i]),
            Err(e) => Err(e),
        }
    }

    /// The layout, if the shape has one.
    #[inline]
    pub const fn layout(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    /// Whether every dimension is static (`Shape::is_static`).
    pub const fn is_static(&self) -> bool {
        let mut i = 0;
        while i < self.rank as usize {
            if self.dims[i].is_dynamic() {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether any dimension is `?`.
    pub const fn is_unbounded_dynamic(&self) -> bool {
        let mut i = 0;
        while i < self.rank as usize {
            if matches!(self.dims[i], Dim::Unbounded) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether this is a rank-0 array.
    pub const fn is_scalar(&self) -> bool {
        self.is_array() && self.rank == 0
    }

    /// Number of logical elements, counting bounded dimensions at their
    /// bound (`ShapeUtil::ElementsIn`; 1 for a scalar, 0 for token/opaque).
    ///
    /// # Errors
    /// An unbounded (`?`) dimension, or a count above [`MAX_DIM_SIZE`].
    pub const fn element_count(&self) -> Result<usize, Error> {
        if !self.is_array() {
            return Ok(0);
        }
        // In `u128`, saturating: a zero dim anywhere makes the count 0
        // whatever the order of the dims.
        let mut count: u128 = 1;
        let mut i = 0;
        while i < self.rank as usize {
            match self.dims[i].size() {
                Some(n) => count = count.saturating_mul(n as u128),
                None => {
                    return Err(Error::at(
                        ErrorKind::UnboundedDimension { dim: i },
                        Locus::Dim(i),
                    ));
                }
            }
            i += 1;
        }
        if count > MAX_DIM_SIZE as u128 {
            return Err(Error::at(
                ErrorKind::Overflow {
                    what: "the element count",
                },
                Locus::Dims,
            ));
        }
        Ok(count as usize)
    }

    /// Whether the array has no elements (some dimension is 0;
    /// `ShapeUtil::IsZeroElementArray`).
    pub const fn is_zero_element_array(&self) -> bool {
        if !self.is_array() {
            return false;
        }
        let mut i = 0;
        while i < self.rank as usize {
            if let Dim::Static(0) | Dim::Bounded(0) = self.dims[i] {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Number of dimensions whose size is not 1
    /// (`ShapeUtil::TrueNumDimensions`).
    pub const fn true_rank(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.rank as usize {
            if !matches!(self.dims[i], Dim::Static(1)) {
                n += 1;
            }
            i += 1;
        }
        n
    }

    /// The same shape with another element type and no layout; the
    /// checked [`Shape::with_element_type`] puts the layout back through
    /// the rules.
    pub(crate) const fn retyped(mut self, element_type: PrimitiveType) -> Shape {
        self.element_type = element_type;
        self.layout = None;
        self
    }
}
