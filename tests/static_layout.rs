//! Static layouts against the run-time engine and hand-computed offsets:
//! every const of a `layout!` type equals what `ArrayLayout` computes for
//! the same text, and offsets match index arithmetic written by hand.

use static_assertions::assert_type_eq_all;
use tessera::{AnyLayout, ArrayLayout, KnownLayout, SlotOf, layout};

/// Checks every const and `const fn` of `layout!(tokens)` against the
/// run-time layout parsed from the same tokens' text, over every index and
/// every slot.
macro_rules! check_against_runtime {
    ($rank:literal; $($shape:tt)*) => {{
        type L = layout!($($shape)*);
        let text = stringify!($($shape)*);
        let rt: ArrayLayout = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(L::LAYOUT, rt, "{text}");
        assert_eq!(L::to_runtime(), rt);
        assert_eq!(ArrayLayout::from(L::new()), rt);
        assert_eq!(L::NEW.to_array_layout(), rt);
        assert_eq!(L::RANK, rt.rank());
        assert_eq!(<L as KnownLayout>::RANK, $rank);
        assert_eq!(L::ELEMENT_TYPE, rt.element_type());
        assert_eq!(&L::DIMS[..], &*rt.sizes());
        let m2m: Vec<usize> = rt.layout().minor_to_major().iter().map(|&d| d as usize).collect();
        assert_eq!(&L::MINOR_TO_MAJOR[..], &m2m[..]);
        assert_eq!(L::TILES, rt.layout().tiles());
        assert_eq!(L::ELEMENT_COUNT, rt.element_count());
        assert_eq!(L::BUFFER_LEN, rt.buffer_len());
        assert_eq!(L::ELEMENT_SIZE_IN_BITS, rt.element_size_in_bits());
        assert_eq!(L::LOGICAL_BYTE_SIZE, rt.logical_byte_size());
        assert_eq!(L::PHYSICAL_BYTE_SIZE, rt.physical_byte_size());
        assert_eq!(L::PHYSICAL_SHAPE, rt.physical_shape());
        assert_eq!(L::STRIDES.map(|s| s.to_vec()), rt.strides().map(|s| s.to_vec()));
        assert_eq!(L::BYTE_STRIDES.map(|s| s.to_vec()), rt.byte_strides().map(|s| s.to_vec()));
        assert_eq!(L::IS_ROW_MAJOR_DENSE, rt.is_row_major_dense());
        assert_eq!(L::NEW.to_string(), rt.to_string());
        let mut seen = 0;
        for_each_index(&L::DIMS, |idx: [usize; $rank]| {
            let off = L::offset(idx);
            assert_eq!(Ok(off), rt.try_offset(&idx), "{text} {idx:?}");
            assert_eq!(L::try_offset(idx), Ok(off));
            assert_eq!(L::offset_in_bounds(idx), off);
            assert!(L::is_in_bounds(idx));
            assert_eq!(L::slot(off), SlotOf::Element(idx));
            seen += 1;
        });
        assert_eq!(seen, L::ELEMENT_COUNT);
        let mut padding = 0;
        let buffer_len = L::BUFFER_LEN;
        for off in 0..buffer_len {
            match L::slot(off) {
                SlotOf::Element(idx) => assert_eq!(L::offset(idx), off),
                SlotOf::Padding => padding += 1,
            }
        }
        assert_eq!(padding, L::BUFFER_LEN - L::ELEMENT_COUNT);
        assert!(L::try_slot(L::BUFFER_LEN).is_err());
    }};
}

/// Calls `f` with every index of `dims`, in row-major order.
fn for_each_index<const R: usize>(dims: &[usize; R], mut f: impl FnMut([usize; R])) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = [0usize; R];
    loop {
        f(idx);
        let mut d = R;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

#[test]
fn consts_equal_the_runtime_layout() {
    check_against_runtime!(2; f32[3,5]);
    check_against_runtime!(2; f32[3,5]{0,1});
    check_against_runtime!(2; f32[3,5]{1,0:T(2,2)});
    check_against_runtime!(2; bf16[16,256]{1,0:T(8,128)(2,1)});
    check_against_runtime!(2; f32[6,8]{1,0:T(3,4)(2,1)});
    check_against_runtime!(3; s8[2,3,4]{0,2,1:T(2,*,2)});
    check_against_runtime!(2; f32[3,5]{1,0:L(4)});
    check_against_runtime!(2; s4[4,6]{1,0:E(4)});
    check_against_runtime!(2; f32[3,5]{1,0:pad(4,8:zero)});
    check_against_runtime!(2; f32[4,4]{1,0:S(1)M(8)});
    check_against_runtime!(2; f32[8,4]{1,0:SC(0:2,4)});
    check_against_runtime!(0; f32[]);
    check_against_runtime!(1; u8[0]);
    check_against_runtime!(4; c64[2,1,3,2]{3,1,0,2});
    check_against_runtime!(2; f32[5,7]{1,0:T(2,4)pad(6,9)});
    check_against_runtime!(3; bf16[3,10,20]{1,2,0:T(8,8)(2,1)});
    check_against_runtime!(1; s4[300]{0:T(128)L(64)E(4)});
    check_against_runtime!(2; u8[9,9]{1,0:T(4,4,4)});
}

#[test]
fn offsets_equal_hand_arithmetic() {
    type RowMajor = layout!(f32[3,5]);
    type ColMajor = layout!(f32[3,5]{0,1});
    type Padded = layout!(f32[3,5]{1,0:pad(4,8)});
    type Tiled = layout!(f32[3,5]{1,0:T(2,2)});
    type Tpu = layout!(f32[16,256]{1,0:T(8,128)});
    type Packed = layout!(bf16[16,256]{1,0:T(8,128)(2,1)});
    type Doc = layout!(f32[4,8]{1,0:T(2,4)(2,1)});
    for i in 0..3 {
        for j in 0..5 {
            assert_eq!(RowMajor::offset([i, j]), i * 5 + j);
            assert_eq!(ColMajor::offset([i, j]), j * 3 + i);
            assert_eq!(Padded::offset([i, j]), i * 8 + j);
            // 2x2 tiles, 3 tiles per row of tiles.
            assert_eq!(
                Tiled::offset([i, j]),
                ((i / 2) * 3 + j / 2) * 4 + (i % 2) * 2 + j % 2
            );
        }
    }
    for i in 0..16 {
        for j in 0..256 {
            let tile = (i / 8) * 2 + j / 128;
            let within = (i % 8) * 128 + j % 128;
            assert_eq!(Tpu::offset([i, j]), tile * 1024 + within);
            // (2,1) pairs rows 2r and 2r+1 of each 8x128 tile.
            let (r, c) = (i % 8, j % 128);
            let packed = ((r / 2) * 128 + c) * 2 + r % 2;
            assert_eq!(Packed::offset([i, j]), tile * 1024 + packed);
        }
    }
    // XLA's tiled-layout doc: rows of the 4x8 array tiled (2,4)(2,1).
    let rows: [[usize; 8]; 4] = [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ];
    for (i, row) in rows.iter().enumerate() {
        for (j, &want) in row.iter().enumerate() {
            assert_eq!(Doc::offset([i, j]), want);
        }
    }
    assert_eq!(Doc::PHYSICAL_SHAPE.dims(), &[2, 2, 1, 4, 2, 1]);
}

#[test]
fn issue_example_is_evaluated_by_rustc() {
    type A = layout!(f32[3,5]{1,0:T(2,2)});
    type B = layout!(f32[3,5]<1,0:T(2,2)>);
    const OFF: usize = A::offset([2, 3]);
    const LEN: usize = A::BUFFER_LEN;
    const BACK: SlotOf<2> = B::slot(17);
    const PAD: SlotOf<2> = A::slot(22);
    const _: () = assert!(OFF == 17 && LEN == 24);
    assert_eq!((OFF, LEN), (17, 24));
    assert_eq!(BACK, SlotOf::Element([2, 3]));
    assert_eq!(PAD, SlotOf::Padding);
    const RT: ArrayLayout = A::to_runtime();
    assert_eq!(RT.buffer_len(), 24);
}

#[test]
fn bounds_checks() {
    type A = layout!(f32[3,5]);
    assert!(!A::is_in_bounds([3, 0]));
    assert!(!A::is_in_bounds([0, 5]));
    let e = A::try_offset([0, 5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index 5 is out of bounds for dimension `1` of size 5"
    );
    assert_eq!(A::check_index([2, 4]), Ok(()));
    let panicked = std::panic::catch_unwind(|| A::offset([3, 0])).unwrap_err();
    let msg = panicked.downcast_ref::<String>().unwrap();
    assert_eq!(msg, "index 3 is out of bounds for dimension `0` of size 3");
}

#[test]
fn the_same_layout_is_the_same_type() {
    assert_type_eq_all!(
        layout!(f32[3,5]),
        layout!(f32[3,5]{1,0}),
        layout!(f32[ 3, 5 ]<1,0>),
        layout!(f32[3,5]{1,0:L(1)}),
        layout!(f32[3,5]<1, 0 : E(0) S(0) M(0)>),
    );
    assert_type_eq_all!(layout!(f32[3,5]{1,0:T(2,2)}), layout!(f32[3,5]<1,0:T(2,2)>));
    assert_ne!(
        std::any::TypeId::of::<layout!(f32[3,5]{1,0})>(),
        std::any::TypeId::of::<layout!(f32[3,5]{0,1})>()
    );
}

#[test]
fn generic_code_over_any_layout() {
    fn first_offsets<L: AnyLayout>(l: &L) -> Vec<usize> {
        (0..3).map(|i| l.try_offset(&[i, 0]).unwrap()).collect()
    }
    type A = layout!(f32[3,5]{0,1});
    let rt: ArrayLayout = "f32[3,5]{0,1}".parse().unwrap();
    assert_eq!(first_offsets(&A::NEW), first_offsets(&rt));
    assert_eq!(first_offsets(&rt), vec![0, 1, 2]);
    assert_eq!(AnyLayout::buffer_len(&A::NEW), AnyLayout::buffer_len(&rt));
    assert_eq!(AnyLayout::slot(&A::NEW, 4), AnyLayout::slot(&rt, 4));
    assert_eq!(
        AnyLayout::try_slot(&A::NEW, 99),
        AnyLayout::try_slot(&rt, 99)
    );
    // One vocabulary: `offset` on the trait agrees with the inherent one,
    // `try_offset` returns the engine's error, `offset_in_bounds` the bare
    // formula.
    assert_eq!(AnyLayout::offset(&A::NEW, &[2, 4]), A::offset([2, 4]));
    assert_eq!(AnyLayout::offset(&rt, &[2, 4]), rt.offset(&[2, 4]));
    assert_eq!(
        AnyLayout::try_offset(&A::NEW, &[3, 0]).unwrap_err(),
        rt.try_offset(&[3, 0]).unwrap_err()
    );
    assert!(AnyLayout::try_offset(&A::NEW, &[1]).is_err());
    assert_eq!(
        AnyLayout::offset_in_bounds(&rt, &[2, 4]),
        A::offset_in_bounds([2, 4])
    );
    assert_eq!(AnyLayout::sizes(&A::NEW).as_slice(), rt.sizes().as_slice());
    assert_eq!(AnyLayout::element_count(&A::NEW), 15);
    assert_eq!(AnyLayout::strides(&A::NEW), rt.strides());
    assert_eq!(
        AnyLayout::strides(&A::NEW).unwrap().as_slice(),
        &A::STRIDES.unwrap()
    );
    // Static dims are constants in generic code.
    fn first_dim<L: KnownLayout>() -> usize {
        const { L::DIMS.as_slice()[0] }
    }
    assert_eq!(first_dim::<A>(), 3);
    fn len_of<L: KnownLayout>() -> usize {
        L::LAYOUT.buffer_len()
    }
    assert_eq!(len_of::<A>(), 15);
}

#[test]
fn every_offset_plan_agrees_with_the_engine() {
    use tessera::static_layout::OffsetPlan;
    type Strided = layout!(f32[64,128]{1,0:T(8,128)});
    type Digits = layout!(f32[1024,1024]{1,0:T(8,128)});
    type Table = layout!(f32[6,8]{1,0:T(3,4)(2,1)});
    type Combined = layout!(f32[4,6,8]{2,1,0:T(*,2,4)});
    type Large = layout!(f32[600,40]{1,0:T(3,4)(2,1)});
    assert_eq!(Strided::OFFSET_PLAN, OffsetPlan::Strided);
    assert_eq!(Digits::OFFSET_PLAN, OffsetPlan::Digits);
    assert_eq!(Table::OFFSET_PLAN, OffsetPlan::Table);
    assert_eq!(Combined::OFFSET_PLAN, OffsetPlan::Engine);
    assert_eq!(Large::OFFSET_PLAN, OffsetPlan::Engine);
    let rt: ArrayLayout = "f32[1024,1024]{1,0:T(8,128)}".parse().unwrap();
    for (i, j) in [
        (0, 0),
        (7, 127),
        (8, 128),
        (63, 255),
        (1023, 1023),
        (517, 300),
    ] {
        assert_eq!(Ok(Digits::offset([i, j])), rt.try_offset(&[i, j]));
        let tpu = ((i / 8) * 8 + j / 128) * 1024 + (i % 8) * 128 + j % 128;
        assert_eq!(Digits::offset([i, j]), tpu);
    }
    check_against_runtime!(2; f32[64,128]{1,0:T(8,128)});
    check_against_runtime!(2; f32[6,8]{1,0:T(3,4)(2,1)});
    check_against_runtime!(3; f32[4,6,8]{2,1,0:T(*,2,4)});
    check_against_runtime!(2; f32[600,40]{1,0:T(3,4)(2,1)});
    // Unchecked offsets out of bounds never panic, whatever the plan.
    let _ = (
        Table::offset_in_bounds([6, 0]),
        Table::offset_in_bounds([usize::MAX, 9999]),
    );
    let _ = (
        Strided::offset_in_bounds([usize::MAX, 1]),
        Digits::offset_in_bounds([2000, 0]),
    );
    let _ = (
        Large::offset_in_bounds([600, 0]),
        Combined::offset_in_bounds([9, 9, 9]),
    );
    assert_eq!(
        Digits::try_offset([1024, 0]).unwrap_err().to_string(),
        "index 1024 is out of bounds for dimension `0` of size 1024"
    );
}

/// Byte strides that do not fit `usize` are `None`, as the run-time
/// layout's: a dimension of size 0 leaves the others' strides large.
#[test]
fn byte_strides_past_usize_are_none() {
    type Empty = layout!(f32[0, 4611686018427387904]);
    assert_eq!(Empty::BYTE_STRIDES, None);
    assert_eq!(
        Empty::LAYOUT.strides().unwrap().as_slice(),
        [4611686018427387904, 1]
    );
    type Fits = layout!(f32[0, 1024]);
    assert_eq!(Fits::BYTE_STRIDES, Some([4096, 4]));
}
