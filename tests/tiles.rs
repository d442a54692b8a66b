//! Tile views checked against the engine: for thousands of generated
//! layouts, every element is found in the tile the grid says, at the
//! inside layout's offset, and `tiles_mut` reaches every slot once.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::{AnyLayout, ArrayLayout, ErrorKind, PrimitiveType, TensorBuf, TileOf, layout};
use test_support::{SpecGen, row_major};

/// f32 layouts with 1 to 3 tile levels (some with `*`), `pad(..)` and
/// `L(n)`, rank 1..=3 (dims up to 9, tiles up to 4).
fn layouts() -> SpecGen {
    SpecGen {
        rank: 1..=3,
        max_dim: 9,
        ..SpecGen::new(vec![PrimitiveType::F32])
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Why `layout` has no tile views, or `None` when it has them: the
/// conditions `ArrayLayout::tile_grid` documents, read off the layout.
fn expected_refusal(layout: &ArrayLayout) -> Option<ErrorKind> {
    let tiles = layout.layout().tiles();
    let first = tiles.first()?;
    if first.has_combined_dims() {
        return Some(ErrorKind::CombinedDimUnsupported {
            operation: "tile views",
        });
    }
    if first.rank() > layout.rank() {
        return Some(ErrorKind::TileViewUnsupported {
            reason: "the first tile has more entries than the array has dimensions",
        });
    }
    None
}

proptest! {
    #![proptest_config(config())]

    /// Each element's offset is its tile's block plus the inside layout's
    /// offset of its place in the tile; its place is within the tile's
    /// extent; the extents add up to the element count.
    #[test]
    fn tiles_agree_with_engine(spec in layouts().spec()) {
        let layout = spec.layout();
        let grid = match layout.tile_grid() {
            Ok(g) => g,
            Err(e) => {
                if layout.layout().tiles().is_empty() {
                    prop_assert_eq!(e.kind(), ErrorKind::NotTiled);
                } else if let Some(kind) = expected_refusal(&layout) {
                    prop_assert_eq!(e.kind(), kind);
                } else {
                    // A later level reaching past the first tile.
                    let is_unsupported = matches!(e.kind(), ErrorKind::TileViewUnsupported { .. });
                    prop_assert!(is_unsupported, "{}: {}", spec, e);
                }
                return Ok(());
            }
        };
        prop_assert_eq!(expected_refusal(&layout), None);
        prop_assert!(grid.tile_count() * grid.tile_len() <= layout.buffer_len());
        let tile_dims = grid.tile_dims();
        for index in row_major(layout.sizes().as_slice()) {
            let g: Vec<usize> = index.iter().zip(tile_dims.iter()).map(|(i, t)| i / t).collect();
            let number = grid.tile_number(&g).expect("in the grid");
            prop_assert_eq!(grid.grid_index(number).as_slice().to_vec(), g.clone());
            let origin = grid.origin(&g);
            let extent = grid.extent(&g);
            let local: Vec<usize> = index.iter().zip(origin.iter()).map(|(i, o)| i - o).collect();
            for (l, e) in local.iter().zip(extent.iter()) {
                prop_assert!(l < e, "{}: {:?} outside extent {:?}", spec, index, extent);
            }
            prop_assert_eq!(
                layout.offset(&index),
                number * grid.tile_len() + grid.inner().offset(&local),
                "{}: index {:?}", spec, index
            );
        }
        let covered: usize = (0..grid.tile_count())
            .map(|n| grid.extent(grid.grid_index(n).as_slice()).iter().product::<usize>())
            .sum();
        prop_assert_eq!(covered, layout.element_count());
    }

    /// Writing through every tile view (element-wise, within its extent)
    /// sets each element exactly once and no padding slot; every slot of
    /// the tiles is in exactly one view.
    #[test]
    fn tiles_mut_visit_every_slot_once(spec in layouts().spec()) {
        let layout = spec.layout();
        if layout.tile_grid().is_err() {
            return Ok(());
        }
        let mut t = TensorBuf::<ArrayLayout, f32>::zeroed(layout).unwrap();
        let mut seen = vec![0u32; layout.buffer_len()];
        let base = t.as_slice().as_ptr() as usize;
        let grid = layout.tile_grid().unwrap();
        let mut numbers = Vec::new();
        for mut tile in t.tiles_mut() {
            numbers.push(tile.number());
            let g = grid.grid_index(tile.number());
            prop_assert_eq!(tile.grid_index(), g);
            prop_assert_eq!(tile.origin(), grid.origin(&g));
            prop_assert_eq!(tile.extent(), grid.extent(&g));
            let start = (tile.as_slice().as_ptr() as usize - base) / 4;
            for count in &mut seen[start..start + tile.as_slice().len()] {
                *count += 1;
            }
            let origin = tile.origin();
            for local in row_major(&tile.extent()) {
                let parent: Vec<usize> = local.iter().zip(origin.iter()).map(|(l, o)| l + o).collect();
                *tile.get_dyn_mut(&local).expect("in the tile") += 1.0 + parent[0] as f32;
            }
        }
        prop_assert_eq!(numbers, (0..layout.tile_grid().unwrap().tile_count()).collect::<Vec<_>>());
        let tiled = layout.tile_grid().unwrap().tile_count() * layout.tile_grid().unwrap().tile_len();
        prop_assert!(seen[..tiled].iter().all(|&c| c == 1), "{}", spec);
        prop_assert!(seen[tiled..].iter().all(|&c| c == 0));
        t.for_each(|index, v| assert_eq!(*v, 1.0 + index[0] as f32, "{spec}: {index:?}"));
        let elements = t.iter().count();
        let written = t.as_slice().iter().filter(|v| **v != 0.0).count();
        prop_assert_eq!(written, elements);
    }
}

#[test]
fn static_tile_layout_is_computed_at_compile_time() {
    type P = layout!(bf16[64,1024]{1,0:T(8,128)(2,1)});
    type Inside = layout!(bf16[8,128]{1,0:T(2,1)});
    const LAYOUT: ArrayLayout = TileOf::<P>::LAYOUT;
    assert_eq!(LAYOUT, Inside::LAYOUT);
    const LEN: usize = TileOf::<P>::BUFFER_LEN;
    assert_eq!(LEN, 1024);
    for y in 0..8 {
        for x in 0..128 {
            assert_eq!(TileOf::<P>::NEW.offset(&[y, x]), Inside::offset([y, x]));
        }
    }
}

/// Every tile of the static layout `P` has the place, slots and inside
/// offsets of the same tile of `P` read at run time.
fn assert_static_tiles_match_run_time<P>(fill: impl Fn(&[usize]) -> f32)
where
    P: tessera::KnownLayout + tessera::TiledLayout + tessera::Stores<f32>,
{
    let rt = P::LAYOUT;
    let s = TensorBuf::from_fn(P::default(), &fill).unwrap();
    let r = TensorBuf::from_fn(rt, &fill).unwrap();
    assert_eq!(s.tiles().len(), rt.tile_grid().unwrap().tile_count());
    for (a, b) in s.tiles().zip(r.tiles()) {
        assert_eq!(a.number(), b.number());
        assert_eq!(a.grid_index(), b.grid_index(), "{rt}");
        assert_eq!(a.origin(), b.origin(), "{rt}");
        assert_eq!(a.extent(), b.extent(), "{rt}");
        assert_eq!(a.as_slice(), b.as_slice());
        for local in row_major(&a.extent()) {
            let parent: Vec<usize> = local
                .iter()
                .zip(a.origin().iter())
                .map(|(l, o)| l + o)
                .collect();
            assert_eq!(a.get_dyn(&local), Some(&fill(&parent)), "{rt} {local:?}");
        }
    }
}

#[test]
fn static_tiles_match_run_time_tiles() {
    type P = layout!(f32[20,300]{1,0:T(8,128)});
    let fill = |i: &[usize]| (i[0] * 1000 + i[1]) as f32;
    assert_static_tiles_match_run_time::<P>(fill);
    let s = TensorBuf::from_fn(P::NEW, fill).unwrap();
    assert_eq!(s.tiles().len(), 9);
    let t = s.tile(&[1, 2]).unwrap();
    assert_eq!(t.number(), 5);
    assert_eq!(t.origin().as_slice(), &[8, 256]);
    assert_eq!(t.extent().as_slice(), &[8, 44]);
    assert_eq!(t[[7, 43]], fill(&[15, 299]));
    assert!(s.tile(&[3, 0]).is_none());
    assert!(s.tile(&[0]).is_none());
}

/// The places of a static parent are computed from the tile number with
/// the grid's constants: grids whose counts are not powers of two, tiles
/// counted down columns, repeated tiling inside a tile, a 3-D layout.
#[test]
fn static_tile_places_match_run_time_places() {
    let fill3 = |i: &[usize]| (i[0] * 10_000 + i[1] * 100 + i[2]) as f32;
    let fill2 = |i: &[usize]| (i[0] * 100 + i[1]) as f32;
    assert_static_tiles_match_run_time::<layout!(f32[10,7]{0,1:T(2,4)})>(fill2);
    assert_static_tiles_match_run_time::<layout!(f32[13,11]{1,0:T(4,4)(2,1)})>(fill2);
    assert_static_tiles_match_run_time::<layout!(f32[3,10,7]{0,2,1:T(2,3)})>(fill3);
    assert_static_tiles_match_run_time::<layout!(f32[5,9,6]{2,1,0:T(2,4,4)(2,2)})>(fill3);
}

#[test]
fn edge_tiles_hold_padding() {
    let a: ArrayLayout = "f32[1000,1000]{1,0:T(8,128)}".parse().unwrap();
    let grid = a.tile_grid().unwrap();
    assert_eq!(grid.counts().as_slice(), &[125, 8]);
    assert_eq!(grid.extent(&[0, 7]).as_slice(), &[8, 1000 - 7 * 128]);
    assert_eq!(grid.extent(&[124, 6]).as_slice(), &[8, 128]);
    let b: ArrayLayout = "f32[1001,1000]{1,0:T(8,128)}".parse().unwrap();
    assert_eq!(
        b.tile_grid().unwrap().extent(&[125, 7]).as_slice(),
        &[1, 104]
    );
}

#[test]
fn column_major_tiles_count_in_memory_order() {
    // {0,1}: dimension 0 is minor, so tile numbers run down a tile column.
    let a: ArrayLayout = "f32[10,7]{0,1:T(2,4)}".parse().unwrap();
    let grid = a.tile_grid().unwrap();
    assert_eq!(grid.counts().as_slice(), &[3, 4]); // 3 along y (4 each), 4 along x (2 each)
    assert_eq!(grid.tile_dims().as_slice(), &[4, 2]);
    assert_eq!(grid.grid_index(1).as_slice(), &[1, 0]);
    assert_eq!(a.offset(&[4, 0]), grid.tile_len());
}

#[test]
fn mixed_layouts_have_run_time_tiles() {
    type Rows = layout!(f32[?,256]{1,0:T(8,128)});
    let rows = Rows::new([19, 256]).unwrap();
    let mut t = TensorBuf::<Rows, f32>::zeroed(rows).unwrap();
    for mut tile in t.tiles_mut() {
        let v = tile.number() as f32;
        tile.fill(v);
    }
    assert_eq!(t[[18, 255]], 5.0);
    assert_eq!(t.tile_grid().unwrap().counts().as_slice(), &[3, 2]);
}

#[test]
fn untiled_run_time_layouts_say_why() {
    let a: ArrayLayout = "f32[4,4]".parse().unwrap();
    let t = TensorBuf::<ArrayLayout, f32>::zeroed(a).unwrap();
    let e = t.try_tiles().err().unwrap();
    assert_eq!(e.kind(), ErrorKind::NotTiled);
    assert!(e.to_string().contains("has no tiles"), "{e}");
    assert!(t.tile(&[0, 0]).is_none());
    let combined: ArrayLayout = "f32[4,4,4]{2,1,0:T(2,*,2)}".parse().unwrap();
    assert!(
        combined
            .tile_grid()
            .unwrap_err()
            .to_string()
            .contains("`*`")
    );
}

/// A dimension of size 0 empties the grid, however large the others:
/// their product alone does not fit `usize`, and is not computed.
#[test]
fn an_empty_dimension_empties_the_grid_of_huge_ones() {
    let a: ArrayLayout = "f32[4611686018427387904,5,0]{2,1,0:T(1)}".parse().unwrap();
    let grid = a.tile_grid().unwrap();
    assert_eq!(grid.tile_count(), 0);
    let t = TensorBuf::<_, f32>::zeroed(a).unwrap();
    assert_eq!(t.try_tiles().unwrap().count(), 0);
}
