//! Windows checked against the engine: for thousands of generated layouts
//! and windows, every window index reads and writes the slot the engine's
//! offset of the shifted index names, in logical order.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::{ArrayLayout, ErrorKind, PrimitiveType, TensorBuf, layout};
use test_support::{Spec, SpecGen, row_major};

/// Rank-2 f32 layouts with tiles (some with `*`), `pad(..)` and `L(n)`.
fn layouts() -> SpecGen {
    SpecGen {
        rank: 2..=2,
        max_dim: 9,
        zero_dim_one_in: 0,
        ..SpecGen::new(vec![PrimitiveType::F32])
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A layout and a window `[y0..y1, x0..x1]` inside it.
fn layout_and_window() -> impl Strategy<Value = (Spec, [std::ops::Range<usize>; 2])> {
    layouts().spec().prop_flat_map(|spec| {
        let dims = spec.layout().sizes();
        let (h, w) = (dims[0], dims[1]);
        let range = |n: usize| (0..=n).prop_flat_map(move |a| (a..=n).prop_map(move |b| a..b));
        (Just(spec), range(h), range(w)).prop_map(|(s, r, c)| (s, [r, c]))
    })
}

fn value_of(index: &[usize]) -> f32 {
    (index[0] * 100 + index[1]) as f32
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn windows_agree_with_engine((spec, ranges) in layout_and_window()) {
        let layout = spec.layout();
        let mut t = TensorBuf::<ArrayLayout, f32>::from_fn(layout, value_of).unwrap();
        let origin = [ranges[0].start, ranges[1].start];
        let extent = [ranges[0].len(), ranges[1].len()];
        {
            let w = t.window(ranges.clone());
            prop_assert_eq!(w.extent().as_slice().to_vec(), extent.to_vec());
            let expected: Vec<f32> = row_major(&extent)
                .iter()
                .map(|i| t.as_slice()[layout.offset(&[i[0] + origin[0], i[1] + origin[1]])])
                .collect();
            prop_assert_eq!(w.iter().copied().collect::<Vec<_>>(), expected.clone());
            let mut seen = Vec::new();
            w.for_each(|i, v| {
                assert_eq!(*v, value_of(&[i[0] + origin[0], i[1] + origin[1]]));
                seen.push(*v);
            });
            prop_assert_eq!(seen, expected);
            for i in row_major(&extent) {
                prop_assert_eq!(w[[i[0], i[1]]], value_of(&[i[0] + origin[0], i[1] + origin[1]]));
            }
            prop_assert!(w.get([extent[0], 0]).is_none());
        }
        // Writes reach exactly the window's elements.
        t.window_mut(ranges.clone()).fill(-1.0);
        t.for_each(|i, v| {
            let inside = ranges[0].contains(&i[0]) && ranges[1].contains(&i[1]);
            assert_eq!(*v == -1.0, inside, "{spec}: {i:?}");
        });
    }
}

#[test]
fn rows_columns_and_nested_windows() {
    type A = layout!(f32[20,300]{1,0:T(8,128)});
    let mut t = TensorBuf::from_fn(A::NEW, value_of).unwrap();
    let row = t.row(9);
    assert_eq!(row.extent().as_slice(), &[1, 300]);
    assert_eq!(row[[0, 130]], value_of(&[9, 130]));
    let col = t.column(131);
    assert_eq!(col.iter().count(), 20);
    assert_eq!(col[[19, 0]], value_of(&[19, 131]));
    let w = t.window([4..16, 100..200]);
    let inner = w.window([2..3, 50..60]);
    assert_eq!(inner.origin().as_slice(), &[6, 150]);
    assert_eq!(inner[[0, 9]], value_of(&[6, 159]));
    t.column_mut(0).for_each_mut(|i, v| *v = i[0] as f32);
    assert_eq!(t[[19, 0]], 19.0);
    t.row_mut(0)[[0, 299]] = 5.0;
    assert_eq!(t[[0, 299]], 5.0);
}

#[test]
fn bad_windows_say_why() {
    let t = TensorBuf::<ArrayLayout, f32>::zeroed("f32[4,5]".parse().unwrap()).unwrap();
    let e = t.try_window([0..4, 2..6]).err().unwrap();
    assert_eq!(
        e.kind(),
        ErrorKind::WindowOutOfBounds {
            dim: 1,
            start: 2,
            end: 6,
            size: 5
        }
    );
    assert_eq!(
        e.to_string(),
        "window range 2..6 of dimension `1` reaches past its size 5"
    );
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = t.try_window([3..1, 0..5]).err().unwrap();
    assert!(reversed.to_string().contains("is reversed"), "{reversed}");
    // A run-time layout checks the rank when used.
    #[allow(clippy::single_range_in_vec_init)] // one range for one dimension
    let e = t.try_window([0..1]).err().unwrap();
    assert_eq!(
        e.kind(),
        ErrorKind::IndexRankMismatch {
            expected: 2,
            found: 1
        }
    );
}
