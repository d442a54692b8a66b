//! The layout [traits](crate::layouts::traits) for
//! [`StaticLayout`]: every method reads the layout's associated consts.

use crate::array::{ArrayLayout, DimVec, Slot};
use crate::element::PrimitiveType;
use crate::error::Error;
use crate::layouts::static_layout::StaticLayout;
use crate::layouts::traits::{
    AnyLayout, HasRank, KnownLayout, Logical, RowMajorDense, SameDims, SameElementType, SameShape,
    bounds_error,
};
use crate::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList};
use crate::model::shape::Shape;

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> crate::layouts::traits::sealed::Layout
    for StaticLayout<R, T, RMD, D, M, Ti, A>
{
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> AnyLayout
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    const FIXED_RANK: Option<usize> = Some(R);
    const FIXED_LAYOUT: Option<ArrayLayout> = Some(Self::LAYOUT);
    const TEMPLATE: Option<Shape> = Some(*Self::LAYOUT.shape());
    type Index = [usize; R];

    #[inline(always)]
    fn to_array_layout(&self) -> ArrayLayout {
        Self::LAYOUT
    }
    #[inline(always)]
    fn rank(&self) -> usize {
        R
    }
    #[inline(always)]
    #[track_caller]
    fn size(&self, dim: usize) -> usize {
        Self::DIMS[dim]
    }
    #[inline(always)]
    fn sizes(&self) -> DimVec {
        const { DimVec::from_slice(&Self::DIMS) }
    }
    #[inline(always)]
    fn element_type(&self) -> PrimitiveType {
        Self::ELEMENT_TYPE
    }
    #[inline(always)]
    fn element_size_in_bits(&self) -> usize {
        Self::ELEMENT_SIZE_IN_BITS
    }
    #[inline(always)]
    fn element_count(&self) -> usize {
        Self::ELEMENT_COUNT
    }
    #[inline(always)]
    fn buffer_len(&self) -> usize {
        Self::BUFFER_LEN
    }
    #[inline(always)]
    fn strides(&self) -> Option<DimVec> {
        const {
            match Self::STRIDES {
                Some(s) => Some(DimVec::from_slice(&s)),
                None => None,
            }
        }
    }
    #[inline(always)]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => Self::is_in_bounds(*i),
            Err(_) => false,
        }
    }
    #[inline(always)]
    fn offset_in_bounds(&self, index: &[usize]) -> usize {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => Self::offset_in_bounds(*i),
            Err(_) => Self::LAYOUT.offset_in_bounds(index),
        }
    }
    #[inline(always)]
    #[track_caller]
    fn offset(&self, index: &[usize]) -> usize {
        match <&[usize; R]>::try_from(index) {
            Ok(i) => Self::offset(*i),
            Err(_) => panic!("{}", bounds_error(&self.sizes(), index)),
        }
    }
    #[inline]
    fn try_slot(&self, offset: usize) -> Result<Slot, Error> {
        Self::LAYOUT.try_slot(offset)
    }
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> KnownLayout
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    const LAYOUT: ArrayLayout = Self::LAYOUT;
    const VALUE: Self = Self::NEW;
    const RANK: usize = R;
    const BUFFER_LEN: usize = Self::BUFFER_LEN;
    const DIMS: DimVec = DimVec::from_slice(&Self::DIMS);
    type Index = [usize; R];
    type Dims = D;
    type Logical = Logical<T, D>;
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> HasRank<R>
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<const R: usize, T, D, M, Ti, A> RowMajorDense for StaticLayout<R, T, true, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

/// Two static layouts: the element types and then the dims are compared
/// by the bounds below, so that a mismatch names the part that differs
/// (the element types, or which dimension and its two sizes).
impl<
    const R1: usize,
    const R2: usize,
    T1,
    T2,
    const RMD1: bool,
    const RMD2: bool,
    D1,
    D2,
    M1,
    M2,
    Ti1,
    Ti2,
    A1,
    A2,
> SameShape<StaticLayout<R2, T2, RMD2, D2, M2, Ti2, A2>>
    for StaticLayout<R1, T1, RMD1, D1, M1, Ti1, A1>
where
    T1: ElementSpec,
    T2: ElementSpec,
    D1: DimList,
    D2: DimList,
    M1: NumList,
    M2: NumList,
    Ti1: TileList,
    Ti2: TileList,
    A1: AttrSpec,
    A2: AttrSpec,
    (T1, T2): SameElementType,
    (D1, D2): SameDims,
{
}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> SameShape<ArrayLayout>
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
    SameShape<StaticLayout<R, T, RMD, D, M, Ti, A>> for ArrayLayout
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}
