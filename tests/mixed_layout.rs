//! Layouts with `?` and `<=N` dims (`MixedLayout`) against the engine:
//! for every extent in a range, every offset equals the concrete run-time
//! layout's, and the concrete layout places elements as XLA's bounded
//! layout (the bound's room) does.

use tessera::{ArrayLayout, ErrorKind, layout};
use test_support::row_major;

/// Checks `layout!(tokens)` for each of `extents` (the full dims), against
/// the engine on the same text with the extents written in.
macro_rules! check_mixed {
    ($rank:literal; [$($dims:expr),*]; $($shape:tt)*) => {{
        type L = layout!($($shape)*);
        let template = stringify!($($shape)*).replace(' ', "");
        for dims in [$($dims),*] {
            let dims: [usize; $rank] = dims;
            let l = L::new(dims).unwrap_or_else(|e| panic!("{template} {dims:?}: {e}"));
            assert_eq!(l.dims(), dims);
            let rt = l.to_runtime();
            assert_eq!(&rt.sizes()[..], &dims[..]);
            assert_eq!(l.buffer_len(), rt.buffer_len());
            for idx in row_major(&dims) {
                let idx: [usize; $rank] = idx.try_into().unwrap();
                assert_eq!(Ok(l.offset(idx)), rt.try_offset(&idx), "{template} {dims:?} {idx:?}");
                assert_eq!(l.offset_in_bounds(idx), l.offset(idx));
            }
            // One past the extent of each dim is refused.
            for d in 0..$rank {
                let mut past = [0usize; $rank];
                past[d] = dims[d];
                if dims.iter().all(|&n| n > 0) {
                    assert!(l.try_offset(past).is_err(), "{template} {dims:?} {past:?}");
                }
            }
        }
    }};
}

#[test]
fn dynamic_rows_of_tpu_tiles() {
    check_mixed!(2; [[0, 256], [1, 256], [7, 256], [8, 256], [9, 256], [17, 256]];
        bf16[?,256]{1,0:T(8,128)(2,1)});
    check_mixed!(2; [[3, 5], [4, 8], [9, 1]]; f32[?,?]{1,0:T(2,4)});
    check_mixed!(2; [[5, 3], [8, 4], [1, 9]]; f32[?,?]{0,1:T(2,4)});
    check_mixed!(3; [[2, 3, 5], [2, 1, 7], [2, 4, 4]]; f32[2,?,?]{2,0,1:T(2,2)});
    check_mixed!(2; [[6, 5], [13, 5]]; s8[?,5]{0,1:T(4,2)(2,1)});
    check_mixed!(2; [[6, 5], [13, 5]]; f32[?,5]{1,0:T(4)L(8)});
}

#[test]
fn bounded_dims_keep_the_bounds_room() {
    check_mixed!(3; [[2, 0, 4], [2, 2, 4], [2, 3, 4]]; f32[2,<=3,4]{2,0,1});
    check_mixed!(2; [[5, 1], [5, 7]]; f32[5,<=7]{0,1:T(4,2)});
    check_mixed!(2; [[3, 16], [64, 16]]; f32[<=64,16]);
    // Offsets are the bound layout's, whatever the extent.
    type B = layout!(f32[<=64,16]{1,0:T(8,8)});
    let bound: ArrayLayout = "f32[<=64,16]{1,0:T(8,8)}".parse().unwrap();
    assert_eq!(B::BUFFER_LEN, bound.buffer_len());
    let l = B::new([10, 16]).unwrap();
    assert_eq!(l.buffer_len(), B::BUFFER_LEN);
    for idx in row_major(&[10, 16]) {
        assert_eq!(Ok(l.offset([idx[0], idx[1]])), bound.try_offset(&idx));
    }
}

#[test]
fn new_checks_static_dims_and_bounds() {
    type Rows = layout!(bf16[?,1024]{1,0:T(8,128)(2,1)});
    let err = Rows::new([4, 1000]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dimension `1` is static with size 1024, but the extent given is 1000"
    );
    type Bounded = layout!(f32[<=64,16]);
    let err = Bounded::new([65, 16]).unwrap_err();
    assert_eq!(
        err.kind(),
        ErrorKind::BoundExceeded {
            dim: 0,
            bound: 64,
            found: 65
        }
    );
    assert_eq!(
        err.to_string(),
        "extent 65 of dimension `0` is above its bound <=64"
    );
    type Huge = layout!(f32[?,?]);
    assert!(matches!(
        Huge::new([usize::MAX / 2, 3]).unwrap_err().kind(),
        ErrorKind::Overflow { .. }
    ));
    assert_eq!(
        Huge::new([3, usize::MAX]).unwrap_err().to_string(),
        format!(
            "dimension `1` has size {}, above the maximum of {}",
            usize::MAX,
            tessera::MAX_DIM_SIZE
        )
    );
    let l = Rows::new([3, 1024]).unwrap();
    let err = l.try_offset([3, 0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "index 3 is out of bounds for dimension `0` of size 3"
    );
}

#[test]
fn canonical_types_and_text() {
    type A = layout!(bf16[?,1024]{1,0:T(8,128)(2,1)});
    type B = layout!(bf16[ ?, 1024 ]<1,0:T(8,128)(2,1)E(0)>);
    assert_eq!(std::any::TypeId::of::<A>(), std::any::TypeId::of::<B>());
    let l = A::new([5, 1024]).unwrap();
    assert_eq!(l.to_string(), "bf16[?,1024]{1,0:T(8,128)(2,1)}");
    type C = layout!(f32[<=64,16]);
    assert_eq!(C::new([3, 16]).unwrap().to_string(), "f32[<=64,16]{1,0}");
    // Only the run-time extents are stored.
    assert_eq!(std::mem::size_of::<A>(), std::mem::size_of::<usize>());
    type D = layout!(f32[?,?,4]);
    assert_eq!(std::mem::size_of::<D>(), 2 * std::mem::size_of::<usize>());
    // The `?` rows of a TPU tiling are the most major dim: no stride
    // depends on them.
    assert!(A::PLAN.dynamic_sizes().iter().all(|&(dim, _)| dim == 0));
    assert!(A::PLAN.terms().iter().all(|t| t.dynamic_factors == 0));
}

mod tensors {
    use tessera::{HasRank, PreparedLayout, Tensor, TensorBuf, TensorView, TensorViewMut, layout};

    type Rows = layout!(bf16[?,256]{1,0:T(8,128)(2,1)});
    type RowsF32 = layout!(f32[?,256]{1,0:T(8,128)});
    type Static = layout!(f32[19,256]{1,0:T(8,128)});
    type RowMajor = layout!(f32[19,256]);

    /// A kernel generic over every kind of layout.
    fn total<L: HasRank<2>>(t: &TensorView<'_, L, f32>) -> f32 {
        let dims = t.to_array_layout().sizes();
        let mut sum = 0.0;
        for i in 0..dims[0] {
            for j in 0..dims[1] {
                sum += t[[i, j]];
            }
        }
        sum
    }

    #[test]
    fn generic_kernels_take_static_runtime_and_mixed_layouts() {
        let rows = RowsF32::new([19, 256]).unwrap();
        let mixed = TensorBuf::from_fn(rows, |i| (i[0] * 256 + i[1]) as f32).unwrap();
        let mut st = vec![0.0f32; Static::BUFFER_LEN];
        let mut st = TensorViewMut::new(Static::NEW, &mut st).unwrap();
        mixed.relayout_into(&mut st).unwrap();
        let rt = st.relayout(PreparedLayout::new(rows.to_runtime())).unwrap();
        let expected: f32 = (0..19 * 256).map(|v| v as f32).sum();
        assert_eq!(total(&mixed.view()), expected);
        assert_eq!(total(&st.view()), expected);
        assert_eq!(total(&rt.view()), expected);
        assert_eq!(mixed.as_slice(), st.as_slice());
        assert_eq!(mixed.as_slice(), rt.as_slice());
        // And into a plain row-major buffer, through the static path.
        let mut out = Tensor::<RowMajor, f32, { RowMajor::BUFFER_LEN }>::zeroed();
        mixed.relayout_into(&mut out).unwrap();
        assert!(
            out.as_slice()
                .iter()
                .enumerate()
                .all(|(k, &v)| v == k as f32)
        );
    }

    #[test]
    fn mixed_tensors_index_iterate_and_check_extents() {
        let l = Rows::new([11, 256]).unwrap();
        let t =
            TensorBuf::from_fn(l, |i| half::bf16::from_f32((i[0] * 3 + i[1] % 7) as f32)).unwrap();
        assert_eq!(t.as_slice().len(), l.buffer_len());
        assert_eq!(t[[10, 255]], half::bf16::from_f32(30.0 + 3.0));
        assert_eq!(t.get([11, 0]), None);
        assert_eq!(t.iter().count(), 11 * 256);
        for (index, value) in t.iter().indexed() {
            assert_eq!(
                *value,
                half::bf16::from_f32((index[0] * 3 + index[1] % 7) as f32)
            );
        }
        // A mismatching extent is a run-time error naming the dim.
        let other = RowsF32::new([12, 256]).unwrap();
        let f = TensorBuf::<_, f32>::zeroed(RowsF32::new([11, 256]).unwrap()).unwrap();
        let mut g = TensorBuf::<_, f32>::zeroed(other).unwrap();
        let err = f.relayout_into(&mut g).unwrap_err();
        assert_eq!(
            err.to_string(),
            "dimension `0` has size 11 in the source but 12 in the destination"
        );
    }

    /// Mixed relayouts take their loop nest from a template built while
    /// compiling; at every row count (below a tile, between tiles, past
    /// the template's probes) they copy what the run-time path copies.
    #[test]
    fn mixed_relayouts_agree_with_runtime_ones_at_every_extent() {
        type RowMajorMixed = layout!(f32[?,256]{1,0});
        type Bf16RowMajor = layout!(bf16[?,256]{1,0});
        use tessera::walk::NestTemplate;
        assert!(NestTemplate::relayout(&RowMajorMixed::TEMPLATE, &RowsF32::TEMPLATE).is_some());
        assert!(NestTemplate::relayout(&Bf16RowMajor::TEMPLATE, &Rows::TEMPLATE).is_some());
        for rows in [0, 1, 2, 7, 8, 9, 17, 1030, 2300] {
            let rm = RowMajorMixed::new([rows, 256]).unwrap();
            let src = TensorBuf::from_fn(rm, |i| (i[0] * 256 + i[1]) as f32).unwrap();
            let tiled = RowsF32::new([rows, 256]).unwrap();
            let mut dst = TensorBuf::<_, f32>::filled(tiled, -1.0).unwrap();
            src.relayout_into(&mut dst).unwrap();
            let mut expected =
                TensorBuf::<_, f32>::filled(PreparedLayout::new(tiled.to_runtime()), -1.0).unwrap();
            src.relayout_into(&mut expected).unwrap();
            assert!(
                dst.as_slice() == expected.as_slice(),
                "f32 pack of {rows} rows"
            );
            let mut back = TensorBuf::<_, f32>::filled(rm, -1.0).unwrap();
            dst.relayout_into(&mut back).unwrap();
            assert!(
                back.as_slice() == src.as_slice(),
                "f32 unpack of {rows} rows"
            );

            let bf = |i: &[usize]| half::bf16::from_f32(((i[0] * 256 + i[1]) % 251) as f32);
            let src = TensorBuf::from_fn(Bf16RowMajor::new([rows, 256]).unwrap(), bf).unwrap();
            let pairs = Rows::new([rows, 256]).unwrap();
            let mut dst = TensorBuf::<_, half::bf16>::zeroed(pairs).unwrap();
            src.relayout_into(&mut dst).unwrap();
            let via_runtime = src
                .relayout(PreparedLayout::new(pairs.to_runtime()))
                .unwrap();
            assert!(
                dst.as_slice() == via_runtime.as_slice(),
                "bf16 pack of {rows} rows"
            );
        }
    }

    #[test]
    fn bounded_tensors_have_inline_storage() {
        type Bounded = layout!(f32[<=64,16]);
        let l = Bounded::new([10, 16]).unwrap();
        let mut t = Tensor::<Bounded, f32, { Bounded::BUFFER_LEN }>::zeroed_in(l).unwrap();
        assert_eq!(
            core::mem::size_of_val(&t),
            64 * 16 * 4 + core::mem::size_of::<usize>()
        );
        t[[9, 15]] = 2.0;
        assert_eq!(t.as_slice()[9 * 16 + 15], 2.0);
        assert_eq!(t.get([10, 0]), None); // past the extent, inside the room
        assert_eq!(t.iter().count(), 160);
        // The inline buffer must be the layout's exactly: shorter or longer.
        for err in [
            Tensor::<Bounded, f32, 100>::zeroed_in(l)
                .map(|_| ())
                .unwrap_err(),
            Tensor::<Bounded, f32, 2000>::zeroed_in(l)
                .map(|_| ())
                .unwrap_err(),
        ] {
            let tessera::ErrorKind::InlineBufferLengthMismatch { needed, .. } = err.kind() else {
                panic!("{err}");
            };
            assert_eq!(needed, 1024);
        }
        assert_eq!(
            Tensor::<Bounded, f32, 2000>::zeroed_in(l)
                .map(|_| ())
                .unwrap_err()
                .to_string(),
            "the inline buffer has 2000 slots but the layout's buffer is 1024 slots, which it must be exactly"
        );
    }
}
