//! The kernel-signature bounds accept what they should (the UI tests show
//! each one rejecting what it should).

use static_assertions::{assert_impl_all, assert_not_impl_any};
use tessera::traits::ElementCountOf;
use tessera::typenum::Unsigned;
use tessera::{HasRank, KnownLayout, RowMajorDense, SameElementCount, SameShape, layout};

type Plain = layout!(f32[4,6]);
type Cols = layout!(f32[4,6]{0,1});
type Tiled = layout!(f32[4,6]{1,0:T(2,2)});
type Flat = layout!(f32[24]);
type Wide = layout!(bf16[1,2,12,1]);
type Big = layout!(u8[1024,4096]);

#[test]
fn same_shape_ignores_the_layout_only() {
    assert_impl_all!(Cols: SameShape<Plain>, SameShape<Tiled>);
    assert_impl_all!(Tiled: SameShape<Cols>, SameShape<Plain>);
    assert_not_impl_any!(Flat: SameShape<Plain>);
    assert_not_impl_any!(layout!(bf16[4,6]): SameShape<Plain>);
}

#[test]
fn rank_and_density() {
    assert_impl_all!(Plain: HasRank<2>, RowMajorDense);
    assert_impl_all!(Wide: HasRank<4>, RowMajorDense);
    assert_not_impl_any!(Plain: HasRank<1>, HasRank<3>);
    assert_not_impl_any!(Cols: RowMajorDense);
    assert_not_impl_any!(Tiled: RowMajorDense);
    assert_not_impl_any!(layout!(f32[4,6]{1,0:pad(4,8)}): RowMajorDense);
    // A tile that keeps row-major order keeps the layout dense.
    assert_impl_all!(layout!(f32[16,128]{1,0:T(8,128)}): RowMajorDense);
    const _: () = assert!(<layout!(f32[16,128]{1,0:T(8,128)})>::IS_ROW_MAJOR_DENSE);
}

#[test]
fn element_counts_by_typenum() {
    assert_impl_all!(Flat: SameElementCount<Plain>, SameElementCount<Wide>);
    assert_impl_all!(Tiled: SameElementCount<layout!(s8[2,3,4]{0,1,2})>);
    assert_not_impl_any!(Flat: SameElementCount<layout!(f32[25])>);
    // Seven digits, compared in decimal.
    assert_impl_all!(Big: SameElementCount<layout!(s8[4096,1024]{0,1:T(8,128)})>);
    assert_not_impl_any!(Big: SameElementCount<layout!(u8[4096,1023])>);
    // No elements: no digits.
    assert_impl_all!(layout!(f32[0,3]): SameElementCount<layout!(f32[4,0])>);
    assert_not_impl_any!(layout!(f32[0,3]): SameElementCount<layout!(f32[1])>);
    assert_eq!(
        <ElementCountOf<Plain> as Unsigned>::USIZE,
        Plain::ELEMENT_COUNT
    );
    assert_eq!(<ElementCountOf<Big> as Unsigned>::USIZE, Big::ELEMENT_COUNT);
    assert_eq!(<ElementCountOf<layout!(f32[])> as Unsigned>::USIZE, 1);
    assert_eq!(<Big as KnownLayout>::RANK, 2);
}
