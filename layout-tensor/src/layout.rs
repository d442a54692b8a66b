//! [`TensorLayout`]: what a tensor needs from its layout, for static
//! layouts (zero-sized, everything constant) and run-time ones
//! ([`RuntimeLayout`], which caches its offset formula).

use layout_core::terms::OffsetTerms;
use layout_core::typelevel::{AttrSpec, DimList, NumList, TileList};
use layout_core::{
    ArrayLayout, DimVec, Error, ErrorKind, MixedLayout, PrimitiveType, Shape, StaticLayout,
};

use crate::element::Element;

/// A layout a tensor can be stored in. Implemented by the static layouts
/// of `layout!` (zero-sized: every method folds to constants) and by
/// [`RuntimeLayout`]; the same tensor code serves both.
pub trait TensorLayout: Clone {
    /// The rank, when the type fixes it: an index of another length is
    /// then a compile error.
    const FIXED_RANK: Option<usize>;
    /// The whole layout, when the type fixes it: shape and element type
    /// mismatches are then compile errors.
    const FIXED_LAYOUT: Option<ArrayLayout>;
    /// The layout with `?` or `<=N` for the dims known only at run time,
    /// when the type fixes everything else (static and mixed layouts):
    /// relayouts between two such types build their loop nest while
    /// compiling ([`NestTemplate`](layout_core::walk::NestTemplate)).
    const TEMPLATE: Option<Shape>;

    /// The logical dims (no engine layout is built for them).
    fn sizes(&self) -> DimVec;

    /// The layout as the engine's value (for a [`MixedLayout`], the
    /// concrete layout of its extents, built on each call: tensors call it
    /// to set up iteration and relayout, never per element).
    fn array_layout(&self) -> ArrayLayout;

    /// Whether `index` has one entry per dimension, each in bounds.
    fn is_in_bounds(&self, index: &[usize]) -> bool;

    /// The offset of an in-bounds `index`; some offset (or a panic, never
    /// undefined behaviour) otherwise.
    fn offset_unchecked(&self, index: &[usize]) -> usize;

    /// The offset of `index`, or the engine's error naming the entry out
    /// of bounds (or the wrong number of entries).
    ///
    /// # Errors
    /// As [`ArrayLayout::check_index`].
    #[inline]
    fn checked_offset(&self, index: &[usize]) -> Result<usize, Error> {
        if self.is_in_bounds(index) {
            Ok(self.offset_unchecked(index))
        } else {
            Err(bounds_error(&self.array_layout(), index))
        }
    }
}

/// Why `index` is out of bounds in `layout`, off the hot path.
#[cold]
#[inline(never)]
pub(crate) fn bounds_error(layout: &ArrayLayout, index: &[usize]) -> Error {
    match layout.check_index(index) {
        Err(e) => e,
        // `is_in_bounds` and the engine agree; this keeps the function total.
        Ok(()) => Error::new(ErrorKind::IndexRankMismatch {
            expected: layout.rank(),
            found: index.len(),
        }),
    }
}

/// A [`TensorLayout`] whose value is known at compile time, so tensors in
/// it can be built in `const` context (and sit in a `static`).
pub trait ConstTensorLayout: TensorLayout + Copy {
    /// The value of the layout type.
    const VALUE: Self;
    /// The layout as the engine's value.
    const LAYOUT: ArrayLayout;
}

impl<const R: usize, const T: u32, const RMD: bool, D, M, Ti, A> TensorLayout
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    const FIXED_RANK: Option<usize> = Some(R);
    const FIXED_LAYOUT: Option<ArrayLayout> = Some(Self::LAYOUT);
    const TEMPLATE: Option<Shape> = Some(*Self::LAYOUT.shape());

    #[inline(always)]
    fn sizes(&self) -> DimVec {
        const { Self::LAYOUT.sizes() }
    }

    #[inline(always)]
    fn array_layout(&self) -> ArrayLayout {
        <Self as ConstTensorLayout>::LAYOUT
    }

    #[inline(always)]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => Self::is_in_bounds(*i),
            Err(_) => false,
        }
    }

    #[inline(always)]
    fn offset_unchecked(&self, index: &[usize]) -> usize {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => Self::offset_unchecked(*i),
            Err(_) => Self::LAYOUT.offset_unchecked(index),
        }
    }
}

impl<const R: usize, const T: u32, const RMD: bool, D, M, Ti, A> ConstTensorLayout
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    const VALUE: Self = Self::NEW;
    const LAYOUT: ArrayLayout = Self::LAYOUT;
}

/// A run-time layout prepared for indexing: the engine's [`ArrayLayout`]
/// with its offset formula ([`OffsetTerms`]) computed once, so each
/// element access costs a few multiplications instead of the engine's
/// whole tiling transform.
///
/// ```
/// use layout_tensor::RuntimeLayout;
/// let l = RuntimeLayout::parse("f32[3,5]{1,0:T(2,2)}").unwrap();
/// assert_eq!(l.array_layout().buffer_len(), 24);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuntimeLayout {
    layout: ArrayLayout,
    terms: Option<OffsetTerms>,
    /// The dims, for the bounds check of every access.
    sizes: layout_core::DimVec,
}

impl RuntimeLayout {
    /// Prepares `layout` for indexing.
    pub const fn new(layout: ArrayLayout) -> RuntimeLayout {
        RuntimeLayout {
            terms: OffsetTerms::new(&layout),
            sizes: layout.sizes(),
            layout,
        }
    }

    /// Parses XLA's text form (see [`ArrayLayout::parse`]).
    ///
    /// # Errors
    /// As [`ArrayLayout::parse`].
    pub fn parse(text: &str) -> Result<RuntimeLayout, Error> {
        ArrayLayout::parse(text).map(RuntimeLayout::new)
    }

    /// The engine's layout.
    pub const fn array_layout(&self) -> &ArrayLayout {
        &self.layout
    }
}

impl From<ArrayLayout> for RuntimeLayout {
    fn from(layout: ArrayLayout) -> RuntimeLayout {
        RuntimeLayout::new(layout)
    }
}

impl core::fmt::Display for RuntimeLayout {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.layout, f)
    }
}

impl TensorLayout for RuntimeLayout {
    const FIXED_RANK: Option<usize> = None;
    const FIXED_LAYOUT: Option<ArrayLayout> = None;
    const TEMPLATE: Option<Shape> = None;

    #[inline]
    fn sizes(&self) -> DimVec {
        self.sizes
    }

    #[inline]
    fn array_layout(&self) -> ArrayLayout {
        self.layout
    }

    #[inline]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        layout_core::index_util::index_within(self.sizes.as_slice(), index)
    }

    #[inline]
    fn offset_unchecked(&self, index: &[usize]) -> usize {
        match &self.terms {
            Some(t) if index.len() >= self.layout.rank() => t.offset(index),
            _ => self.layout.offset_unchecked(index),
        }
    }
}

/// A layout that takes indices of `R` entries: every rank for
/// [`RuntimeLayout`] (checked at run time), only its own for a static
/// layout, so a wrong-length index into a static tensor is a compile
/// error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not take an index of {R} entries",
    label = "the index length differs from this layout's rank"
)]
pub trait IndexRank<const R: usize>: TensorLayout {}

impl<const R: usize> IndexRank<R> for RuntimeLayout {}

impl<const R: usize, const T: u32, const RMD: bool, D, M, Ti, A> IndexRank<R>
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

/// A layout whose elements a Rust type `E` can hold: any [`Element`] for
/// [`RuntimeLayout`] (checked when a tensor is built), only its own
/// element type for a static layout, so a mismatch is a compile error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not hold `{E}` elements",
    label = "the layout's element type is not `{E}`"
)]
pub trait Stores<E: Element>: TensorLayout {}

impl<E: Element> Stores<E> for RuntimeLayout {}

macro_rules! stores {
    ($($(#[$cfg:meta])* $t:ty => $xla:ident;)*) => {$(
        $(#[$cfg])*
        impl<const R: usize, const RMD: bool, D, M, Ti, A> Stores<$t>
            for StaticLayout<R, { PrimitiveType::$xla as u32 }, RMD, D, M, Ti, A>
        where
            D: DimList,
            M: NumList,
            Ti: TileList,
            A: AttrSpec,
        {
        }

        $(#[$cfg])*
        impl<const R: usize, const K: usize, D, M, Ti, A> Stores<$t>
            for MixedLayout<R, K, { PrimitiveType::$xla as u32 }, D, M, Ti, A>
        where
            D: DimList,
            M: NumList,
            Ti: TileList,
            A: AttrSpec,
        {
        }
    )*};
}

// The Rust type of each element type (see `Element`), for static and
// mixed layouts alike.
stores! {
    bool => Pred;
    i8 => S8;
    i16 => S16;
    i32 => S32;
    i64 => S64;
    u8 => U8;
    u16 => U16;
    u32 => U32;
    u64 => U64;
    f32 => F32;
    f64 => F64;
    #[cfg(feature = "half")] half::f16 => F16;
    #[cfg(feature = "half")] half::bf16 => Bf16;
    #[cfg(feature = "num-complex")] num_complex::Complex<f32> => C64;
    #[cfg(feature = "num-complex")] num_complex::Complex<f64> => C128;
}

/// A layout that tensors in layout `L` can be copied into: any pair
/// involving a [`RuntimeLayout`] (checked at run time), and two static
/// layouts of the same element type and dims, so a mismatch between
/// static layouts is a compile error.
#[diagnostic::on_unimplemented(
    message = "cannot relayout from `{L}` to `{Self}`",
    label = "the two layouts differ in element type or dimensions"
)]
pub trait RelayoutFrom<L>: TensorLayout {}

impl RelayoutFrom<RuntimeLayout> for RuntimeLayout {}

impl<const R: usize, const T: u32, const RMD: bool, D, M, Ti, A>
    RelayoutFrom<StaticLayout<R, T, RMD, D, M, Ti, A>> for RuntimeLayout
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, const T: u32, const RMD: bool, D, M, Ti, A> RelayoutFrom<RuntimeLayout>
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, const T: u32, const RMD1: bool, const RMD2: bool, D, M1, M2, Ti1, Ti2, A1, A2>
    RelayoutFrom<StaticLayout<R, T, RMD1, D, M1, Ti1, A1>>
    for StaticLayout<R, T, RMD2, D, M2, Ti2, A2>
where
    D: DimList,
    M1: NumList,
    M2: NumList,
    Ti1: TileList,
    Ti2: TileList,
    A1: AttrSpec,
    A2: AttrSpec,
{
}

impl<const R: usize, const K: usize, const T: u32, D, M, Ti, A> TensorLayout
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    const FIXED_RANK: Option<usize> = Some(R);
    const FIXED_LAYOUT: Option<ArrayLayout> = None;
    // The inherent `MixedLayout::TEMPLATE`: XLA's text with `?` and `<=N`.
    const TEMPLATE: Option<Shape> = Some(MixedLayout::<R, K, T, D, M, Ti, A>::TEMPLATE);

    #[inline(always)]
    fn sizes(&self) -> DimVec {
        DimVec::from_slice(&self.dims())
    }

    fn array_layout(&self) -> ArrayLayout {
        self.to_runtime()
    }

    #[inline(always)]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => MixedLayout::is_in_bounds(self, *i),
            Err(_) => false,
        }
    }

    #[inline(always)]
    fn offset_unchecked(&self, index: &[usize]) -> usize {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => MixedLayout::offset_unchecked(self, *i),
            Err(_) => self.to_runtime().offset_unchecked(index),
        }
    }
}

impl<const R: usize, const K: usize, const T: u32, D, M, Ti, A> IndexRank<R>
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

/// Mixed layouts relayout to and from anything of the same rank and
/// element type; their extents are checked at run time.
impl<const R: usize, const K: usize, const T: u32, D, M, Ti, A> RelayoutFrom<RuntimeLayout>
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, const K: usize, const T: u32, D, M, Ti, A>
    RelayoutFrom<MixedLayout<R, K, T, D, M, Ti, A>> for RuntimeLayout
where
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<
    const R: usize,
    const K: usize,
    const T: u32,
    const RMD: bool,
    D1,
    D2,
    M1,
    M2,
    Ti1,
    Ti2,
    A1,
    A2,
> RelayoutFrom<StaticLayout<R, T, RMD, D1, M1, Ti1, A1>> for MixedLayout<R, K, T, D2, M2, Ti2, A2>
where
    D1: DimList,
    D2: DimList,
    M1: NumList,
    M2: NumList,
    Ti1: TileList,
    Ti2: TileList,
    A1: AttrSpec,
    A2: AttrSpec,
{
}

impl<
    const R: usize,
    const K: usize,
    const T: u32,
    const RMD: bool,
    D1,
    D2,
    M1,
    M2,
    Ti1,
    Ti2,
    A1,
    A2,
> RelayoutFrom<MixedLayout<R, K, T, D2, M2, Ti2, A2>> for StaticLayout<R, T, RMD, D1, M1, Ti1, A1>
where
    D1: DimList,
    D2: DimList,
    M1: NumList,
    M2: NumList,
    Ti1: TileList,
    Ti2: TileList,
    A1: AttrSpec,
    A2: AttrSpec,
{
}

impl<
    const R: usize,
    const K1: usize,
    const K2: usize,
    const T: u32,
    D1,
    D2,
    M1,
    M2,
    Ti1,
    Ti2,
    A1,
    A2,
> RelayoutFrom<MixedLayout<R, K1, T, D1, M1, Ti1, A1>> for MixedLayout<R, K2, T, D2, M2, Ti2, A2>
where
    D1: DimList,
    D2: DimList,
    M1: NumList,
    M2: NumList,
    Ti1: TileList,
    Ti2: TileList,
    A1: AttrSpec,
    A2: AttrSpec,
{
}
