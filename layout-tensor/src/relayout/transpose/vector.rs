use core::arch::x86_64::{
    __m128i, __m512i, _MM_HINT_T0, _mm_load_si128, _mm_loadu_si128, _mm_prefetch, _mm_store_si128,
    _mm_storeu_si128,
};

use bytemuck::NoUninit;

use super::{TransposeGrid, scalar_part};
use crate::relayout::isa::Vector;
use crate::relayout::simd::{store_vector, stream_lines};

/// Every block of a checked `grid` with `W × W` squares of vectors `X`
/// ([`merged`]), `W` elements of `T` to a vector; `V` is
/// [`lanes::<T>()`](super::lanes), the elements of a 16-byte vector, and
/// `H` those of `X`'s half ([`Vector::Half`]).
/// Blocks of fewer than `V` runs into dense groups, or of fewer than `V` rows
/// out of them, take [`pack`] and [`unpack`]. With `LANE_SQUARES` (bytes,
/// in a function compiled for AVX-512), planes above the streaming
/// threshold whose rows start cache lines take [`lane_squares_plane`].
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn blocks<
    T: NoUninit,
    X: Vector,
    const V: usize,
    const W: usize,
    const H: usize,
    const STREAMING: bool,
    const LANE_SQUARES: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
) {
    let TransposeGrid {
        counts: [outers, steps],
        rows,
        len,
        run_stride,
        row_stride,
        ..
    } = *grid;
    // Blocks of fewer than `V` runs into dense groups (`len` rows
    // interleaved: the pack of `(2,1)`, `(4,1)` sub-tiles), or of
    // fewer than `V` rows out of dense groups (their unpack).
    let (narrow, packs) = match (len < V && row_stride == len, rows < V && run_stride == rows) {
        (true, _) => (len, true),
        (_, true) => (rows, false),
        _ => (0, false),
    };
    if matches!(narrow, 2 | 4 | 8) {
        for o in 0..outers {
            for k in 0..steps {
                let at = grid.block(o, k);
                match (narrow, packs) {
                    (2, true) => pack::<T, V, 2, STREAMING>(src, dst, at, rows, run_stride),
                    (4, true) => pack::<T, V, 4, STREAMING>(src, dst, at, rows, run_stride),
                    (_, true) => pack::<T, V, 8, STREAMING>(src, dst, at, rows, run_stride),
                    (2, false) => unpack::<T, V, 2, STREAMING>(src, dst, at, len, row_stride),
                    (4, false) => unpack::<T, V, 4, STREAMING>(src, dst, at, len, row_stride),
                    (_, false) => unpack::<T, V, 8, STREAMING>(src, dst, at, len, row_stride),
                }
            }
        }
        return;
    }
    merged::<T, X, V, W, H, STREAMING, LANE_SQUARES>(src, dst, grid);
}

/// One block of `K < V` runs into dense groups (`row_stride == K`):
/// `dst[d + r * K + i] = src[s + r + i * run_stride]`, `V` rows at a
/// time as `K` vectors, one per run, interleaved by `log2(K)` rounds
/// of unpacks into `K` vectors of output; the last rows with the
/// plain loop. With `STREAMING`, the block's output is streamed when the
/// vectors cover it ([`stream_lines`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack<T: NoUninit, const V: usize, const K: usize, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    rows: usize,
    run_stride: usize,
) {
    let size = core::mem::size_of::<T>();
    let lines = match STREAMING && rows.is_multiple_of(V) {
        true => stream_lines(dst[d..].as_ptr() as usize, rows * K * size),
        false => [0, 0],
    };
    let mut r = 0;
    while r + V <= rows {
        // SAFETY: the grid was checked against both buffers: the
        // block's elements `src[s + r + i * run_stride]` and `dst[d +
        // r * K + i]`, `r < rows`, `i < K`, are in bounds, and rows
        // `r..r + V` are in the block. The buffers do not overlap. The
        // output's vectors are 16 bytes apart from `d`, so aligned in
        // `lines` when its first line is (`stream_lines`).
        unsafe {
            let x: [__m128i; K] = array(<__m128i as Vector>::ZERO, |i| {
                _mm_loadu_si128(src.as_ptr().add(s + r + i * run_stride).cast())
            });
            let out = dst.as_mut_ptr().add(d + r * K);
            for (j, v) in interleave(x, size).into_iter().enumerate() {
                let m = reverse_bits(j, K);
                store_vector::<STREAMING>(out.add(m * V).cast(), v, lines);
            }
        }
        r += V;
    }
    if r < rows {
        scalar_part(src, dst, [s, d], r..rows, 0..K, [run_stride, K]);
    }
}

/// One block of `K < V` rows out of dense groups (`run_stride == K`):
/// `dst[d + r * row_stride + i] = src[s + r + i * K]`, `V` runs at a
/// time as `K` vectors of groups, deinterleaved into `K` vectors, one
/// per row; the last runs with the plain loop. With `STREAMING`, the
/// rows are streamed when the vectors cover them ([`stream_lines`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack<T: NoUninit, const V: usize, const K: usize, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    len: usize,
    row_stride: usize,
) {
    let size = core::mem::size_of::<T>();
    let lines: [[usize; 2]; K] = array([0, 0], |r| match STREAMING && len.is_multiple_of(V) {
        true => stream_lines(dst[d + r * row_stride..].as_ptr() as usize, len * size),
        false => [0, 0],
    });
    let mut i = 0;
    while i + V <= len {
        // SAFETY: the grid was checked against both buffers: the
        // block's elements `src[s + r + i * K]` and `dst[d + r *
        // row_stride + i]`, `r < K`, `i < len`, are in bounds, and
        // runs `i..i + V` are in the block, `K` vectors of source
        // from `s + i * K`. The buffers do not overlap. Each row's
        // vectors are 16 bytes apart from the row's start, so aligned
        // in its `lines` when the first line is (`stream_lines`).
        unsafe {
            let x: [__m128i; K] = array(<__m128i as Vector>::ZERO, |j| {
                _mm_loadu_si128(src.as_ptr().add(s + i * K + j * V).cast())
            });
            for (r, v) in deinterleave(x, size).into_iter().enumerate() {
                let out = dst.as_mut_ptr().add(d + r * row_stride + i);
                store_vector::<STREAMING>(out.cast(), v, lines[r]);
            }
        }
        i += V;
    }
    if i < len {
        scalar_part(src, dst, [s, d], 0..K, i..len, [K, row_stride]);
    }
}

/// `K` vectors of elements of `size` bytes interleaved by `log2(K)`
/// rounds of unpacks, in lanes of `size`, `2 * size`, ... bytes: the
/// output stream (element `p` of each input in turn, for every `p`)
/// is the result's vectors in the order `reverse_bits(j, K)`. With `K
/// * size == 16`, a square transpose.
#[cfg_attr(not(debug_assertions), inline(always))]
fn interleave<const K: usize>(mut x: [__m128i; K], size: usize) -> [__m128i; K] {
    let mut lane = size;
    while lane < size * K {
        x = shuffle_round(x, lane, false);
        lane *= 2;
    }
    x
}

/// `K` vectors of groups of `K` elements of `size` bytes split into
/// `K` vectors, vector `r` holding element `r` of every group, in
/// order: `log2(K)` rounds, each splitting pairs of vectors into their
/// even and odd elements (`log2(16 / size)` unpacks of single elements
/// each).
#[cfg_attr(not(debug_assertions), inline(always))]
fn deinterleave<const K: usize>(mut x: [__m128i; K], size: usize) -> [__m128i; K] {
    let mut groups = 1;
    while groups < K {
        x = shuffle_round(x, size, true);
        groups *= 2;
    }
    x
}

/// One round over `K` vectors: vectors `2j` and `2j + 1` give
/// vectors `j` and `j + K / 2`: their low and high halves interleaved
/// in lanes of `lane` bytes, or (`split`) their even and odd lanes.
#[cfg_attr(not(debug_assertions), inline(always))]
fn shuffle_round<const K: usize>(x: [__m128i; K], lane: usize, split: bool) -> [__m128i; K] {
    array(<__m128i as Vector>::ZERO, |j| {
        let (pair, second) = match j < K / 2 {
            true => (j, false),
            false => (j - K / 2, true),
        };
        let (a, b) = (x[2 * pair], x[2 * pair + 1]);
        match split {
            false => sse2_unpack(lane, second, a, b),
            true => {
                // `log2(16 / lane)` rounds of unpacks end with the
                // even lanes of `a` then `b` in the low vector, the
                // odd ones in the high.
                let (mut lo, mut hi) = (a, b);
                let mut n = lane;
                while n < 16 {
                    (lo, hi) = (
                        sse2_unpack(lane, false, lo, hi),
                        sse2_unpack(lane, true, lo, hi),
                    );
                    n *= 2;
                }
                match second {
                    false => lo,
                    true => hi,
                }
            }
        }
    })
}

/// `[f(0), f(1), .., f(N - 1)]`, computed in a plain loop: through
/// `core::array::from_fn`, the closure was not inlined (a call per
/// vector, a fifth of a `u8` unpack's time in `perf`).
#[cfg_attr(not(debug_assertions), inline(always))]
fn array<X: Copy, const N: usize>(fill: X, mut f: impl FnMut(usize) -> X) -> [X; N] {
    let mut out = [fill; N];
    for (j, x) in out.iter_mut().enumerate() {
        *x = f(j);
    }
    out
}

/// `j` with its `log2(n)` low bits reversed.
#[cfg_attr(not(debug_assertions), inline(always))]
fn reverse_bits(j: usize, n: usize) -> usize {
    match n {
        0 | 1 => j,
        _ => j.reverse_bits() >> (usize::BITS - n.trailing_zeros()),
    }
}

/// One axis of a transpose: `blocks` blocks of `per` elements, block
/// `b` at `b * stride` (`[source, destination]`). The rows of a grid's
/// blocks (contiguous in the source), with a level whose blocks
/// continue them in the source (`stride[0] == per`: the tiles of a
/// transposed tiling side by side), or its runs (contiguous in the
/// destination), with a level whose blocks continue them there.
#[derive(Clone, Copy)]
struct Axis {
    per: usize,
    blocks: usize,
    stride: [usize; 2],
}

impl Axis {
    /// The `[source, destination]` offsets of element `n` of the axis,
    /// with `within` (each `[source, destination]`) between the elements
    /// of a block.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn at(&self, n: usize, within: [usize; 2]) -> [usize; 2] {
        let (block, e) = (n / self.per, n % self.per);
        [0, 1].map(|b| block * self.stride[b] + e * within[b])
    }

    /// Offsets in buffer `b` (0 source, 1 destination) of elements
    /// `first..first + out.len()` of the axis, from `base`, with
    /// `within` between the elements of a block.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn offsets(&self, out: &mut [usize], first: usize, b: usize, within: usize, base: usize) {
        let (mut block, mut e) = (first / self.per, first % self.per);
        let mut at = base + block * self.stride[b];
        for o in out {
            *o = at + e * within;
            e += 1;
            if e == self.per {
                (block, e) = (block + 1, 0);
                at = base + block * self.stride[b];
            }
        }
    }
}

/// Bytes of each destination row that [`plane`] writes before it
/// moves to the next rows: 2 KiB, so that a chunk's runs and rows
/// (a page each, for rows of 4 KiB or more) fit the L2 TLB.
const CHUNK_BYTES: usize = 2048;

/// Bytes of each source run that a tile reads ([`plane`]): two cache
/// lines, so that a tile's source is at least whole lines, and the
/// staged tile ([`Stage`]) at most 8 KiB; streamed tiles into long rows
/// read [`streamed_run_bytes`].
const TILE_RUN_BYTES: usize = 128;

/// The bytes of each source run that a streamed tile into long rows
/// reads ([`plane`]), writing four lines of each destination row: one
/// line of bytes (a tile of 64 rows by 256 runs), two of wider elements
/// (64 rows by 128 runs of 2-byte ones, 32 by 64 of 4-byte ones), so
/// that the stage holds at most 16 KiB ([`STAGE_BYTES`]). On the Zen 3
/// machine of `BENCHMARKS.md`, at 16 MiB, in turns with the tiles of
/// one line of each row of bytes and two of 2-byte elements (with the
/// prefetch of [`PREFETCH_RUNS_AHEAD`] in both), `u8[2048,8192]`
/// transposes went from 4.5–4.9 times `memcpy`'s time to 3.9 and
/// `bf16[1024,8192]` from 2.4–2.6 to 1.7–1.9. `f32` tiles were already
/// four lines of each row.
const fn streamed_run_bytes<T>() -> usize {
    match core::mem::size_of::<T>() {
        1 => 64,
        _ => TILE_RUN_BYTES,
    }
}

/// Runs a tile prefetches ahead of the 16-byte squares it transposes
/// ([`tile`]): the lines of the square `PREFETCH_RUNS_AHEAD` runs on,
/// in this tile or the next, or a tile's runs on where a tile has fewer
/// (16 runs of `f32` into `{0,1:T(8,128)}`, a line of each 512-byte
/// piece). Fetched a whole tile ahead at once, as before, the lines of
/// runs a multiple of 4 KiB apart fell in a few sets of the L2 cache
/// (16 of its 1024 sets on Zen 3, 128 lines), and a tile of 64 or 256
/// runs evicted its own prefetched lines before they were read. On the
/// Zen 3 machine of `BENCHMARKS.md`, at 16 MiB, in turns with the
/// tile-ahead prefetch: `f32[2048,2048]` 1.95–2.08 times `memcpy`'s
/// time to 1.76–1.78, `bf16[4096,2048]` 2.9–3.4 to 2.4–2.6. Small tiles
/// need theirs a tile ahead: 32 runs ahead of tiles of 16 to 64 runs
/// (the transposes into tiles) prefetched little or nothing of the next
/// tile, and `f32` into `{0,1:T(8,128)}` read 2.06–2.15 against
/// 1.46–1.69, `s8` into `{0,1:T(8,128)(4,1)}` 2.73–2.84 against
/// 2.00–2.05; a whole tile ahead of every square (the next tile's run
/// at the same place) took the plain `bf16[1024,8192]` transpose from
/// 1.44–1.50 to 1.74–1.81.
const PREFETCH_RUNS_AHEAD: usize = 32;

/// The bytes of each source run that a streamed tile reads where the
/// destination rows come in blocks of two short pieces ([`plane`]; the
/// 2-row tiles of `{0,1:T(2,128)}`, of 4-byte units into
/// `{0,1:T(8,128)(4,1)}`), writing two lines of each row: 64 rows by 32
/// runs of `f32`, where other tiles into short pieces read two lines of
/// each run and write one line of each row. A tile of 32 such rows
/// writes one line to each of 16 blocks, which lie a block of rows
/// apart (512 KiB for `f32[65536,1024]`). On the Zen 3 EPYC of
/// `BENCHMARKS.md`, in the bench's matrix in turns with the tiles of 32
/// rows (two builds, four runs at 256 MiB, two at 16 MiB), times over
/// `memcpy`'s: the `f32` `T(2,128)` transpose+tile from 2.31–2.40 to
/// 1.67–1.86 at 16 MiB and from 4.38–4.97 to 3.78–4.04 at 256 MiB; the
/// `s8` `T(8,128)(4,1)` one from 2.08–2.16 to 1.74–1.84 at 16 MiB, but
/// 3.54–3.95 against 3.99–4.30 at 256 MiB (where a scratch harness, in
/// turns in one build, read it 4.3 against 4.7–4.8). In that harness,
/// shapes the bench does not use: `f32[60000,1100]` into `T(2,128)`
/// 3.7–3.9 to 3.4, `f32[4096,1024]` 3.4 to 2.75. Tiles into the 8-row
/// tiles of `{0,1:T(8,128)}` read slower so (3.3 against 3.0 at 256
/// MiB), into `{0,1:T(1,128)}` the same, and both stay as they are.
const PAIRED_ROWS_RUN_BYTES: usize = 256;

/// The bytes of a tile's stage ([`Stage`]).
const STAGE_BYTES: usize = 16384;

/// Cache lines of each destination row that a tile writes ([`plane`])
/// when the rows are long and the tile is not streamed (streamed ones
/// write four, [`streamed_run_bytes`]): as many as the element's bytes,
/// at most 4 (256 bytes of each row for `f32`), so that the staged tile
/// is at most 8 KiB. The rows of a plain transpose lie a source row
/// apart; writing more of each at once took the `f32` transposes of 16
/// and 256 MiB from 2.4–4.1 times `memcpy`'s time to 1.9–3.3, the
/// `bf16` ones from 2.8–4.7 to 2.5–4.2 (`BENCHMARKS.md`). Rows cut in
/// tiles' pieces (`{0,1:T(8,128)}`) keep a line at a time: with more,
/// the `f32` `T(8,128)` and `bf16` `T(8,128)(2,1)` transposes into
/// tiles read 10–20% slower.
const fn run_lines<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size < 4 { size } else { 4 }
}

/// A tile of the transpose, staged between the registers' transpose
/// and its destination rows: a row per element of a tile's source
/// runs, of the lines it writes of each destination row ([`tile`]).
#[repr(C, align(64))]
struct Stage([core::mem::MaybeUninit<__m128i>; STAGE_BYTES / 16]);

/// Every block of a checked `grid` as one transpose per plane: the
/// grid's rows merged with a level whose blocks continue them in the
/// source, and its runs with one whose blocks continue them in the
/// destination ([`Axis`]), so that tiles of a few rows (`T(8,128)`,
/// `T(2,128)`) still read whole source lines and write whole
/// destination lines; the other levels loop outside.
#[cfg_attr(not(debug_assertions), inline(always))]
fn merged<
    T: NoUninit,
    X: Vector,
    const V: usize,
    const W: usize,
    const H: usize,
    const STREAMING: bool,
    const LANE_SQUARES: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
) {
    let levels = [0, 1].map(|l| (grid.counts[l], grid.strides[l]));
    let continues = |l: usize, b: usize, per: usize| levels[l].0 > 1 && levels[l].1[b] == per;
    let x_level = [0, 1].into_iter().find(|&l| continues(l, 0, grid.rows));
    let i_level = [1, 0]
        .into_iter()
        .find(|&l| Some(l) != x_level && continues(l, 1, grid.len));
    let axis = |level: Option<usize>, per: usize| match level {
        Some(l) => Axis {
            per,
            blocks: levels[l].0,
            stride: levels[l].1,
        },
        None => Axis {
            per,
            blocks: 1,
            stride: [0, 0],
        },
    };
    let (x, i) = (axis(x_level, grid.rows), axis(i_level, grid.len));
    let free = |l: usize| match Some(l) == x_level || Some(l) == i_level {
        true => 1,
        false => levels[l].0,
    };
    let strides = [grid.run_stride, grid.row_stride];
    // An axis whose blocks continue each other in both buffers is one
    // block; the direct kernel takes squares inside blocks, so each
    // block a whole number of squares (and no streamed stores).
    let flatten =
        |a: Axis, within: [usize; 2]| match a.stride == [a.per * within[0], a.per * within[1]] {
            true => Axis {
                per: a.per * a.blocks,
                blocks: 1,
                stride: [0, 0],
            },
            false => a,
        };
    let (x, i) = (
        flatten(x, [1, grid.row_stride]),
        flatten(i, [grid.run_stride, 1]),
    );
    // Stored straight to the destination: squares of `W` when the blocks
    // are whole ones, else of `H` (`X`'s half) or `V` (16 bytes) when
    // they are (the 4-row tiles of `T(4,128)` with 32-byte vectors, the
    // 8-row tiles of `T(8,128)` with 64-byte ones). Staged when streaming:
    // squares of `V` (the staged copy is bound by memory, where 32-byte
    // squares measured no faster, and 1.05–1.1 times slower for bytes and
    // 4-byte units); but 64-byte squares of 64-byte rows are streamed
    // straight to the destination, each square row a whole line
    // ([`streams_squares`]).
    // Squares of `n` need at least `n` rows and runs: a plane of fewer
    // (the 8 rows of one `T(8,128)` tile row, when a partial tile ends
    // every band) would go element by element ([`edge`]).
    let fits = |n: usize| x.per * x.blocks >= n && i.per * i.blocks >= n;
    let whole = |n: usize| {
        fits(n)
            && (x.blocks == 1 || x.per.is_multiple_of(n))
            && (i.blocks == 1 || i.per.is_multiple_of(n))
    };
    // Blocks that are not whole squares (the 2-row tiles of `T(2,128)`,
    // the 4-row tiles of bytes): squares across blocks, with an offset
    // per row and per run. A square's rows are then consecutive in the
    // source and its runs in the destination, as the blocks of each axis
    // continue each other there (how `x` and `i` were chosen).
    let across = fits(W)
        && (x.blocks == 1 || x.stride[0] == x.per)
        && (i.blocks == 1 || i.stride[1] == i.per);
    let streamed = STREAMING && X::BYTES == 64 && W * core::mem::size_of::<T>() == 64;
    let direct = match () {
        _ if STREAMING => (streamed && whole(W)).then_some(Direct::Squares(W)),
        _ if whole(W) => Some(Direct::Squares(W)),
        _ if whole(H) => Some(Direct::Squares(H)),
        _ if whole(V) => Some(Direct::Squares(V)),
        _ if across => Some(Direct::Across),
        _ => None,
    };
    // Bytes with AVX-512 above the threshold: lane squares, streamed.
    let lanes = LANE_SQUARES && STREAMING && lane_squares_fit::<16, 64>([x, i]);
    for o in 0..free(0) {
        for k in 0..free(1) {
            let at = grid.block(o, k);
            let geometry = Geometry {
                at,
                axes: [x, i],
                strides,
            };
            if lanes && streams_squares(dst, at[1], [x, i], grid.row_stride) {
                let first_run = lane_squares_from::<T, 64>(dst, at[1], i, grid.row_stride);
                lane_squares_plane::<T, __m512i, 16, 64>(src, dst, geometry, first_run);
                continue;
            }
            // Destination rows crowded into one set of the L1 cache (a
            // multiple of 4 KiB apart), where even a sweep of one
            // square's rows evicts lines before they are whole, are
            // staged, a line of each row written whole: 1 MiB transposes
            // into rows of 4 KiB (`f32[1024,256]`, `bf16[2048,256]`) went
            // from 8-13 times `memcpy`'s time to 3.8-4.9 (`u8[4096,256]`
            // 7-8 to 5.7). Those three now take the squares' own stage
            // (below), and the tiles of 16-byte squares ([`plane`]) the
            // planes it does not.
            // Streamed squares write past the caches: no set crowds; but
            // each of their stores must start a line.
            let uncrowded = match direct {
                Some(_) if STREAMING => usize::MAX,
                Some(_) => rows_before_crowding(dst, at[1], x, grid.row_stride),
                None => 0,
            };
            // Squares whose rows are less than a line (bytes' half
            // squares, 16 bytes of 32 rows; AVX2's squares of 2-byte
            // elements, 32 bytes of 16; SSE2's, and AVX2's of 4-byte
            // elements where there is no AVX-512) leave each line part
            // written for the next square: rows that crowd before 32
            // are staged too (rows 2 KiB apart, two sets). On the
            // AVX-512 machine of `BENCHMARKS.md`, at 1 MiB,
            // `u8[2048,512]` went from 7.4-8.2 times `memcpy`'s time to
            // 4.5, `bf16[1024,512]` from 4.5 to 3.1. Staged more often,
            // rows 1 KiB apart (32 before they crowd) and the 2-row
            // tiles of AVX-512's full-line squares (`f32` `T(2,128)`)
            // went slower.
            let group = match W * core::mem::size_of::<T>() < 64 {
                true => 32,
                false => 16,
            };
            // Squares inside blocks in 32- or 64-byte vectors whose two
            // squares of rows are a source line or more (AVX-512's of 4-
            // and 8-byte elements, AVX2's of 2-byte ones, and of 4- and
            // 8-byte ones without AVX-512: the same stage against the
            // same crowding, not measured on such a CPU), into rows that
            // crowd before 32 (a multiple of 2 KiB apart): through a stage in the L1
            // cache, 512 bytes of each row written at a time
            // ([`direct_plane`] with `STAGED`). On the machine of
            // `BENCHMARKS.md`, at 1 MiB, `f32[1024,256]` went from 3.0-3.3
            // times `memcpy`'s time to 2.3, `f32[512,512]` from 2.8 to
            // 2.5, `f32[1024,1024]` (4 MiB) from 3.2 to 2.6;
            // `bf16[1024,512]` from 3.2 to 2.7, `bf16[2048,256]` from
            // 4.3-4.4 to 2.8-3.0. Squares across the 2-row tiles of
            // `T(2,128)`, and of 4-byte units into `T(8,128)(4,1)`, went
            // both ways (`s8[1024,1024]` 3.2 to 2.8, `s8[4096,256]` 2.8
            // to 3.1) and stay direct.
            let crowded = uncrowded < (x.per * x.blocks).min(STAGE_SQUARES_BELOW);
            let full_lines = X::BYTES >= 32
                && 2 * W <= SQUARE_STAGE_ROWS
                && 2 * W * core::mem::size_of::<T>() >= 64;
            if !STREAMING
                && full_lines
                && crowded
                && matches!(direct, Some(Direct::Squares(n)) if n == W)
            {
                // SAFETY: `X` is AVX-512's vectors (64 bytes) or AVX2's
                // (32), whose instructions the CPU has
                // (`transpose_grid_on`); the plane's arguments are as for
                // the direct call below.
                unsafe {
                    match X::BYTES {
                        64 => staged_plane_avx512::<T, X, W>(src, dst, geometry, uncrowded),
                        _ => staged_plane_avx2::<T, X, W>(src, dst, geometry, uncrowded),
                    }
                }
                continue;
            }
            // Bytes' half squares (AVX2) into rows that crowd before 32
            // likewise, 512 bytes of 32 rows at a time, in place of the
            // staged tiles of 16-byte squares ([`plane`]): at 1 MiB,
            // `u8[2048,512]` from 4.2 times `memcpy`'s time to 2.9,
            // `u8[4096,256]` from 6.6-6.9 to 2.8. Rows 1 KiB apart (32
            // before they crowd) went slower staged (`u8[1024,1024]`
            // 3.2 to 3.3-3.5) and stay direct.
            let byte_squares = W == 32 && X::BYTES == 32;
            if !STREAMING
                && byte_squares
                && crowded
                && matches!(direct, Some(Direct::Squares(n)) if n == W)
            {
                // SAFETY: `X` is 32 bytes, so AVX2's vectors, whose
                // instructions the CPU has (`transpose_grid_on`); the
                // plane's arguments are as for the direct call below.
                unsafe { staged_half_squares_plane::<T, X>(src, dst, geometry) };
                continue;
            }
            let one_set = uncrowded < (x.per * x.blocks).min(group);
            let staged =
                one_set || STREAMING && !streams_squares(dst, at[1], [x, i], grid.row_stride);
            match direct {
                Some(_) if STREAMING && !staged => {
                    direct_plane::<T, X, W, false, true, false>(src, dst, geometry, uncrowded, None)
                }
                Some(kind) if !staged => match kind {
                    // Bytes in 32-byte vectors: squares of 32 would take
                    // 32 registers of the 16 there are.
                    Direct::Squares(n) if n == W && W == 32 && X::BYTES == 32 => {
                        half_squares_plane::<T, X, 16, 32, false, false>(src, dst, geometry, None)
                    }
                    Direct::Squares(n) if n == W => direct_plane::<T, X, W, false, false, false>(
                        src, dst, geometry, uncrowded, None,
                    ),
                    Direct::Squares(n) if n == H => {
                        direct_plane::<T, X::Half, H, false, false, false>(
                            src, dst, geometry, uncrowded, None,
                        )
                    }
                    Direct::Squares(_) => direct_plane::<T, __m128i, V, false, false, false>(
                        src, dst, geometry, uncrowded, None,
                    ),
                    Direct::Across if W == 32 && X::BYTES == 32 => {
                        half_squares_plane::<T, X, 16, 32, true, false>(src, dst, geometry, None)
                    }
                    Direct::Across => direct_plane::<T, X, W, true, false, false>(
                        src, dst, geometry, uncrowded, None,
                    ),
                },
                _ => plane::<T, V, STREAMING>(src, dst, geometry),
            }
        }
    }
}

/// How many destination rows of axis `x`, from the first on and at
/// most 128, a plane can write a line of each of before one set of the
/// L1 cache holds more than eight of those lines (of its 8 or 12 ways;
/// 64 sets of 64-byte lines, 4 KiB a way, on x86-64). Rows a power of
/// two of bytes apart crowd into few sets: 1 KiB apart, four sets and
/// 32 rows; 4 KiB apart, one set and 8 rows; the 2-row tiles of
/// `{0,1:T(8,128)(4,1)}` `s8`, 512 bytes and 8 KiB apart, two sets and
/// 16 rows. `d` is where the plane starts in `dst`, `row_stride` is
/// between the rows of one of `x`'s blocks.
fn rows_before_crowding<T>(dst: &[T], d: usize, x: Axis, row_stride: usize) -> usize {
    let size = core::mem::size_of::<T>();
    let rows = (x.per * x.blocks).min(128);
    // Eight rows fit in any set. The staged unit transposes plan a plane
    // per piece of 16 KiB: this walk took some 7% of a `bf16` one's time
    // (`perf`) while it stepped one row at a time through both indices.
    if rows <= 8 {
        return rows;
    }
    let start = dst.as_ptr().addr().wrapping_add(d.wrapping_mul(size));
    let (row_bytes, block_bytes) = (
        row_stride.wrapping_mul(size),
        x.stride[1].wrapping_mul(size),
    );
    let mut sets = L1Sets([0; 64]);
    let mut m = 0;
    // Row `m + e` is row `e` of block `b`: `Axis::offsets`' order,
    // stepped here in place (its table of offsets, then the sets, read
    // 10-15% slower on the staged transposes).
    for b in 0..x.blocks {
        let block = start.wrapping_add(b.wrapping_mul(block_bytes));
        let take = x.per.min(rows - m);
        for e in 0..take {
            if sets.crowded_by(block.wrapping_add(e.wrapping_mul(row_bytes))) {
                return m + e;
            }
        }
        m += take;
        if m == rows {
            break;
        }
    }
    rows
}

/// Whether the square rows that [`direct_plane`] stores of the plane at
/// `d` start cache lines of `dst` (but those of the lead and trailing
/// squares, [`spans`]), so that each is one streaming store of a whole
/// line: the rows of `x`'s blocks (at `row_stride`) and its blocks lie
/// whole lines apart, and the runs are one block, whose squares start at
/// the first line boundary ([`first_aligned`]), or blocks whole lines
/// apart from a plane that starts a line (the caller checks that blocks
/// are whole squares, of 64 bytes a row).
fn streams_squares<T>(dst: &[T], d: usize, [x, i]: [Axis; 2], row_stride: usize) -> bool {
    let size = core::mem::size_of::<T>();
    let on_lines = |elements: usize| elements.wrapping_mul(size).is_multiple_of(64);
    let starts_line = dst
        .as_ptr()
        .addr()
        .wrapping_add(d.wrapping_mul(size))
        .is_multiple_of(64);
    on_lines(row_stride)
        && (x.blocks == 1 || on_lines(x.stride[1]))
        && (i.blocks == 1 || starts_line && on_lines(i.stride[1]))
}

/// Bytes of each destination row that [`direct_plane`]'s staged squares
/// gather before they are written: whole lines of a row at a time, so
/// that rows a multiple of 2 KiB apart, whose lines share few sets of
/// the L1 cache, are each written in one pass (with squares' single
/// lines, 16 rows 4 KiB apart are 16 lines in one set of 8 ways).
const SQUARE_STAGE_ROW_BYTES: usize = 512;

/// Rows of the staged squares: two squares of 64-byte rows, so that
/// each source run gives a block two whole lines (with one, the `f32`
/// transpose of 4 MiB whose runs are 4 KiB apart read 1.4 times as long).
const SQUARE_STAGE_ROWS: usize = 32;

/// Bytes between the rows of the stage: a line more than a row, so that
/// a square's rows fall in different sets of the L1 cache.
const SQUARE_STAGE_PITCH: usize = SQUARE_STAGE_ROW_BYTES + 64;

/// Bytes of the stage: 18 KiB, in the L1 cache beside the lines of the
/// source runs that the squares read.
const SQUARE_STAGE_BYTES: usize = SQUARE_STAGE_ROWS * SQUARE_STAGE_PITCH;

/// Destination rows that crowd a set of the L1 cache before this many
/// ([`rows_before_crowding`]) take staged squares, where they are whole
/// lines: rows a multiple of 2 KiB apart (16 rows) or 4 KiB (8). Rows 1
/// KiB apart (32) are faster direct: the copy out of the stage costs
/// more than their crowding (`f32[1040,256]`, rows that do not crowd,
/// read 1.4 times `memcpy`'s time direct and 2.3-2.7 staged).
const STAGE_SQUARES_BELOW: usize = 32;

/// The stage of [`direct_plane`]'s staged squares, aligned to a line.
#[repr(C, align(64))]
struct SquareStage([core::mem::MaybeUninit<u8>; SQUARE_STAGE_BYTES]);

impl SquareStage {
    /// Lends `f` a stage of unwritten bytes, made in place on the stack
    /// (an unoptimised build copied a stage built by value, and a thread
    /// of 2 MiB overflowed).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn lend<R>(f: impl FnOnce(&mut SquareStage) -> R) -> R {
        let mut stage = core::mem::MaybeUninit::<SquareStage>::uninit();
        // SAFETY: a `SquareStage` is bytes that may be uninitialised
        // (`MaybeUninit<u8>`), so any contents, none written, are one.
        f(unsafe { stage.assume_init_mut() })
    }

    /// A staged plane's stage (`STAGED`), as a pointer to its first
    /// byte; null for the other planes, which have none. The caller
    /// makes a stage only for the staged planes: one in each inlined
    /// plane overflowed the stack of tests, whose unoptimised builds keep
    /// them all.
    fn bytes<const STAGED: bool>(stage: Option<&mut SquareStage>) -> *mut u8 {
        assert_eq!(STAGED, stage.is_some(), "a staged plane has a stage");
        stage.map_or(core::ptr::null_mut(), |st| st.0.as_mut_ptr().cast::<u8>())
    }
}

/// Where a plane of a grid lies: its first element in each buffer
/// (`[source, destination]`), its axes `[x, i]` (rows and runs), and the
/// strides `[run_stride, row_stride]` within their blocks.
#[derive(Clone, Copy)]
struct Geometry {
    at: [usize; 2],
    axes: [Axis; 2],
    strides: [usize; 2],
}

impl Geometry {
    /// Its first elements, axes and strides.
    fn parts(self) -> ([usize; 2], [Axis; 2], [usize; 2]) {
        (self.at, self.axes, self.strides)
    }
}

/// How [`merged`] stores squares straight to the destination: inside
/// blocks that are whole squares of this many elements, or across
/// blocks, from an offset per row and per run.
#[derive(Clone, Copy)]
enum Direct {
    Squares(usize),
    Across,
}

/// A plane as [`plane`] copies it, `W × W` squares stored straight to
/// the destination rows, in blocks of 128 bytes by 128 bytes (each
/// source line read whole, and each destination line written whole,
/// within a block); a square lies inside one block of each axis (the
/// caller checks that blocks are whole squares, or the axis one
/// block). The edges of a block take the plain loop.
///
/// Without the staging and the per-element tables of [`plane`]: an
/// offset per group of `W` rows or runs, and for a 1 MiB `f32`
/// transpose two thirds of its time.
///
/// With `ACROSS`, squares may cross blocks: the caller checks that the
/// blocks of `x` continue each other in the source and those of `i` in
/// the destination (or the axis is one block), so a square's `W` rows
/// are consecutive in the source and its `W` runs in the destination;
/// each run's source offset and each row's destination offset come from
/// tables of the block of 128 bytes by 128 bytes.
///
/// With `STREAM`, each square row that starts a cache line is written
/// with a streaming store ([`Vector::stream`]); the caller checks that
/// they all do, and that rows are whole lines ([`streams_squares`]).
///
/// With `STAGED` (not with `ACROSS` or `STREAM`; squares of at most 16
/// elements in vectors of 32 or 64 bytes), in blocks of two squares of rows by
/// [`SQUARE_STAGE_ROW_BYTES`] of runs: the squares are stored to a
/// stage in the L1 cache ([`SquareStage`]), then each destination row's
/// part of the block is copied out of it, a line per vector, one row
/// after the other.
#[cfg_attr(not(debug_assertions), inline(always))]
fn direct_plane<
    T: NoUninit,
    X: Vector,
    const W: usize,
    const ACROSS: bool,
    const STREAM: bool,
    const STAGED: bool,
>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
    uncrowded: usize,
    stage: Option<&mut SquareStage>,
) {
    let ([s, d], [x, i], [run_stride, row_stride]) = geometry.parts();
    const GROUPS: usize = 64;
    const EACH: usize = 128;
    let size = core::mem::size_of::<T>();
    // Streamed: a square's `W` runs at a time, each read a line per
    // square along the rows, so that the source is `W` streams the
    // hardware prefetches (a 16 MiB `f32` transpose in blocks of 32 runs
    // took 1.5 times as long, and twice as long at 256 MiB).
    let (row_block, block) = match (STREAM, STAGED) {
        (true, _) => (W, W),
        (_, true) => (2 * W, SQUARE_STAGE_ROW_BYTES / size),
        _ => ((128 / size).max(W), (128 / size).max(W)),
    };
    const { assert!(!STAGED || !(ACROSS || STREAM)) };
    // The stage holds `row_block` rows of `block` elements, `X::BYTES`
    // a square's row (the caller checks that `2 * W` rows fit, and that
    // they are a source line or more), and the stores below rely on it.
    assert!(
        !STAGED
            || (row_block <= SQUARE_STAGE_ROWS && block / W * X::BYTES <= SQUARE_STAGE_ROW_BYTES)
    );
    // The tables of `ACROSS` hold a block's rows and runs.
    debug_assert!(block / W <= GROUPS && (!ACROSS || block <= EACH && row_block <= EACH));
    let stage = SquareStage::bytes::<STAGED>(stage);
    // `[source, destination]` offsets of row `m` and of run `j`.
    let row_at = |m: usize| x.at(m, [1, row_stride]);
    let run_at = |j: usize| i.at(j, [run_stride, 1]);
    let (rows, runs) = (x.per * x.blocks, i.per * i.blocks);
    // Each run's squares in sweeps along `x` of the rows that do not
    // crowd a set ([`rows_before_crowding`]), so that the lines a sweep
    // writes half of are still cached when the next runs' squares write
    // the rest, but a line at least of each source run (64 bytes: a
    // 32-byte square is half of one).
    let sweep = match STAGED {
        true => GROUPS,
        false => (uncrowded.clamp(64 / size, block) / W).max(1),
    };
    let mut runs_at = [[0usize; 2]; GROUPS];
    let mut rows_at = [[0usize; 2]; GROUPS];
    // With `ACROSS`: each run's source offset, each row's destination
    // offset, in the current block.
    let mut run_src = [0usize; EACH];
    let mut row_dst = [0usize; EACH];
    // Squares from the first run whose destination elements start a
    // vector of every row, and the first row whose source elements start
    // one of every run ([`first_aligned`]), so that no store (and no
    // load) splits a cache line: the buffers a `Vec` allocates are 16
    // bytes past a line, where a 1 MiB `f32` transpose in 64-byte squares
    // took 1.5 times as long. A lead square from 0 covers the runs or rows
    // before, and overlaps the next.
    let aligned_from = |b: usize, [along, across]: [Axis; 2], stride: usize, gather: bool| {
        let size_at = |n: usize| n.wrapping_mul(size).is_multiple_of(X::BYTES);
        let shared = size_at(stride) && (across.blocks == 1 || size_at(across.stride[b]));
        match shared && (along.blocks == 1 || gather) {
            true => {
                let buf = [src.as_ptr().addr(), dst.as_ptr().addr()][b];
                let at = [s, d][b] + row_at(0)[b] + run_at(0)[b];
                first_aligned::<X, W>(buf.wrapping_add(at.wrapping_mul(size)), size, along)
            }
            false => 0,
        }
    };
    let first_run = aligned_from(1, [i, x], row_stride, ACROSS);
    let first_row = aligned_from(0, [x, i], run_stride, ACROSS);
    for (j0, jn) in spans::<W>(runs, first_run, block) {
        let jv = jn - jn % W;
        for (g, at) in runs_at[..jv / W].iter_mut().enumerate() {
            *at = run_at(j0 + g * W);
        }
        if ACROSS {
            i.offsets(&mut run_src[..jv], j0, 0, run_stride, 0);
        }
        for (m0, mn) in spans::<W>(rows, first_row, row_block) {
            let mv = mn - mn % W;
            for (g, at) in rows_at[..mv / W].iter_mut().enumerate() {
                *at = row_at(m0 + g * W);
            }
            if ACROSS {
                x.offsets(&mut row_dst[..mv], m0, 1, row_stride, 0);
            }
            let squares = mv / W;
            let mut first = 0;
            while first < squares {
                let last = (first + sweep).min(squares);
                for (gj, &[js, jd]) in runs_at[..jv / W].iter().enumerate() {
                    for gm in first..last {
                        let [ms, md] = rows_at[gm];
                        // SAFETY: the grid was checked against both
                        // buffers (`TransposeGrid::check`) and every `(m,
                        // j)`, `m < rows`, `j < runs`, is one of its
                        // elements, at `src[s + row_at(m)[0] +
                        // run_at(j)[0]]` and `dst[d + row_at(m)[1] +
                        // run_at(j)[1]]`. Without `ACROSS`, a square's `W`
                        // rows lie in one block of `x` and its `W` runs in
                        // one of `i` (blocks are whole squares and squares
                        // start at multiples of `W`, or the axis is one block),
                        // so rows `m + r` are at
                        // `row_at(m) + [r, r * row_stride]` and runs `j +
                        // k` at `run_at(j) + [k * run_stride, k]`. With
                        // `ACROSS`, a square may cross blocks, but rows `m +
                        // r` are at `row_at(m)[0] + r` in the source and
                        // runs `j + k` at `run_at(j)[1] + k` in the
                        // destination (the caller's check: blocks continue
                        // each other there), and `run_src` and `row_dst`
                        // hold `run_at(j + k)[0]` and `row_at(m + r)[1]`.
                        // Either way the `W` elements loaded from each run,
                        // and the `W` stored to each row, are grid
                        // elements, in bounds. The buffers do not overlap;
                        // `T: NoUninit` has no uninitialised bytes. The CPU
                        // has `X`'s instructions (`transpose_grid_on`).
                        unsafe {
                            let x: [X; W] = array(X::ZERO, |k| {
                                let run = match ACROSS {
                                    true => run_src[gj * W + k],
                                    false => js + k * run_stride,
                                };
                                X::load(src.as_ptr().add(s + ms + run).cast())
                            });
                            for (k, v) in square(x).into_iter().enumerate() {
                                let r = square_row::<X, W>(k);
                                let row = match ACROSS {
                                    true => row_dst[gm * W + r],
                                    false => md + r * row_stride,
                                };
                                // Staged: square row `r` to stage row
                                // `gm * W + r`, in the stage (the check
                                // above); copied out below.
                                if STAGED {
                                    let at = (gm * W + r) * SQUARE_STAGE_PITCH + gj * X::BYTES;
                                    X::store(stage.add(at), v);
                                    continue;
                                }
                                let at = dst.as_mut_ptr().add(d + row + jd);
                                match STREAM && at.addr().is_multiple_of(X::BYTES) {
                                    true => X::stream(at.cast(), v),
                                    false => X::store(at.cast(), v),
                                }
                            }
                        }
                    }
                }
                first = last;
            }
            // The block's rows out of the stage, each a line at a time
            // along the row.
            if STAGED {
                for lr in 0..mv {
                    let row = rows_at[lr / W][1] + lr % W * row_stride;
                    for (gj, &[_, jd]) in runs_at[..jv / W].iter().enumerate() {
                        // SAFETY: stage row `lr`, bytes `gj * X::BYTES..`
                        // (in the stage: `lr < row_block`, `gj < block /
                        // W`, checked against its size above), holds row
                        // `lr % W` of square `(lr / W, gj)`, stored above
                        // (each square row `r` at stage row `gm * W + r`,
                        // and the squares cover every `gm < mv / W`, `gj <
                        // jv / W`); its `W` elements go where the direct
                        // store puts them (not `ACROSS`: row `m + r` at
                        // `row_at(m)[1] + r * row_stride`), in bounds as
                        // the comment there says. The stage and `dst` do
                        // not overlap.
                        unsafe {
                            let v = X::load(stage.add(lr * SQUARE_STAGE_PITCH + gj * X::BYTES));
                            X::store(dst.as_mut_ptr().add(d + row + jd).cast(), v);
                        }
                    }
                }
            }
            // The plain loop: the rows past the squares for the runs
            // they took, then the runs past them.
            let (axes, strides) = ([x, i], [run_stride, row_stride]);
            edge(
                src,
                dst,
                [s, d],
                axes,
                strides,
                [m0 + mv..m0 + mn, j0..j0 + jv],
            );
            edge(
                src,
                dst,
                [s, d],
                axes,
                strides,
                [m0..m0 + mn, j0 + jv..j0 + jn],
            );
        }
    }
}

/// The first element of axis `along` (`size`-byte elements, the first at
/// address `at`, consecutive in the buffer) from which [`direct_plane`]'s
/// vectors of `W` start a vector boundary: 0 when the first does, when it
/// is not a whole number of elements away, or when the axis holds fewer
/// than two squares.
fn first_aligned<X: Vector, const W: usize>(at: usize, size: usize, along: Axis) -> usize {
    let gap = at.wrapping_neg() % X::BYTES;
    match gap.is_multiple_of(size) && along.per * along.blocks >= 2 * W {
        true => gap / size,
        false => 0,
    }
}

/// The spans `(first, count)` that [`direct_plane`] takes of an axis of
/// `n` elements: `block` at a time from `first` on, as far as whole
/// squares of `W` go, with a lead square from 0 when `first` is not 0
/// and a trailing one ending at `n` when the squares do not (both
/// overlapping their neighbours, whose elements they copy again, rather
/// than a plain loop over the rest: a 1 MiB `f32` transpose spent a sixth
/// of its time there). An axis of fewer than `W` elements is one span, of
/// no square.
fn spans<const W: usize>(
    n: usize,
    first: usize,
    block: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let (first, end) = match n >= W {
        true => (first, first + (n - first) / W * W),
        false => (0, n),
    };
    let lead = (first > 0).then_some((0, W));
    let trail = (end < n && n >= W).then(|| (n - W, W));
    let main = (first..end)
        .step_by(block)
        .map(move |j| (j, block.min(end - j)));
    lead.into_iter().chain(main).chain(trail)
}

/// Whether a plane takes [`lane_squares_plane`]'s squares of `V` rows
/// by `G` runs: at least that many of each, and an axis of more than one
/// block in blocks of whole squares.
fn lane_squares_fit<const V: usize, const G: usize>([x, i]: [Axis; 2]) -> bool {
    x.per * x.blocks >= V
        && i.per * i.blocks >= G
        && (x.blocks == 1 || x.per.is_multiple_of(V))
        && (i.blocks == 1 || i.per.is_multiple_of(G))
}

/// The first run from which [`lane_squares_plane`]'s stores of `G`
/// elements start a vector boundary of every row (`d` where the plane
/// starts in `dst`, `row_stride` between its rows): 0 unless the runs
/// are one block and the rows a whole number of vectors apart.
fn lane_squares_from<T, const G: usize>(dst: &[T], d: usize, i: Axis, row_stride: usize) -> usize {
    let size = core::mem::size_of::<T>();
    match i.blocks == 1 && (row_stride * size).is_multiple_of(G * size) {
        true => {
            let at = dst.as_ptr().addr().wrapping_add(d.wrapping_mul(size));
            let gap = at.wrapping_neg() % (G * size);
            match gap.is_multiple_of(size) && i.per >= 2 * G {
                true => gap / size,
                false => 0,
            }
        }
        false => 0,
    }
}

/// A plane in lane squares, streamed: `V` rows of `G` runs at a time,
/// `G = V * X::BYTES / 16` (64 bytes with AVX-512's vectors), each row a
/// whole vector. Lane `l` of vector `g < V` holds the `V` elements of run
/// `g + l * V` from the square's first row on ([`Vector::load_lanes`]);
/// the unpacks within 16-byte lanes ([`half_square`]) then leave in
/// vector `k`'s lane `l` the elements of row [`square_row(k)`](square_row)
/// for runs `l * V` to `l * V + V`: that row's `G` elements in order, no
/// round across lanes. Rows that start a line are streamed.
///
/// The caller checks that there are at least `V` rows and `G` runs, that
/// an axis of more than one block has blocks of whole squares, and that
/// rows start lines ([`streams_squares`]). Squares start at `first_run`
/// ([`lane_squares_from`]), with a lead square from 0 and a trailing one
/// to the last run (and row) on an axis of one block ([`spans`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn lane_squares_plane<T: NoUninit, X: Vector, const V: usize, const G: usize>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
    first_run: usize,
) {
    let ([s, d], [x, i], [run_stride, row_stride]) = geometry.parts();
    debug_assert!(G * 16 == V * X::BYTES && V == 16);
    let (rows, runs) = (x.per * x.blocks, i.per * i.blocks);
    debug_assert!(rows >= V && runs >= G);
    let size = core::mem::size_of::<T>();
    for (j0, _) in spans::<G>(runs, first_run, G) {
        let [js, jd] = i.at(j0, [run_stride, 1]);
        for (m0, _) in spans::<V>(rows, 0, V) {
            let [ms, md] = x.at(m0, [1, row_stride]);
            // SAFETY: the grid was checked against both buffers
            // (`TransposeGrid::check`) and every `(m, j)`, `m < rows`, `j
            // < runs`, is one of its elements, at `src[s + x.at(m)[0] +
            // i.at(j)[0]]` and `dst[d + x.at(m)[1] + i.at(j)[1]]`. Rows
            // `m0..m0 + V` lie in one block of `x` and runs `j0..j0 + G`
            // in one of `i` (blocks are whole squares and spans start at
            // multiples of the square, or the axis is one block, where a
            // span starts at most a square before its end), so row `m0 +
            // r` is at `x.at(m0) + [r, r * row_stride]` and run `j0 + k`
            // at `i.at(j0) + [k * run_stride, k]`: the square's loads and
            // stores are grid elements, in bounds. The buffers do not
            // overlap; `T: NoUninit` has no uninitialised bytes. The CPU
            // has `X`'s instructions (`transpose_grid_on`).
            unsafe {
                let mut from = src.as_ptr().add(s + ms + js).cast::<u8>();
                let lane_stride = V * run_stride * size;
                let v: [X; V] = array(X::ZERO, |_| {
                    let v = X::load_lanes(from, lane_stride);
                    from = from.wrapping_add(run_stride * size);
                    v
                });
                let v = half_square::<X, V>(v);
                // Unrolled, row by row, so that the vectors stay in
                // registers (as in `half_squares_plane`).
                let mut to = dst.as_mut_ptr().add(d + md + jd).cast::<u8>();
                let store = |r: usize| {
                    // Row `r` is vector `k` with `square_row(k) == r`: the
                    // bit reversal is its own inverse.
                    let v = v[square_row::<__m128i, V>(r)];
                    match to.addr().is_multiple_of(X::BYTES) {
                        true => X::stream(to, v),
                        false => X::store(to, v),
                    }
                    to = to.wrapping_add(row_stride * size);
                };
                sixteen_rows(store);
            }
        }
    }
}

/// [`direct_plane`] staged with AVX-512's vectors, out of line, so that
/// its stage is on the stack only while it runs (each plane's own, inlined,
/// overflowed the 2 MiB stack of a test thread in an unoptimised build).
///
/// # Safety
/// The CPU has AVX-512 (F and BW) and `X` is its vectors; the arguments
/// are a plane of a checked grid, as [`direct_plane`]'s.
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn staged_plane_avx512<T: NoUninit, X: Vector, const W: usize>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
    uncrowded: usize,
) {
    SquareStage::lend(|stage| {
        direct_plane::<T, X, W, false, false, true>(src, dst, geometry, uncrowded, Some(stage));
    });
}

/// [`staged_plane_avx512`] with AVX2's vectors.
///
/// # Safety
/// The CPU has AVX2 and `X` is its vectors; the arguments are a plane of
/// a checked grid, as [`direct_plane`]'s.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn staged_plane_avx2<T: NoUninit, X: Vector, const W: usize>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
    uncrowded: usize,
) {
    SquareStage::lend(|stage| {
        direct_plane::<T, X, W, false, false, true>(src, dst, geometry, uncrowded, Some(stage));
    });
}

/// [`half_squares_plane`] staged, out of line: inlined into the AVX2
/// transpose beside the direct planes, it left them 5-8% slower (bytes
/// into rows that do not crowd, `u8[1040,1040]` and `u8[1000,1048]`).
///
/// # Safety
/// The CPU has AVX2; the arguments are a plane of a checked grid, as
/// [`half_squares_plane`]'s.
#[inline(never)]
#[target_feature(enable = "avx2")]
unsafe fn staged_half_squares_plane<T: NoUninit, X: Vector>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
) {
    SquareStage::lend(|stage| {
        half_squares_plane::<T, X, 16, 32, false, true>(src, dst, geometry, Some(stage));
    });
}

/// Destination bytes per row that [`half_squares_plane`] writes of each
/// group of rows before the next group: two cache lines.
const HALF_SQUARE_BAND_BYTES: usize = 128;

/// A plane as [`direct_plane`] copies it, in half squares: `W` rows of
/// `V = W / 2` runs at a time, one vector of `W` elements from each run,
/// transposed within each 16-byte half ([`half_square`]) and stored a
/// half (`V` elements) to each of the `W` destination rows. For bytes
/// in 32-byte vectors, where a whole square is 32 vectors and the 16
/// registers do not hold it (the square went through the stack, and an
/// `u8[1024,1024]` transpose took 1.5–1.7 times as long as this in a
/// scratch harness, in turns). Runs go in bands of
/// [`HALF_SQUARE_BAND_BYTES`] of each destination row, `W` rows at a
/// time, so that each destination line is written whole before the
/// next group of rows. The caller checks that blocks are whole squares
/// of `W` (or the axis one block). An axis of one block ends in one more
/// group that overlaps the one before; other edges take the plain loop.
///
/// With `ACROSS`, half squares may cross blocks, as in [`direct_plane`]:
/// each run's source offset and each row's destination offset come from
/// tables, of the band and of the group of rows. For the 4-row byte tiles
/// of an `s4` transpose into `T(8,128)(2,1)E(4)`, whose whole squares went
/// through the stack as above.
#[cfg_attr(not(debug_assertions), inline(always))]
fn half_squares_plane<
    T: NoUninit,
    X: Vector,
    const V: usize,
    const W: usize,
    const ACROSS: bool,
    const STAGED: bool,
>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
    stage: Option<&mut SquareStage>,
) {
    let ([s, d], [x, i], [run_stride, row_stride]) = geometry.parts();
    let size = core::mem::size_of::<T>();
    // Bytes in 32-byte vectors: the stores below are unrolled for 16.
    const { assert!(V == 16 && W == 2 * V) };
    const { assert!(!(STAGED && ACROSS) && W <= SQUARE_STAGE_ROWS) };
    debug_assert!(X::BYTES == W * size);
    let stage = SquareStage::bytes::<STAGED>(stage);
    // `[source, destination]` offsets of row `m` and of run `j`.
    let row_at = |m: usize| x.at(m, [1, row_stride]);
    let run_at = |j: usize| i.at(j, [run_stride, 1]);
    let (rows, runs) = (x.per * x.blocks, i.per * i.blocks);
    // A band is at most `BAND_GROUPS` groups of `V` runs (`128 / size`
    // elements, `16 / size` to a group), whose offsets are worked out
    // once per band.
    const BAND_GROUPS: usize = SQUARE_STAGE_ROW_BYTES / 16;
    let band = match STAGED {
        true => SQUARE_STAGE_ROW_BYTES / size,
        false => (HALF_SQUARE_BAND_BYTES / size).max(V),
    };
    // Staged: the band's runs (`band * size` bytes) fit a stage row, and
    // the stores below rely on it.
    assert!(band / V <= BAND_GROUPS && band * size <= SQUARE_STAGE_ROW_BYTES);
    let mut runs_at = [[0usize; 2]; BAND_GROUPS];
    // With `ACROSS`: each run's source offset in the band, each row's
    // destination offset in the group of `W`.
    let mut run_src = [0usize; HALF_SQUARE_BAND_BYTES];
    let mut row_dst = [0usize; W];
    let mv = rows - rows % W;
    // Where an axis is one block, its last rows (or runs) short of a
    // whole group take one more group that ends at the last, overlapping
    // the one before: its stores write again the values already there.
    // Element by element, the 5 runs past the two groups of `s8[37,N]`'s
    // 37 took 15 times `memcpy`'s time for the whole transpose.
    let last_rows = match !ACROSS && x.blocks == 1 && mv < rows && rows >= W {
        true => Some(rows - W),
        false => None,
    };
    let rows_covered = mv == rows || last_rows.is_some();
    for j0 in (0..runs).step_by(band) {
        let jn = band.min(runs - j0);
        let jv = jn - jn % V;
        let last_runs = !ACROSS && i.blocks == 1 && jv < jn && jn >= V;
        let groups = jv / V + usize::from(last_runs);
        // The first run of group `g` in the band: the last group, past
        // the whole ones, ends at the band's last run.
        let group_at = |g: usize| match g < jv / V {
            true => g * V,
            false => jn - V,
        };
        for (g, at) in runs_at[..jv / V].iter_mut().enumerate() {
            *at = run_at(j0 + g * V);
        }
        if last_runs {
            runs_at[jv / V] = run_at(j0 + jn - V);
        }
        if ACROSS {
            i.offsets(&mut run_src[..jv], j0, 0, run_stride, 0);
        }
        for m0 in (0..mv).step_by(W).chain(last_rows) {
            let [ms, md] = row_at(m0);
            if ACROSS {
                x.offsets(&mut row_dst, m0, 1, row_stride, 0);
            }
            for (g, &[js, jd]) in runs_at[..groups].iter().enumerate() {
                // SAFETY: the grid was checked against both buffers
                // (`TransposeGrid::check`) and every `(m, j)`, `m <
                // rows`, `j < runs`, is one of its elements, at `src[s +
                // row_at(m)[0] + run_at(j)[0]]` and `dst[d + row_at(m)[1]
                // + run_at(j)[1]]`. Rows `m0..m0 + W` lie in one block of
                // `x` and runs `j..j + V` in one of `i` (blocks are whole
                // squares of `W`, or the axis one block; `m0` is a
                // multiple of `W`, `j` of `V`, or, on an axis of one
                // block, the last `W` rows `rows - W` or the band's last
                // `V` runs `j0 + jn - V`, at least 0), so row `m0 + r` is at
                // `row_at(m0) + [r, r * row_stride]` and run `j + k` at
                // `run_at(j) + [k * run_stride, k]`. With `ACROSS`, rows
                // and runs may cross blocks, but row `m0 + r` is at
                // `row_at(m0)[0] + r` in the source and run `j + k` at
                // `run_at(j)[1] + k` in the destination (the caller's
                // check: blocks continue each other there), and `run_src`
                // and `row_dst` hold `run_at(j + k)[0]` and `row_at(m0 +
                // r)[1]`. Either way the `W` elements loaded from each
                // run, and the `V` stored to each of the `W` rows, are
                // grid elements, in bounds. The buffers do not overlap;
                // `T: NoUninit` has no uninitialised bytes. The CPU has
                // `X`'s instructions (`transpose_grid_on`).
                unsafe {
                    let mut from = src.as_ptr().add(s + ms + js);
                    let v: [X; V] = array(X::ZERO, |k| {
                        let at = match ACROSS {
                            true => src.as_ptr().add(s + ms + run_src[g * V + k]),
                            false => from,
                        };
                        from = from.wrapping_add(run_stride);
                        X::load(at.cast())
                    });
                    let v = half_square::<X, V>(v);
                    // Unrolled, so that the vectors stay in registers,
                    // and row by row, so that the two rows' addresses
                    // step by the stride (a loop over `k` kept the
                    // vectors on the stack, and offsets per row kept 32
                    // addresses there).
                    let out = dst.as_mut_ptr();
                    // (With `ACROSS`, each store takes its rows from
                    // `row_dst`.)
                    // (Staged, square row `r` goes to stage row `r`, at
                    // the group's bytes: `SQUARE_STAGE_PITCH` apart and
                    // `group_at(g)` elements on.)
                    let (mut lo, mut hi, step) = match (ACROSS, STAGED) {
                        (_, true) => {
                            let at = stage.add(group_at(g) * size).cast::<T>();
                            let pitch = SQUARE_STAGE_PITCH / size;
                            (at, at.add(V * pitch), pitch)
                        }
                        (true, _) => (out, out, row_stride),
                        _ => (
                            out.add(d + md + jd),
                            out.add(d + md + V * row_stride + jd),
                            row_stride,
                        ),
                    };
                    let store = |r: usize| {
                        // Row `r` is vector `k` with `square_row(k) ==
                        // r`: the bit reversal is its own inverse.
                        let k = square_row::<__m128i, V>(r);
                        if ACROSS {
                            lo = out.add(d + row_dst[r] + jd);
                            hi = out.add(d + row_dst[r + V] + jd);
                        }
                        X::store_halves(lo.cast(), hi.cast(), v[k]);
                        (lo, hi) = (lo.wrapping_add(step), hi.wrapping_add(step));
                    };
                    sixteen_rows(store);
                }
            }
            // Staged: each of the `W` rows' groups out of the stage, a
            // row at a time (16 bytes a group, so that the line a group
            // starts is finished by the next ones before the next row).
            // (A band of fewer runs than a group has none: its runs all
            // take the plain loop below.)
            if STAGED && groups > 0 {
                let [_, md] = row_at(m0);
                // Runs of one block, consecutive in the destination: each
                // row's groups in `X`'s vectors, the last ending at the
                // last byte (overlapping the one before).
                let bytes = (group_at(groups - 1) + V) * size;
                if i.blocks == 1 && bytes >= X::BYTES {
                    let jd = runs_at[0][1];
                    for r in 0..W {
                        let from = r * SQUARE_STAGE_PITCH;
                        let to = d + md + r * row_stride + jd;
                        let mut at = 0;
                        while at < bytes {
                            let at_or_last = at.min(bytes - X::BYTES);
                            // SAFETY: stage row `r`, bytes `..bytes`, holds
                            // row `r` of the band's half squares, stored
                            // above (in the stage: `bytes <= band * size
                            // <= SQUARE_STAGE_ROW_BYTES`, `r < W <=
                            // SQUARE_STAGE_ROWS`); the axis of runs is
                            // one block, so their `bytes / size` elements
                            // are consecutive in row `m0 + r` of the
                            // destination from `to`, in bounds as the
                            // direct store's comment says. The stage and
                            // `dst` do not overlap.
                            unsafe {
                                let v = X::load(stage.add(from + at_or_last));
                                let to = dst.as_mut_ptr().add(to).cast::<u8>();
                                X::store(to.add(at_or_last), v);
                            }
                            at += X::BYTES;
                        }
                    }
                    continue;
                }
                for r in 0..W {
                    for (g, &[_, jd]) in runs_at[..groups].iter().enumerate() {
                        // SAFETY: stage row `r`, bytes `group_at(g) *
                        // size..` on for `V` elements (16 bytes), holds row
                        // `r` of the half square of group `g` (stored
                        // above, in the stage: `group_at(g) + V <= band`,
                        // `band * size <= SQUARE_STAGE_ROW_BYTES`, `r <
                        // W <= SQUARE_STAGE_ROWS`); its `V` elements go
                        // where the direct store puts them: row `m0 + r`
                        // at `row_at(m0)[1] + r * row_stride`, runs from
                        // `jd` (not `ACROSS`), in bounds as said there.
                        // The stage and `dst` do not overlap; SSE2 is
                        // enabled on every x86-64 target.
                        unsafe {
                            let from = stage.add(r * SQUARE_STAGE_PITCH + group_at(g) * size);
                            let v = _mm_loadu_si128(from.cast());
                            let to = dst.as_mut_ptr().add(d + md + r * row_stride + jd);
                            _mm_storeu_si128(to.cast(), v);
                        }
                    }
                }
            }
        }
        // The plain loop: the rows past the half squares for the runs
        // they took, then the runs past them (but those the last groups
        // took).
        let (axes, strides) = ([x, i], [run_stride, row_stride]);
        if last_rows.is_none() {
            edge(src, dst, [s, d], axes, strides, [mv..rows, j0..j0 + jv]);
        }
        if !(last_runs && rows_covered) {
            edge(src, dst, [s, d], axes, strides, [0..rows, j0 + jv..j0 + jn]);
        }
    }
}

/// `f(r)` for each row `r < 16` of a square, unrolled: a loop over `r`
/// kept the vectors that `f` stores on the stack, where the unrolled
/// calls keep them in registers.
#[cfg_attr(not(debug_assertions), inline(always))]
fn sixteen_rows(mut f: impl FnMut(usize)) {
    f(0);
    f(1);
    f(2);
    f(3);
    f(4);
    f(5);
    f(6);
    f(7);
    f(8);
    f(9);
    f(10);
    f(11);
    f(12);
    f(13);
    f(14);
    f(15);
}

/// The plain loop of the direct planes: element `(m, j)` of axes `x`
/// and `i` for the rows `m` and runs `j` given, one at a time (the edges
/// past their squares).
#[cfg_attr(not(debug_assertions), inline(always))]
fn edge<T: Copy>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    [x, i]: [Axis; 2],
    [run_stride, row_stride]: [usize; 2],
    [rows, runs]: [core::ops::Range<usize>; 2],
) {
    for j in runs {
        let [js, jd] = i.at(j, [run_stride, 1]);
        for m in rows.clone() {
            let [ms, md] = x.at(m, [1, row_stride]);
            dst[d + md + jd] = src[s + ms + js];
        }
    }
}

/// `V` vectors of `2 * V` elements transposed within each 16-byte half:
/// vector `k` holds, in its low half, row [`square_row(k)`](square_row)
/// (of 16-byte squares) of the `V × V` square of the inputs' low halves,
/// and in its high half that row of the square of their high halves.
/// The rounds of [`square`] but the last, which swaps halves.
#[cfg_attr(not(debug_assertions), inline(always))]
fn half_square<X: Vector, const V: usize>(x: [X; V]) -> [X; V] {
    let e = 16 / V;
    let x = unpack_round(x, e);
    let x = if V >= 4 { unpack_round(x, 2 * e) } else { x };
    let x = if V >= 8 { unpack_round(x, 4 * e) } else { x };
    if V >= 16 { unpack_round(x, 8 * e) } else { x }
}

/// One plane: element `(m, j)` of axes `x` (source-contiguous, the
/// destination's rows) and `i` (destination-contiguous, the source's
/// runs) copied from the source to the destination, each at `m`'s
/// and `j`'s offsets in its buffer ([`Axis::offsets`]: `run_stride`
/// between a block's runs, `row_stride` between its rows).
///
/// In tiles of `TILE_RUN_BYTES` of each of a cache line's worth of
/// source runs ([`tile`]), or up to four lines' worth where the
/// destination's rows are long ([`run_lines`]): rows of the destination
/// are written that many lines at a time, from the line boundary of the
/// tile's first row on, and each source line is read whole once.
/// Streamed rows in blocks of two short pieces take tiles of
/// [`PAIRED_ROWS_RUN_BYTES`] of each of two lines' worth of runs.
#[cfg_attr(not(debug_assertions), inline(always))]
fn plane<T: NoUninit, const V: usize, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    geometry: Geometry,
) {
    let (at, [x, i], strides) = geometry.parts();
    // Destination elements contiguous along a row; where they are 2 KiB
    // or more, a tile writes `run_lines` lines of each row, or four
    // streamed ([`streamed_run_bytes`]).
    let piece = match i.stride[1] == i.per {
        true => i.per.saturating_mul(i.blocks),
        false => i.per,
    };
    let long = piece.saturating_mul(core::mem::size_of::<T>()) >= CHUNK_BYTES;
    // A constant number of lines and of source bytes in each copy of
    // the loops, so that a tile's stage rows are indexed with constants.
    const RUN: usize = TILE_RUN_BYTES;
    // Rows in blocks of two (the tiles of `T(2,128)`), each a short
    // piece, streamed: tiles of more rows, two lines of each. Elements of
    // 2 bytes or more, so that the tile's rows fit `rows_at`
    // (`PAIRED_ROWS_RUN_BYTES / size <= TILE_RUN_BYTES`).
    let paired = x.blocks > 1 && x.per == 2 && core::mem::size_of::<T>() >= 2;
    match (long, STREAMING, run_lines::<T>()) {
        (false, true, _) if paired => {
            plane_lines::<T, V, STREAMING, 2, PAIRED_ROWS_RUN_BYTES>(src, dst, at, [x, i], strides)
        }
        (true, true, _) if streamed_run_bytes::<T>() == 64 => {
            plane_lines::<T, V, STREAMING, 4, 64>(src, dst, at, [x, i], strides)
        }
        (true, true, _) | (true, _, 4) => {
            plane_lines::<T, V, STREAMING, 4, RUN>(src, dst, at, [x, i], strides)
        }
        (true, _, 2) => plane_lines::<T, V, STREAMING, 2, RUN>(src, dst, at, [x, i], strides),
        _ => plane_lines::<T, V, STREAMING, 1, RUN>(src, dst, at, [x, i], strides),
    }
}

/// [`plane`] with tiles that read `RUN_BYTES` of each source run and
/// write `LINES` cache lines of each destination row ([`run_lines`],
/// [`streamed_run_bytes`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn plane_lines<
    T: NoUninit,
    const V: usize,
    const STREAMING: bool,
    const LINES: usize,
    const RUN_BYTES: usize,
>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    [x, i]: [Axis; 2],
    [run_stride, row_stride]: [usize; 2],
) {
    let size = core::mem::size_of::<T>();
    let (tile_rows, tile_runs) = (RUN_BYTES / size, LINES * 64 / size);
    let mut stage = Stage([core::mem::MaybeUninit::uninit(); STAGE_BYTES / 16]);
    let mut rows_at = [0; TILE_RUN_BYTES];
    // The runs of this tile and of the next, in turns.
    let mut runs_at = [[0; 256]; 2];
    let (nx, ni) = (x.per * x.blocks, i.per * i.blocks);
    // Whether a square's runs crowd a set of the L1 cache, asked of the
    // plane's first `V` runs for all (runs a multiple of 4 KiB apart
    // crowd wherever they start).
    let first = &mut runs_at[0][..V.min(ni)];
    i.offsets(first, 0, 0, run_stride, s);
    let stage_runs = runs_crowd(src, first);
    // Runs in chunks of `CHUNK_BYTES` of each destination row: a chunk's
    // source runs and destination rows are pages few enough for the
    // TLB, where a band of rows over all the runs touched a page per
    // run.
    let chunk = CHUNK_BYTES / size;
    let mut lo = 0;
    while lo < ni {
        let hi = (lo + chunk).min(ni);
        let mut x0 = 0;
        while x0 < nx {
            let nr = tile_rows.min(nx - x0);
            x.offsets(&mut rows_at[..nr], x0, 1, row_stride, d);
            // Elements of the first row before its next line boundary.
            let phase = (dst[rows_at[0] + lo..].as_ptr() as usize).wrapping_neg() % 64 / size;
            let mut i0 = lo;
            let mut nc = match phase {
                0 => tile_runs,
                p => p,
            }
            .min(hi - lo);
            let mut turn = 0;
            i.offsets(&mut runs_at[turn][..nc], lo, 0, run_stride, s + x0);
            while i0 < hi {
                let next = i0 + nc;
                let next_nc = (next + tile_runs).min(hi).saturating_sub(next);
                // The next tile's runs, whose first source lines this
                // one prefetches ([`PREFETCH_RUNS_AHEAD`]).
                i.offsets(
                    &mut runs_at[1 - turn][..next_nc],
                    next,
                    0,
                    run_stride,
                    s + x0,
                );
                let [now, ahead] = match turn {
                    0 => [&runs_at[0][..nc], &runs_at[1][..next_nc]],
                    _ => [&runs_at[1][..nc], &runs_at[0][..next_nc]],
                };
                let offsets = [&rows_at[..nr], now, ahead];
                tile::<T, V, STREAMING, LINES>(src, dst, &mut stage, offsets, i0, stage_runs);
                (i0, nc, turn) = (next, next_nc, 1 - turn);
            }
            x0 += nr;
        }
        lo = hi;
    }
}

/// Prefetches (`prefetcht0`) the cache lines of `buf[from..from +
/// len]`, at most five (`len` elements are at most 256 bytes here).
#[cfg_attr(not(debug_assertions), inline(always))]
fn prefetch_span<T>(buf: &[T], from: usize, len: usize) {
    let size = core::mem::size_of::<T>();
    let first = buf.as_ptr().wrapping_add(from).cast::<i8>();
    let bytes = len * size;
    for at in (0..bytes).step_by(64).chain([bytes.saturating_sub(1)]) {
        if at < bytes {
            // SAFETY: a prefetch reads and writes no memory and never
            // faults, whatever the address (here within or just past
            // the buffer, reached by `wrapping_add`); SSE is enabled
            // on every x86-64 target.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(at)) };
        }
    }
}

/// Whether more than eight of the first cache lines of `runs` (offsets
/// into `src`) fall in one set of the L1 cache (64 sets of 64-byte
/// lines on x86-64, 8 ways or more): then a square of 16 runs (bytes)
/// read in place would miss the L1 cache on each of its four 16-byte
/// reads of a line, and [`tile`] copies the square's runs into a stage
/// first ([`RunStage`]).
fn runs_crowd<T>(src: &[T], runs: &[usize]) -> bool {
    let size = core::mem::size_of::<T>();
    let mut sets = L1Sets([0; 64]);
    runs.iter()
        .any(|&run| sets.crowded_by(src.as_ptr().addr().wrapping_add(run.wrapping_mul(size))))
}

/// Lines counted in each set of the L1 cache (64 sets of 64-byte lines
/// on x86-64, 8 ways or more), for [`rows_before_crowding`] and
/// [`runs_crowd`].
struct L1Sets([u8; 64]);

impl L1Sets {
    /// Counts the line at address `at`: whether its set now holds more
    /// than eight counted lines. (The callers stop at the first that
    /// does, so no count passes nine.)
    fn crowded_by(&mut self, at: usize) -> bool {
        let set = &mut self.0[at / 64 % 64];
        *set += 1;
        *set > 8
    }
}

/// The source of a square's 16 runs, at most `TILE_RUN_BYTES` of each,
/// copied side by side where the runs crowd a set of the L1 cache
/// ([`runs_crowd`]): read whole from the source once, then by the
/// square from the L1 cache. On the Zen 3 machine of `BENCHMARKS.md`,
/// at 16 MiB, in turns with the squares read in place: `u8[4096,4096]`
/// transposes (runs 4 KiB apart, every line in one set) went from
/// 3.4–3.8 times `memcpy`'s time to 2.3–2.4, `u8[2048,8192]` from
/// 3.7 to 2.6–2.9, `u8[512,32768]` from 3.1–3.6 to 2.9–3.1; runs 4000
/// bytes apart, which crowd no set, read 8% slower staged and stay in
/// place.
#[repr(C, align(64))]
struct RunStage([core::mem::MaybeUninit<__m128i>; 16 * TILE_RUN_BYTES / 16]);

/// `REVERSED_NIBBLES[k]`: the 4 bits of `k < 16` reversed.
const REVERSED_NIBBLES: [u8; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];

/// The row of a `W × W` square that [`square`]'s vector `k` holds. With
/// `V = W * 16 / X::BYTES` elements to 16 bytes, the unpacks within 16
/// bytes leave row `reverse_bits(k % V, V)` of the `V` rows `g * V` on,
/// and the rounds over whole 16-byte lanes (one for 32-byte vectors, two
/// for 64-byte ones) put group `reverse_bits(k / V, X::BYTES / 16)` there:
/// from a table, since for `V = 16` the loop over `k` stays a loop, and
/// computing the reversal took a tenth of a `u8` transpose.
#[cfg_attr(not(debug_assertions), inline(always))]
fn square_row<X: Vector, const W: usize>(k: usize) -> usize {
    let v = W * 16 / X::BYTES;
    let groups = X::BYTES / 16;
    let reversed = |j: usize, n: usize| (REVERSED_NIBBLES[j] >> (4 - n.trailing_zeros())) as usize;
    reversed(k / v, groups) * v + reversed(k % v, v)
}

/// One tile: `dst[rows_at[m] + i0 + j] = src[runs_at[j] + m]` for `m <
/// rows_at.len()` (at most `TILE_RUN_BYTES`, and `TILE_RUN_BYTES / size`
/// where the runs are staged: bytes), `j <
/// runs_at.len()` (at most `LINES` cache lines), the rows and lines
/// at most [`STAGE_BYTES`]. `V × V` squares of 16-byte vectors (the
/// staged copy keeps them with AVX2: [`merged`]) transposed in
/// registers into `stage`, then each row of the stage copied to its
/// destination row: whole lines (with streaming stores when
/// `STREAMING` and they are lines of the destination), or a part. The
/// rows and runs past the last whole square take the plain loop. Each
/// square's runs prefetch the source of the runs
/// [`PREFETCH_RUNS_AHEAD`] on (at most a tile's runs on), in this tile
/// or in `ahead`, the next tile's runs.
///
/// # Panics
/// If the rows' `LINES` lines are more than the stage holds.
#[cfg_attr(not(debug_assertions), inline(always))]
fn tile<T: NoUninit, const V: usize, const STREAMING: bool, const LINES: usize>(
    src: &[T],
    dst: &mut [T],
    stage: &mut Stage,
    [rows_at, runs_at, ahead]: [&[usize]; 3],
    i0: usize,
    stage_runs: bool,
) {
    let size = core::mem::size_of::<T>();
    let (nr, nc) = (rows_at.len(), runs_at.len());
    let (nr_v, nc_v) = (nr - nr % V, nc - nc % V);
    // Elements of `T` per stage row: `LINES` cache lines.
    const { assert!(LINES >= 1 && LINES <= 4) };
    let line = LINES * 64 / size;
    assert!(
        nr * line * size <= STAGE_BYTES,
        "a tile's stage holds its rows"
    );
    debug_assert!(nr <= TILE_RUN_BYTES && nc <= line);
    let stage = stage.0.as_mut_ptr().cast::<T>();
    // The square's runs side by side, `TILE_RUN_BYTES` apart
    // ([`RunStage`]), when `stage_runs`, squares are of 16 runs, and the
    // tile's rows fit that span.
    let mut run_stage = RunStage([core::mem::MaybeUninit::uninit(); 16 * TILE_RUN_BYTES / 16]);
    let run_stage = run_stage.0.as_mut_ptr();
    let stage_runs = stage_runs && V == 16 && nr * size <= TILE_RUN_BYTES;
    let (vectors, pitch) = (nr_v * size / 16, TILE_RUN_BYTES / 16);
    for jg in (0..nc_v).step_by(V) {
        let later = jg + PREFETCH_RUNS_AHEAD.min(nc);
        for run in (later..later + V).filter_map(|j| match j < nc {
            true => Some(runs_at[j]),
            false => ahead.get(j - nc).copied(),
        }) {
            prefetch_span(src, run, nr);
        }
        if stage_runs {
            for k in 0..V {
                for q in 0..vectors {
                    // SAFETY: `src[runs_at[jg + k]..][..nr_v]` is in
                    // bounds (as for the squares below), `q * 16 <
                    // nr_v * size`; stage vector `k * pitch + q` is in
                    // the run stage (`k < 16`, `q < pitch`, as `nr *
                    // size <= TILE_RUN_BYTES`) and 16-byte aligned.
                    unsafe {
                        let from = src.as_ptr().add(runs_at[jg + k]).cast::<__m128i>();
                        let v = _mm_loadu_si128(from.add(q));
                        _mm_store_si128(run_stage.add(k * pitch + q).cast(), v);
                    }
                }
            }
        }
        for mg in (0..nr_v).step_by(V) {
            // SAFETY: the grid was checked against both buffers
            // (`TransposeGrid::check`), and every `(m, j)`, `m < nr`,
            // `j < nc`, is one of its elements, `src[runs_at[j] + m]`
            // in bounds: so the `V` elements from `runs_at[jg + k] +
            // mg` are (`mg + V <= nr`), for `k < V` (`jg + V <= nc`);
            // `T: NoUninit` has no uninitialised bytes. Stage row `mg
            // + k`, elements `jg..jg + V`, is in the stage (`(mg + k) *
            // line + jg + V <= nr * line`, and `nr * line * size <=
            // STAGE_BYTES`, the stage's bytes, asserted above) and
            // 16-byte aligned (the stage is 64-byte aligned, `line *
            // size` a multiple of 64 and `jg * size` of 16).
            unsafe {
                let x: [__m128i; V] = array(<__m128i as Vector>::ZERO, |k| match stage_runs {
                    // Written above: run `jg + k`'s vector `mg * size / 16`.
                    true => _mm_load_si128(run_stage.add(k * pitch + mg * size / 16).cast()),
                    false => _mm_loadu_si128(src.as_ptr().add(runs_at[jg + k] + mg).cast()),
                });
                for (k, v) in square(x).into_iter().enumerate() {
                    let m = square_row::<__m128i, V>(k);
                    let at = stage.add((mg + m) * line + jg);
                    _mm_store_si128(at.cast(), v);
                }
            }
        }
    }
    for (m, &row) in rows_at[..nr_v].iter().enumerate() {
        let to = dst[row + i0..row + i0 + nc].as_mut_ptr();
        // SAFETY: `to` starts `nc` elements of `dst` (sliced above);
        // the stage's row `m < nr_v`, elements `..nc_v`, was written
        // by the squares above, and does not overlap `dst`. With `nc
        // == line`, the row is `LINES` whole lines of 64 bytes, four
        // vectors each; streamed only when `to` starts a line (so every
        // store is aligned), else stored unaligned.
        unsafe {
            let from = stage.add(m * line);
            if nc == line {
                let bytes = line * size;
                let lines = match (to as usize).is_multiple_of(64) {
                    true => [to as usize, to as usize + bytes],
                    false => [0, 0],
                };
                for k in 0..bytes / 16 {
                    let v = _mm_load_si128(from.cast::<__m128i>().add(k));
                    store_vector::<STREAMING>(to.cast::<__m128i>().add(k), v, lines);
                }
            } else {
                core::ptr::copy_nonoverlapping(from, to, nc_v);
            }
        }
    }
    // The plain loop: the runs past the last whole square, for the
    // rows the squares took, then the rows past them.
    for (m, &row) in rows_at.iter().enumerate() {
        let first = match m < nr_v {
            true => nc_v,
            false => 0,
        };
        for j in first..nc {
            dst[row + i0 + j] = src[runs_at[j] + m];
        }
    }
}

/// A `W × W` square of `X::BYTES / W`-byte elements transposed: `W`
/// vectors in, vector `k` holding the `W` elements of output row
/// [`square_row(k)`](square_row) out. Rounds of unpacks of lanes of the
/// element size, then twice that, up to half a vector ([`unpack_round`]),
/// each with its lane size fixed, so that every round is unrolled into
/// registers.
#[cfg_attr(not(debug_assertions), inline(always))]
fn square<X: Vector, const W: usize>(x: [X; W]) -> [X; W] {
    let half = X::BYTES / 2;
    let x = if W >= 32 {
        unpack_round(x, half / 16)
    } else {
        x
    };
    let x = if W >= 16 {
        unpack_round(x, half / 8)
    } else {
        x
    };
    let x = if W >= 8 { unpack_round(x, half / 4) } else { x };
    let x = if W >= 4 { unpack_round(x, half / 2) } else { x };
    unpack_round(x, half)
}

/// One round of [`square`]: vectors `2j` and `2j + 1` give vectors `j`
/// (their low halves interleaved in lanes of `lane` bytes, [`Vector::unpack`])
/// and `j + K / 2` (their high halves).
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack_round<X: Vector, const K: usize>(x: [X; K], lane: usize) -> [X; K] {
    let mut out = x;
    for j in 0..K / 2 {
        // SAFETY: the callers run only where the CPU has `X`'s
        // instructions (`Vector`'s contract, kept by `transpose_grid_on`).
        unsafe {
            out[j] = X::unpack(lane, false, x[2 * j], x[2 * j + 1]);
            out[j + K / 2] = X::unpack(lane, true, x[2 * j], x[2 * j + 1]);
        }
    }
    out
}

/// [`Vector::unpack`] of SSE2, for the narrow pack and unpack.
#[cfg_attr(not(debug_assertions), inline(always))]
fn sse2_unpack(lane: usize, high: bool, a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: register-only instructions of SSE2, which the build enables
    // (this module is compiled only with `target_feature = "sse2"`).
    unsafe { <__m128i as Vector>::unpack(lane, high, a, b) }
}

#[cfg(test)]
mod tests {
    use super::{Axis, rows_before_crowding};

    #[test]
    fn counts_the_rows_before_a_cache_set_crowds() {
        let buf = alloc::vec![0u8; 1 << 21];
        let dst = &buf[buf.as_ptr().align_offset(64)..];
        let rows_apart = |per: usize, blocks: usize, block_stride: usize, row_stride: usize| {
            let x = Axis {
                per,
                blocks,
                stride: [per, block_stride],
            };
            rows_before_crowding(dst, 0, x, row_stride)
        };
        // Plain rows: 1, 2 and 4 KiB apart fall in 4, 2 and 1 sets.
        assert_eq!(rows_apart(1000, 1, 0, 1024), 32);
        assert_eq!(rows_apart(1000, 1, 0, 2048), 16);
        assert_eq!(rows_apart(1000, 1, 0, 4096), 8);
        // 512 bytes apart, eight sets: the 128 rows that are looked at.
        assert_eq!(rows_apart(1000, 1, 0, 512), 64);
        assert_eq!(rows_apart(1000, 1, 0, 520), 128);
        // Fewer rows than that: all of them.
        assert_eq!(rows_apart(20, 1, 0, 4096), 8);
        assert_eq!(rows_apart(5, 1, 0, 4096), 5);
        // Tiles of 2 rows 512 bytes apart, tiles 8 KiB apart: 2 sets.
        assert_eq!(rows_apart(2, 100, 8192, 512), 16);
        // Tiles of 3 rows 4 KiB apart: one set, crowded at the last row
        // of the third tile; tiles a line apart, a set each, and the
        // 128 rows end inside a tile.
        assert_eq!(rows_apart(3, 100, 8192, 4096), 8);
        assert_eq!(rows_apart(3, 100, 64, 4096), 128);
        // The same 4 KiB rows from a start that is not a line's: the
        // same sets, one for each row.
        let x = Axis {
            per: 1000,
            blocks: 1,
            stride: [1000, 0],
        };
        assert_eq!(rows_before_crowding(dst, 3, x, 4096), 8);
    }
}
