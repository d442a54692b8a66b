//! Per-tile work on a TPU-tiled buffer: scale each 8×128 tile of
//! `f32[1000,1000]{1,0:T(8,128)}` by its own factor (block-wise
//! quantization), without computing a tile start by hand.
//!
//! `tiles_mut()` hands out each first-level tile as its own tensor over a
//! contiguous block of the buffer, with its place in the tile grid, the
//! parent index of its first element and its valid extent (edge tiles
//! hold padding). Inside a tile, `tile[[y, x]]` uses the tile's own
//! layout, computed at compile time, so its offsets are constants; for
//! `T(8,128)(2,1)` (bf16 on TPU) that inside layout is itself tiled, which
//! a hand-made `chunks_exact_mut(1024)` row-major view would get wrong.
//!
//! Run with `cargo run --example tile_scale`.

use tessera::{HasRank, Stores, TensorBuf, TiledLayout, layout};

type Tiled = layout!(f32[1000,1000]{1,0:T(8,128)});

/// Scales every tile so that its largest magnitude is 1 and returns the
/// factors, one per tile in memory order. Generic over the layout: any
/// tiled layout, static or read at run time; `L::Tile: HasRank<2>` lets
/// the kernel index inside a tile with `[y, x]`.
fn normalize_tiles<L>(t: &mut TensorBuf<L, f32>) -> Vec<f32>
where
    L: TiledLayout + Stores<f32>,
    L::Tile: HasRank<2>,
{
    let mut factors = Vec::new();
    for mut tile in t.tiles_mut() {
        // The largest magnitude over the tile's valid elements, indexed
        // with local coordinates inside the tile.
        let extent = tile.extent();
        let mut max = 0.0f32;
        for y in 0..extent[0] {
            for x in 0..extent[1] {
                max = max.max(tile[[y, x]].abs());
            }
        }
        let factor = if max > 0.0 { 1.0 / max } else { 1.0 };
        // Padding slots hold 0, so the whole block can be scaled at once.
        tile.as_mut_slice().iter_mut().for_each(|v| *v *= factor);
        factors.push(factor);
    }
    factors
}

fn main() -> Result<(), tessera::Error> {
    let value = |i: &[usize]| ((i[0] * 7 + i[1] * 3) % 101) as f32 - 50.0;
    let mut t = TensorBuf::from_fn(Tiled::NEW, value)?;
    let factors = normalize_tiles(&mut t);
    let grid = t.tile_grid()?;
    println!(
        "{} tiles ({} × {}), {} slots each",
        grid.tile_count(),
        grid.counts()[0],
        grid.counts()[1],
        grid.tile_len()
    );

    // Check against the logical view: each element is its value times its
    // tile's factor.
    let tile_dims = grid.tile_dims();
    t.for_each(|i, v| {
        let number = grid
            .tile_number(&[i[0] / tile_dims[0], i[1] / tile_dims[1]])
            .unwrap();
        assert_eq!(*v, value(i) * factors[number]);
    });

    // The same kernel on a layout read at run time whose tiles are tiled
    // again inside (`(2,1)`): the same factors, the same array.
    let rt: tessera::ArrayLayout = "f32[1000,1000]{1,0:T(8,128)(2,1)}".parse()?;
    let mut r = TensorBuf::from_fn(rt, value)?;
    assert_eq!(normalize_tiles(&mut r), factors);
    assert!(r == t);

    let edge = t.tile(&[124, 7]).unwrap();
    println!(
        "edge tile {:?} starts at {:?} and holds {:?} elements of 8 × 128",
        edge.grid_index(),
        edge.origin(),
        edge.extent()
    );
    Ok(())
}
