//! The transpose kernel ([`RelayoutKernel::Transpose`]): blocks whose rows
//! are contiguous in the source and whose runs are contiguous in the
//! destination, copied in square blocks of vectors.
//!
//! On x86-64 with SSE2 (every x86-64 target but those built without it),
//! a block of `V × V` elements, `V` = 16 bytes over the element size (4
//! `f32`, 8 `bf16`, 16 `s8`, 2 `f64`), is loaded as `V` vectors, one from
//! each of `V` source runs, transposed in registers by `log2(V)` rounds of
//! `unpacklo`/`unpackhi`, and stored as `V` vectors, one per destination
//! row. A grid's rows are merged with a level whose blocks continue them
//! in the source, and its runs with one whose blocks continue them in the
//! destination (the tiles of `{1,0}` → `{0,1:T(8,128)}` side by side, and
//! of its reverse), so that tiles of few rows still read and write whole
//! cache lines.
//!
//! Below the streaming threshold, when each axis of the plane lies at one
//! stride or in blocks of whole squares (plain transposes, and the
//! `T(8,128)` and `T(4,128)` tiles of `f32`), the squares are stored
//! straight to the destination rows, in blocks of 128 bytes by 128 bytes.
//! Otherwise the plane is copied in tiles of 128 bytes of each of
//! a cache line's worth of source runs: each source line read whole once,
//! the tile transposed into a staging buffer in the L1 cache, and each
//! destination row's line written whole from it, with streaming stores
//! when the destination is [`STREAM_FROM_BYTES`](super::stream::STREAM_FROM_BYTES)
//! or more and the line is one of the destination's. Power-of-two row
//! lengths put all of a tile's source runs (or destination rows) in one
//! set of the L1 cache; reading and writing whole lines at once keeps them
//! from evicting each other. The next tile's source lines are prefetched.
//! Other element sizes, other targets and the edges of a tile (fewer than
//! `V` rows or runs left) take a plain loop.
//!
//! One of the crate's modules with `unsafe` code; [`transpose_grid`] is a
//! safe function over two slices, checked against them once per grid, and
//! `.ci/run` runs its tests under Miri.
//!
//! [`RelayoutKernel::Transpose`]: crate::RelayoutKernel::Transpose
#![allow(unsafe_code)]

use bytemuck::NoUninit;

/// `K` consecutive elements taken as one, for a transpose of units
/// ([`RelayoutKernel::UnitTranspose`](crate::RelayoutKernel::UnitTranspose)):
/// a pair of `bf16` rows of a `(2,1)` sub-tile moves as a 4-byte element.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Unit<T, const K: usize>([T; K]);

// SAFETY: `NoUninit`'s rules: `Unit<T, K>` is `repr(transparent)` over
// `[T; K]`; an array has no padding between or after its elements, and
// `T: NoUninit` has no uninitialised or padding bytes of its own, so
// neither has the array (bytemuck implements `NoUninit` for arrays of a
// few element types only, but an array of any `NoUninit` type meets each
// rule); it is inhabited, `Copy` and `'static` as `T` is.
unsafe impl<T: NoUninit, const K: usize> NoUninit for Unit<T, K> {}

/// `s` as units of `K` elements (the last `s.len() % K` left out).
pub(crate) fn as_units<T: NoUninit, const K: usize>(s: &[T]) -> &[Unit<T, K>] {
    // SAFETY: `Unit<T, K>` is `[T; K]`, `K` consecutive `T` with `T`'s
    // alignment: the first `s.len() / K * K` elements of `s` are that
    // many units, in the same borrow.
    unsafe { core::slice::from_raw_parts(s.as_ptr().cast(), s.len() / K) }
}

/// [`as_units`], writable.
pub(crate) fn as_units_mut<T: NoUninit, const K: usize>(s: &mut [T]) -> &mut [Unit<T, K>] {
    // SAFETY: as in `as_units`; the borrow is unique, as `s`'s is, and
    // any units written are `K` values of `T`.
    unsafe { core::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), s.len() / K) }
}

/// Where the blocks of a transpose lie: block `(o, k)`, `o < counts[0]`,
/// `k < counts[1]`, starts at `[s, d] = start + o * strides[0] + k *
/// strides[1]` (each `[source, destination]`) and copies `src[s + r + i *
/// run_stride]` to `dst[d + r * row_stride + i]` for every row `r < rows`
/// and element `i < len`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TransposeGrid {
    pub(crate) start: [usize; 2],
    pub(crate) counts: [usize; 2],
    pub(crate) strides: [[usize; 2]; 2],
    pub(crate) rows: usize,
    pub(crate) len: usize,
    /// Source elements between a block's runs (`i` to `i + 1`).
    pub(crate) run_stride: usize,
    /// Destination elements between a block's rows (`r` to `r + 1`).
    pub(crate) row_stride: usize,
}

impl TransposeGrid {
    /// One past the last element the grid touches in `[source,
    /// destination]`; `None` on overflow. Strides are not negative, so
    /// every block lies between `start` and the last block's last
    /// element.
    fn ends(&self) -> Option<[usize; 2]> {
        let [outers, steps] = self.counts;
        let last_block = |b: usize| {
            self.start[b]
                .checked_add((outers - 1).checked_mul(self.strides[0][b])?)?
                .checked_add((steps - 1).checked_mul(self.strides[1][b])?)
        };
        let src = last_block(0)?
            .checked_add(self.rows - 1)?
            .checked_add((self.len - 1).checked_mul(self.run_stride)?)?
            .checked_add(1)?;
        let dst = last_block(1)?
            .checked_add((self.rows - 1).checked_mul(self.row_stride)?)?
            .checked_add(self.len)?;
        Some([src, dst])
    }

    /// Checks that every block lies in the buffers; `false` for a grid
    /// with nothing to do.
    ///
    /// # Panics
    /// If a block reaches past either buffer.
    fn check(&self, [src, dst]: [usize; 2]) -> bool {
        if self.counts.contains(&0) || self.rows == 0 || self.len == 0 {
            return false;
        }
        assert!(
            self.ends().is_some_and(|[s, d]| s <= src && d <= dst),
            "transpose blocks out of bounds"
        );
        true
    }

    /// The offsets `[s, d]` of block `(o, k)`.
    #[inline(always)]
    fn block(&self, o: usize, k: usize) -> [usize; 2] {
        let [outer, step] = self.strides;
        [0, 1].map(|b| self.start[b] + o * outer[b] + k * step[b])
    }
}

/// Copies every block of `grid` ([`TransposeGrid`]) from `src` to `dst`;
/// with `streaming`, the 64-byte lines that a destination row covers whole
/// are written with streaming stores (a plane's rows, when its blocks
/// continue each other's rows: the tiles of a band side by side).
///
/// # Panics
/// If a block reaches past either buffer.
#[inline(never)]
pub(crate) fn transpose_grid<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
    streaming: bool,
) {
    if !grid.check([src.len(), dst.len()]) {
        return;
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        match (lanes::<T>(), streaming) {
            (16, false) => return vector::blocks::<T, 16, false>(src, dst, grid),
            (16, true) => return vector::blocks::<T, 16, true>(src, dst, grid),
            (8, false) => return vector::blocks::<T, 8, false>(src, dst, grid),
            (8, true) => return vector::blocks::<T, 8, true>(src, dst, grid),
            (4, false) => return vector::blocks::<T, 4, false>(src, dst, grid),
            (4, true) => return vector::blocks::<T, 4, true>(src, dst, grid),
            (2, false) => return vector::blocks::<T, 2, false>(src, dst, grid),
            (2, true) => return vector::blocks::<T, 2, true>(src, dst, grid),
            _ => {}
        }
    }
    let _ = streaming;
    scalar_blocks(src, dst, grid);
}

/// Elements of `T` per 16-byte vector when the target has the vector
/// kernel for `T` (1-, 2-, 4- and 8-byte elements with SSE2); 0 otherwise.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const fn lanes<T>() -> usize {
    match core::mem::size_of::<T>() {
        1 | 2 | 4 | 8 if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) => {
            16 / core::mem::size_of::<T>()
        }
        _ => 0,
    }
}

/// Rows and runs per cache-sized tile of a block: 256 bytes of `T` (four
/// cache lines), at least 4.
const fn tile<T>() -> usize {
    let per_tile = TILE_BYTES / core::mem::size_of::<T>();
    if per_tile < 4 { 4 } else { per_tile }
}

/// Bytes of a tile's rows and runs ([`tile`]).
const TILE_BYTES: usize = 256;

/// `dst[d + r * row_stride + i] = src[s + r + i * run_stride]` for `r` in
/// `rows` and `i` in `runs` (the plain loop, for other targets and
/// element sizes, and the edges of the vector kernel's blocks).
#[inline(always)]
fn scalar_part<T: Copy>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    rows: core::ops::Range<usize>,
    runs: core::ops::Range<usize>,
    [run_stride, row_stride]: [usize; 2],
) {
    // Runs outside, rows inside: each source run is read in order once
    // (with few rows, as in `T(2,128)` tiles of a transpose, the other
    // order read every source line once per row, with a whole block's
    // runs, all in one cache set, in between).
    for i in runs {
        let from = &src[s + i * run_stride..];
        for r in rows.clone() {
            dst[d + r * row_stride + i] = from[r];
        }
    }
}

/// Every block of a checked `grid`, a tile (a line of rows by a line of
/// runs) at a time, with the plain loop.
fn scalar_blocks<T: Copy>(src: &[T], dst: &mut [T], grid: &TransposeGrid) {
    let t = tile::<T>();
    let strides = [grid.run_stride, grid.row_stride];
    for o in 0..grid.counts[0] {
        for k in 0..grid.counts[1] {
            let at = grid.block(o, k);
            for r0 in (0..grid.rows).step_by(t) {
                for i0 in (0..grid.len).step_by(t) {
                    let rows = r0..(r0 + t).min(grid.rows);
                    let runs = i0..(i0 + t).min(grid.len);
                    scalar_part(src, dst, at, rows, runs, strides);
                }
            }
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod vector {
    use core::arch::x86_64::{
        __m128i, _MM_HINT_T0, _mm_load_si128, _mm_loadu_si128, _mm_prefetch, _mm_store_si128,
        _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpackhi_epi64, _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
        _mm_unpacklo_epi64,
    };

    use bytemuck::NoUninit;

    use super::{TransposeGrid, scalar_part};
    use crate::relayout::simd::{store_vector, whole_lines};

    /// Every block of a checked `grid` with `V × V` vector blocks
    /// ([`merged`]); `V` is [`lanes::<T>()`](super::lanes). Blocks of
    /// fewer than `V` runs into dense groups, or of fewer than `V` rows
    /// out of them, take [`pack`] and [`unpack`].
    #[inline(always)]
    pub(super) fn blocks<T: NoUninit, const V: usize, const STREAMING: bool>(
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
        merged::<T, V, STREAMING>(src, dst, grid);
    }

    /// One block of `K < V` runs into dense groups (`row_stride == K`):
    /// `dst[d + r * K + i] = src[s + r + i * run_stride]`, `V` rows at a
    /// time as `K` vectors, one per run, interleaved by `log2(K)` rounds
    /// of unpacks into `K` vectors of output; the last rows with the
    /// plain loop. With `STREAMING`, the whole lines of the block's output
    /// are streamed when the vectors cover it.
    #[inline(always)]
    fn pack<T: NoUninit, const V: usize, const K: usize, const STREAMING: bool>(
        src: &[T],
        dst: &mut [T],
        [s, d]: [usize; 2],
        rows: usize,
        run_stride: usize,
    ) {
        let size = core::mem::size_of::<T>();
        let lines = match STREAMING && rows.is_multiple_of(V) {
            true => whole_lines(dst[d..].as_ptr() as usize, rows * K * size),
            false => [0, 0],
        };
        let mut r = 0;
        while r + V <= rows {
            // SAFETY: the grid was checked against both buffers: the
            // block's elements `src[s + r + i * run_stride]` and `dst[d +
            // r * K + i]`, `r < rows`, `i < K`, are in bounds, and rows
            // `r..r + V` are in the block. The buffers do not overlap. The
            // output's vectors are 16 bytes apart from `d`, so aligned in
            // `lines` when its first line is (`whole_lines`).
            unsafe {
                let x: [__m128i; K] = array(ZERO, |i| {
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
    /// whole lines of each row are streamed when the vectors cover it.
    #[inline(always)]
    fn unpack<T: NoUninit, const V: usize, const K: usize, const STREAMING: bool>(
        src: &[T],
        dst: &mut [T],
        [s, d]: [usize; 2],
        len: usize,
        row_stride: usize,
    ) {
        let size = core::mem::size_of::<T>();
        let lines: [[usize; 2]; K] = array([0, 0], |r| match STREAMING && len.is_multiple_of(V) {
            true => whole_lines(dst[d + r * row_stride..].as_ptr() as usize, len * size),
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
            // in its `lines` when the first line is (`whole_lines`).
            unsafe {
                let x: [__m128i; K] = array(ZERO, |j| {
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
    #[inline(always)]
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
    #[inline(always)]
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
    #[inline(always)]
    fn shuffle_round<const K: usize>(x: [__m128i; K], lane: usize, split: bool) -> [__m128i; K] {
        array(ZERO, |j| {
            let (pair, second) = match j < K / 2 {
                true => (j, false),
                false => (j - K / 2, true),
            };
            let (a, b) = (x[2 * pair], x[2 * pair + 1]);
            match split {
                false => unpack_lanes(lane, second, a, b),
                true => {
                    // `log2(16 / lane)` rounds of unpacks end with the
                    // even lanes of `a` then `b` in the low vector, the
                    // odd ones in the high.
                    let (mut lo, mut hi) = (a, b);
                    let mut n = lane;
                    while n < 16 {
                        (lo, hi) = (
                            unpack_lanes(lane, false, lo, hi),
                            unpack_lanes(lane, true, lo, hi),
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

    /// A vector of zeros, to fill arrays of vectors before their elements
    /// are computed ([`array`]).
    // SAFETY: `__m128i` is 16 bytes of plain integers; any bits are a
    // valid value.
    const ZERO: __m128i = unsafe { core::mem::transmute::<u128, __m128i>(0) };

    /// `[f(0), f(1), .., f(N - 1)]`, computed in a plain loop: through
    /// `core::array::from_fn`, the closure was not inlined (a call per
    /// vector, a fifth of a `u8` unpack's time in `perf`).
    #[inline(always)]
    fn array<X: Copy, const N: usize>(fill: X, mut f: impl FnMut(usize) -> X) -> [X; N] {
        let mut out = [fill; N];
        for (j, x) in out.iter_mut().enumerate() {
            *x = f(j);
        }
        out
    }

    /// `j` with its `log2(n)` low bits reversed.
    #[inline(always)]
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
        /// Offsets in buffer `b` (0 source, 1 destination) of elements
        /// `first..first + out.len()` of the axis, from `base`, with
        /// `within` between the elements of a block.
        #[inline(always)]
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
    /// staged tile ([`Stage`]) at most 8 KiB.
    const TILE_RUN_BYTES: usize = 128;

    /// A tile of the transpose, staged between the registers' transpose
    /// and its destination rows: `TILE_RUN_BYTES / size` rows of a cache
    /// line each.
    #[repr(C, align(64))]
    struct Stage([core::mem::MaybeUninit<__m128i>; TILE_RUN_BYTES * 64 / 16]);

    /// Every block of a checked `grid` as one transpose per plane: the
    /// grid's rows merged with a level whose blocks continue them in the
    /// source, and its runs with one whose blocks continue them in the
    /// destination ([`Axis`]), so that tiles of a few rows (`T(8,128)`,
    /// `T(2,128)`) still read whole source lines and write whole
    /// destination lines; the other levels loop outside.
    #[inline(always)]
    fn merged<T: NoUninit, const V: usize, const STREAMING: bool>(
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
        let flatten = |a: Axis, within: [usize; 2]| match a.stride
            == [a.per * within[0], a.per * within[1]]
        {
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
        let direct = !STREAMING
            && (x.blocks == 1 || x.per.is_multiple_of(V))
            && (i.blocks == 1 || i.per.is_multiple_of(V));
        for o in 0..free(0) {
            for k in 0..free(1) {
                let at = grid.block(o, k);
                match direct {
                    true => direct_plane::<T, V>(src, dst, at, [x, i], strides),
                    false => plane::<T, V, STREAMING>(src, dst, at, [x, i], strides),
                }
            }
        }
    }

    /// A plane as [`plane`] copies it, `V × V` squares stored straight to
    /// the destination rows, in blocks of 128 bytes by 128 bytes (each
    /// source line read whole, and each destination line written whole,
    /// within a block); a square lies inside one block of each axis (the
    /// caller checks that blocks are whole squares, or the axis one
    /// block). The edges of a block take the plain loop.
    ///
    /// Without the staging and the per-element tables of [`plane`]: an
    /// offset per group of `V` rows or runs, and for a 1 MiB `f32`
    /// transpose two thirds of its time.
    #[inline(always)]
    fn direct_plane<T: NoUninit, const V: usize>(
        src: &[T],
        dst: &mut [T],
        [s, d]: [usize; 2],
        [x, i]: [Axis; 2],
        [run_stride, row_stride]: [usize; 2],
    ) {
        const GROUPS: usize = 64;
        let size = core::mem::size_of::<T>();
        let block = (128 / size).max(V);
        debug_assert!(block / V <= GROUPS);
        // `[source, destination]` offsets of row `m` and of run `j`.
        let row_at = |m: usize| {
            let (b, e) = (m / x.per, m % x.per);
            [b * x.stride[0] + e, b * x.stride[1] + e * row_stride]
        };
        let run_at = |j: usize| {
            let (b, e) = (j / i.per, j % i.per);
            [b * i.stride[0] + e * run_stride, b * i.stride[1] + e]
        };
        let (rows, runs) = (x.per * x.blocks, i.per * i.blocks);
        let mut runs_at = [[0usize; 2]; GROUPS];
        let mut rows_at = [[0usize; 2]; GROUPS];
        for j0 in (0..runs).step_by(block) {
            let jn = block.min(runs - j0);
            let jv = jn - jn % V;
            for (g, at) in runs_at[..jv / V].iter_mut().enumerate() {
                *at = run_at(j0 + g * V);
            }
            for m0 in (0..rows).step_by(block) {
                let mn = block.min(rows - m0);
                let mv = mn - mn % V;
                for (g, at) in rows_at[..mv / V].iter_mut().enumerate() {
                    *at = row_at(m0 + g * V);
                }
                for &[js, jd] in &runs_at[..jv / V] {
                    for &[ms, md] in &rows_at[..mv / V] {
                        // SAFETY: the grid was checked against both
                        // buffers (`TransposeGrid::check`) and every `(m,
                        // j)`, `m < rows`, `j < runs`, is one of its
                        // elements, at `src[s + row_at(m)[0] +
                        // run_at(j)[0]]` and `dst[d + row_at(m)[1] +
                        // run_at(j)[1]]`. A square's `V` rows lie in one
                        // block of `x` and its `V` runs in one of `i`
                        // (blocks are whole squares, and squares start at
                        // multiples of `V`), so rows `m + r` are at
                        // `row_at(m) + [r, r * row_stride]` and runs `j +
                        // k` at `run_at(j) + [k * run_stride, k]`: the `V`
                        // elements loaded from each run, and the `V`
                        // stored to each row, are grid elements, in
                        // bounds. The buffers do not overlap; `T:
                        // NoUninit` has no uninitialised bytes.
                        unsafe {
                            let x: [__m128i; V] = array(ZERO, |k| {
                                let at = s + ms + js + k * run_stride;
                                _mm_loadu_si128(src.as_ptr().add(at).cast())
                            });
                            for (k, v) in square(x).into_iter().enumerate() {
                                let r = square_row::<V>(k);
                                let at = dst.as_mut_ptr().add(d + md + r * row_stride + jd);
                                _mm_storeu_si128(at.cast(), v);
                            }
                        }
                    }
                }
                // The plain loop: the rows past the squares for the runs
                // they took, then the runs past them.
                let mut edge = |ms: core::ops::Range<usize>, js: core::ops::Range<usize>| {
                    for j in js {
                        let [js, jd] = run_at(j);
                        for m in ms.clone() {
                            let [ms, md] = row_at(m);
                            dst[d + md + jd] = src[s + ms + js];
                        }
                    }
                };
                edge(m0 + mv..m0 + mn, j0..j0 + jv);
                edge(m0..m0 + mn, j0 + jv..j0 + jn);
            }
        }
    }

    /// One plane: element `(m, j)` of axes `x` (source-contiguous, the
    /// destination's rows) and `i` (destination-contiguous, the source's
    /// runs) copied from the source to the destination, each at `m`'s
    /// and `j`'s offsets in its buffer ([`Axis::offsets`]: `run_stride`
    /// between a block's runs, `row_stride` between its rows).
    ///
    /// In tiles of `TILE_RUN_BYTES` of each of a cache line's worth of
    /// source runs ([`tile`]): rows of the destination are written a
    /// line at a time, from the line boundary of the tile's first row on,
    /// and each source line is read whole once.
    #[inline(always)]
    fn plane<T: NoUninit, const V: usize, const STREAMING: bool>(
        src: &[T],
        dst: &mut [T],
        [s, d]: [usize; 2],
        [x, i]: [Axis; 2],
        [run_stride, row_stride]: [usize; 2],
    ) {
        let size = core::mem::size_of::<T>();
        let (tile_rows, tile_runs) = (TILE_RUN_BYTES / size, 64 / size);
        let mut stage = Stage([core::mem::MaybeUninit::uninit(); TILE_RUN_BYTES * 64 / 16]);
        let mut rows_at = [0; TILE_RUN_BYTES];
        // The runs of this tile and of the next, in turns.
        let mut runs_at = [[0; 64]; 2];
        let (nx, ni) = (x.per * x.blocks, i.per * i.blocks);
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
                    if next_nc > 0 {
                        // The next tile's source lines, fetched while this
                        // one is copied: its runs lie far apart (a source
                        // row apart), where the hardware's prefetchers do
                        // not look ahead. (Prefetching its destination
                        // lines too measured slower.)
                        let runs = &mut runs_at[1 - turn][..next_nc];
                        i.offsets(runs, next, 0, run_stride, s + x0);
                        for &run in &*runs {
                            prefetch_span(src, run, nr);
                        }
                    }
                    let offsets = [&rows_at[..nr], &runs_at[turn][..nc]];
                    tile::<T, V, STREAMING>(src, dst, &mut stage, offsets, i0);
                    (i0, nc, turn) = (next, next_nc, 1 - turn);
                }
                x0 += nr;
            }
            lo = hi;
        }
    }

    /// Prefetches (`prefetcht0`) the cache lines of `buf[from..from +
    /// len]`, at most three (`len` elements are at most 128 bytes here).
    #[inline(always)]
    fn prefetch_span<T>(buf: &[T], from: usize, len: usize) {
        let size = core::mem::size_of::<T>();
        let first = buf.as_ptr().wrapping_add(from).cast::<i8>();
        let bytes = len * size;
        for at in [0, 64, bytes.saturating_sub(1)] {
            if at < bytes {
                // SAFETY: a prefetch reads and writes no memory and never
                // faults, whatever the address (here within or just past
                // the buffer, reached by `wrapping_add`); SSE is enabled
                // on every x86-64 target.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(at)) };
            }
        }
    }

    /// `REVERSED_NIBBLES[k]`: the 4 bits of `k < 16` reversed.
    const REVERSED_NIBBLES: [u8; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];

    /// The row of a `V × V` square that [`square`]'s vector `k` holds,
    /// `reverse_bits(k, V)`, from a table: for `V = 16` the loop over `k`
    /// stays a loop, and computing the reversal took a tenth of a `u8`
    /// transpose.
    #[inline(always)]
    fn square_row<const V: usize>(k: usize) -> usize {
        (REVERSED_NIBBLES[k] >> (4 - V.trailing_zeros())) as usize
    }

    /// One tile: `dst[rows_at[m] + i0 + j] = src[runs_at[j] + m]` for `m <
    /// rows_at.len()` (at most `TILE_RUN_BYTES / size`), `j <
    /// runs_at.len()` (at most a cache line). `V × V` squares transposed
    /// in registers into `stage`, then each row of the stage copied to its
    /// destination row: a whole line (with a streaming store when
    /// `STREAMING` and it is one line of the destination), or the part
    /// of one. The rows and runs past the last whole square take the
    /// plain loop.
    #[inline(always)]
    fn tile<T: NoUninit, const V: usize, const STREAMING: bool>(
        src: &[T],
        dst: &mut [T],
        stage: &mut Stage,
        [rows_at, runs_at]: [&[usize]; 2],
        i0: usize,
    ) {
        let size = core::mem::size_of::<T>();
        let (nr, nc) = (rows_at.len(), runs_at.len());
        let (nr_v, nc_v) = (nr - nr % V, nc - nc % V);
        // Elements of `T` per stage row (a cache line).
        let line = 64 / size;
        debug_assert!(nr * size <= TILE_RUN_BYTES && nc <= line);
        let stage = stage.0.as_mut_ptr().cast::<T>();
        for jg in (0..nc_v).step_by(V) {
            for mg in (0..nr_v).step_by(V) {
                // SAFETY: the grid was checked against both buffers
                // (`TransposeGrid::check`), and every `(m, j)`, `m < nr`,
                // `j < nc`, is one of its elements, `src[runs_at[j] + m]`
                // in bounds: so the `V` elements from `runs_at[jg + k] +
                // mg` are (`mg + V <= nr`), for `k < V` (`jg + V <= nc`);
                // `T: NoUninit` has no uninitialised bytes. Stage row `mg
                // + k`, elements `jg..jg + V`, is in the stage (`(mg + k) *
                // line + jg + V <= nr * line <= TILE_RUN_BYTES * 64 /
                // size`) and 16-byte aligned (the stage is 64-byte
                // aligned, and `jg * size` a multiple of 16).
                unsafe {
                    let x: [__m128i; V] = array(ZERO, |k| {
                        _mm_loadu_si128(src.as_ptr().add(runs_at[jg + k] + mg).cast())
                    });
                    for (k, v) in square(x).into_iter().enumerate() {
                        let m = square_row::<V>(k);
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
            // == line`, the row is 64 bytes, four vectors; streamed only
            // when `to` starts a line (so every store is aligned), else
            // stored unaligned.
            unsafe {
                let from = stage.add(m * line);
                if nc == line {
                    let lines = match (to as usize).is_multiple_of(64) {
                        true => [to as usize, to as usize + 64],
                        false => [0, 0],
                    };
                    for k in 0..4 {
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

    /// A `V × V` square of `16 / V`-byte elements transposed: `V` vectors
    /// in, vector `k` holding the `V` elements of output row
    /// `reverse_bits(k, V)` out. Rounds of unpacks of lanes of the
    /// element size, then twice that, up to 8 bytes ([`unpack_round`]),
    /// each with its lane size fixed, so that every round is unrolled
    /// into registers.
    #[inline(always)]
    fn square<const V: usize>(x: [__m128i; V]) -> [__m128i; V] {
        match V {
            16 => unpack_round::<V, 8>(unpack_round::<V, 4>(unpack_round::<V, 2>(unpack_round::<
                V,
                1,
            >(x)))),
            8 => unpack_round::<V, 8>(unpack_round::<V, 4>(unpack_round::<V, 2>(x))),
            4 => unpack_round::<V, 8>(unpack_round::<V, 4>(x)),
            _ => unpack_round::<V, 8>(x),
        }
    }

    /// One round of [`square`]: vectors `2j` and `2j + 1` give vectors `j`
    /// (their low halves interleaved in lanes of `LANE` bytes) and `j + K
    /// / 2` (their high halves).
    #[inline(always)]
    fn unpack_round<const K: usize, const LANE: usize>(x: [__m128i; K]) -> [__m128i; K] {
        let mut out = x;
        for j in 0..K / 2 {
            out[j] = unpack_lanes(LANE, false, x[2 * j], x[2 * j + 1]);
            out[j + K / 2] = unpack_lanes(LANE, true, x[2 * j], x[2 * j + 1]);
        }
        out
    }

    /// The low (`high == false`) or high halves of `a` and `b`
    /// interleaved, lanes of `lane` bytes.
    #[inline(always)]
    fn unpack_lanes(lane: usize, high: bool, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: register-only instructions of SSE2, which the build
        // enables (this module is compiled only with `target_feature =
        // "sse2"`).
        unsafe {
            match (lane, high) {
                (1, false) => _mm_unpacklo_epi8(a, b),
                (1, true) => _mm_unpackhi_epi8(a, b),
                (2, false) => _mm_unpacklo_epi16(a, b),
                (2, true) => _mm_unpackhi_epi16(a, b),
                (4, false) => _mm_unpacklo_epi32(a, b),
                (4, true) => _mm_unpackhi_epi32(a, b),
                (_, false) => _mm_unpacklo_epi64(a, b),
                (_, true) => _mm_unpackhi_epi64(a, b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TransposeGrid, transpose_grid};
    use alloc::vec::Vec;

    /// Runs the kernel on `grid` and checks it against the definition:
    /// every block's elements in place, every other element unchanged.
    fn check_grid<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
        src: &[T],
        out: &mut [T],
        grid: TransposeGrid,
        streaming: bool,
    ) {
        let mut expected = out.to_vec();
        for o in 0..grid.counts[0] {
            for k in 0..grid.counts[1] {
                let [s, d] = grid.block(o, k);
                for r in 0..grid.rows {
                    for i in 0..grid.len {
                        expected[d + r * grid.row_stride + i] = src[s + r + i * grid.run_stride];
                    }
                }
            }
        }
        transpose_grid(src, out, &grid, streaming);
        assert_eq!(out, &expected[..], "{grid:?} streaming {streaming}");
    }

    /// Blocks of every shape around the vector and tile sizes, at odd
    /// starts, single and in grids (side by side along the destination
    /// rows, and apart), for every element size, with and without
    /// streaming into a 64-byte aligned buffer (Miri checks every access
    /// is in bounds and every streamed store aligned).
    fn check_sizes<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
        let n = if cfg!(miri) { 400 } else { 1200 };
        let src: Vec<T> = (0..n).map(make).collect();
        let fits = |grid: &TransposeGrid| grid.ends().is_some_and(|[s, d]| s <= n && d <= n);
        // Runs `grid` into `n` elements that start on a 64-byte line.
        let check = |grid: TransposeGrid, streaming: bool| {
            let mut out: Vec<T> = (0..n + 64).map(|i| make(i + 5000)).collect();
            let line = out.as_ptr().align_offset(64);
            check_grid(&src, &mut out[line..line + n], grid, streaming);
        };
        // Under Miri (slow): a partial vector, a dense narrow group, and
        // one vector plus one element, of this element size.
        let lanes = (16 / core::mem::size_of::<T>()).max(2);
        let few = [1, 2, lanes + 1];
        let shapes: &[usize] = if cfg!(miri) {
            &few
        } else {
            &[1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 32, 33]
        };
        let placements: &[([usize; 2], usize)] = if cfg!(miri) {
            &[([1, 3], 0), ([0, 0], 1)]
        } else {
            &[([0, 0], 0), ([1, 3], 0), ([1, 3], 1), ([0, 0], 2)]
        };
        for streaming in [false, true] {
            for &rows in shapes {
                for &len in shapes {
                    // Apart and dense (the narrow pack and unpack when
                    // `len` or `rows` is fewer than a vector's elements).
                    for &(start, gap) in placements {
                        let grid = TransposeGrid {
                            start,
                            counts: [1, 1],
                            strides: [[0, 0]; 2],
                            rows,
                            len,
                            run_stride: rows + gap,
                            row_stride: len + 2 * gap,
                        };
                        if fits(&grid) {
                            check(grid, streaming);
                        }
                    }
                    // 2 planes of 3 blocks that continue each other's
                    // destination rows, and 2×2 blocks apart.
                    let along = TransposeGrid {
                        start: [2, 0],
                        counts: [2, 3],
                        strides: [[rows * len * 3, 3 * len * rows], [rows * len, len]],
                        rows,
                        len,
                        run_stride: rows,
                        row_stride: 3 * len,
                    };
                    let apart = TransposeGrid {
                        counts: [2, 2],
                        strides: [
                            [2 * rows * len + 1, 2 * rows * len + 4],
                            [rows * len, rows * len],
                        ],
                        row_stride: len,
                        ..along
                    };
                    for grid in [along, apart] {
                        if fits(&grid) {
                            check(grid, streaming);
                        }
                    }
                }
            }
        }
    }

    /// Units of 2 and 4 elements, taken from buffers of a length that is
    /// not a whole number of units, transpose as the elements they hold.
    #[test]
    fn units_transpose_as_their_elements() {
        let (rows, len) = (9, 6);
        let src: Vec<u16> = (0..2 * rows * len + 1).map(|i| i as u16).collect();
        let mut out: Vec<u16> = (0..2 * rows * len + 1).map(|_| 0).collect();
        let grid = TransposeGrid {
            start: [0, 0],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows,
            len,
            run_stride: rows,
            row_stride: len,
        };
        transpose_grid(
            super::as_units::<u16, 2>(&src),
            super::as_units_mut::<u16, 2>(&mut out),
            &grid,
            false,
        );
        for r in 0..rows {
            for i in 0..len {
                for e in 0..2 {
                    assert_eq!(out[2 * (r * len + i) + e], src[2 * (r + i * rows) + e]);
                }
            }
        }
        assert_eq!(out[2 * rows * len], 0, "the element past the units");
        let bytes: Vec<u8> = (0..4 * 5 * 7 + 3).map(|i| i as u8).collect();
        assert_eq!(super::as_units::<u8, 4>(&bytes).len(), 5 * 7);
    }

    #[test]
    fn transposes_like_the_definition() {
        check_sizes(|i| i as u8);
        check_sizes(|i| (i as i16).wrapping_neg());
        check_sizes(|i| i as f32);
        check_sizes(|i| i as u64);
        if !cfg!(miri) {
            // The plain loop only (no `unsafe`).
            check_sizes(|i| [i as u64, !(i as u64)]);
        }
    }

    /// Grids of whole cache tiles of the vector kernel (`128` bytes of
    /// rows by a cache line of runs) and their partial edges, for every
    /// element size: a single plane, planes whose blocks continue each
    /// other's source rows (the tiles of `{1,0}` → `{0,1:T(..)}` side by
    /// side, merged into one transpose), and blocks that continue each
    /// other's destination runs (its reverse), at an odd start, with and
    /// without streaming.
    fn check_tiles<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
        let size = core::mem::size_of::<T>();
        let (tile_rows, line) = (128 / size, 64 / size);
        let v = (16 / size).max(2);
        // Past a whole tile, not a multiple of a vector either way (under
        // Miri, which is slow, one row and run past it).
        let (rows, len) = match cfg!(miri) {
            true => (tile_rows + 1, line + 1),
            false => (tile_rows + v + 1, line + v + 1),
        };
        // Row tiles of `tile` rows, 3 side by side in the source (more
        // than a whole tile's rows together), or 8.
        let tiles: &[usize] = match cfg!(miri) {
            true => &[rows / 3 + 1],
            false => &[rows / 3 + 1, 8],
        };
        for &tile in tiles {
            check_tile_grids(make, [rows, len], tile);
        }
    }

    /// The grids of [`check_tiles`], with row tiles of `tile` rows.
    fn check_tile_grids<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
        make: fn(usize) -> T,
        [rows, len]: [usize; 2],
        tile: usize,
    ) {
        let grids = [
            // One plane, apart rows and runs.
            TransposeGrid {
                start: [1, 3],
                counts: [1, 1],
                strides: [[0, 0]; 2],
                rows,
                len,
                run_stride: rows + 2,
                row_stride: len + 5,
            },
            // `{1,0}` → `{0,1:T(tile, len)}`: row tiles side by side in
            // the source (`outer[0] == tile`), two run blocks apart.
            TransposeGrid {
                start: [1, 3],
                counts: [3, 2],
                strides: [[tile, 2 * tile * len], [len * 3 * tile, tile * len]],
                rows: tile,
                len,
                run_stride: 3 * tile,
                row_stride: len,
            },
            // `{0,1:T(len, tile)}` → `{1,0}`: run blocks side by side in
            // the destination (`step[1] == len`).
            TransposeGrid {
                start: [1, 3],
                counts: [2, 3],
                strides: [[3 * rows * len, 3 * len * rows], [rows * len, len]],
                rows,
                len,
                run_stride: rows,
                row_stride: 3 * len,
            },
        ];
        // Under Miri, with streaming only (the kernel differs only in
        // the kind of store), and without the plane of apart rows.
        let (grids, streams): (&[TransposeGrid], &[bool]) = match cfg!(miri) {
            true => (&grids[1..], &[true]),
            false => (&grids, &[false, true]),
        };
        for &grid in grids {
            let [s, d] = grid.ends().unwrap();
            let src: Vec<T> = (0..s).map(make).collect();
            for &streaming in streams {
                let mut out: Vec<T> = (0..d + 64).map(|i| make(i + 5000)).collect();
                let line = out.as_ptr().align_offset(64);
                check_grid(&src, &mut out[line..line + d], grid, streaming);
            }
        }
    }

    #[test]
    fn tiles_transpose_like_the_definition() {
        check_tiles(|i| i as u8);
        check_tiles(|i| (i as i16).wrapping_neg());
        check_tiles(|i| i as f32);
        check_tiles(|i| i as u64);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_block_past_the_source_panics() {
        let grid = TransposeGrid {
            start: [0, 0],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows: 4,
            len: 4,
            run_stride: 4,
            row_stride: 4,
        };
        transpose_grid(&[0u32; 15], &mut [0u32; 16], &grid, false);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_grid_that_overflows_panics() {
        let grid = TransposeGrid {
            start: [0, 0],
            counts: [2, 1],
            strides: [[usize::MAX, 0], [0, 0]],
            rows: 1,
            len: 1,
            run_stride: 1,
            row_stride: 1,
        };
        transpose_grid(&[0u32; 4], &mut [0u32; 4], &grid, false);
    }
}
