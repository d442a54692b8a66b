//! [`StaticLayout`]: a layout known at compile time, as a zero-sized type.
//!
//! `tessera::layout!(f32[3,5]{1,0:T(2,2)})` names one of these types. Its
//! generic parameters carry only numbers ([`typelevel`](crate::layouts::typelevel)),
//! written from the engine's canonical parse, so equal layouts are one type
//! however they are written. One associated const, [`StaticLayout::LAYOUT`],
//! builds the engine's plain-data [`ArrayLayout`] from those numbers with the
//! engine's `const` constructors; every other const and every `const fn`
//! here reads it or calls the engine on it. Nothing is computed twice:
//! rustc evaluates the engine in `const` items. At run time, offsets use
//! an [`OffsetPlan`] chosen at compile time from engine results (its
//! strides, its digit formulas, or a table of its offsets), because the
//! optimiser does not fold the engine's general transform; the plan costs
//! what hand-written index arithmetic costs (`BENCHMARKS.md`), and tests
//! check it against the engine on every index.
//!
//! Which type-level mechanism does what:
//!
//! | need | mechanism |
//! | --- | --- |
//! | the numbers of a layout | const generics: [`N<V>`](crate::layouts::typelevel::N) markers in tuples |
//! | rank-typed indices `[usize; RANK]` | the direct const parameter `RANK` |
//! | "has rank R" in a signature ([`HasRank`](crate::HasRank)) | const generics |
//! | "same shape and element type" ([`SameShape`](crate::SameShape)) | const generics and type equality |
//! | "row-major dense" ([`RowMajorDense`](crate::RowMajorDense)) | the `ROW_MAJOR_DENSE` const parameter, filled in from the engine and re-checked by `LAYOUT` |
//! | "same element count" ([`SameElementCount`](crate::SameElementCount)) | typenum: the product of the dims is type-level arithmetic, which const generics cannot do on stable Rust |
//!
//! ```
//! use tessera::typelevel::{DefaultAttrs, F32, N};
//! use tessera::{StaticLayout, layout};
//! // What `layout!(f32[3,5]{1,0:T(2,2)})` expands to.
//! type A = StaticLayout<2, F32, false, (N<3>, N<5>), (N<1>, N<0>), ((N<2>, N<2>),), DefaultAttrs>;
//! static_assertions::assert_type_eq_all!(A, layout!(f32[3,5]{1,0:T(2,2)}));
//! const OFF: usize = A::offset([2, 3]);
//! assert_eq!(OFF, 17);
//! assert_eq!(A::BUFFER_LEN, 24);
//! assert_eq!(A::PHYSICAL_SHAPE.dims(), &[2, 3, 2, 2]);
//! ```

use core::fmt;
use core::marker::PhantomData;

pub use crate::array::terms::{OFFSET_TABLE_CAPACITY, OffsetPlan};
use crate::array::terms::{OffsetTable, OffsetTerms};
use crate::array::{ArrayLayout, PhysicalDims, PhysicalShape, Slot};
use crate::element::PrimitiveType;
use crate::error::Error;
use crate::layouts::traits::KnownLayout;
use crate::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList, layout_parts};
use crate::model::layout::LayoutParts;
use crate::model::shape::{Dim, Shape};
use crate::model::tile::Tile;

/// A layout known at compile time: a zero-sized type whose parameters are
/// the layout's numbers. Write it with `tessera::layout!`, not by hand.
///
/// - `RANK`: the number of dimensions (so indices are `[usize; RANK]`);
/// - `Element`: the element type as a marker type ([`F32`](crate::layouts::typelevel::F32),
///   [`Bf16`](crate::layouts::typelevel::Bf16), ... an [`ElementSpec`]), so that
///   compiler messages name it;
/// - `ROW_MAJOR_DENSE`: what the engine's
///   [`ArrayLayout::is_row_major_dense`] says, so signatures can require it
///   ([`RowMajorDense`](crate::RowMajorDense)); [`StaticLayout::LAYOUT`] fails to evaluate if it
///   disagrees;
/// - `Dims`: a [`DimList`], `MinorToMajor`: a [`NumList`], `Tiles`: a
///   [`TileList`], `A`: the other attributes ([`AttrSpec`]).
///
/// Every associated const is computed by the engine from
/// [`StaticLayout::LAYOUT`].
///
/// ```
/// use tessera::{ArrayLayout, layout};
/// type A = layout!(f32[3,5]{0,1}); // column-major
/// assert_eq!(core::mem::size_of::<A>(), 0);
/// const OFF: usize = A::offset([2, 4]); // evaluated by rustc
/// assert_eq!(OFF, 4 * 3 + 2); // x steps over whole columns of 3 rows
/// assert_eq!(A::STRIDES, Some([1, 3]));
/// assert_eq!(A::to_runtime(), "f32[3,5]{0,1}".parse::<ArrayLayout>()?);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct StaticLayout<
    const RANK: usize,
    Element,
    const ROW_MAJOR_DENSE: bool,
    Dims,
    MinorToMajor,
    Tiles,
    A,
>(Params<Element, Dims, MinorToMajor, Tiles, A>);

/// The parameters as a zero-sized field that keeps `Send`/`Sync` and
/// variance independent of them.
pub(crate) type Params<E, D, M, T, A> = PhantomData<fn() -> (E, D, M, T, A)>;

/// The placeholder type `layout!` expands to when the layout is invalid:
/// its const argument holds the `compile_error!`, so the one error is
/// reported there and uses of the type add no others.
#[doc(hidden)]
pub struct Invalid<const ERROR: usize>;

/// What a slot of the buffer holds, with a rank-typed index
/// ([`StaticLayout::slot`]).
///
/// ```
/// use tessera::{SlotOf, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// assert_eq!(A::slot(17), SlotOf::Element([2, 3])); // y = 2, x = 3
/// assert_eq!(A::slot(22), SlotOf::Padding); // row 3 does not exist
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotOf<const RANK: usize> {
    /// The slot holds the element at this logical index.
    Element([usize; RANK]),
    /// The slot is padding (tile padding, `pad(..)` or `L(n)` tail).
    Padding,
}

/// Builds the engine's [`ArrayLayout`] from the numbers a [`StaticLayout`]
/// or [`MixedLayout`](crate::MixedLayout) carries, with the engine's
/// constructors and checks only.
///
/// # Errors
/// The first rule the numbers break, as the engine reports it.
///
/// # Panics
/// If `rank` is not the number of `dims` (never for types made by
/// `layout!`).
pub const fn build_array_layout(
    rank: usize,
    element_type: PrimitiveType,
    dims: &[Dim],
    parts: &LayoutParts,
) -> Result<ArrayLayout, Error> {
    assert!(
        rank == dims.len(),
        "RANK differs from the number of dimensions"
    );
    let shape = match Shape::without_layout_from_dims(element_type, dims) {
        Ok(s) => s,
        Err(e) => return Err(e),
    };
    let layout = match parts.build() {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    match shape.with_layout(layout) {
        Ok(s) => ArrayLayout::new(s),
        Err(e) => Err(e),
    }
}

/// Why a layout with [`Attrs`](crate::layouts::typelevel::Attrs) all at their
/// defaults does not build.
pub(crate) const NON_CANONICAL_ATTRS: &str = "attributes all at their defaults are written `DefaultAttrs` (as `layout!` does), so that one layout has one type";

const fn to_rank_array<const R: usize>(values: &[usize]) -> [usize; R] {
    assert!(values.len() == R, "length differs from RANK");
    let mut out = [0usize; R];
    let mut i = 0;
    while i < R {
        out[i] = values[i];
        i += 1;
    }
    out
}

const fn minor_to_major_array<const R: usize>(layout: &ArrayLayout) -> [usize; R] {
    let m2m = layout.layout().minor_to_major();
    assert!(m2m.len() == R, "length differs from RANK");
    let mut out = [0usize; R];
    let mut i = 0;
    while i < R {
        out[i] = m2m[i] as usize;
        i += 1;
    }
    out
}

impl<
    const R: usize,
    T: ElementSpec,
    const RMD: bool,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
> StaticLayout<R, T, RMD, D, M, Ti, A>
{
    /// The layout as the engine's plain data: the one source of every other
    /// const. Evaluating it with numbers the engine rejects is a compile
    /// error with the engine's message.
    pub const LAYOUT: ArrayLayout = {
        assert!(A::CANONICAL, "{}", NON_CANONICAL_ATTRS);
        let parts = layout_parts::<A>(M::VALUES, Ti::TILES);
        let layout = match build_array_layout(R, T::TYPE, D::DIMS, &parts) {
            Ok(l) => l,
            Err(e) => e.panic(),
        };
        assert!(
            layout.is_row_major_dense() == RMD,
            "ROW_MAJOR_DENSE differs from what the engine computes"
        );
        layout
    };

    /// The value of this zero-sized type.
    pub const NEW: Self = StaticLayout(PhantomData);

    /// Number of dimensions.
    pub const RANK: usize = Self::LAYOUT.rank();

    /// The element type.
    pub const ELEMENT_TYPE: PrimitiveType = Self::LAYOUT.element_type();

    /// Size of each logical dimension (a bounded dimension's bound).
    pub const DIMS: [usize; R] = Self::LAYOUT.sizes().to_array::<R>();

    /// `minor_to_major`: logical dimensions from most minor to most major.
    pub const MINOR_TO_MAJOR: [usize; R] = minor_to_major_array::<R>(&Self::LAYOUT);

    /// The tile levels, outermost first (`T(8,128)(2,1)` has 2).
    pub const TILES: &'static [Tile] = Ti::TILES;

    /// Number of logical elements.
    pub const ELEMENT_COUNT: usize = Self::LAYOUT.element_count();

    /// Number of slots in the buffer, padding included.
    pub const BUFFER_LEN: usize = Self::LAYOUT.buffer_len();

    /// Bits one element takes in the buffer.
    pub const ELEMENT_SIZE_IN_BITS: usize = Self::LAYOUT.element_size_in_bits();

    /// Bytes of the elements alone (XLA's `ShapeUtil::ByteSizeOf`).
    pub const LOGICAL_BYTE_SIZE: usize = Self::LAYOUT.logical_byte_size();

    /// Bytes of the whole buffer, padding included.
    pub const PHYSICAL_BYTE_SIZE: usize = Self::LAYOUT.physical_byte_size();

    /// The physical (tiled) shape, major to minor.
    pub const PHYSICAL_SHAPE: PhysicalShape = Self::LAYOUT.physical_shape();

    /// Element strides per logical dimension, when offsets are linear in
    /// the index (see [`ArrayLayout::strides`]).
    pub const STRIDES: Option<[usize; R]> = match Self::LAYOUT.strides() {
        Some(s) => Some(to_rank_array::<R>(s.as_slice())),
        None => None,
    };

    /// Byte strides per logical dimension (see [`ArrayLayout::byte_strides`]).
    pub const BYTE_STRIDES: Option<[usize; R]> = match Self::LAYOUT.byte_strides() {
        Some(s) => Some(to_rank_array::<R>(s.as_slice())),
        None => None,
    };

    /// Whether the layout is plain row-major with no padding.
    pub const IS_ROW_MAJOR_DENSE: bool = Self::LAYOUT.is_row_major_dense();

    /// The physical (tiled) dims with their strides and digit formulas.
    pub const PHYSICAL_DIMS: PhysicalDims = Self::LAYOUT.physical_dims();

    /// For [`OffsetPlan::Strided`] and [`OffsetPlan::Digits`]: the
    /// engine's offset terms, evaluated by the one term evaluator. No
    /// terms for the other plans.
    const OFFSET_TERMS: OffsetTerms = match OffsetTerms::new(&Self::LAYOUT) {
        Some(t) => t,
        None => OffsetTerms::EMPTY,
    };

    /// How run-time offsets are computed from engine results (see
    /// [`OffsetPlan`]).
    pub const OFFSET_PLAN: OffsetPlan = OffsetPlan::of(&Self::LAYOUT);

    /// For [`OffsetPlan::Table`]: the engine's offsets of each
    /// dimension's indices alone. Empty for the other plans.
    const OFFSET_TABLE: OffsetTable = match Self::OFFSET_PLAN {
        OffsetPlan::Table => OffsetTable::new(&Self::LAYOUT),
        _ => OffsetTable::EMPTY,
    };

    /// The offset of an in-bounds `index` by [`Self::OFFSET_PLAN`]: what
    /// the engine computes, from constants the engine computed. (An index
    /// out of bounds may panic with the table plan.)
    #[inline(always)]
    const fn planned_offset(index: &[usize; R]) -> usize {
        match Self::OFFSET_PLAN {
            // Constant terms: the evaluator's loop unrolls and every
            // divisor and stride is an immediate.
            OffsetPlan::Strided | OffsetPlan::Digits => Self::OFFSET_TERMS.offset_in_bounds(index),
            OffsetPlan::Table => Self::OFFSET_TABLE.offset(index),
            OffsetPlan::Engine => Self::LAYOUT.offset_in_bounds(index),
        }
    }

    /// Whether each entry of `index` is below its dimension's size (the
    /// engine's sizes, [`Self::DIMS`]).
    #[inline(always)]
    const fn in_bounds(index: &[usize; R]) -> bool {
        crate::index::in_bounds(&Self::DIMS, index)
    }

    /// The value of this zero-sized type.
    pub const fn new() -> Self {
        StaticLayout(PhantomData)
    }

    /// The run-time layout: the same engine value as
    /// [`StaticLayout::LAYOUT`].
    pub const fn to_runtime() -> ArrayLayout {
        Self::LAYOUT
    }

    /// The offset of the element at `index`, in elements.
    ///
    /// # Panics
    /// If an entry is out of bounds, with the engine's message naming the
    /// dimension, the index and the bound. In a `const` item this is a
    /// compile error.
    #[inline]
    #[track_caller]
    pub const fn offset(index: [usize; R]) -> usize {
        let mut d = 0;
        while d < R {
            if index[d] >= Self::DIMS[d] {
                Self::out_of_bounds(d, index[d]);
            }
            d += 1;
        }
        Self::planned_offset(&index)
    }

    /// Panics with the engine's message for entry `value` of dimension
    /// `dim`, the first entry of an index that is out of bounds. Takes
    /// scalars so the hot path need not keep the index in memory.
    #[cold]
    #[inline(never)]
    #[track_caller]
    const fn out_of_bounds(dim: usize, value: usize) -> ! {
        // Entries before `dim` were in bounds, so the engine reports `dim`
        // first, with the same words as for the whole index.
        let mut index = [0usize; R];
        index[dim] = value;
        match Self::LAYOUT.check_index(&index) {
            Err(e) => e.panic(),
            Ok(()) => panic!("the engine and DIMS disagree on bounds"),
        }
    }

    /// The offset of the element at `index`, or why there is none.
    ///
    /// # Errors
    /// An entry out of bounds.
    #[inline]
    pub const fn try_offset(index: [usize; R]) -> Result<usize, Error> {
        if Self::in_bounds(&index) {
            return Ok(Self::planned_offset(&index));
        }
        match Self::LAYOUT.check_index(&index) {
            Ok(()) => Ok(Self::planned_offset(&index)),
            Err(e) => Err(e),
        }
    }

    /// The offset of an `index` the caller knows to be in bounds (a
    /// kernel's loop ranges), without the bounds check: equal to
    /// [`StaticLayout::offset`] in bounds, unspecified (but never a panic)
    /// outside.
    #[inline]
    pub const fn offset_in_bounds(index: [usize; R]) -> usize {
        match Self::OFFSET_PLAN {
            OffsetPlan::Table if !Self::in_bounds(&index) => Self::engine_offset(index),
            _ => Self::planned_offset(&index),
        }
    }

    /// The engine's unchecked offset, off the hot path.
    #[cold]
    #[inline(never)]
    const fn engine_offset(index: [usize; R]) -> usize {
        Self::LAYOUT.offset_in_bounds(&index)
    }

    /// Whether every entry of `index` is below its dimension's size.
    #[inline]
    pub const fn is_in_bounds(index: [usize; R]) -> bool {
        // One comparison per entry, each against its constant: on 32-bit
        // targets the optimiser otherwise merges the entries into one
        // masked test it cannot prove inside constant loop ranges, and
        // `Packed::get` kept a panic path on thumbv7em.
        let mut d = 0;
        while d < R {
            if index[d] >= Self::DIMS[d] {
                return false;
            }
            d += 1;
        }
        true
    }

    /// Checks `index` against the dimensions.
    ///
    /// # Errors
    /// The first entry out of bounds.
    #[inline]
    pub const fn check_index(index: [usize; R]) -> Result<(), Error> {
        Self::LAYOUT.check_index(&index)
    }

    /// What the slot at `offset` holds: an element's index, or padding
    /// (the inverse of [`StaticLayout::offset`]).
    ///
    /// # Panics
    /// If `offset >= BUFFER_LEN`, with the engine's message.
    #[track_caller]
    pub const fn slot(offset: usize) -> SlotOf<R> {
        match Self::try_slot(offset) {
            Ok(s) => s,
            Err(e) => e.panic(),
        }
    }

    /// What the slot at `offset` holds, or why there is no such slot.
    ///
    /// # Errors
    /// `offset >= BUFFER_LEN`.
    pub const fn try_slot(offset: usize) -> Result<SlotOf<R>, Error> {
        match Self::LAYOUT.try_slot(offset) {
            Ok(Slot::Element(idx)) => Ok(SlotOf::Element(idx.to_array::<R>())),
            Ok(Slot::Padding) => Ok(SlotOf::Padding),
            Err(e) => Err(e),
        }
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> Clone
    for StaticLayout<R, T, RMD, D, M, Ti, A>
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> Copy
    for StaticLayout<R, T, RMD, D, M, Ti, A>
{
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> Default
    for StaticLayout<R, T, RMD, D, M, Ti, A>
{
    fn default() -> Self {
        StaticLayout(PhantomData)
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> PartialEq
    for StaticLayout<R, T, RMD, D, M, Ti, A>
{
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> Eq for StaticLayout<R, T, RMD, D, M, Ti, A> {}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> fmt::Debug
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    Self: KnownLayout,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StaticLayout({})", <Self as KnownLayout>::LAYOUT)
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> fmt::Display
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    Self: KnownLayout,
{
    /// XLA's canonical text, e.g. `f32[3,5]{1,0:T(2,2)}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&<Self as KnownLayout>::LAYOUT, f)
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> From<StaticLayout<R, T, RMD, D, M, Ti, A>>
    for ArrayLayout
where
    T: ElementSpec,
    StaticLayout<R, T, RMD, D, M, Ti, A>: KnownLayout,
{
    fn from(_: StaticLayout<R, T, RMD, D, M, Ti, A>) -> ArrayLayout {
        <StaticLayout<R, T, RMD, D, M, Ti, A> as KnownLayout>::LAYOUT
    }
}
