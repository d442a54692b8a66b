//! The paths a user takes to reach elements, each timed in turns with the
//! hand-written code a kernel author would write for the same work (see
//! `common::in_turns`): a reported time of `1.04 ms` means the library
//! path took 1.04× the hand-written time. Cargo's default release
//! profile, no LTO.
//!
//! `cargo bench -p tessera-xla --bench access -- --warm-up-time 1 --measurement-time 3`
//!
//! `access_parallel` compares the `rayon` paths with the same work on
//! one thread instead (no target: a speedup).

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

mod common;

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use rayon::prelude::*;
use tessera::{
    AnyLayout, ArrayLayout, HasRank, Packed, PreparedLayout, SameShape, Stores, TensorBuf,
    TensorView, layout,
};

use common::{in_turns, in_turns_on, indices};

const N: usize = 1024;

/// 4 MiB of f32 in TPU tiles, no padding.
type Tiled = layout!(f32[1024,1024]{1,0:T(8,128)});
type Rows = layout!(f32[1024,1024]);
/// Row-major integers: a sum in any order is the same sum, so the slice
/// loop vectorises it.
type RowsS32 = layout!(s32[1024,1024]);
/// Edge tiles hold padding: 1000 = 7 × 128 + 104.
type PaddedTiled = layout!(f32[1000,1000]{1,0:T(8,128)});
/// A matmul operand.
type Square = layout!(f32[128,128]);
/// A matmul operand in TPU tiles, read in place: 2 tiles per tile row.
type TiledLhs = layout!(f32[128,256]{1,0:T(8,128)});
type Rhs = layout!(f32[256,128]);
/// Int4 weights, two per byte.
type Int4 = layout!(s4[256,1024]{1,0:E(4)});
type Int8 = layout!(s8[256,1024]{1,0});

/// Hand-written offsets, as a kernel author would write them.
mod hand {
    /// `f32[1024,1024]{1,0:T(8,128)}`: 8 tiles of 8×128 per tile row.
    #[inline(always)]
    pub(super) fn tiled(y: usize, x: usize) -> usize {
        ((y / 8) * 8 + x / 128) * 1024 + (y % 8) * 128 + x % 128
    }
}

/// The README's generic kernel: a copy between two layouts of the same
/// array, offsets through the layout trait.
fn relayout<S: HasRank<2>, D: HasRank<2> + SameShape<S>>(
    s: &S,
    src: &[f32],
    d: &D,
    dst: &mut [f32],
) {
    for y in 0..s.size(0) {
        for x in 0..s.size(1) {
            dst[d.offset(&[y, x])] = src[s.offset(&[y, x])];
        }
    }
}

/// A generic matmul over tensors in any layouts, indexing `a[[y, p]]`.
fn matmul<A, B>(a: &TensorView<A, f32>, b: &TensorView<B, f32>, c: &mut [f32])
where
    A: HasRank<2> + Stores<f32>,
    B: HasRank<2> + Stores<f32>,
{
    let (m, k, n) = (a.layout().size(0), a.layout().size(1), b.layout().size(1));
    for y in 0..m {
        for x in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[[y, p]] * b[[p, x]];
            }
            c[y * n + x] = acc;
        }
    }
}

/// The same matmul as the README's "Kernels that state what they need"
/// writes it: slices indexed through each layout's `offset`.
fn matmul_offsets<A, B>(al: &A, a: &[f32], bl: &B, b: &[f32], c: &mut [f32])
where
    A: HasRank<2>,
    B: HasRank<2>,
{
    let (m, k, n) = (al.size(0), al.size(1), bl.size(1));
    for y in 0..m {
        for x in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[al.offset(&[y, p])] * b[bl.offset(&[p, x])];
            }
            c[y * n + x] = acc;
        }
    }
}

/// The same matmul on plain row-major slices.
fn matmul_hand(a: &[f32], b: &[f32], c: &mut [f32], (m, k, n): (usize, usize, usize)) {
    for y in 0..m {
        for x in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[y * k + p] * b[p * n + x];
            }
            c[y * n + x] = acc;
        }
    }
}

/// Offsets of a fixed pseudo-random list of indices, through the trait.
fn sum_offsets<L: AnyLayout>(l: &L, idx: &[[usize; 2]]) -> usize {
    idx.iter()
        .fold(0usize, |acc, ix| acc.wrapping_add(l.offset(ix)))
}

fn offsets(c: &mut Criterion) {
    let mut g = c.benchmark_group("access_offsets");
    g.sample_size(20);
    let (src, mut dst, mut dst_hand) = (
        (0..Tiled::BUFFER_LEN).map(|i| i as f32).collect::<Vec<_>>(),
        vec![0.0f32; N * N],
        vec![0.0f32; N * N],
    );
    relayout(&Tiled::NEW, &src, &Rows::NEW, &mut dst);
    for y in 0..N {
        for x in 0..N {
            dst_hand[y * N + x] = src[hand::tiled(y, x)];
        }
    }
    assert_eq!(dst, dst_hand);
    in_turns(
        &mut g,
        "generic_untile_static",
        || relayout(&Tiled::NEW, black_box(&src), &Rows::NEW, &mut dst),
        || {
            let src = black_box(&src);
            for y in 0..N {
                for x in 0..N {
                    dst_hand[y * N + x] = src[hand::tiled(y, x)];
                }
            }
        },
        1.0,
    );
    let rt: PreparedLayout = "f32[1024,1024]{1,0:T(8,128)}".parse().unwrap();
    let rows_rt: PreparedLayout = "f32[1024,1024]".parse().unwrap();
    in_turns(
        &mut g,
        "generic_untile_prepared",
        || relayout(black_box(&rt), black_box(&src), &rows_rt, &mut dst),
        || {
            let src = black_box(&src);
            for y in 0..N {
                for x in 0..N {
                    dst_hand[y * N + x] = src[hand::tiled(y, x)];
                }
            }
        },
        1.0,
    );

    let idx = indices(N, N);
    assert_eq!(
        sum_offsets(&Tiled::NEW, &idx),
        idx.iter()
            .fold(0usize, |a, &[y, x]| a.wrapping_add(hand::tiled(y, x)))
    );
    in_turns(
        &mut g,
        "any_layout_offset_static",
        || {
            black_box(sum_offsets(&Tiled::NEW, black_box(&idx)));
        },
        || {
            black_box(black_box(&idx).iter().fold(0usize, |a, &[y, x]| {
                assert!(y < N && x < N);
                a.wrapping_add(hand::tiled(y, x))
            }));
        },
        1.0,
    );

    let m = 128;
    let a: Vec<f32> = (0..m * m).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..m * m).map(|i| (i % 5) as f32).collect();
    let (mut c1, mut c2) = (vec![0.0f32; m * m], vec![0.0f32; m * m]);
    let av = TensorView::new(Square::NEW, &a).unwrap();
    let bv = TensorView::new(Square::NEW, &b).unwrap();
    matmul(&av, &bv, &mut c1);
    matmul_hand(&a, &b, &mut c2, (m, m, m));
    assert_eq!(c1, c2);
    in_turns(
        &mut g,
        "generic_matmul_index_static",
        || matmul(black_box(&av), black_box(&bv), &mut c1),
        || matmul_hand(black_box(&a), black_box(&b), &mut c2, (m, m, m)),
        1.0,
    );
    c1.fill(0.0);
    matmul_offsets(&Square::NEW, &a, &Square::NEW, &b, &mut c1);
    assert_eq!(c1, c2);
    // The left operand tiled, the hand-written side with the tiled
    // formula: 8×128 tiles, two per tile row of 8 rows.
    let lhs: Vec<f32> = (0..TiledLhs::BUFFER_LEN).map(|i| (i % 7) as f32).collect();
    let rhs: Vec<f32> = (0..Rhs::BUFFER_LEN).map(|i| (i % 5) as f32).collect();
    let (mut t1, mut t2) = (vec![0.0f32; m * m], vec![0.0f32; m * m]);
    let tiled_matmul_hand = |a: &[f32], b: &[f32], c: &mut [f32]| {
        for y in 0..m {
            for x in 0..m {
                let mut acc = 0.0;
                for p in 0..2 * m {
                    let at = (y / 8) * 2048 + (p / 128) * 1024 + (y % 8) * 128 + p % 128;
                    acc += a[at] * b[p * m + x];
                }
                c[y * m + x] = acc;
            }
        }
    };
    matmul_offsets(&TiledLhs::NEW, &lhs, &Rhs::NEW, &rhs, &mut t1);
    tiled_matmul_hand(&lhs, &rhs, &mut t2);
    assert_eq!(t1, t2);
    in_turns(
        &mut g,
        "generic_matmul_offset_tiled_static",
        || {
            matmul_offsets(
                &TiledLhs::NEW,
                black_box(&lhs),
                &Rhs::NEW,
                black_box(&rhs),
                &mut t1,
            )
        },
        || tiled_matmul_hand(black_box(&lhs), black_box(&rhs), &mut t2),
        1.0,
    );
    in_turns(
        &mut g,
        "generic_matmul_offset_static",
        || {
            matmul_offsets(
                &Square::NEW,
                black_box(&a),
                &Square::NEW,
                black_box(&b),
                &mut c1,
            )
        },
        || matmul_hand(black_box(&a), black_box(&b), &mut c2, (m, m, m)),
        1.0,
    );
    g.finish();
}

// The memory-bound rows' two sides, each a function of its own as a
// kernel is. Two copies of the same store loop still run up to 1.8x apart
// with where the loop falls against 64-byte lines, so BENCHMARKS.md also
// reports a build with loops aligned.

/// Scales every element in memory order through `for_each_mut`.
#[inline(never)]
fn scale_each<L: AnyLayout>(t: &mut TensorBuf<L, f32>) {
    t.for_each_mut(|_, v| *v *= 1.000_001);
}

/// The same on the slots as a slice.
#[inline(never)]
fn scale_slice(s: &mut [f32]) {
    s.iter_mut().for_each(|v| *v *= 1.000_001);
}

/// `TensorBase::fill`.
#[inline(never)]
fn fill_tensor<L: AnyLayout>(t: &mut TensorBuf<L, f32>, v: f32) {
    t.fill(v);
}

/// `slice::fill`.
#[inline(never)]
fn fill_slice(s: &mut [f32], v: f32) {
    s.fill(v);
}

/// Adds one to each element through `iter_mut` (logical order).
#[inline(never)]
fn add_one_each<L: AnyLayout>(t: &mut TensorBuf<L, f32>) {
    t.iter_mut().for_each(|v| *v += 1.0);
}

/// The same through `next` (a `for` loop).
#[inline(never)]
fn add_one_by_next<L: AnyLayout>(t: &mut TensorBuf<L, f32>) {
    for v in t.iter_mut() {
        *v += 1.0;
    }
}

/// The same on the slots as a slice.
#[inline(never)]
fn add_one_slice(s: &mut [f32]) {
    s.iter_mut().for_each(|v| *v += 1.0);
}

/// Adds one to each element of `f32[1024,1024]{1,0:T(8,128)}`'s slots in
/// logical order (row by row, 128 floats from each of eight tiles), as
/// `iter_mut` visits them.
#[inline(never)]
fn add_one_logical(buf: &mut [f32]) {
    for y in 0..1024 {
        let row = (y / 8) * 8 * 1024 + (y % 8) * 128;
        for tile in 0..8 {
            for v in &mut buf[row + tile * 1024..row + tile * 1024 + 128] {
                *v += 1.0;
            }
        }
    }
}

/// `TensorBase::fill_padding`.
#[inline(never)]
fn fill_padding_of<L: AnyLayout>(t: &mut TensorBuf<L, f32>) {
    t.fill_padding().unwrap();
}

/// The padding of `f32[1000,1000]{1,0:T(8,128)}` zeroed by hand: columns
/// 104..128 of each row of the edge tile of each band of tiles.
#[inline(never)]
fn zero_edge_padding(buf: &mut [f32]) {
    for band in 0..125 {
        let base = (band * 8 + 7) * 1024;
        for r in 0..8 {
            buf[base + r * 128 + (1000 - 7 * 128)..base + (r + 1) * 128].fill(0.0);
        }
    }
}

/// The hand-written fill of `f32[1000,1000]{1,0:T(8,128)}`: each row of
/// each tile's valid part.
#[inline(never)]
fn fill_valid_rows(buf: &mut [f32], v: f32) {
    for band in 0..125 {
        for tile in 0..8 {
            let valid = if tile == 7 { 1000 - 7 * 128 } else { 128 };
            let base = (band * 8 + tile) * 1024;
            for r in 0..8 {
                buf[base + r * 128..base + r * 128 + valid].fill(v);
            }
        }
    }
}

/// The hand-written scale of each element of
/// `f32[1000,1000]{1,0:T(8,128)}`: each row of each tile's valid part.
#[inline(never)]
fn scale_valid_rows(buf: &mut [f32]) {
    for band in 0..125 {
        for tile in 0..8 {
            let valid = if tile == 7 { 1000 - 7 * 128 } else { 128 };
            let base = (band * 8 + tile) * 1024;
            for r in 0..8 {
                let row = &mut buf[base + r * 128..base + r * 128 + valid];
                row.iter_mut().for_each(|v| *v *= 1.000_001);
            }
        }
    }
}

/// A `for` loop over `iter()` (`next`): each element added in logical
/// order.
#[inline(never)]
fn sum_by_next<L: AnyLayout>(t: &TensorBuf<L, f32>) -> f32 {
    let mut acc = 0.0f32;
    for v in t.iter() {
        acc += v;
    }
    acc
}

/// A `for` loop over `iter()` summing `i32`s (wrapping): any order gives
/// the same sum, so the compiler may vectorise it.
#[inline(never)]
fn sum_s32_by_next<L: AnyLayout>(t: &TensorBuf<L, i32>) -> i32 {
    let mut acc = 0i32;
    for v in t.iter() {
        acc = acc.wrapping_add(*v);
    }
    acc
}

/// The same loop over a slice.
#[inline(never)]
fn sum_s32_slice(s: &[i32]) -> i32 {
    let mut acc = 0i32;
    for v in s {
        acc = acc.wrapping_add(*v);
    }
    acc
}

/// `iter().indexed()` through a fold: each element weighted by `y + x`,
/// summed in logical order.
#[inline(never)]
fn weighted_sum_indexed<L: HasRank<2>>(t: &TensorBuf<L, f32>) -> f32 {
    t.iter().indexed().fold(0.0, |acc, (i, v)| {
        acc + v * (i.as_ref()[0] + i.as_ref()[1]) as f32
    })
}

/// The same by hand for `f32[1024,1024]{1,0:T(8,128)}`: the logical
/// order, each row's 128-element pieces from the eight tiles in turn.
#[inline(never)]
fn weighted_sum_by_hand(buf: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    for y in 0..1024 {
        let row = (y / 8) * 8 * 1024 + (y % 8) * 128;
        for tile in 0..8 {
            let piece = &buf[row + tile * 1024..row + tile * 1024 + 128];
            for (k, v) in piece.iter().enumerate() {
                acc += v * (y + tile * 128 + k) as f32;
            }
        }
    }
    acc
}

/// `TensorBase::slots_mut` through a fold (`for_each`): each element its
/// `y + x`, each padding slot zero.
#[inline(never)]
fn number_slots<L: HasRank<2>>(t: &mut TensorBuf<L, f32>) {
    t.slots_mut().for_each(|(i, v)| {
        *v = match i {
            Some(i) => (i.as_ref()[0] + i.as_ref()[1]) as f32,
            None => 0.0,
        }
    });
}

/// The same through `next` (a `for` loop).
#[inline(never)]
fn number_slots_by_next<L: HasRank<2>>(t: &mut TensorBuf<L, f32>) {
    for (i, v) in t.slots_mut() {
        *v = match i {
            Some(i) => (i.as_ref()[0] + i.as_ref()[1]) as f32,
            None => 0.0,
        }
    }
}

/// The same by hand for `f32[1000,1000]{1,0:T(8,128)}`: each row of each
/// tile, its valid part numbered and the rest zeroed.
#[inline(never)]
fn number_slots_by_hand(buf: &mut [f32]) {
    for band in 0..125 {
        for tile in 0..8 {
            let valid = if tile == 7 { 1000 - 7 * 128 } else { 128 };
            let base = (band * 8 + tile) * 1024;
            for r in 0..8 {
                let y = band * 8 + r;
                let row = &mut buf[base + r * 128..base + (r + 1) * 128];
                let (elements, padding) = row.split_at_mut(valid);
                for (x, v) in elements.iter_mut().enumerate() {
                    *v = (y + tile * 128 + x) as f32;
                }
                padding.fill(0.0);
            }
        }
    }
}

fn traversal(c: &mut Criterion) {
    let mut g = c.benchmark_group("access_traversal");
    g.sample_size(20);
    let mut t = TensorBuf::<Tiled, f32>::filled(Tiled::NEW, 1.0).unwrap();
    let plain = vec![1.0f32; Tiled::BUFFER_LEN];
    // The memory-bound rows write the tensor's own slots on both sides.
    in_turns_on(
        &mut g,
        "for_each_mut_static",
        &mut t,
        |t| scale_each(black_box(t)),
        |t| scale_slice(black_box(t.as_mut_slice())),
        1.0,
    );
    in_turns_on(
        &mut g,
        "fill_static",
        &mut t,
        |t| fill_tensor(black_box(t), black_box(2.0)),
        |t| fill_slice(black_box(t.as_mut_slice()), black_box(2.0)),
        1.0,
    );
    in_turns(
        &mut g,
        "iter_sum_static",
        || {
            black_box(black_box(&t).iter().sum::<f32>());
        },
        || {
            black_box(black_box(&plain).iter().sum::<f32>());
        },
        1.0,
    );
    // The same sum in the same (logical) order, written by hand: the loop
    // a kernel author writes to get `iter().sum()`'s value from a tiled
    // buffer (float addition depends on the order).
    let logical_sum = |buf: &[f32]| {
        let mut acc = 0.0f32;
        for y in 0..1024 {
            let row = (y / 8) * 8 * 1024 + (y % 8) * 128;
            for tile in 0..8 {
                for v in &buf[row + tile * 1024..row + tile * 1024 + 128] {
                    acc += v;
                }
            }
        }
        acc
    };
    assert_eq!(t.iter().sum::<f32>(), logical_sum(t.as_slice()));
    in_turns(
        &mut g,
        "iter_sum_static_vs_logical_loop",
        || {
            black_box(black_box(&t).iter().sum::<f32>());
        },
        || {
            black_box(logical_sum(black_box(&t).as_slice()));
        },
        1.0,
    );
    // The same through `next`: a `for` loop, each element added in turn
    // (a float sum in order, scalar in both).
    assert_eq!(sum_by_next(&t), logical_sum(t.as_slice()));
    in_turns(
        &mut g,
        "iter_next_sum_static_vs_logical_loop",
        || {
            black_box(sum_by_next(black_box(&t)));
        },
        || {
            black_box(logical_sum(black_box(&t).as_slice()));
        },
        1.0,
    );
    // The same order with each element's index.
    assert_eq!(weighted_sum_indexed(&t), weighted_sum_by_hand(t.as_slice()));
    in_turns(
        &mut g,
        "iter_indexed_static_vs_logical_loop",
        || {
            black_box(weighted_sum_indexed(black_box(&t)));
        },
        || {
            black_box(weighted_sum_by_hand(black_box(&t).as_slice()));
        },
        1.0,
    );
    // A reduction whose order does not matter visits memory order.
    in_turns(
        &mut g,
        "for_each_sum_static",
        || {
            let mut acc = 0.0f32;
            black_box(&t).for_each(|_, v| acc += v);
            black_box(acc);
        },
        || {
            black_box(black_box(&plain).iter().sum::<f32>());
        },
        1.0,
    );
    in_turns_on(
        &mut g,
        "iter_mut_static",
        &mut t,
        |t| add_one_each(black_box(t)),
        |t| add_one_slice(black_box(t.as_mut_slice())),
        1.0,
    );
    // The same in the same (logical) order, written by hand.
    in_turns_on(
        &mut g,
        "iter_mut_static_vs_logical_loop",
        &mut t,
        |t| add_one_each(black_box(t)),
        |t| add_one_logical(black_box(t.as_mut_slice())),
        1.0,
    );
    // The same through `next` (a `for` loop): a step per element, where
    // the hand-written loop vectorises.
    in_turns_on(
        &mut g,
        "iter_mut_next_static_vs_logical_loop",
        &mut t,
        |t| add_one_by_next(black_box(t)),
        |t| add_one_logical(black_box(t.as_mut_slice())),
        1.0,
    );
    // A `for` loop over a row-major tensor, whose logical order is its
    // buffer's: one run, the slice loop's code.
    let mut rows = TensorBuf::<Rows, f32>::filled(Rows::NEW, 1.0).unwrap();
    in_turns_on(
        &mut g,
        "iter_mut_next_row_major_static_vs_slice",
        &mut rows,
        |t| add_one_by_next(black_box(t)),
        |t| add_one_slice(black_box(t.as_mut_slice())),
        1.0,
    );
    let mut rows_rt =
        TensorBuf::<PreparedLayout, f32>::filled(PreparedLayout::new(Rows::LAYOUT), 1.0).unwrap();
    in_turns_on(
        &mut g,
        "iter_mut_next_row_major_prepared_vs_slice",
        &mut rows_rt,
        |t| add_one_by_next(black_box(t)),
        |t| add_one_slice(black_box(t.as_mut_slice())),
        1.0,
    );
    // A `for` loop over `iter()` of a row-major tensor, summing integers:
    // one run, the slice loop's code.
    let ints = TensorBuf::<RowsS32, i32>::from_fn(RowsS32::NEW, |i| (i[0] ^ i[1]) as i32).unwrap();
    assert_eq!(sum_s32_by_next(&ints), sum_s32_slice(ints.as_slice()));
    in_turns(
        &mut g,
        "iter_next_sum_row_major_static_vs_slice",
        || {
            black_box(sum_s32_by_next(black_box(&ints)));
        },
        || {
            black_box(sum_s32_slice(black_box(&ints).as_slice()));
        },
        1.0,
    );
    let ints_rt =
        TensorBuf::<PreparedLayout, i32>::from_fn(PreparedLayout::new(RowsS32::LAYOUT), |i| {
            (i[0] ^ i[1]) as i32
        })
        .unwrap();
    assert_eq!(sum_s32_by_next(&ints_rt), sum_s32_slice(ints_rt.as_slice()));
    in_turns(
        &mut g,
        "iter_next_sum_row_major_prepared_vs_slice",
        || {
            black_box(sum_s32_by_next(black_box(&ints_rt)));
        },
        || {
            black_box(sum_s32_slice(black_box(&ints_rt).as_slice()));
        },
        1.0,
    );

    // Padding in the edge tiles: the hand-written fill writes each row of
    // each tile's valid part.
    let mut p = TensorBuf::<PaddedTiled, f32>::zeroed(PaddedTiled::NEW).unwrap();
    let mut hand_buf = vec![0.0f32; PaddedTiled::BUFFER_LEN];
    p.fill(3.0);
    fill_valid_rows(&mut hand_buf, 3.0);
    assert_eq!(p.as_slice(), &hand_buf[..]);
    in_turns_on(
        &mut g,
        "fill_padded_static",
        &mut p,
        |p| fill_tensor(black_box(p), black_box(2.0)),
        |p| fill_valid_rows(black_box(p.as_mut_slice()), black_box(2.0)),
        1.0,
    );
    // Each element of the same layout, scaled in place.
    in_turns_on(
        &mut g,
        "for_each_mut_padded_static",
        &mut p,
        |p| scale_each(black_box(p)),
        |p| scale_valid_rows(black_box(p.as_mut_slice())),
        1.0,
    );
    // The padding of the same layout: zero the last 24 columns of each
    // edge tile's rows, through `fill_padding` and by hand.
    p.fill(3.0);
    p.fill_padding().unwrap();
    fill_valid_rows(&mut hand_buf, 3.0);
    zero_edge_padding(&mut hand_buf);
    assert_eq!(p.as_slice(), &hand_buf[..]);
    in_turns_on(
        &mut g,
        "fill_padding_static",
        &mut p,
        |p| fill_padding_of(black_box(p)),
        |p| zero_edge_padding(black_box(p.as_mut_slice())),
        1.0,
    );

    // Every slot of the same layout, elements numbered and padding
    // zeroed in one pass: `slots_mut` by fold and by `next`.
    number_slots(&mut p);
    number_slots_by_hand(&mut hand_buf);
    assert_eq!(p.as_slice(), &hand_buf[..]);
    in_turns_on(
        &mut g,
        "slots_mut_padded_static",
        &mut p,
        |p| number_slots(black_box(p)),
        |p| number_slots_by_hand(black_box(p.as_mut_slice())),
        1.0,
    );
    in_turns_on(
        &mut g,
        "slots_mut_next_padded_static",
        &mut p,
        |p| number_slots_by_next(black_box(p)),
        |p| number_slots_by_hand(black_box(p.as_mut_slice())),
        1.0,
    );

    // The same layout read at run time, prepared once (the tensor holds
    // it) and as a bare `ArrayLayout`.
    let padded_rt = PreparedLayout::new(PaddedTiled::LAYOUT);
    let mut pr = TensorBuf::<PreparedLayout, f32>::zeroed(padded_rt).unwrap();
    number_slots(&mut pr);
    assert_eq!(pr.as_slice(), &hand_buf[..]);
    in_turns_on(
        &mut g,
        "slots_mut_padded_prepared",
        &mut pr,
        |p| number_slots(black_box(p)),
        |p| number_slots_by_hand(black_box(p.as_mut_slice())),
        1.0,
    );
    let rt: PreparedLayout = "f32[1024,1024]{1,0:T(8,128)}".parse().unwrap();
    let mut r = TensorBuf::<PreparedLayout, f32>::filled(rt, 1.0).unwrap();
    in_turns_on(
        &mut g,
        "for_each_mut_prepared",
        &mut r,
        |r| scale_each(black_box(r)),
        |r| scale_slice(black_box(r.as_mut_slice())),
        1.0,
    );
    in_turns(
        &mut g,
        "iter_sum_prepared",
        || {
            black_box(black_box(&r).iter().sum::<f32>());
        },
        || {
            black_box(black_box(&plain).iter().sum::<f32>());
        },
        1.0,
    );
    let bare: ArrayLayout = "f32[1024,1024]{1,0:T(8,128)}".parse().unwrap();
    let mut a = TensorBuf::<ArrayLayout, f32>::filled(bare, 1.0).unwrap();
    in_turns_on(
        &mut g,
        "fill_array_layout",
        &mut a,
        |a| fill_tensor(black_box(a), black_box(2.0)),
        |a| fill_slice(black_box(a.as_mut_slice()), black_box(2.0)),
        1.0,
    );
    in_turns(
        &mut g,
        "iter_sum_array_layout",
        || {
            black_box(black_box(&a).iter().sum::<f32>());
        },
        || {
            black_box(black_box(&plain).iter().sum::<f32>());
        },
        1.0,
    );
    g.finish();
}

/// Int4 `y = W x`: the nibble code a kernel author writes by hand (two
/// elements per byte, the first in the high nibble, sign-extended).
fn matvec_int4_hand(bytes: &[u8], x: &[i8], y: &mut [i32]) {
    let cols = x.len();
    for (r, out) in y.iter_mut().enumerate() {
        let row = &bytes[r * cols / 2..(r + 1) * cols / 2];
        let mut acc = 0i32;
        for (c, &b) in row.iter().enumerate() {
            let hi = (b as i8) >> 4;
            let lo = ((b << 4) as i8) >> 4;
            acc += hi as i32 * x[2 * c] as i32 + lo as i32 * x[2 * c + 1] as i32;
        }
        *out = acc;
    }
}

/// Int4 `y = W x` element by element, as a kernel author indexes nibbles
/// by hand: the hand-written counterpart of `Packed::get`.
fn matvec_int4_hand_indexed(bytes: &[u8], x: &[i8], y: &mut [i32]) {
    let cols = x.len();
    for (r, out) in y.iter_mut().enumerate() {
        let mut acc = 0i32;
        for (c, &xc) in x.iter().enumerate() {
            let i = r * cols + c;
            let b = bytes[i / 2];
            let v = if i.is_multiple_of(2) {
                (b as i8) >> 4
            } else {
                ((b << 4) as i8) >> 4
            };
            acc += i32::from(v) * i32::from(xc);
        }
        *out = acc;
    }
}

/// Stores quantized int4 values one at a time through `Packed::set`,
/// which checks the index and the value's range.
#[inline(never)]
fn set_all(w: &mut Packed<Int4, { Int4::PHYSICAL_BYTE_SIZE }>, q: &[i8]) {
    for y in 0..256 {
        for x in 0..1024 {
            w.set([y, x], q[y * 1024 + x]).unwrap();
        }
    }
}

/// The same stores by hand: the same range check and a read-modify-write
/// of the nibble's byte.
#[inline(never)]
fn set_int4_hand(bytes: &mut [u8], q: &[i8]) {
    for (i, &v) in q.iter().enumerate() {
        assert!((-8..8).contains(&v), "value {v} does not fit s4");
        let b = &mut bytes[i / 2];
        *b = if i.is_multiple_of(2) {
            (*b & 0x0F) | ((v as u8) << 4)
        } else {
            (*b & 0xF0) | (v as u8 & 0x0F)
        };
    }
}

/// Int4 weights in TPU tiles, padded at the edges (1000 = 7 × 128 + 104
/// columns, 250 = 31 × 8 + 2 rows).
type Int4Tiled = layout!(s4[250,1000]{1,0:T(8,128)E(4)});

/// `PackedBase::fill`.
#[inline(never)]
fn fill_packed(w: &mut Packed<Int4Tiled, { Int4Tiled::PHYSICAL_BYTE_SIZE }>, v: i8) {
    w.fill(v).unwrap();
}

/// The same fill by hand: the valid bytes of each row of each tile, two
/// nibbles each.
#[inline(never)]
fn fill_int4_tiled_hand(bytes: &mut [u8], v: i8) {
    let b = ((v as u8) << 4) | (v as u8 & 0x0F);
    for band in 0..32 {
        let rows = if band == 31 { 2 } else { 8 };
        for tile in 0..8 {
            let valid = if tile == 7 { 104 } else { 128 };
            let base = (band * 8 + tile) * 512;
            for r in 0..rows {
                bytes[base + r * 64..base + r * 64 + valid / 2].fill(b);
            }
        }
    }
}

/// `PackedBase::for_each_mut`: halve each int4 value.
#[inline(never)]
fn halve_packed(w: &mut Packed<Int4, { Int4::PHYSICAL_BYTE_SIZE }>) {
    w.for_each_mut(|_, v| *v >>= 1).unwrap();
}

/// The same by hand: both nibbles of each byte, sign-extended, shifted
/// and packed back.
#[inline(never)]
fn halve_int4_hand(bytes: &mut [u8]) {
    for b in bytes.iter_mut() {
        let hi = ((*b as i8) >> 4) >> 1;
        let lo = (((*b << 4) as i8) >> 4) >> 1;
        *b = ((hi as u8) << 4) | (lo as u8 & 0x0F);
    }
}

fn packed(c: &mut Criterion) {
    let mut g = c.benchmark_group("access_packed");
    g.sample_size(20);
    let (rows, cols) = (256, 1024);
    let mut bytes = [0u8; Int4::PHYSICAL_BYTE_SIZE];
    let mut s: u32 = 12345;
    for b in bytes.iter_mut() {
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
        *b = (s >> 16) as u8;
    }
    let w = Box::new(Packed::<Int4, { Int4::PHYSICAL_BYTE_SIZE }>::from_bytes(
        bytes,
    ));
    let x: Vec<i8> = (0..cols).map(|i| (i % 15) as i8 - 7).collect();
    let (mut y1, mut y2, mut y3) = (vec![0i32; rows], vec![0i32; rows], vec![0i32; rows]);
    let matvec_get = |w: &Packed<Int4, { Int4::PHYSICAL_BYTE_SIZE }>, x: &[i8], y: &mut [i32]| {
        for (r, out) in y.iter_mut().enumerate() {
            let mut acc = 0i32;
            for (c, &xc) in x.iter().enumerate() {
                acc += i32::from(w.get([r, c]).unwrap()) * i32::from(xc);
            }
            *out = acc;
        }
    };
    let matvec_iter = |w: &Packed<Int4, { Int4::PHYSICAL_BYTE_SIZE }>, x: &[i8], y: &mut [i32]| {
        let mut it = w.iter();
        for out in y.iter_mut() {
            *out = x
                .iter()
                .zip(&mut it)
                .map(|(&xc, v)| i32::from(v) * i32::from(xc))
                .sum();
        }
    };
    let matvec_row = |w: &Packed<Int4, { Int4::PHYSICAL_BYTE_SIZE }>, x: &[i8], y: &mut [i32]| {
        let mut row = [0i8; 1024];
        for (r, out) in y.iter_mut().enumerate() {
            w.read_row(&[r], &mut row).unwrap();
            *out = row
                .iter()
                .zip(x)
                .map(|(&a, &b)| i32::from(a) * i32::from(b))
                .sum();
        }
    };
    let mut y4 = vec![0i32; rows];
    matvec_row(&w, &x, &mut y4);
    matvec_get(&w, &x, &mut y1);
    matvec_iter(&w, &x, &mut y2);
    matvec_int4_hand(w.as_bytes(), &x, &mut y3);
    assert_eq!(y1, y3);
    assert_eq!(y2, y3);
    assert_eq!(y4, y3);
    let mut y5 = vec![0i32; rows];
    matvec_int4_hand_indexed(w.as_bytes(), &x, &mut y5);
    assert_eq!(y5, y3);
    in_turns(
        &mut g,
        "packed_get_matvec_vs_indexed",
        || matvec_get(black_box(&w), black_box(&x), &mut y1),
        || matvec_int4_hand_indexed(black_box(w.as_bytes()), black_box(&x), &mut y5),
        1.0,
    );
    in_turns(
        &mut g,
        "packed_get_matvec",
        || matvec_get(black_box(&w), black_box(&x), &mut y1),
        || matvec_int4_hand(black_box(w.as_bytes()), black_box(&x), &mut y3),
        1.0,
    );
    in_turns(
        &mut g,
        "packed_iter_matvec",
        || matvec_iter(black_box(&w), black_box(&x), &mut y2),
        || matvec_int4_hand(black_box(w.as_bytes()), black_box(&x), &mut y3),
        1.0,
    );
    in_turns(
        &mut g,
        "packed_iter_matvec_vs_indexed",
        || matvec_iter(black_box(&w), black_box(&x), &mut y2),
        || matvec_int4_hand_indexed(black_box(w.as_bytes()), black_box(&x), &mut y5),
        1.0,
    );
    // Writes: quantized values stored one at a time (`set_all`,
    // `set_int4_hand`), each side a function of its own as a user writes it.
    let q: Vec<i8> = (0..rows * cols).map(|i| (i % 16) as i8 - 8).collect();
    let mut wq = Box::new(Packed::<Int4, { Int4::PHYSICAL_BYTE_SIZE }>::zeroed());
    let mut hand_bytes = vec![0u8; Int4::PHYSICAL_BYTE_SIZE];
    set_all(&mut wq, &q);
    set_int4_hand(&mut hand_bytes, &q);
    assert_eq!(wq.as_bytes(), &hand_bytes[..]);
    in_turns(
        &mut g,
        "packed_set_vs_indexed",
        || set_all(black_box(&mut wq), black_box(&q)),
        || set_int4_hand(black_box(&mut hand_bytes), black_box(&q)),
        1.0,
    );
    // Whole-tensor writes: `fill` of a padded tiled layout, and
    // `for_each_mut` over every element.
    let mut ft = Box::new(Packed::<Int4Tiled, { Int4Tiled::PHYSICAL_BYTE_SIZE }>::zeroed());
    let mut ft_hand = vec![0u8; Int4Tiled::PHYSICAL_BYTE_SIZE];
    fill_packed(&mut ft, -3);
    fill_int4_tiled_hand(&mut ft_hand, -3);
    assert_eq!(ft.as_bytes(), &ft_hand[..]);
    in_turns(
        &mut g,
        "packed_fill_padded_static",
        || fill_packed(black_box(&mut ft), black_box(-3)),
        || fill_int4_tiled_hand(black_box(&mut ft_hand), black_box(-3)),
        1.0,
    );
    let mut halved = hand_bytes.clone();
    halve_packed(&mut wq);
    halve_int4_hand(&mut halved);
    assert_eq!(wq.as_bytes(), &halved[..]);
    in_turns(
        &mut g,
        "packed_for_each_mut_static",
        || halve_packed(black_box(&mut wq)),
        || halve_int4_hand(black_box(&mut halved)),
        1.0,
    );
    in_turns(
        &mut g,
        "packed_read_row_matvec",
        || matvec_row(black_box(&w), black_box(&x), &mut y4),
        || matvec_int4_hand(black_box(w.as_bytes()), black_box(&x), &mut y3),
        1.0,
    );
    // Every value unpacked into an `s8` tensor of the same dims
    // (`unpack_into`), against the nibbles of each byte sign-extended by
    // hand.
    let mut wide = TensorBuf::<Int8, i8>::zeroed(Int8::NEW).unwrap();
    let mut hand = vec![0i8; rows * cols];
    w.unpack_into(&mut wide).unwrap();
    unpack_int4_hand(w.as_bytes(), &mut hand);
    assert_eq!(wide.as_slice(), &hand[..]);
    in_turns(
        &mut g,
        "packed_unpack_into",
        || w.unpack_into(black_box(&mut wide)).unwrap(),
        || unpack_int4_hand(black_box(w.as_bytes()), black_box(&mut hand)),
        1.0,
    );
    // And back (`pack_from`), against the range check and the packing of
    // each pair by hand.
    let mut packed = Box::new(Packed::<Int4, { Int4::PHYSICAL_BYTE_SIZE }>::zeroed());
    let mut hand_bytes = vec![0u8; Int4::PHYSICAL_BYTE_SIZE];
    packed.pack_from(&wide).unwrap();
    assert!(pack_int4_hand(&hand, &mut hand_bytes));
    assert_eq!(packed.as_bytes(), &hand_bytes[..]);
    in_turns(
        &mut g,
        "packed_pack_from",
        || packed.pack_from(black_box(&wide)).unwrap(),
        || assert!(pack_int4_hand(black_box(&hand), black_box(&mut hand_bytes))),
        1.0,
    );
    g.finish();
}

/// `values` (int4 values as `i8`) checked to fit and packed two per byte,
/// the first in the high nibble: what a kernel author writes; `false`
/// when one does not fit.
#[inline(never)]
fn pack_int4_hand(values: &[i8], out: &mut [u8]) -> bool {
    if !values.iter().all(|v| (-8..=7).contains(v)) {
        return false;
    }
    for (byte, pair) in out.iter_mut().zip(values.chunks_exact(2)) {
        *byte = ((pair[0] as u8) << 4) | (pair[1] as u8 & 0x0F);
    }
    true
}

/// The int4 values of `bytes`, two per byte (the first in the high
/// nibble), sign-extended into `out`: what a kernel author writes.
#[inline(never)]
fn unpack_int4_hand(bytes: &[u8], out: &mut [i8]) {
    for (&b, pair) in bytes.iter().zip(out.chunks_exact_mut(2)) {
        pair[0] = (b as i8) >> 4;
        pair[1] = ((b << 4) as i8) >> 4;
    }
}

/// A per-tile factor from the tile's place in the grid.
#[inline(always)]
fn tile_factor(ty: usize, tx: usize) -> f32 {
    1.0 + (ty * 8 + tx) as f32 * 1e-7
}

/// Per-tile work (`examples/tile_scale.rs`): scale each 8×128 tile by a
/// factor of its grid index, through `tiles_mut()` and by hand with
/// `chunks_exact_mut(1024)` and hand-computed tile coordinates.
fn tiles(c: &mut Criterion) {
    let mut g = c.benchmark_group("access_tiles");
    g.sample_size(20);
    let mut t = TensorBuf::<Tiled, f32>::filled(Tiled::NEW, 1.0).unwrap();
    let mut plain = vec![1.0f32; Tiled::BUFFER_LEN];
    let scale_tiles = |t: &mut TensorBuf<Tiled, f32>| {
        for mut tile in t.tiles_mut() {
            let f = tile_factor(tile.grid_index()[0], tile.grid_index()[1]);
            tile.as_mut_slice().iter_mut().for_each(|v| *v *= f);
        }
    };
    let scale_hand = |buf: &mut [f32]| {
        for (i, block) in buf.chunks_exact_mut(8 * 128).enumerate() {
            let f = tile_factor(i / (N / 128), i % (N / 128));
            block.iter_mut().for_each(|v| *v *= f);
        }
    };
    scale_tiles(&mut t);
    scale_hand(&mut plain);
    assert_eq!(t.as_slice(), &plain[..]);
    in_turns(
        &mut g,
        "tile_scale_static",
        || scale_tiles(black_box(&mut t)),
        || scale_hand(black_box(&mut plain)),
        1.0,
    );

    // `examples/tiled_matmul.rs`: C = A × B with A read tile by tile.
    let a = TensorBuf::from_fn(MatA::NEW, |i| ((i[0] * 3 + i[1] * 5) % 7) as f32).unwrap();
    let b: Vec<f32> = (0..MM_K * MM_N).map(|i| (i % 5) as f32).collect();
    let (mut c1, mut c2) = (vec![0.0f32; MM_M * MM_N], vec![0.0f32; MM_M * MM_N]);
    matmul_tiles(&a.view(), &b, &mut c1);
    matmul_tiles_hand(a.as_slice(), &b, &mut c2);
    assert_eq!(c1, c2);
    in_turns(
        &mut g,
        "tiled_matmul_static",
        || matmul_tiles(black_box(&a.view()), black_box(&b), &mut c1),
        || matmul_tiles_hand(black_box(a.as_slice()), black_box(&b), &mut c2),
        1.0,
    );
    g.finish();
}

/// The tiled operand of `examples/tiled_matmul.rs`.
type MatA = layout!(f32[256,512]{1,0:T(8,128)});
const MM_M: usize = 256;
const MM_K: usize = 512;
const MM_N: usize = 256;

/// `c += a × b` through the tile views of `a` (the example's kernel).
fn matmul_tiles(a: &TensorView<MatA, f32>, b: &[f32], c: &mut [f32]) {
    for tile in a.tiles() {
        let ([y0, p0], [ey, ep]) = (tile.origin().to_array(), tile.extent().to_array());
        for y in 0..ey {
            let c_row = &mut c[(y0 + y) * MM_N..][..MM_N];
            for p in 0..ep {
                let a_yp = tile[[y, p]];
                let b_row = &b[(p0 + p) * MM_N..][..MM_N];
                for (c, &b) in c_row.iter_mut().zip(b_row) {
                    *c += a_yp * b;
                }
            }
        }
    }
}

/// The same loops with the tiled offsets computed by hand: tile
/// `(ty, tp)` is block `ty * 4 + tp` of 1024 slots, row-major inside.
fn matmul_tiles_hand(a: &[f32], b: &[f32], c: &mut [f32]) {
    for ty in 0..MM_M / 8 {
        for tp in 0..MM_K / 128 {
            let block = &a[(ty * (MM_K / 128) + tp) * 1024..][..1024];
            for y in 0..8 {
                let c_row = &mut c[(ty * 8 + y) * MM_N..][..MM_N];
                for p in 0..128 {
                    let a_yp = block[y * 128 + p];
                    let b_row = &b[(tp * 128 + p) * MM_N..][..MM_N];
                    for (c, &b) in c_row.iter_mut().zip(b_row) {
                        *c += a_yp * b;
                    }
                }
            }
        }
    }
}

/// A 512×512 window of a 1024×1024 parent, at an offset that is not a
/// tile boundary.
const WIN: [std::ops::Range<usize>; 2] = [100..612, 200..712];
const WIN_N: usize = 512;
/// The destination or source of a window relayout.
type Sub = layout!(f32[512,512]);

/// Sums a window in order through `w[[y, x]]`.
#[inline(never)]
fn scan_window(w: &tessera::WindowView<'_, Rows, f32>) -> f32 {
    let mut acc = 0.0f32;
    for y in 0..WIN_N {
        for x in 0..WIN_N {
            acc += w[[y, x]];
        }
    }
    acc
}

/// The same sum on the parent's slice, the window's corner a run-time
/// value.
#[inline(never)]
fn scan_hand(buf: &[f32], y0: usize, x0: usize) -> f32 {
    let mut acc = 0.0f32;
    for y in 0..WIN_N {
        for x in 0..WIN_N {
            acc += buf[(y0 + y) * N + x0 + x];
        }
    }
    acc
}

/// Windows: indexing a window of a static strided parent and taking its
/// rows as slices, against hand-written slice indexing of the same
/// elements; relayout out of and into a window (element-wise) against the
/// hand-written loop with hand-computed offsets.
fn windows(c: &mut Criterion) {
    let mut g = c.benchmark_group("access_windows");
    g.sample_size(20);
    // The window's place is a run-time value for the hand-written code too.
    let (y0, x0) = black_box((WIN[0].start, WIN[1].start));
    let t = TensorBuf::from_fn(Rows::NEW, |i| ((i[0] * 7 + i[1]) % 13) as f32).unwrap();
    let plain = t.as_slice().to_vec();

    // Random indices inside the window.
    let idx = indices(WIN_N, WIN_N);
    let w = t.window(WIN);
    let sum_window = |w: &tessera::WindowView<'_, Rows, f32>, idx: &[[usize; 2]]| {
        idx.iter().fold(0.0f32, |acc, &[y, x]| acc + w[[y, x]])
    };
    let sum_hand = |buf: &[f32], idx: &[[usize; 2]]| {
        idx.iter().fold(0.0f32, |acc, &[y, x]| {
            assert!(y < WIN_N && x < WIN_N);
            acc + buf[(y0 + y) * N + x0 + x]
        })
    };
    assert_eq!(sum_window(&w, &idx), sum_hand(&plain, &idx));
    in_turns(
        &mut g,
        "window_index_random_static",
        || {
            black_box(sum_window(black_box(&w), black_box(&idx)));
        },
        || {
            black_box(sum_hand(black_box(&plain), black_box(&idx)));
        },
        1.0,
    );

    // Every element in order, by index.
    assert_eq!(scan_window(&w), scan_hand(&plain, y0, x0));
    in_turns(
        &mut g,
        "window_index_scan_static",
        || {
            black_box(scan_window(black_box(&w)));
        },
        || {
            black_box(scan_hand(black_box(&plain), y0, x0));
        },
        1.0,
    );

    // Each row of the window as a slice.
    let rows_window = |w: &tessera::WindowView<'_, Rows, f32>| {
        (0..WIN_N)
            .map(|y| {
                let row = w.window([y..y + 1, 0..WIN_N]).into_slice().unwrap();
                row.iter().fold(0.0f32, |a, v| a + v)
            })
            .fold(0.0f32, |a, v| a + v)
    };
    let rows_hand = |buf: &[f32]| {
        (0..WIN_N)
            .map(|y| {
                let row = &buf[(y0 + y) * N + x0..][..WIN_N];
                row.iter().fold(0.0f32, |a, v| a + v)
            })
            .fold(0.0f32, |a, v| a + v)
    };
    assert_eq!(rows_window(&w), rows_hand(&plain));
    in_turns(
        &mut g,
        "window_row_slices_static",
        || {
            black_box(rows_window(black_box(&w)));
        },
        || {
            black_box(rows_hand(black_box(&plain)));
        },
        1.0,
    );

    // Relayout out of and into a window of a tiled parent, and of a
    // strided one, element by element.
    let tiled = TensorBuf::from_fn(Tiled::NEW, |i| ((i[0] * 7 + i[1]) % 13) as f32).unwrap();
    let mut out = TensorBuf::<Sub, f32>::zeroed(Sub::NEW).unwrap();
    let mut out_hand = vec![0.0f32; WIN_N * WIN_N];
    let untile_hand = |src: &[f32], dst: &mut [f32]| {
        for y in 0..WIN_N {
            for x in 0..WIN_N {
                dst[y * WIN_N + x] = src[hand::tiled(y0 + y, x0 + x)];
            }
        }
    };
    tiled.window(WIN).relayout_into(&mut out).unwrap();
    untile_hand(tiled.as_slice(), &mut out_hand);
    assert_eq!(out.as_slice(), &out_hand[..]);
    in_turns(
        &mut g,
        "window_relayout_out_of_tiled_static",
        || {
            black_box(&tiled)
                .window(WIN)
                .relayout_into(&mut out)
                .unwrap()
        },
        || untile_hand(black_box(tiled.as_slice()), &mut out_hand),
        1.0,
    );
    let mut into = tiled.clone();
    let mut into_hand = tiled.as_slice().to_vec();
    let tile_hand = |src: &[f32], dst: &mut [f32]| {
        for y in 0..WIN_N {
            for x in 0..WIN_N {
                dst[hand::tiled(y0 + y, x0 + x)] = src[y * WIN_N + x];
            }
        }
    };
    out.relayout_into_window(&mut into.window_mut(WIN)).unwrap();
    tile_hand(out.as_slice(), &mut into_hand);
    assert_eq!(into.as_slice(), &into_hand[..]);
    in_turns(
        &mut g,
        "window_relayout_into_tiled_static",
        || {
            black_box(&out)
                .relayout_into_window(&mut into.window_mut(WIN))
                .unwrap()
        },
        || tile_hand(black_box(out.as_slice()), &mut into_hand),
        1.0,
    );
    let copy_out_hand = |src: &[f32], dst: &mut [f32]| {
        for y in 0..WIN_N {
            for x in 0..WIN_N {
                dst[y * WIN_N + x] = src[(y0 + y) * N + x0 + x];
            }
        }
    };
    t.window(WIN).relayout_into(&mut out).unwrap();
    copy_out_hand(&plain, &mut out_hand);
    assert_eq!(out.as_slice(), &out_hand[..]);
    in_turns(
        &mut g,
        "window_relayout_out_of_rows_static",
        || black_box(&t).window(WIN).relayout_into(&mut out).unwrap(),
        || copy_out_hand(black_box(&plain), &mut out_hand),
        1.0,
    );
    g.finish();
}

/// The `rayon` paths against the same work on one thread: a reported
/// `0.60 ms` is a speedup of 1 / 0.60 = 1.7×. The machine has two cores,
/// shared; memory bandwidth, not arithmetic, bounds both copies.
fn parallel(c: &mut Criterion) {
    let mut g = c.benchmark_group("access_parallel");
    g.sample_size(20);
    // Per-tile work with more arithmetic per byte than a scale: a short
    // polynomial of every element.
    let work = |v: &mut f32| *v = ((*v * 0.5 + 1.0) * *v - 0.25) * *v + 2.0;
    let mut t = TensorBuf::<Tiled, f32>::filled(Tiled::NEW, 0.5).unwrap();
    let mut u = t.clone();
    t.par_tiles_mut()
        .for_each(|mut tile| tile.as_mut_slice().iter_mut().for_each(work));
    u.tiles_mut()
        .for_each(|mut tile| tile.as_mut_slice().iter_mut().for_each(work));
    assert!(t == u);
    in_turns(
        &mut g,
        "par_tiles_mut_vs_tiles_mut",
        || {
            black_box(&mut t)
                .par_tiles_mut()
                .for_each(|mut tile| tile.as_mut_slice().iter_mut().for_each(work))
        },
        || {
            black_box(&mut u)
                .tiles_mut()
                .for_each(|mut tile| tile.as_mut_slice().iter_mut().for_each(work))
        },
        1.0,
    );
    // Tiling a row-major 4 MiB array, and untiling it.
    let rows = TensorBuf::from_fn(Rows::NEW, |i| (i[0] * N + i[1]) as f32).unwrap();
    let (mut tiled_par, mut tiled) = (
        TensorBuf::<Tiled, f32>::zeroed(Tiled::NEW).unwrap(),
        TensorBuf::<Tiled, f32>::zeroed(Tiled::NEW).unwrap(),
    );
    rows.par_relayout_into(&mut tiled_par).unwrap();
    rows.relayout_into(&mut tiled).unwrap();
    assert!(tiled_par == tiled);
    in_turns(
        &mut g,
        "par_relayout_into_tile_vs_relayout_into",
        || black_box(&rows).par_relayout_into(&mut tiled_par).unwrap(),
        || black_box(&rows).relayout_into(&mut tiled).unwrap(),
        1.0,
    );
    let (mut rows_par, mut rows_serial) = (rows.clone(), rows.clone());
    in_turns(
        &mut g,
        "par_relayout_into_untile_vs_relayout_into",
        || black_box(&tiled).par_relayout_into(&mut rows_par).unwrap(),
        || black_box(&tiled).relayout_into(&mut rows_serial).unwrap(),
        1.0,
    );
    g.finish();
}

criterion_group!(
    benches, offsets, traversal, packed, tiles, windows, parallel
);
criterion_main!(benches);
