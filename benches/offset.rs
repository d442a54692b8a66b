//! `StaticLayout::offset` at run time against hand-written index arithmetic
//! for the same layout, side by side in one run. See BENCHMARKS.md.
//!
//! `cargo bench -p tessera-xla --bench offset -- --warm-up-time 1 --measurement-time 3`

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

mod common;

use common::indices;
use criterion::{BenchmarkId, Criterion, black_box, criterion_group, criterion_main};
use tessera::layout;

const ROWS: usize = 64;
const COLS: usize = 256;

type RowMajor = layout!(f32[64,256]);
type Padded = layout!(f32[60,250]{1,0:pad(64,256)});
type Tiled = layout!(f32[64,256]{1,0:T(8,128)});
type Packed = layout!(bf16[64,256]{1,0:T(8,128)(2,1)});
/// Rows known only at run time (a mixed layout), against the same static layout.
type WideStatic = layout!(bf16[64,1024]{1,0:T(8,128)(2,1)});
type WideRows = layout!(bf16[?,1024]{1,0:T(8,128)(2,1)});

/// Hand-written offsets, as a kernel author would write them.
mod hand {
    pub(super) fn row_major(i: usize, j: usize) -> usize {
        i * 256 + j
    }
    pub(super) fn padded(i: usize, j: usize) -> usize {
        i * 256 + j
    }
    pub(super) fn tiled(i: usize, j: usize) -> usize {
        ((i / 8) * 2 + j / 128) * 1024 + (i % 8) * 128 + j % 128
    }
    pub(super) fn packed(i: usize, j: usize) -> usize {
        let (r, c) = (i % 8, j % 128);
        ((i / 8) * 2 + j / 128) * 1024 + ((r / 2) * 128 + c) * 2 + r % 2
    }
}

fn sum(idx: &[[usize; 2]], f: impl Fn([usize; 2]) -> usize) -> usize {
    idx.iter().fold(0usize, |acc, &ix| acc.wrapping_add(f(ix)))
}

/// A bounds check written by hand, the same one `offset` makes.
fn checked(ix: [usize; 2], rows: usize, cols: usize) -> [usize; 2] {
    assert!(ix[0] < rows && ix[1] < cols, "index out of bounds");
    ix
}

macro_rules! pair {
    ($c:expr, $name:literal, $ty:ty, $hand:path, $rows:expr, $cols:expr) => {{
        let idx = indices($rows, $cols);
        let mut g = $c.benchmark_group($name);
        g.bench_function(BenchmarkId::new("static", "checked"), |b| {
            b.iter(|| sum(black_box(&idx), |ix| <$ty>::offset(ix)))
        });
        g.bench_function(BenchmarkId::new("hand", "checked"), |b| {
            b.iter(|| {
                sum(black_box(&idx), |ix| {
                    let [i, j] = checked(ix, $rows, $cols);
                    $hand(i, j)
                })
            })
        });
        g.bench_function(BenchmarkId::new("static", "unchecked"), |b| {
            b.iter(|| sum(black_box(&idx), |ix| <$ty>::offset_in_bounds(ix)))
        });
        g.bench_function(BenchmarkId::new("hand", "unchecked"), |b| {
            b.iter(|| sum(black_box(&idx), |[i, j]| $hand(i, j)))
        });
        g.finish();
    }};
}

fn offsets(c: &mut Criterion) {
    // The hand-written formulas are the static layouts' offsets.
    for [i, j] in indices(60, 250) {
        assert_eq!(Padded::offset([i, j]), hand::padded(i, j));
    }
    for [i, j] in indices(ROWS, COLS) {
        assert_eq!(RowMajor::offset([i, j]), hand::row_major(i, j));
        assert_eq!(Tiled::offset([i, j]), hand::tiled(i, j));
        assert_eq!(Packed::offset([i, j]), hand::packed(i, j));
    }
    pair!(c, "row_major", RowMajor, hand::row_major, ROWS, COLS);
    pair!(c, "padded", Padded, hand::padded, 60, 250);
    pair!(c, "tiled_8x128", Tiled, hand::tiled, ROWS, COLS);
    pair!(c, "tiled_8x128_2x1", Packed, hand::packed, ROWS, COLS);
    mixed(c);
}

/// `offset` of a mixed layout (`?` rows, extent opaque to the optimiser)
/// against the fully static layout with the same rows.
fn mixed(c: &mut Criterion) {
    let rows = black_box(ROWS);
    let l = black_box(WideRows::new([rows, 1024]).unwrap());
    let idx = indices(ROWS, 1024);
    for &ix in &idx {
        assert_eq!(l.offset(ix), WideStatic::offset(ix));
    }
    let mut g = c.benchmark_group("mixed_rows_bf16_8x128_2x1");
    g.bench_function(BenchmarkId::new("static", "checked"), |b| {
        b.iter(|| sum(black_box(&idx), WideStatic::offset))
    });
    g.bench_function(BenchmarkId::new("mixed", "checked"), |b| {
        b.iter(|| sum(black_box(&idx), |ix| l.offset(ix)))
    });
    g.bench_function(BenchmarkId::new("static", "unchecked"), |b| {
        b.iter(|| sum(black_box(&idx), WideStatic::offset_in_bounds))
    });
    g.bench_function(BenchmarkId::new("mixed", "unchecked"), |b| {
        b.iter(|| sum(black_box(&idx), |ix| l.offset_in_bounds(ix)))
    });
    g.finish();
}

criterion_group!(benches, offsets);
criterion_main!(benches);
