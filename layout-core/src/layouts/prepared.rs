//! [`PreparedLayout`]: a run-time layout with its offset formula computed
//! once, for per-element work.

use crate::array::terms::OffsetTerms;
use crate::array::{ArrayLayout, DimVec, Slot};
use crate::element::PrimitiveType;
use crate::error::Error;
use crate::layouts::mixed_layout::MixedLayout;
use crate::layouts::static_layout::StaticLayout;
use crate::layouts::traits::{AnyLayout, HasRank, SameShape};
use crate::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList};
use crate::model::shape::Shape;

/// A run-time [`ArrayLayout`] prepared for indexing: its offset formula
/// ([`OffsetTerms`]) is computed once, so each offset costs a few shifts
/// and multiplications instead of the engine's general tiling transform.
/// Tensors over a layout read at run time keep one of these; make one
/// yourself with [`ArrayLayout::prepare`] when a kernel computes many
/// offsets of a run-time layout.
///
/// ```
/// use tessera::{AnyLayout, ArrayLayout, PreparedLayout};
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let p: PreparedLayout = a.prepare();
/// assert_eq!(p.offset(&[2, 3]), a.offset(&[2, 3]));
/// assert_eq!(p.buffer_len(), 24);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PreparedLayout {
    layout: ArrayLayout,
    terms: Option<OffsetTerms>,
    /// The dims, for the bounds check of every access.
    sizes: DimVec,
}

impl PreparedLayout {
    /// Prepares `layout` for indexing.
    pub const fn new(layout: ArrayLayout) -> PreparedLayout {
        PreparedLayout {
            terms: OffsetTerms::new(&layout),
            sizes: layout.sizes(),
            layout,
        }
    }

    /// Parses XLA's text form and prepares it (see [`ArrayLayout::parse`]).
    ///
    /// # Errors
    /// As [`ArrayLayout::parse`].
    pub fn parse(text: &str) -> Result<PreparedLayout, Error> {
        ArrayLayout::parse(text).map(PreparedLayout::new)
    }

    /// The engine's layout.
    pub const fn array_layout(&self) -> &ArrayLayout {
        &self.layout
    }

    /// The offset terms computed once for this layout, `None` when its
    /// offsets have no digit formula ([`OffsetTerms::new`]).
    ///
    /// ```
    /// use tessera::PreparedLayout;
    /// let a = PreparedLayout::parse("f32[3,5]{1,0:T(2,2)}").unwrap();
    /// let terms = a.offset_terms().unwrap();
    /// assert_eq!(terms.offset_in_bounds(&[2, 3]), 17);
    /// ```
    pub const fn offset_terms(&self) -> Option<&OffsetTerms> {
        self.terms.as_ref()
    }
}

impl ArrayLayout {
    /// This layout with its offset formula computed once
    /// ([`PreparedLayout`]), for many offsets.
    pub const fn prepare(&self) -> PreparedLayout {
        PreparedLayout::new(*self)
    }
}

impl From<ArrayLayout> for PreparedLayout {
    fn from(layout: ArrayLayout) -> PreparedLayout {
        PreparedLayout::new(layout)
    }
}

impl core::str::FromStr for PreparedLayout {
    type Err = Error;
    fn from_str(text: &str) -> Result<PreparedLayout, Error> {
        PreparedLayout::parse(text)
    }
}

impl core::fmt::Display for PreparedLayout {
    /// XLA's canonical text.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.layout, f)
    }
}

impl crate::layouts::traits::sealed::Layout for PreparedLayout {}

impl AnyLayout for PreparedLayout {
    const FIXED_RANK: Option<usize> = None;
    const FIXED_LAYOUT: Option<ArrayLayout> = None;
    const TEMPLATE: Option<Shape> = None;
    type Index = DimVec;

    #[inline]
    fn to_array_layout(&self) -> ArrayLayout {
        self.layout
    }
    #[inline]
    fn prepared_parts(&self) -> Option<(&ArrayLayout, &OffsetTerms)> {
        match &self.terms {
            Some(terms) => Some((&self.layout, terms)),
            None => None,
        }
    }
    #[inline]
    fn rank(&self) -> usize {
        self.sizes.len()
    }
    #[inline]
    fn size(&self, dim: usize) -> usize {
        self.sizes[dim]
    }
    #[inline]
    fn sizes(&self) -> DimVec {
        self.sizes
    }
    #[inline]
    fn element_type(&self) -> PrimitiveType {
        self.layout.element_type()
    }
    #[inline]
    fn element_size_in_bits(&self) -> usize {
        self.layout.element_size_in_bits()
    }
    #[inline]
    fn element_count(&self) -> usize {
        self.layout.element_count()
    }
    #[inline]
    fn buffer_len(&self) -> usize {
        self.layout.buffer_len()
    }
    #[inline]
    fn strides(&self) -> Option<DimVec> {
        self.layout.strides()
    }
    #[inline]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        crate::index::in_bounds(self.sizes.as_slice(), index)
    }
    #[inline]
    fn offset_in_bounds(&self, index: &[usize]) -> usize {
        match &self.terms {
            Some(t) if index.len() >= self.sizes.len() => t.offset_in_bounds(index),
            _ => self.layout.offset_in_bounds(index),
        }
    }
    #[inline]
    fn try_slot(&self, offset: usize) -> Result<Slot, Error> {
        self.layout.try_slot(offset)
    }
}

impl<const R: usize> HasRank<R> for PreparedLayout {}
impl SameShape<PreparedLayout> for PreparedLayout {}
impl SameShape<ArrayLayout> for PreparedLayout {}
impl SameShape<PreparedLayout> for ArrayLayout {}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> SameShape<PreparedLayout>
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A>
    SameShape<StaticLayout<R, T, RMD, D, M, Ti, A>> for PreparedLayout
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> SameShape<PreparedLayout>
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> SameShape<MixedLayout<R, K, T, D, M, Ti, A>>
    for PreparedLayout
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}
