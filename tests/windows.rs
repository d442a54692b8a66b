//! Windows checked against the engine: for thousands of generated layouts
//! and windows, every window index reads and writes the slot the engine's
//! offset of the shifted index names, in logical order; relayout out of
//! and into windows agrees with an element-by-element copy; the tiles a
//! window covers are exactly those holding its elements.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::{ArrayLayout, ErrorKind, PreparedLayout, PrimitiveType, TensorBuf, layout};
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

/// Asserts that the elements of `t` equal to -1 are exactly those of the
/// window `ranges`.
fn assert_only_window_is_written(
    t: &TensorBuf<ArrayLayout, f32>,
    ranges: &[std::ops::Range<usize>; 2],
    spec: &Spec,
) {
    t.for_each(|i, v| {
        let inside = ranges[0].contains(&i[0]) && ranges[1].contains(&i[1]);
        assert_eq!(*v == -1.0, inside, "{spec}: {i:?}");
    });
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
        assert_only_window_is_written(&t, &ranges, &spec);
    }
}

proptest! {
    #![proptest_config(config())]

    /// A window is a slice exactly when it is empty, or its parent is
    /// strided and the engine's offsets of its elements, in logical order,
    /// are consecutive; the slice holds those elements, and writing through
    /// it writes only the window.
    #[test]
    fn windows_of_consecutive_slots_are_slices((spec, ranges) in layout_and_window()) {
        let layout = spec.layout();
        let mut t = TensorBuf::<ArrayLayout, f32>::from_fn(layout, value_of).unwrap();
        let origin = [ranges[0].start, ranges[1].start];
        let extent = [ranges[0].len(), ranges[1].len()];
        let offsets: Vec<usize> = row_major(&extent)
            .iter()
            .map(|i| layout.offset(&[i[0] + origin[0], i[1] + origin[1]]))
            .collect();
        let consecutive = offsets.iter().enumerate().all(|(k, &o)| o == offsets[0] + k);
        // An empty window is the empty slice, whatever the parent.
        let slice_expected = offsets.is_empty() || (layout.strides().is_some() && consecutive);
        let expected: Vec<f32> = offsets.iter().map(|&o| t.as_slice()[o]).collect();
        let w = t.window(ranges.clone());
        prop_assert_eq!(w.strides(), layout.strides());
        match w.as_slice() {
            Some(slice) => {
                prop_assert!(slice_expected, "{}", spec);
                prop_assert_eq!(slice, &expected[..]);
            }
            None => prop_assert!(!slice_expected, "{}", spec),
        }
        let through_into = w.into_slice().map(<[f32]>::to_vec);
        let is_slice = through_into.is_some();
        if let Some(slice) = through_into {
            prop_assert_eq!(slice, expected);
        }
        let mut w = t.window_mut(ranges.clone());
        prop_assert_eq!(w.as_mut_slice().is_some(), is_slice);
        if let Some(slice) = t.window_mut(ranges.clone()).into_mut_slice() {
            slice.fill(-1.0);
            assert_only_window_is_written(&t, &ranges, &spec);
        }
    }
}

#[test]
fn rows_of_row_major_matrices_are_slices() {
    type A = layout!(f32[3,4,5]);
    let mut t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 100 + i[1] * 10 + i[2]) as f32).unwrap();
    let band = t.window([1..2, 1..3, 0..5]);
    assert_eq!(band.as_slice().map(<[f32]>::len), Some(10));
    assert_eq!(band.as_slice().unwrap()[5], 120.0);
    assert_eq!(
        t.window([1..3, 0..4, 0..5]).as_slice().map(<[f32]>::len),
        Some(40)
    );
    assert_eq!(t.window([0..2, 1..2, 0..5]).as_slice(), None);
    assert_eq!(t.window([0..3, 1..2, 2..3]).as_slice(), None);
    assert_eq!(t.window([2..3, 3..4, 4..5]).as_slice(), Some(&[234.0][..]));
    assert_eq!(t.window([1..1, 0..4, 0..5]).as_slice(), Some(&[][..]));
    // A padded parent: rows are still slices, whole blocks are not.
    type P = layout!(f32[3,5]{1,0:pad(3,8:zero)});
    let p = TensorBuf::from_fn(P::NEW, value_of).unwrap();
    assert_eq!(
        p.row(2).as_slice(),
        Some(&[200.0, 201.0, 202.0, 203.0, 204.0][..])
    );
    assert_eq!(p.window([0..2, 0..5]).as_slice(), None);
    // Tiles that reorder elements: no strides, no slices.
    type T = layout!(f32[16,256]{1,0:T(8,128)});
    let tiled = TensorBuf::from_fn(T::NEW, value_of).unwrap();
    assert_eq!(tiled.row(0).strides(), None);
    assert_eq!(tiled.row(0).as_slice(), None);
    // Writing a row through its slice.
    t.window_mut([0..1, 2..3, 0..5])
        .as_mut_slice()
        .unwrap()
        .fill(-1.0);
    assert_eq!(t[[0, 2, 4]], -1.0);
    assert_eq!(t[[0, 3, 0]], 30.0);
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

/// `spec` with dims `dims` (same rank), its `pad(..)` widths kept as
/// widths over the new dims.
fn with_dims(spec: &Spec, dims: &[usize]) -> Spec {
    let padded = spec.padded.as_ref().map(|p| {
        p.iter()
            .zip(&spec.dims)
            .zip(dims)
            .map(|((p, old), new)| new + (p - old))
            .collect()
    });
    Spec {
        dims: dims.to_vec(),
        padded,
        ..spec.clone()
    }
}

/// A parent layout, a window of it and a second layout of the window's
/// extent (tiles, `pad(..)`, `L(n)` and dimension order of its own).
fn parent_window_and_other() -> impl Strategy<Value = (Spec, [std::ops::Range<usize>; 2], Spec)> {
    (layout_and_window(), layouts().spec()).prop_map(|((parent, ranges), other)| {
        let other = with_dims(&other, &[ranges[0].len(), ranges[1].len()]);
        (parent, ranges, other)
    })
}

const UNWRITTEN: f32 = -7.0;

/// Every slot of `t` is `UNWRITTEN` (padding included).
fn unwritten(layout: ArrayLayout) -> TensorBuf<ArrayLayout, f32> {
    TensorBuf::filled(layout, UNWRITTEN).unwrap()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn relayout_out_of_windows_copies_element_by_element(
        (parent, ranges, other) in parent_window_and_other()
    ) {
        let t = TensorBuf::<ArrayLayout, f32>::from_fn(parent.layout(), value_of).unwrap();
        let origin = [ranges[0].start, ranges[1].start];
        let w = t.window(ranges.clone());
        let mut dst = unwritten(other.layout());
        w.relayout_into(&mut dst).unwrap();
        // The element-by-element copy: every index of the window, through
        // the engine's offsets on both sides; padding left alone.
        let mut expected = unwritten(other.layout());
        for i in row_major(&[ranges[0].len(), ranges[1].len()]) {
            let from = parent.layout().offset(&[i[0] + origin[0], i[1] + origin[1]]);
            expected.as_mut_slice()[other.layout().offset(&i)] = t.as_slice()[from];
        }
        prop_assert_eq!(dst.as_slice(), expected.as_slice(), "{} -> {}", parent, other);
        // `relayout` allocates the same elements, padding zero.
        let fresh = w.relayout(other.layout()).unwrap();
        for (slot, (index, v)) in fresh.slots().enumerate() {
            match index {
                Some(_) => prop_assert_eq!(*v, expected.as_slice()[slot]),
                None => prop_assert_eq!(*v, 0.0),
            }
        }
        // Window to window: into the same window of a copy of `dst`'s
        // layout widened by one row and column, at (1, 1).
        let mut wide = unwritten(with_dims(&other, &[ranges[0].len() + 1, ranges[1].len() + 1]).layout());
        w.relayout_into_window(&mut wide.window_mut([1..ranges[0].len() + 1, 1..ranges[1].len() + 1])).unwrap();
        wide.for_each(|i, v| {
            let want = if i[0] >= 1 && i[1] >= 1 {
                value_of(&[i[0] - 1 + origin[0], i[1] - 1 + origin[1]])
            } else {
                UNWRITTEN
            };
            assert_eq!(*v, want, "{parent} -> {other}: {i:?}");
        });
    }

    #[test]
    fn relayout_into_windows_copies_element_by_element(
        (parent, ranges, other) in parent_window_and_other()
    ) {
        let origin = [ranges[0].start, ranges[1].start];
        let src = TensorBuf::<ArrayLayout, f32>::from_fn(other.layout(), |i| value_of(i) + 0.5).unwrap();
        let mut t = unwritten(parent.layout());
        src.relayout_into_window(&mut t.window_mut(ranges.clone())).unwrap();
        let mut expected = unwritten(parent.layout());
        for i in row_major(&[ranges[0].len(), ranges[1].len()]) {
            let to = parent.layout().offset(&[i[0] + origin[0], i[1] + origin[1]]);
            expected.as_mut_slice()[to] = src.as_slice()[other.layout().offset(&i)];
        }
        prop_assert_eq!(t.as_slice(), expected.as_slice(), "{} -> {}", other, parent);
    }
}

#[test]
fn relayout_with_static_mixed_and_prepared_layouts() {
    type Tpu = layout!(f32[20,300]{1,0:T(8,128)});
    let t = TensorBuf::from_fn(Tpu::NEW, value_of).unwrap();
    let w = t.window([5..17, 120..140]);
    let check = |get: &dyn Fn([usize; 2]) -> f32| {
        for i in row_major(&[12, 20]) {
            assert_eq!(
                get([i[0], i[1]]),
                value_of(&[i[0] + 5, i[1] + 120]),
                "{i:?}"
            );
        }
    };
    // Static destination of the window's extent, column-major and tiled.
    let s = w.relayout(<layout!(f32[12,20]{0,1:T(4,8)})>::NEW).unwrap();
    check(&|i| s[i]);
    // Mixed: rows known at run time.
    type Rows = layout!(f32[?,20]{1,0:T(8,4)});
    let m = w.relayout(Rows::new([12, 20]).unwrap()).unwrap();
    check(&|i| m[i]);
    // Prepared run-time layout, with `pad(..)`.
    let p = w
        .relayout(PreparedLayout::parse("f32[12,20]{1,0:T(2,4)pad(13,21)}").unwrap())
        .unwrap();
    check(&|i| p[i]);
    // And back into a window of a padded column-major parent.
    let mut back =
        TensorBuf::<ArrayLayout, f32>::zeroed("f32[30,30]{0,1:pad(31,32)}".parse().unwrap())
            .unwrap();
    m.relayout_into_window(&mut back.window_mut([10..22, 3..23]))
        .unwrap();
    for i in row_major(&[30, 30]) {
        let inside = (10..22).contains(&i[0]) && (3..23).contains(&i[1]);
        let want = if inside {
            value_of(&[i[0] - 10 + 5, i[1] - 3 + 120])
        } else {
            0.0
        };
        assert_eq!(back[[i[0], i[1]]], want, "{i:?}");
    }
}

#[test]
fn relayout_with_other_extents_names_the_dimension() {
    type A = layout!(f32[8,8]{1,0:T(4,4)});
    let mut t = TensorBuf::<A, f32>::zeroed(A::NEW).unwrap();
    let mut dst = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[3,5]").unwrap()).unwrap();
    let e = t.window([0..3, 1..5]).relayout_into(&mut dst).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimensionMismatch {
            dim: 1,
            expected: 4,
            found: 5
        }
    );
    assert_eq!(
        e.to_string(),
        "dimension `1` has size 4 in the source but 5 in the destination"
    );
    let e = t
        .window([0..2, 0..5])
        .relayout(<layout!(f32[3,5])>::NEW)
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimensionMismatch {
            dim: 0,
            expected: 2,
            found: 3
        }
    );
    // Into a window: the tensor is the source.
    let e = dst
        .relayout_into_window(&mut t.window_mut([0..3, 0..4]))
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimensionMismatch {
            dim: 1,
            expected: 5,
            found: 4
        }
    );
    let flat = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[15]").unwrap()).unwrap();
    let e = flat
        .relayout_into_window(&mut t.window_mut([0..3, 0..5]))
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::RankMismatch {
            expected: 1,
            found: 2
        }
    );
    // A failed copy writes nothing.
    assert!(t.iter().all(|&v| v == 0.0));
    let other = t.window([0..3, 0..5]);
    let mut dst2 = TensorBuf::<A, f32>::zeroed(A::NEW).unwrap();
    let e = other
        .relayout_into_window(&mut dst2.window_mut([0..3, 0..4]))
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimensionMismatch {
            dim: 1,
            expected: 5,
            found: 4
        }
    );
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn covered_tiles_are_the_tiles_holding_the_window((spec, ranges) in layout_and_window()) {
        let layout = spec.layout();
        let mut t = TensorBuf::<ArrayLayout, f32>::from_fn(layout, value_of).unwrap();
        let Ok(grid) = t.tile_grid() else {
            // Untiled, or tiles no view describes: the window says the same.
            let e = t.window(ranges.clone()).tile_range().unwrap_err();
            prop_assert_eq!(e.kind(), t.tile_grid().unwrap_err().kind());
            return Ok(());
        };
        let origin = [ranges[0].start, ranges[1].start];
        let extent = [ranges[0].len(), ranges[1].len()];
        let dims = grid.tile_dims();
        // The tiles that hold a window element, by memory-order number.
        let mut expected: Vec<usize> = row_major(&extent)
            .iter()
            .map(|i| grid.tile_number(&[(i[0] + origin[0]) / dims[0], (i[1] + origin[1]) / dims[1]]).unwrap())
            .collect();
        expected.sort();
        expected.dedup();
        let w = t.window(ranges.clone());
        let range = w.tile_range().unwrap();
        let numbers: Vec<usize> = range.iter().map(|g| grid.tile_number(&g).unwrap()).collect();
        prop_assert_eq!(&numbers, &expected, "{}", spec);
        prop_assert_eq!(range.len(), expected.len());
        prop_assert_eq!(range.is_empty(), expected.is_empty());
        // The views: each part read through the tile is the window's
        // element there, and the parts cover the window once.
        let mut seen = vec![0u32; extent[0] * extent[1]];
        let mut visited = Vec::new();
        for tile in w.covered_tiles().unwrap() {
            visited.push(tile.number());
            prop_assert!(range.contains(&tile.grid_index()));
            let (po, pe, wo) = (tile.part_origin(), tile.part_extent(), tile.window_origin());
            prop_assert!(pe[0] >= 1 && pe[1] >= 1);
            prop_assert!(po[0] + pe[0] <= tile.extent()[0] && po[1] + pe[1] <= tile.extent()[1]);
            for k in row_major(&[pe[0], pe[1]]) {
                let (y, x) = (wo[0] + k[0], wo[1] + k[1]);
                prop_assert_eq!(tile[[po[0] + k[0], po[1] + k[1]]], w[[y, x]]);
                seen[y * extent[1] + x] += 1;
            }
        }
        prop_assert_eq!(visited, expected);
        prop_assert!(seen.iter().all(|&n| n == 1));
        // Writing every part through the mutable views writes the window,
        // and nothing else.
        let mut wm = t.window_mut(ranges.clone());
        for mut tile in wm.covered_tiles_mut().unwrap() {
            let (po, pe) = (tile.part_origin(), tile.part_extent());
            for k in row_major(&[pe[0], pe[1]]) {
                tile[[po[0] + k[0], po[1] + k[1]]] = -1.0;
            }
        }
        assert_only_window_is_written(&t, &ranges, &spec);
    }
}

#[test]
fn covered_tiles_at_edges_and_in_padding() {
    // 20x300 in T(8,128): the last tile row holds 4 rows, the last tile
    // column 44 columns.
    type A = layout!(f32[20,300]{1,0:T(8,128)});
    let t = TensorBuf::from_fn(A::NEW, value_of).unwrap();
    let w = t.window([15..20, 250..300]);
    let r = w.tile_range().unwrap();
    assert_eq!((r.range(0), r.range(1)), (1..3, 1..3));
    let tiles: Vec<_> = w.covered_tiles().unwrap().collect();
    let grid: Vec<_> = tiles.iter().map(|t| t.grid_index().to_vec()).collect();
    assert_eq!(grid, [vec![1, 1], vec![1, 2], vec![2, 1], vec![2, 2]]);
    let corner = &tiles[3];
    assert_eq!(corner.extent().as_slice(), &[4, 44]);
    assert_eq!(corner.part_origin().as_slice(), &[0, 0]);
    assert_eq!(corner.part_extent().as_slice(), &[4, 44]);
    assert_eq!(corner.window_origin().as_slice(), &[1, 6]);
    assert_eq!(corner[[3, 43]], value_of(&[19, 299]));
    assert_eq!(tiles[0].part_origin().as_slice(), &[7, 122]);
    assert_eq!(tiles[0].part_extent().as_slice(), &[1, 6]);

    // Column-major with `pad(..)`: the padded rows make a fourth tile row
    // that no window reaches.
    let p = TensorBuf::<ArrayLayout, f32>::from_fn(
        "f32[9,6]{0,1:T(2,4)pad(13,6)}".parse().unwrap(),
        value_of,
    )
    .unwrap();
    assert_eq!(p.tile_grid().unwrap().counts().as_slice(), &[4, 3]);
    let w = p.window([5..9, 0..6]);
    let r = w.tile_range().unwrap();
    assert_eq!((r.range(0), r.range(1)), (1..3, 0..3));
    // Memory order of a column-major grid: down a tile column first.
    let order: Vec<_> = r.iter().map(|g| g.to_vec()).collect();
    assert_eq!(order[..3], [vec![1, 0], vec![2, 0], vec![1, 1]]);
    let bottom: Vec<_> = w
        .covered_tiles()
        .unwrap()
        .filter(|t| t.grid_index()[0] == 2)
        .collect();
    assert!(
        bottom
            .iter()
            .all(|t| t.extent()[0] == 1 && t.part_extent()[0] == 1)
    );
    assert_eq!(bottom[2][[0, 1]], value_of(&[8, 5]));

    // An empty window covers nothing; a row covers one tile row.
    assert!(t.window([3..3, 0..300]).tile_range().unwrap().is_empty());
    assert_eq!(t.window([3..3, 0..300]).covered_tiles().unwrap().count(), 0);
    assert_eq!(t.row(9).tile_range().unwrap().range(0), 1..2);
    assert_eq!(t.row(9).covered_tiles().unwrap().count(), 3);
    // A run-time layout without tiles says so.
    let plain = TensorBuf::<ArrayLayout, f32>::zeroed("f32[4,4]".parse().unwrap()).unwrap();
    assert_eq!(
        plain.window([0..2, 0..2]).tile_range().unwrap_err().kind(),
        ErrorKind::NotTiled
    );
}

/// `row` and `column` of an index at the end of `usize`: the
/// out-of-bounds message, not an overflow of the range's end.
#[test]
#[should_panic(expected = "of dimension `0` reaches past its size 3")]
fn the_last_row_of_usize_is_out_of_bounds() {
    let t = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[3,5]").unwrap()).unwrap();
    let _ = t.row(usize::MAX);
}

#[test]
#[should_panic(expected = "of dimension `1` reaches past its size 5")]
fn the_last_column_of_usize_is_out_of_bounds() {
    let t = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[3,5]").unwrap()).unwrap();
    let _ = t.column(usize::MAX);
}
