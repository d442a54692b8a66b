//! The layout [traits](crate::layouts::traits) for
//! [`MixedLayout`]: constants except the run-time extents.

use crate::array::{ArrayLayout, DimVec};
use crate::element::PrimitiveType;
use crate::layouts::mixed_layout::MixedLayout;
use crate::layouts::static_layout::StaticLayout;
use crate::layouts::traits::{AnyLayout, HasRank, SameShape};
use crate::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList};
use crate::model::shape::Shape;

impl<const R: usize, const K: usize, T, D, M, Ti, A> crate::layouts::traits::sealed::Layout
    for MixedLayout<R, K, T, D, M, Ti, A>
{
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> AnyLayout for MixedLayout<R, K, T, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    const FIXED_RANK: Option<usize> = Some(R);
    const FIXED_LAYOUT: Option<ArrayLayout> = None;
    // The inherent `MixedLayout::TEMPLATE`: XLA's text with `?` and `<=N`.
    const TEMPLATE: Option<Shape> = Some(MixedLayout::<R, K, T, D, M, Ti, A>::TEMPLATE);
    type Index = [usize; R];

    #[inline]
    fn to_array_layout(&self) -> ArrayLayout {
        self.to_runtime()
    }
    #[inline(always)]
    fn rank(&self) -> usize {
        R
    }
    #[inline(always)]
    #[track_caller]
    fn size(&self, dim: usize) -> usize {
        self.dims()[dim]
    }
    #[inline(always)]
    fn sizes(&self) -> DimVec {
        DimVec::from_slice(&self.dims())
    }
    #[inline(always)]
    fn element_type(&self) -> PrimitiveType {
        Self::ELEMENT_TYPE
    }
    #[inline(always)]
    fn element_size_in_bits(&self) -> usize {
        Self::ELEMENT_SIZE_IN_BITS
    }
    #[inline]
    fn element_count(&self) -> usize {
        MixedLayout::element_count(self)
    }
    #[inline]
    fn buffer_len(&self) -> usize {
        MixedLayout::buffer_len(self)
    }
    #[inline]
    fn strides(&self) -> Option<DimVec> {
        self.to_runtime().strides()
    }
    #[inline(always)]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => MixedLayout::is_in_bounds(self, *i),
            Err(_) => false,
        }
    }
    #[inline(always)]
    fn offset_in_bounds(&self, index: &[usize]) -> usize {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => MixedLayout::offset_in_bounds(self, *i),
            Err(_) => self.to_runtime().offset_in_bounds(index),
        }
    }
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> HasRank<R>
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

/// A mixed layout's shape against a run-time one: checked when used.
impl<const R: usize, const K: usize, T, D, M, Ti, A> SameShape<ArrayLayout>
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
    for ArrayLayout
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

/// Mixed and static layouts of the same rank and element type: the
/// extents are checked when used.
impl<const R: usize, const K: usize, T, const RMD: bool, D1, D2, M1, M2, Ti1, Ti2, A1, A2>
    SameShape<StaticLayout<R, T, RMD, D1, M1, Ti1, A1>> for MixedLayout<R, K, T, D2, M2, Ti2, A2>
where
    T: ElementSpec,
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

impl<const R: usize, const K: usize, T, const RMD: bool, D1, D2, M1, M2, Ti1, Ti2, A1, A2>
    SameShape<MixedLayout<R, K, T, D2, M2, Ti2, A2>> for StaticLayout<R, T, RMD, D1, M1, Ti1, A1>
where
    T: ElementSpec,
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

impl<const R: usize, const K1: usize, const K2: usize, T, D1, D2, M1, M2, Ti1, Ti2, A1, A2>
    SameShape<MixedLayout<R, K1, T, D1, M1, Ti1, A1>> for MixedLayout<R, K2, T, D2, M2, Ti2, A2>
where
    T: ElementSpec,
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
