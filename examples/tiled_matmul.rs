//! `C = A × B` with `A` stored in TPU tiles, `f32[256,512]{1,0:T(8,128)}`,
//! read tile by tile where it lies: no untiling first, and no tile offset
//! computed by hand.
//!
//! Each tile of `A` is a contiguous block of 8 × 128 elements; for a
//! static layout the tile's own layout is a compile-time constant, so
//! `tile[[y, p]]` is `y * 128 + p` inside the block. The kernel walks a
//! tile's rows and, for each element `a[y, p]`, adds `a[y, p] × B[p, ..]`
//! to `C[y, ..]`: rows of `B` and `C` are contiguous (row-major), so the
//! innermost loop is a vectorizable `axpy`. Edge tiles of a padded layout
//! hold fewer valid elements ([`extent`](tessera::TileBase::extent)); the
//! loops stop there, so padding is never read.
//!
//! `benches/access.rs` (`access_tiles/tiled_matmul_static`) times this
//! kernel against the same loops with hand-computed tiled offsets.
//!
//! Run with `cargo run --release --example tiled_matmul`.

use tessera::{HasRank, Stores, TensorBuf, TensorView, TiledLayout, layout};

/// `A`: 256 × 512 in 8 × 128 tiles (32 tile rows of 4 tiles).
type A = layout!(f32[256,512]{1,0:T(8,128)});
/// `B`: 512 × 256, row-major.
type B = layout!(f32[512,256]);

/// `c += a × b` for a tiled `a` (any tiled layout, static or read at run
/// time) and row-major `b` (`k × n`) and `c` (`m × n`).
///
/// # Panics
/// If `b` or `c` is shorter than `k × n` or `m × n`.
fn matmul_tiled<L>(a: &TensorView<'_, L, f32>, b: &[f32], c: &mut [f32], n: usize)
where
    L: TiledLayout + Stores<f32>,
    L::Tile: HasRank<2>,
{
    for tile in a.tiles() {
        let ([y0, p0], [ey, ep]) = (tile.origin().to_array(), tile.extent().to_array());
        for y in 0..ey {
            let c_row = &mut c[(y0 + y) * n..][..n];
            for p in 0..ep {
                let a_yp = tile[[y, p]];
                let b_row = &b[(p0 + p) * n..][..n];
                for (c, &b) in c_row.iter_mut().zip(b_row) {
                    *c += a_yp * b;
                }
            }
        }
    }
}

/// The plain triple loop over logical indices: the reference.
fn matmul_reference<L: HasRank<2> + Stores<f32>>(
    a: &TensorView<'_, L, f32>,
    b: &[f32],
    n: usize,
) -> Vec<f32> {
    let (m, k) = (a.layout().size(0), a.layout().size(1));
    let mut c = vec![0.0f32; m * n];
    for y in 0..m {
        for p in 0..k {
            for x in 0..n {
                c[y * n + x] += a[[y, p]] * b[p * n + x];
            }
        }
    }
    c
}

fn main() -> Result<(), tessera::Error> {
    // Small integers: every product and sum is exact in f32, so the tile
    // order of the additions gives the reference's result bit for bit.
    let a_value = |i: &[usize]| ((i[0] * 3 + i[1] * 5) % 7) as f32 - 3.0;
    let b_value = |i: &[usize]| ((i[0] + 2 * i[1]) % 5) as f32 - 2.0;
    let a = TensorBuf::from_fn(A::NEW, a_value)?;
    let b = TensorBuf::from_fn(B::NEW, b_value)?;
    let n = 256;

    let mut c = vec![0.0f32; 256 * n];
    matmul_tiled(&a.view(), b.as_slice(), &mut c, n);
    assert_eq!(c, matmul_reference(&a.view(), b.as_slice(), n));
    let grid = a.tile_grid()?;
    println!(
        "C = A × B read A in {} tiles of {:?}; C[255, 255] = {}",
        grid.tile_count(),
        grid.tile_dims().as_slice(),
        c[255 * n + 255]
    );

    // The same kernel on a layout read at run time whose edge tiles hold
    // padding (250 = 31 × 8 + 2 rows, 500 = 3 × 128 + 116 columns).
    let padded: tessera::ArrayLayout = "f32[250,500]{1,0:T(8,128)}".parse()?;
    let a2 = TensorBuf::from_fn(padded, a_value)?;
    let b2 = TensorBuf::from_fn("f32[500,256]".parse::<tessera::ArrayLayout>()?, b_value)?;
    let mut c2 = vec![0.0f32; 250 * n];
    matmul_tiled(&a2.view(), b2.as_slice(), &mut c2, n);
    assert_eq!(c2, matmul_reference(&a2.view(), b2.as_slice(), n));
    println!("the padded run-time layout gives the reference result too");
    Ok(())
}
