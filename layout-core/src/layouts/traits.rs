//! The layout traits: one family that every layout implements, whether its
//! numbers are known at compile time ([`StaticLayout`](crate::StaticLayout), written by
//! `tessera::layout!`), partly at run time ([`MixedLayout`](crate::MixedLayout), `?` and `<=N`
//! dims) or only at run time ([`ArrayLayout`], parsed from text).
//!
//! | trait | what it says | implemented by |
//! | --- | --- | --- |
//! | [`AnyLayout`] | dims, sizes, offsets, slots: everything a kernel or a tensor asks a layout | every layout |
//! | [`HasRank<R>`] | indexed with `[usize; R]` | static and mixed layouts of rank `R` (checked by the compiler); run-time layouts for every `R` (checked when used) |
//! | [`SameShape<L>`] | the same logical array as `L` (element type and dims), so a copy between them is defined | static pairs with equal shapes (checked by the compiler); any pair involving a run-time or mixed layout (checked when used) |
//! | [`KnownLayout`] | every number is a constant: `L::LAYOUT`, `L::VALUE` | static layouts |
//! | [`RowMajorDense`] | offsets are `0..ELEMENT_COUNT` in row-major order | static layouts that are |
//! | [`SameElementCount<L>`] | a reshape of `L` | static layouts (type-level product of the dims) |
//!
//! One vocabulary holds on every layout: [`AnyLayout::offset`] panics on
//! an index out of bounds (like slice indexing), [`AnyLayout::try_offset`]
//! returns the error instead, and [`AnyLayout::offset_in_bounds`] is the
//! bare formula for an index the caller has already bounded (the loop
//! ranges of a kernel). The same goes for `slot` / `try_slot`.
//!
//! What each call costs: on a static layout every method reads associated
//! consts and folds to the arithmetic one writes by hand (at `opt-level`
//! 3, without LTO); on a mixed layout, the same with the run-time extents
//! as the only variables; on an [`ArrayLayout`] the engine's general
//! transform runs per call (a few dozen nanoseconds), so per-element work
//! on a run-time layout goes through a tensor (which prepares the offset
//! formula once) or the iterators.
//!
//! ```
//! use tessera::{AnyLayout, ArrayLayout, HasRank, SameShape, layout};
//!
//! /// Copies a matrix between two layouts of the same array: untiling a
//! /// TPU buffer, say. Works for static, mixed and run-time layouts alike;
//! /// for static ones every offset is a handful of constant shifts.
//! fn relayout<S: HasRank<2>, D: HasRank<2> + SameShape<S>>(s: &S, src: &[f32], d: &D, dst: &mut [f32]) {
//!     for y in 0..s.size(0) {
//!         for x in 0..s.size(1) {
//!             dst[d.offset(&[y, x])] = src[s.offset(&[y, x])];
//!         }
//!     }
//! }
//!
//! type Tiled = layout!(f32[16,256]{1,0:T(8,128)});
//! let src: Vec<f32> = (0..Tiled::BUFFER_LEN).map(|i| i as f32).collect();
//! let mut dst = vec![0.0; 16 * 256];
//! relayout(&Tiled::NEW, &src, &<layout!(f32[16,256])>::NEW, &mut dst);
//! assert_eq!(dst[1 * 256 + 0], src[128]); // row 1 of the first tile
//!
//! // The same kernel with a layout read at run time.
//! let rt: ArrayLayout = "f32[16,256]{1,0:T(8,128)}".parse()?;
//! let mut again = vec![0.0; 16 * 256];
//! relayout(&rt, &src, &<layout!(f32[16,256])>::NEW, &mut again);
//! assert_eq!(dst, again);
//! # Ok::<(), tessera::Error>(())
//! ```

use core::marker::PhantomData;

use crate::array::terms::OffsetTerms;
use crate::array::{ArrayLayout, DimVec, Slot};
use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind};
use crate::layouts::typelevel::{DimList, ElementSpec, ToDecimal, TypenumCount};
use crate::model::shape::Shape;

/// A layout, known at compile time, partly, or only at run time. Generic
/// code takes `L: AnyLayout` (or a rank bound, [`HasRank<R>`]) and works
/// with every kind; see the [module docs](self) for what each call costs.
///
/// Indices are slices (`&[y, x]`): on static and mixed layouts the length
/// is checked against the rank at compile time when it is a constant, so
/// passing an array costs nothing.
///
/// Sealed: the layouts of this crate ([`ArrayLayout`],
/// [`PreparedLayout`](crate::PreparedLayout), `layout!`'s static and
/// mixed types, [`TileOf`](crate::layouts::tiling::TileOf)) are the only
/// ones. Tensors hand out references into their buffers by these offsets
/// (`iter_mut` gives every element its own `&mut`), which is sound only
/// because each offset is the engine's, distinct for distinct indices and
/// within `buffer_len`: a layout written elsewhere could break that
/// without `unsafe`.
///
/// ```
/// use tessera::{AnyLayout, ArrayLayout, layout};
/// /// The offset of the last element (y, x), whatever the layout's kind.
/// fn last<L: AnyLayout>(l: &L) -> usize {
///     l.offset(&[l.size(0) - 1, l.size(1) - 1])
/// }
/// let rt: ArrayLayout = "f32[3,5]{0,1}".parse()?;
/// assert_eq!(last(&rt), 4 * 3 + 2);
/// assert_eq!(last(&<layout!(f32[3,5]{0,1})>::NEW), 14);
/// assert_eq!(last(&<layout!(f32[?,5]{0,1})>::new([3, 5])?), 14);
/// # Ok::<(), tessera::Error>(())
/// ```
pub trait AnyLayout: Clone + sealed::Layout {
    /// The rank, when the type fixes it (static and mixed layouts).
    const FIXED_RANK: Option<usize>;
    /// The whole layout, when the type fixes it (static layouts).
    const FIXED_LAYOUT: Option<ArrayLayout>;
    /// The layout with `?` or `<=N` for the dims known only at run time,
    /// when the type fixes everything else (static and mixed layouts):
    /// relayouts between two such types build their loop nest while
    /// compiling ([`NestTemplate`](crate::walk::NestTemplate)).
    const TEMPLATE: Option<Shape>;

    /// A logical index of this layout, as iterators hand it out:
    /// `[usize; R]` for static and mixed layouts (a few registers, and
    /// `if let Some([y, x]) = ...` destructures it), [`DimVec`] for
    /// run-time layouts. Both index like a slice (`i[0]`, `i.as_ref()`).
    type Index: LayoutIndex;

    /// The layout as the engine's plain-data value. For a static layout a
    /// constant; for a mixed layout built on each call. Call it once to
    /// set up work, not per element.
    fn to_array_layout(&self) -> ArrayLayout;

    /// The layout and the offset terms it keeps, when it keeps them (a
    /// [`PreparedLayout`](crate::PreparedLayout) whose offsets have a
    /// digit formula): a relayout between two such layouts plans from
    /// those terms
    /// ([`LoopNest::relayout_between`](crate::walk::LoopNest::relayout_between)).
    #[doc(hidden)]
    #[inline]
    fn prepared_parts(&self) -> Option<(&ArrayLayout, &OffsetTerms)> {
        None
    }

    /// Number of dimensions.
    fn rank(&self) -> usize;

    /// The size of dimension `dim`.
    ///
    /// # Panics
    /// If `dim >= rank()`.
    fn size(&self, dim: usize) -> usize;

    /// The size of every dimension.
    fn sizes(&self) -> DimVec;

    /// The element type.
    fn element_type(&self) -> PrimitiveType;

    /// Bits one element takes in the buffer (`E(4)` makes it 4).
    fn element_size_in_bits(&self) -> usize;

    /// Number of logical elements.
    fn element_count(&self) -> usize;

    /// Number of slots in the buffer, padding included.
    fn buffer_len(&self) -> usize;

    /// Element strides per dimension when offsets are linear in the index
    /// (no tiling reorders elements), as [`ArrayLayout::strides`].
    fn strides(&self) -> Option<DimVec>;

    /// Whether `index` has one entry per dimension, each in bounds.
    fn is_in_bounds(&self, index: &[usize]) -> bool;

    /// The offset of an index the caller knows to be in bounds (a
    /// kernel's loop ranges): the bare formula. For an index out of bounds
    /// the result is some number (never undefined behaviour, never a
    /// panic for a static or mixed layout of the right rank).
    fn offset_in_bounds(&self, index: &[usize]) -> usize;

    /// The offset of the element at `index`, in slots.
    ///
    /// # Panics
    /// If `index` has the wrong number of entries or an entry is out of
    /// bounds, with the engine's message naming the dimension, the index
    /// and the bound (like slice indexing; [`AnyLayout::try_offset`]
    /// returns the error instead).
    #[inline]
    #[track_caller]
    fn offset(&self, index: &[usize]) -> usize {
        if self.is_in_bounds(index) {
            self.offset_in_bounds(index)
        } else {
            panic!("{}", bounds_error(&self.sizes(), index))
        }
    }

    /// The offset of the element at `index`, or why there is none.
    ///
    /// # Errors
    /// Wrong number of entries, or an entry out of bounds.
    #[inline]
    fn try_offset(&self, index: &[usize]) -> Result<usize, Error> {
        if self.is_in_bounds(index) {
            Ok(self.offset_in_bounds(index))
        } else {
            Err(bounds_error(&self.sizes(), index))
        }
    }

    /// What the slot at `offset` holds: an element's index, or padding.
    ///
    /// # Errors
    /// `offset >= buffer_len()`.
    fn try_slot(&self, offset: usize) -> Result<Slot, Error> {
        self.to_array_layout().try_slot(offset)
    }

    /// What the slot at `offset` holds.
    ///
    /// # Panics
    /// If `offset >= buffer_len()`, with the engine's message.
    #[track_caller]
    fn slot(&self, offset: usize) -> Slot {
        match self.try_slot(offset) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }
}

/// A logical index as a layout's iterators hand it out
/// ([`AnyLayout::Index`]): `[usize; R]` or [`DimVec`]. Sealed: the
/// layouts choose it.
///
/// ```
/// use tessera::{AnyLayout, ArrayLayout, LayoutIndex, layout};
/// type A = layout!(f32[3,5]);
/// let i = <A as AnyLayout>::Index::from_slice(&[2, 4]);
/// assert_eq!(i, [2, 4]);
/// let r = <ArrayLayout as AnyLayout>::Index::from_slice(&[2, 4]);
/// assert_eq!(r.as_ref(), [2, 4]);
/// ```
pub trait LayoutIndex:
    Copy
    + core::fmt::Debug
    + PartialEq
    + Eq
    + core::hash::Hash
    + AsRef<[usize]>
    + AsMut<[usize]>
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// The index whose entries are `values`.
    ///
    /// # Panics
    /// If `values` has a length the index cannot hold (not `R` for
    /// `[usize; R]`, more than [`MAX_RANK`](crate::MAX_RANK) for
    /// [`DimVec`]).
    fn from_slice(values: &[usize]) -> Self;

    /// A copy with entry `dim` set to `value` (the same index when `dim`
    /// is not below the rank). Built entry by entry over the whole
    /// storage, so the copy is a value in registers that the compiler
    /// can take apart, where writing `index[dim]` through a run-time
    /// `dim` keeps it in memory: the tensors' index-handing folds build
    /// each element's index this way.
    #[doc(hidden)]
    fn with_entry(self, dim: usize, value: usize) -> Self;
}

impl<const R: usize> LayoutIndex for [usize; R] {
    #[inline(always)]
    #[track_caller]
    fn from_slice(values: &[usize]) -> Self {
        match <&[usize; R]>::try_from(values) {
            Ok(a) => *a,
            Err(_) => panic!("an index of {} entries for rank {R}", values.len()),
        }
    }

    #[inline(always)]
    fn with_entry(self, dim: usize, value: usize) -> Self {
        core::array::from_fn(|k| if k == dim { value } else { self[k] })
    }
}

impl LayoutIndex for DimVec {
    #[inline(always)]
    #[track_caller]
    fn from_slice(values: &[usize]) -> Self {
        DimVec::from_slice(values)
    }

    #[inline(always)]
    fn with_entry(self, dim: usize, value: usize) -> Self {
        DimVec::with_entry(self, dim, value)
    }
}

impl AsRef<[usize]> for DimVec {
    #[inline(always)]
    fn as_ref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl AsMut<[usize]> for DimVec {
    #[inline(always)]
    fn as_mut(&mut self) -> &mut [usize] {
        self.as_mut_slice()
    }
}

pub(crate) mod sealed {
    /// Only `[usize; R]` and `DimVec` are layout indices.
    pub trait Sealed {}
    impl<const R: usize> Sealed for [usize; R] {}
    impl Sealed for crate::array::DimVec {}

    /// Only this crate's types are layouts ([`super::AnyLayout`]): each
    /// implements this next to its `AnyLayout`.
    pub trait Layout {}
}

/// Why `index` is out of bounds for `sizes`, off the hot path.
#[cold]
#[inline(never)]
pub fn bounds_error(sizes: &DimVec, index: &[usize]) -> Error {
    match crate::index::check_index(sizes.as_slice(), index) {
        Err(e) => e,
        // Callers only ask after `is_in_bounds` said no; keep this total.
        Ok(()) => Error::new(ErrorKind::IndexRankMismatch {
            expected: sizes.len(),
            found: index.len(),
        }),
    }
}

/// A layout indexed with `[usize; R]`: a static or mixed layout of rank
/// `R` (a wrong rank is a compile error at the call site), or a run-time
/// layout for every `R` (its rank is checked when it is used: offsets
/// panic or return the error, tensors return `None`).
///
/// One bound says "rank 2" for kernels and tensors alike:
///
/// ```
/// use tessera::{AnyLayout, HasRank, layout};
/// fn trace<L: HasRank<2>>(l: &L, data: &[f32]) -> f32 {
///     (0..l.size(0).min(l.size(1))).map(|i| data[l.offset(&[i, i])]).sum()
/// }
/// type M = layout!(f32[3,3]);
/// assert_eq!(trace(&M::NEW, &[1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0]), 6.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layout `{Self}` is not known to have the rank needed here",
    label = "a kernel or an index over R dims needs a layout bound `HasRank<R>`",
    note = "a generic kernel states the rank with the bound `HasRank<R>`; a layout from `layout!` has the rank of its dims (`f32[3,5]` has rank 2, its first parameter)"
)]
pub trait HasRank<const R: usize>: AnyLayout {}

/// Two layouts of the same logical array: same element type, same
/// dimensions (the layouts may differ), so a copy between them is
/// defined. Between two static layouts a mismatch is a compile error;
/// when either is mixed or run-time, the shapes are checked when used
/// (a relayout returns the error naming the dimension).
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::{SameShape, layout};
/// type Rows = layout!(f32[16,256]);
/// type Tiled = layout!(f32[16,256]{1,0:T(8,128)});
/// assert_impl_all!(Tiled: SameShape<Rows>);
/// assert_not_impl_any!(layout!(f32[256,16]): SameShape<Rows>);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layouts `{Self}` and `{Other}` hold different arrays",
    label = "the element type or a dimension differs from the other layout's",
    note = "a copy between layouts needs the same element type and dims; compare the two `layout!` texts"
)]
pub trait SameShape<Other>: AnyLayout {}

/// A layout whose every number is known at compile time (the static
/// layouts of `tessera::layout!`): generic code reads its constants.
///
/// ```
/// use tessera::{KnownLayout, layout};
/// fn buffer<L: KnownLayout>() -> usize {
///     L::LAYOUT.buffer_len() // a constant after monomorphisation
/// }
/// assert_eq!(buffer::<layout!(f32[3,5]{1,0:T(2,2)})>(), 24);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layout `{Self}` is not known at compile time",
    label = "this needs a static layout from `layout!` (no `?` or `<=N` dims)"
)]
pub trait KnownLayout: AnyLayout + Copy + Default {
    /// The layout as the engine's value.
    const LAYOUT: ArrayLayout;
    /// The value of this zero-sized type.
    const VALUE: Self;
    /// Number of dimensions.
    const RANK: usize;
    /// Number of slots in the buffer.
    const BUFFER_LEN: usize;
    /// The size of every dimension, usable in `const` items of generic
    /// code (`const { L::DIMS.as_slice()[0] }`).
    const DIMS: DimVec;
    /// A rank-typed index, `[usize; RANK]`.
    type Index: Copy + AsRef<[usize]>;
    /// The dimensions as a type ([`DimList`]).
    type Dims: DimList;
    /// The logical shape and element type, without the layout: two layouts
    /// of the same array have the same `Logical`.
    type Logical;
}

/// The logical shape of a [`KnownLayout`]: element type (an
/// [`ElementSpec`] marker) and dims, no layout.
///
/// ```
/// use core::any::TypeId;
/// use static_assertions::assert_type_eq_all;
/// use tessera::traits::Logical;
/// use tessera::typelevel::{F32, N};
/// use tessera::{KnownLayout, layout};
/// type Of<L> = <L as KnownLayout>::Logical;
/// assert_type_eq_all!(Of<layout!(f32[3,5]{0,1:T(2,2)})>, Logical<F32, (N<3>, N<5>)>);
/// let f32_3x5 = TypeId::of::<Of<layout!(f32[3,5])>>();
/// assert_eq!(f32_3x5, TypeId::of::<Of<layout!(f32[3,5]{0,1})>>());
/// assert_ne!(f32_3x5, TypeId::of::<Of<layout!(f32[5,3])>>());
/// ```
pub struct Logical<Element, Dims>(PhantomData<fn() -> (Element, Dims)>);

/// A layout whose offsets are `0..ELEMENT_COUNT` in row-major order with no
/// padding ([`ArrayLayout::is_row_major_dense`]), so its buffer can be used
/// as a plain row-major slice.
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::{RowMajorDense, layout};
/// assert_impl_all!(layout!(f32[4,6]): RowMajorDense);
/// assert_not_impl_any!(layout!(f32[4,6]{0,1}): RowMajorDense);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layout `{Self}` is not row-major dense",
    label = "this layout reorders or pads elements",
    note = "a kernel that indexes with `y * cols + x` needs `{{1,0}}` order with no tiles or padding; relayout first"
)]
pub trait RowMajorDense: KnownLayout {}

/// Two layouts with the same number of elements (a reshape), checked with
/// typenum's type-level product of the dimensions.
///
/// Available when every dimension is one typenum maps from a const
/// generic (see [`TypenumCount`]).
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::{SameElementCount, layout};
/// assert_impl_all!(layout!(f32[24]): SameElementCount<layout!(f32[4,6])>);
/// assert_not_impl_any!(layout!(f32[25]): SameElementCount<layout!(f32[4,6])>);
/// ```
pub trait SameElementCount<Other>: KnownLayout {}

impl<L, Other> SameElementCount<Other> for L
where
    L: KnownLayout,
    Other: KnownLayout,
    L::Dims: TypenumCount,
    Other::Dims: TypenumCount,
    ElementCountOf<L>: ToDecimal,
    ElementCountOf<Other>: ToDecimal,
    (DecimalCountOf<L>, DecimalCountOf<Other>): EqualCounts,
{
}

/// Two element counts that are equal: `(C, C)`. The bound behind
/// [`SameElementCount`], so that a mismatch says what is wrong; the counts
/// are in decimal there ([`DecimalCountOf`]), so that the error shows
/// them as `(Decimal<(D2, D5)>, Decimal<(D2, D4)>)`, 25 against 24.
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::traits::EqualCounts;
/// use tessera::typenum::{U24, U25};
/// assert_impl_all!((U24, U24): EqualCounts);
/// assert_not_impl_any!((U24, U25): EqualCounts);
/// ```
#[diagnostic::on_unimplemented(
    message = "the two layouts have different element counts",
    label = "the element count differs from the other layout's"
)]
pub trait EqualCounts {}

impl<C> EqualCounts for (C, C) {}

/// The element count of a [`KnownLayout`] as a typenum number.
///
/// ```
/// use tessera::layout;
/// use tessera::traits::ElementCountOf;
/// use tessera::typenum::Unsigned;
/// assert_eq!(ElementCountOf::<layout!(f32[4,6]{0,1:T(2,2)})>::USIZE, 24);
/// ```
pub type ElementCountOf<L> = <<L as KnownLayout>::Dims as TypenumCount>::Count;

/// The element count of a [`KnownLayout`] as a [`Decimal`](crate::layouts::typelevel::Decimal),
/// its digits as types: what a [`SameElementCount`] error shows.
///
/// ```
/// use static_assertions::assert_type_eq_all;
/// use tessera::layout;
/// use tessera::traits::DecimalCountOf;
/// use tessera::typelevel::{D2, D4, Decimal};
/// assert_type_eq_all!(DecimalCountOf<layout!(f32[4,6])>, Decimal<(D2, D4)>);
/// ```
pub type DecimalCountOf<L> = <ElementCountOf<L> as ToDecimal>::Output;

// ---------------------------------------------------------------------
// Run-time layouts.

impl sealed::Layout for ArrayLayout {}

impl AnyLayout for ArrayLayout {
    const FIXED_RANK: Option<usize> = None;
    const FIXED_LAYOUT: Option<ArrayLayout> = None;
    const TEMPLATE: Option<Shape> = None;
    type Index = DimVec;

    #[inline]
    fn to_array_layout(&self) -> ArrayLayout {
        *self
    }
    #[inline]
    fn rank(&self) -> usize {
        ArrayLayout::rank(self)
    }
    #[inline]
    fn size(&self, dim: usize) -> usize {
        ArrayLayout::size(self, dim)
    }
    #[inline]
    fn sizes(&self) -> DimVec {
        ArrayLayout::sizes(self)
    }
    #[inline]
    fn element_type(&self) -> PrimitiveType {
        ArrayLayout::element_type(self)
    }
    #[inline]
    fn element_size_in_bits(&self) -> usize {
        ArrayLayout::element_size_in_bits(self)
    }
    #[inline]
    fn element_count(&self) -> usize {
        ArrayLayout::element_count(self)
    }
    #[inline]
    fn buffer_len(&self) -> usize {
        ArrayLayout::buffer_len(self)
    }
    #[inline]
    fn strides(&self) -> Option<DimVec> {
        ArrayLayout::strides(self)
    }
    #[inline]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        ArrayLayout::is_in_bounds(self, index)
    }
    #[inline]
    fn offset_in_bounds(&self, index: &[usize]) -> usize {
        ArrayLayout::offset_in_bounds(self, index)
    }
    #[inline]
    fn try_slot(&self, offset: usize) -> Result<Slot, Error> {
        ArrayLayout::try_slot(self, offset)
    }
}

impl<const R: usize> HasRank<R> for ArrayLayout {}
impl SameShape<ArrayLayout> for ArrayLayout {}

/// Two element markers that are one: `(E, E)`. The bound behind
/// [`SameShape`] between static layouts, so that a mismatch says what is
/// wrong.
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::traits::SameElementType;
/// use tessera::typelevel::{Bf16, F32};
/// assert_impl_all!((F32, F32): SameElementType);
/// assert_not_impl_any!((F32, Bf16): SameElementType);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layouts hold different element types: `{Self}`",
    label = "this layout's element type comes first, the other layout's second",
    note = "a copy between layouts needs the same element type: `f32[..]` and `f32[..]`, say"
)]
pub trait SameElementType {}

impl<E: ElementSpec> SameElementType for (E, E) {}

/// Two dim lists of one rank, equal dimension by dimension:
/// `((N<3>, N<5>), (N<3>, N<5>))`. The bound behind [`SameShape`] between
/// static layouts; each dimension is compared by [`SameSize<DIM>`], so a
/// mismatch names the dimension.
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::traits::SameDims;
/// use tessera::typelevel::N;
/// assert_impl_all!(((N<3>, N<5>), (N<3>, N<5>)): SameDims);
/// assert_not_impl_any!(((N<3>, N<5>), (N<5>, N<3>)): SameDims);
/// assert_not_impl_any!(((N<3>, N<5>), (N<3>,)): SameDims);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layouts have different ranks: their dims are `{Self}`",
    label = "this layout's dims come first, the other layout's second",
    note = "a copy between layouts needs the same dims: `f32[3,5]` and `f32[3,5]{{0,1}}`, say"
)]
pub trait SameDims {}

/// One dimension, dimension `DIM`, of the same size in two layouts:
/// `(N<V>, N<V>)`.
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::traits::SameSize;
/// use tessera::typelevel::N;
/// assert_impl_all!((N<8>, N<8>): SameSize<0>);
/// assert_not_impl_any!((N<8>, N<16>): SameSize<0>);
/// ```
#[diagnostic::on_unimplemented(
    message = "dimension {DIM} differs between the layouts: its sizes are `{Self}`",
    label = "this layout's size of dimension {DIM} comes first, the other layout's second",
    note = "a copy between layouts needs the same dims; dimensions count from 0 (`f32[3,5]` has size 3 in dimension 0)"
)]
pub trait SameSize<const DIM: usize> {}

impl<S, const DIM: usize> SameSize<DIM> for (S, S) {}

/// Implements [`SameDims`] for one rank: `(Ai, Bi): SameSize<i>` for
/// each dimension `i`.
macro_rules! same_dims {
    ($(($a:ident, $b:ident, $dim:literal))*) => {
        impl<$($a, $b),*> SameDims for (($($a,)*), ($($b,)*))
        where
            $(($a, $b): SameSize<$dim>,)*
        {
        }
    };
}

same_dims!();
same_dims!((A0, B0, 0));
same_dims!((A0, B0, 0)(A1, B1, 1));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
)(A6, B6, 6));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
)(A6, B6, 6)(A7, B7, 7));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
)(A6, B6, 6)(A7, B7, 7)(A8, B8, 8));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
)(A6, B6, 6)(A7, B7, 7)(A8, B8, 8)(A9, B9, 9));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
)(A6, B6, 6)(A7, B7, 7)(A8, B8, 8)(A9, B9, 9)(A10, B10, 10));
same_dims!((A0, B0, 0)(A1, B1, 1)(A2, B2, 2)(A3, B3, 3)(A4, B4, 4)(
    A5, B5, 5
)(A6, B6, 6)(A7, B7, 7)(A8, B8, 8)(A9, B9, 9)(A10, B10, 10)(
    A11, B11, 11
));

// The generated ranks must reach MAX_RANK.
const _: () = assert!(
    crate::limits::MAX_RANK == 12,
    "regenerate the `SameDims` impls for the new MAX_RANK"
);

#[cfg(test)]
mod tests {
    use super::LayoutIndex;
    use crate::DimVec;

    #[test]
    fn with_entry_sets_one_entry_below_the_rank() {
        assert_eq!([3, 4, 5].with_entry(1, 9), [3, 9, 5]);
        assert_eq!([3, 4, 5].with_entry(3, 9), [3, 4, 5]);
        let v = DimVec::from_slice(&[3, 4, 5]);
        assert_eq!(v.with_entry(2, 9).as_slice(), [3, 4, 9]);
        assert_eq!(v.with_entry(0, 0).as_slice(), [0, 4, 5]);
        // Past the length: the same index, equal to it (the unused tail
        // stays zero, so derived equality holds).
        assert_eq!(LayoutIndex::with_entry(v, 3, 9), v);
        assert_eq!(LayoutIndex::with_entry(v, usize::MAX, 9), v);
        let empty = DimVec::from_slice(&[]);
        assert_eq!(LayoutIndex::with_entry(empty, 0, 1), empty);
    }
}
