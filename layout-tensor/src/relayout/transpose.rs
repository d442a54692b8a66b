//! The transpose kernel ([`RelayoutKernel::Transpose`]): blocks whose rows
//! are contiguous in the source and whose runs are contiguous in the
//! destination, copied in square blocks of vectors.
//!
//! On x86-64 with SSE2 (every x86-64 target but those built without it),
//! a block of `V × V` elements, `V` = 16 bytes over the element size (4
//! `f32`, 8 `bf16`, 16 `s8`, 2 `f64`), is loaded as `V` vectors, one from
//! each of `V` source runs, transposed in registers by `log2(V)` rounds of
//! `unpacklo`/`unpackhi`, and stored as `V` vectors, one into each of `V`
//! destination rows. The blocks are visited a cache line of rows and of
//! runs at a time, so that every line read or written is used whole while
//! it is in the L1 cache. Destinations of
//! [`STREAM_FROM_BYTES`](super::stream::STREAM_FROM_BYTES) or more take
//! streaming stores for the lines a destination row covers whole. Other
//! element sizes, other targets and the edges of a block (fewer than `V`
//! rows or runs left) take a plain loop.
//!
//! One of the crate's modules with `unsafe` code; [`transpose_grid`] is a
//! safe function over two slices, checked against them once per grid, and
//! `.ci/run` runs its tests under Miri.
//!
//! [`RelayoutKernel::Transpose`]: crate::RelayoutKernel::Transpose
#![allow(unsafe_code)]

use bytemuck::NoUninit;

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
        __m128i, _mm_loadu_si128, _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpackhi_epi64, _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32,
        _mm_unpacklo_epi64,
    };

    use bytemuck::NoUninit;

    use super::{TransposeGrid, scalar_part, tile};
    use crate::relayout::simd::{store_vector, whole_lines};

    /// Every block of a checked `grid` with `V × V` vector blocks
    /// ([`square`]); `V` is [`lanes::<T>()`](super::lanes).
    ///
    /// When the blocks of a plane continue each other's destination rows
    /// (`strides[1][1] == len`), `V` rows at a time across the whole
    /// plane, so that each destination row is written in address order
    /// (with streaming stores, at most `V` lines are open at once). Else
    /// block by block, a tile of rows by a tile of runs at a time.
    #[inline(always)]
    pub(super) fn blocks<T: NoUninit, const V: usize, const STREAMING: bool>(
        src: &[T],
        dst: &mut [T],
        grid: &TransposeGrid,
    ) {
        let size = core::mem::size_of::<T>();
        let TransposeGrid {
            counts: [outers, steps],
            strides: [_, step],
            rows,
            len,
            run_stride,
            row_stride,
            ..
        } = *grid;
        let strides = [run_stride, row_stride];
        // The lines to stream in `bytes` of a destination row from
        // element `at`, when the vectors cover every run (no line takes
        // both kinds of store).
        let lines_at = |dst: &[T], at: usize, bytes: usize| match STREAMING && len.is_multiple_of(V)
        {
            true => whole_lines(dst[at..].as_ptr() as usize, bytes),
            false => [0, 0],
        };
        let along = steps > 1 && step[1] == len;
        let t = tile::<T>();
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
        for o in 0..outers {
            if along {
                let [_, plane] = grid.block(o, 0);
                for r0 in (0..rows).step_by(V) {
                    let lines: [[usize; 2]; V] = array([0, 0], |m| match r0 + m < rows {
                        true => lines_at(dst, plane + (r0 + m) * row_stride, steps * len * size),
                        false => [0, 0],
                    });
                    for k in 0..steps {
                        let at = grid.block(o, k);
                        strip::<T, V, STREAMING>(src, dst, at, [r0, rows], 0..len, strides, &lines);
                    }
                }
            } else {
                for k in 0..steps {
                    let at = grid.block(o, k);
                    for r0 in (0..rows).step_by(t) {
                        let r_end = (r0 + t).min(rows);
                        // Runs of the next tile to prefetch per strip of
                        // this one.
                        let chunk = t.div_ceil((r_end - r0).div_ceil(V));
                        for i0 in (0..len).step_by(t) {
                            let runs = i0..(i0 + t).min(len);
                            let next = match i0 + t < len {
                                true => [r0, i0 + t],
                                false => [r0 + t, 0],
                            };
                            for r1 in (r0..r_end).step_by(V) {
                                if STREAMING {
                                    // The next tile's source, a piece per
                                    // strip: `chunk` of its runs.
                                    let first = next[1] + (r1 - r0) / V * chunk;
                                    for i in first..(first + chunk).min(len) {
                                        let from = at[0] + next[0] + i * run_stride;
                                        crate::relayout::stream::prefetch(src, from, t);
                                    }
                                }
                                let lines: [[usize; 2]; V] =
                                    array([0, 0], |m| match r1 + m < rows {
                                        true => {
                                            lines_at(dst, at[1] + (r1 + m) * row_stride, len * size)
                                        }
                                        false => [0, 0],
                                    });
                                strip::<T, V, STREAMING>(
                                    src,
                                    dst,
                                    at,
                                    [r1, rows],
                                    runs.clone(),
                                    strides,
                                    &lines,
                                );
                            }
                        }
                    }
                }
            }
        }
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

    /// Rows `r0..r0 + V` (fewer at the block's end, `rows`) of the block
    /// at `[s, d]`, runs `runs`: `V × V` vector blocks while whole ones
    /// fit, the rest with the plain loop. `lines[m]`: the lines of row
    /// `r0 + m` to stream.
    #[inline(always)]
    fn strip<T: NoUninit, const V: usize, const STREAMING: bool>(
        src: &[T],
        dst: &mut [T],
        [s, d]: [usize; 2],
        [r0, rows]: [usize; 2],
        runs: core::ops::Range<usize>,
        [run_stride, row_stride]: [usize; 2],
        lines: &[[usize; 2]; V],
    ) {
        if r0 + V > rows {
            scalar_part(src, dst, [s, d], r0..rows, runs, [run_stride, row_stride]);
            return;
        }
        let mut i = runs.start;
        while i + V <= runs.end {
            // SAFETY: the grid was checked against both buffers
            // (`TransposeGrid::check`): every element `src[s + r + i *
            // run_stride]` and `dst[d + r * row_stride + i]` of the block,
            // `r < rows`, `i < len`, is in bounds, and rows `r0..r0 + V`
            // and runs `i..i + V` are in the block (`r0 + V <= rows`, `i +
            // V <= runs.end <= len`). `src` and `dst` do not overlap (a
            // shared and a mutable borrow). A streamed store's address is
            // in its row's `lines`: whole lines of that row, which start
            // 16-byte aligned, and every vector of the row is `V`
            // elements (16 bytes) from the last (`len` is a multiple of
            // `V`, else `lines` are empty).
            unsafe {
                square::<T, V, STREAMING>(
                    src.as_ptr().add(s + r0 + i * run_stride),
                    run_stride,
                    dst.as_mut_ptr().add(d + r0 * row_stride + i),
                    row_stride,
                    lines,
                );
            }
            i += V;
        }
        if i < runs.end {
            scalar_part(
                src,
                dst,
                [s, d],
                r0..r0 + V,
                i..runs.end,
                [run_stride, row_stride],
            );
        }
    }

    /// Transposes a `V × V` block: the `V` elements at `from + j *
    /// run_stride` (source run `j`) become element `j` of the `V`
    /// destination rows at `to + m * row_stride`, `m < V`. Rounds of
    /// unpacks of lanes of 1, 2, 4 and 8 elements interleave pairs of
    /// vectors, after which vector `j` holds destination row `m` whose
    /// index is `j` with its `log2(V)` bits reversed.
    ///
    /// # Safety
    /// `V * size_of::<T>() == 16`; `from + j * run_stride` is valid for
    /// reads of 16 bytes and `to + m * row_stride` for writes of 16
    /// bytes, `j, m < V`, the writes not overlapping the reads. With
    /// `STREAMING`, the bounds of `lines[m]` are multiples of 64 and, if
    /// `to + m * row_stride` is in `lines[m]`, it is 16-byte aligned.
    #[inline(always)]
    unsafe fn square<T: NoUninit, const V: usize, const STREAMING: bool>(
        from: *const T,
        run_stride: usize,
        to: *mut T,
        row_stride: usize,
        lines: &[[usize; 2]; V],
    ) {
        // SAFETY: the caller's contract: every read is in bounds (the
        // unaligned kind); `T: NoUninit` has no uninitialised bytes.
        let x: [__m128i; V] = array(ZERO, |j| unsafe {
            _mm_loadu_si128(from.add(j * run_stride).cast::<__m128i>())
        });
        // The unpacks move whole lanes, so every element stays a bitwise
        // copy of a loaded one.
        let x = interleave(x, core::mem::size_of::<T>());
        for (j, v) in x.into_iter().enumerate() {
            let m = reverse_bits(j, V);
            // SAFETY: row `m < V` is valid for a 16-byte write and, when
            // streamed, aligned (the caller's contract).
            unsafe {
                store_vector::<STREAMING>(to.add(m * row_stride).cast(), v, lines[m]);
            }
        }
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
