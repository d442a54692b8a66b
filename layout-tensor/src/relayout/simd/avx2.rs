//! The row interleave and deinterleave in AVX2's 32-byte vectors: 32
//! bytes of each of the `F` rows at a time, when the CPU has AVX2
//! ([`has_avx2`](crate::relayout::isa::has_avx2)).
//!
//! The interleave ([`interleave`]) takes SSE2's rounds of unpacks, which
//! double a group per round, in 32-byte vectors: AVX2's unpacks work
//! within 16-byte lanes, so lane `L` of each result is what SSE2 makes of
//! the rows' 16-byte vector `L`, and each lane is stored as the 16-byte
//! output vector it is, without a lane-crossing permute (for four byte
//! rows 8 unpacks per 128 bytes, where SSE2 takes 16). Timed in turns
//! with the SSE2 kernel at 1 MiB (three rounds, times over `memcpy`'s),
//! the packs into `s8` `T(8,128)(4,1)` read 1.38–1.43 against
//! 1.41–1.55, `u8` `T(32,128)(4,1)` 1.39–1.49 against 1.53–1.62 and
//! `pred` 1.33–1.40 against 1.54–1.56; those of `bf16` `T(8,128)(2,1)`
//! and `s4` the same within the noise, and all of them at 16 MiB, bound
//! by memory (two rounds). Storing the lanes as 32-byte vectors, after a
//! permute that pairs them, read no better. (An earlier four-row
//! interleave that permuted the rows first and ended in a byte shuffle
//! took 1.15–1.17 times SSE2's time.)
//!
//! SSE2 has no inverse of its unpacks: its deinterleave of four byte
//! rows takes four rounds of 16 unpacks per 64 bytes, of two rows
//! masks, shifts and saturating packs ([`super::split`]). Here
//! ([`deinterleave`]) every element size and factor takes three steps. A
//! 16-byte lane of
//! interleaved data holds `16 / (F w)` groups of `F` elements of `w`
//! bytes; one byte shuffle (`pshufb`, within each lane) sorts a lane by
//! row, into `F` chunks of `16 / F` bytes, one of each row. The chunks
//! of `F` vectors are then transposed within lanes (unpacks of 4- and
//! 8-byte chunks). Each vector is loaded as two 16-byte halves, input
//! vectors `m` and `F + m` of a step, so that the transpose leaves each
//! row's chunks in order, its first 16 bytes in lane 0: for four byte
//! rows, 4 shuffles and 8 unpacks per 128 bytes. Timed in turns with the
//! SSE2 kernel at 1 MiB (medians of three rounds), the unpacks of `bf16`
//! `T(8,128)(2,1)`, `s8` `T(8,128)(4,1)` and `u8` `T(32,128)(4,1)` took
//! 0.73–0.77 of its time, with whole 32-byte loads and a lane-crossing
//! permute (`vpermd`, `vpermq`) per row at the end; at 16 MiB, bound by
//! memory, both read the same within the noise. The split loads in place
//! of the permutes read 1.51 against 1.60 times `memcpy`'s time for
//! `bf16` (medians of six rounds in turns at 1 MiB), and the same within
//! the noise for the others.
//!
//! Rows that start 16 bytes past a 32-byte boundary, as those of a large
//! `Vec` do (its elements begin 16 bytes into a page), would take every
//! other 32-byte store across two cache lines; the deinterleave stores
//! such rows on a grid shifted by 16 bytes instead, each vector made of
//! two output halves (`vperm2i128`), with a 16-byte store at each end of
//! the row. On the Xeon of `BENCHMARKS.md`, in a scratch harness (run-time
//! layouts, `memcpy` reading the same source, two or three rounds in turns
//! with the straddling stores), the unpacks of 1 MiB took, in times over
//! `memcpy`'s: `s8` `T(8,128)(4,1)` 1.39–1.42 against 1.78–1.88, `bf16`
//! `T(8,128)(2,1)` 1.44–1.48 against 1.73–1.74, `u8` `T(32,128)(4,1)`
//! 1.38–1.41 against 2.05–2.07, `pred` 1.35–1.40 against 1.97–2.04, `s4`
//! `T(8,128)(2,1)E(4)` 1.29 against 1.46; shapes the bench does not name
//! as much (`s8[768,640]` 1.72–1.88 against 2.31–2.54, `s16[96,4096]`
//! `T(4,128)(2,1)` 1.48–1.57 against 1.95–2.00). Rows on a 32-byte
//! boundary read the same either way. Storing each 32-byte vector as two
//! 16-byte halves in place, which straddle no line either, read only
//! 5–10% better than the straddling stores: twice the stores.
//!
//! Streamed rows (destinations of `STREAM_FROM_BYTES` or more) take the
//! same grid, each vector on a 32-byte boundary one 32-byte streaming
//! store (`vmovntdq`) and the 16-byte ends 16-byte ones. They had taken
//! two 16-byte streaming stores per vector wherever they started. On the
//! Zen 3 machine of `BENCHMARKS.md`, in a scratch harness (run-time
//! layouts, rows on a line, in turns with the 16-byte stores in one
//! build, medians of nine rounds, two orders), the unpacks of 256 MiB
//! took, in times over `memcpy`'s: `s8` `T(8,128)(4,1)` 1.31–1.33
//! against 1.45–1.46, `u8` `T(32,128)(4,1)` 1.13 against 1.24, `bf16`
//! `T(8,128)(2,1)` 1.17 against 1.24; `s8` at 16 MiB 0.68 against 0.77.
//!
//! Where the blocks of a plane continue each other's rows (the tiles of a
//! band), rows 16 bytes past a 32-byte boundary are written across the
//! plane's blocks ([`deinterleave_shifted`]): the last 16 bytes of each
//! row of a block wait in a register and go out in one 32-byte store with
//! the next block's first 16. A row then takes 16-byte stores only at
//! its two ends, and each of its lines is written whole by two stores of
//! one block, one after the other; block by block, the line where two
//! blocks meet was written in two halves a block apart, which streamed
//! sends part of a line to memory alone. On the Zen 3 machine, in a
//! scratch harness (run-time layouts, destinations 16 bytes past a line,
//! in turns with the per-block stores and with the stage below, medians
//! of five to nine rounds, two orders), in times over `memcpy`'s: the
//! `s8` `T(8,128)(4,1)` unpack of `[16384,16384]` (256 MiB, rows of 16
//! KiB) 2.61–2.69 against 3.07–3.43 block by block and 3.23–3.35
//! through the stage, of `[6144,2944]` (17 MiB) 1.00–1.01 against
//! 1.02–1.13 and 1.20–1.66; the `bf16` `T(8,128)(2,1)` unpack of
//! `[16384,8192]` (256 MiB) 1.88–2.19 against 2.37–2.43, of
//! `[4096,2048]` (16 MiB) 1.52–1.71 against 1.82–1.85; `s8` and `u8`
//! with rows of 1 KiB at 16 MiB, and everything at 1 MiB, the same within
//! the noise. In the bench's matrix (rows of 1 KiB, in turns with the
//! code before; `BENCHMARKS.md`), the `s8` unpack of 256 MiB read
//! 1.37–1.45 against 1.78–1.81 through the stage, `s4`
//! `T(8,128)(2,1)E(4)` 1.20–1.29 against 1.49–1.84, `u8` and `pred` the
//! same within the noise, and `bf16` no better (1.27–1.39 against
//! 1.19–1.21). Four-row unpacks of such rows stream in place, without the
//! stage ([`super::deinterleave_grid`] says when a grid takes it). The
//! Xeon of `BENCHMARKS.md`, where the stage was measured, has not
//! measured this.
//!
//! Each function but [`deinterleave`] and [`deinterleave_shifted`]
//! inlines (`#[inline(always)]` in optimised builds) and has no
//! `target_feature` of its own: the callers are compiled for AVX2
//! ([`super::interleave_grid`]'s and [`super::deinterleave_grid`]'s
//! dispatch), and these inline into them.
//! In an unoptimised build they stay calls, compiled for the baseline;
//! they run only after the dispatch has found AVX2, so their intrinsics
//! are sound either way. [`deinterleave`] is compiled for AVX2 itself:
//! it is called from the block loop's closure, which the compiler
//! inlines into the AVX2 caller only while it is small. In a build where
//! the streamed grid above and a switch between two versions of it made
//! the closure larger, it stayed a function compiled for the baseline,
//! every intrinsic in it a call, and the unpacks took 9 to 22 times as
//! long. The parent commit's `benches/relayout.rs` binary already had one
//! such closure, the four-row unpack of packed `E(2)` fields, with 438
//! calls to intrinsics (`objdump`). Compiled for AVX2, the kernel keeps
//! its intrinsics inline whatever the compiler decides about its
//! callers: the same binary built with it has no call to an intrinsic in
//! any kernel. [`deinterleave_shifted`] is compiled for AVX2 for the same
//! reason: it is called from a closure per plane, and from
//! [`deinterleave`].

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_loadu2_m128i, _mm256_permute2x128_si256, _mm256_shuffle_epi8, _mm256_storeu_si256,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
};

use bytemuck::NoUninit;

use super::{shifted_rows, store_vector};
use crate::relayout::mix::Mix;
use crate::relayout::stream::stream_store_wide;

/// The byte shuffle that sorts a 16-byte lane of interleaved groups by
/// row, for `f` rows of `w`-byte elements, the same in both lanes: a
/// lane holds `g = 16 / (f w)` groups, element `j` of group `q` at byte
/// `(q f + j) w`; sorted, it is at `(j g + q) w`, row `j`'s elements
/// together. Entry `k` is the byte of the input lane that output byte
/// `k` takes (`pshufb`).
const fn lane_shuffle(f: usize, w: usize) -> [u8; 32] {
    let g = 16 / (f * w);
    let mut table = [0u8; 32];
    let mut j = 0;
    while j < f {
        let mut q = 0;
        while q < g {
            let mut b = 0;
            while b < w {
                let (grouped, sorted) = ((q * f + j) * w + b, (j * g + q) * w + b);
                table[sorted] = grouped as u8;
                table[sorted + 16] = grouped as u8;
                b += 1;
            }
            q += 1;
        }
        j += 1;
    }
    table
}

/// `x` with the bytes of each 16-byte lane taken as `table` says
/// ([`lane_shuffle`]); `x` itself when a lane is one group (`F w = 16`),
/// already sorted.
///
/// # Safety
/// The CPU has AVX2.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn shuffle_lanes<T, const F: usize>(x: __m256i, table: [u8; 32]) -> __m256i {
    if F * core::mem::size_of::<T>() == 16 {
        return x;
    }
    // SAFETY: `[u8; 32]` and `__m256i` are 32 bytes of plain data; the
    // shuffle reads and writes no memory, and the caller's CPU has AVX2.
    unsafe { _mm256_shuffle_epi8(x, core::mem::transmute::<[u8; 32], __m256i>(table)) }
}

/// Splits `F * vectors` 32-byte vectors at `a` into the `F` rows of
/// `vectors` vectors at `out + j * row_stride` (elements), as
/// [`super::vector_deinterleave`] does 16 bytes at a time; with
/// `STREAMING`, the output stores of row `j` whose addresses are in
/// `lines[j]` are streamed. A `COUNT` other than 0 is `vectors`, as a
/// constant ([`super::unrolled`]). Rows that all start 16 bytes past a
/// 32-byte boundary are stored on a grid shifted by 16 bytes (see the
/// [module docs](self)). Compiled for AVX2 (the module docs say why).
///
/// # Safety
/// The CPU has AVX2; `F` is 2 or 4 and `F * size_of::<T>()` divides 16;
/// `COUNT` is 0 or `vectors`;
/// `a` is valid for reads of `32 * F * vectors` bytes, and each row for
/// writes of `32 * vectors` bytes, not overlapping `a` or each other.
/// With `STREAMING`, the bounds of each range of `lines` are multiples of
/// 64, and the output vectors of its row whose addresses are in the range
/// are 16-byte aligned.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn deinterleave<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const COUNT: usize,
>(
    a: *const T,
    out: *mut T,
    row_stride: usize,
    vectors: usize,
    lines: [[usize; 2]; F],
) {
    let vectors = if COUNT > 0 { COUNT } else { vectors };
    // Rows that all start 16 bytes past a 32-byte boundary (as a large
    // `Vec`'s do) take their stores on the shifted grid (below), streamed
    // or not.
    if shifted_rows::<T>(out as usize, row_stride) && vectors > 0 {
        // SAFETY: the caller's contract, for one block.
        return unsafe {
            deinterleave_shifted::<T, M, F, STREAMING, COUNT>(
                a,
                out,
                row_stride,
                vectors,
                lines,
                [1, 0],
                || {},
            )
        };
    }
    let mut i = 0;
    while i < vectors {
        // SAFETY: as `deinterleave_step`'s contract, from this function's;
        // output vector `i < vectors` of each row is in bounds (the
        // caller's contract); the stores are the unaligned kind but for
        // streamed ones, 16-byte aligned (the caller's contract,
        // `store_wide`). The CPU has AVX2.
        unsafe {
            let rows = deinterleave_step::<T, M, F>(a, i);
            for (j, row) in rows.into_iter().enumerate() {
                let p = out.add(j * row_stride).cast::<__m256i>().add(i);
                store_wide::<STREAMING>(p, row, lines[j]);
            }
        }
        i += 1;
    }
}

/// [`deinterleave`] of `blocks[0]` blocks that continue each other's
/// rows, block `b` read from `a + b * blocks[1]` and written to the rows
/// `32 * vectors * b` bytes on from `out`, whose rows all start 16 bytes
/// past a 32-byte boundary: stored on the grid shifted by 16 bytes (see
/// the [module docs](self)) across the blocks, each block's last 16
/// bytes of each row carried into a 32-byte store with the next block's
/// first 16, so that only the ends of the plane's rows take 16-byte
/// stores. `each_block` is called before each block is read.
///
/// # Safety
/// The CPU has AVX2; `F`, `T` and `COUNT` as [`deinterleave`]'s;
/// `blocks[0] > 0` and `vectors > 0`; each block's source, `a + b *
/// blocks[1]` for `b < blocks[0]`, is valid for reads of `32 * F *
/// vectors` bytes, and each row at `out + j * row_stride` for writes of
/// `32 * vectors * blocks[0]` bytes, not overlapping the sources or each
/// other; the rows start 16 bytes past a 32-byte boundary, and
/// `row_stride * size_of::<T>()` is a multiple of 32. With `STREAMING`,
/// `lines` as [`deinterleave`]'s, for the rows' whole length.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn deinterleave_shifted<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const COUNT: usize,
>(
    a: *const T,
    out: *mut T,
    row_stride: usize,
    vectors: usize,
    lines: [[usize; 2]; F],
    [blocks, block_stride]: [usize; 2],
    mut each_block: impl FnMut(),
) {
    let vectors = if COUNT > 0 { COUNT } else { vectors };
    let per_block = 32 * vectors;
    // SAFETY: the steps as `deinterleave_step`'s contract, from this
    // function's (`i < vectors`, block `b < blocks`). Row `j` is valid for
    // writes of `32 * vectors * blocks` bytes (the caller's contract, its
    // blocks continuing each other): the stores take its first 16, then
    // bytes `32 k - 16 .. 32 k + 16` for `0 < k < vectors * blocks`, then
    // its last 16. Unaligned stores but for streamed ones, which are
    // aligned: the 16-byte ones start 16 bytes past a 32-byte boundary
    // (the caller's contract), the 32-byte ones on one (`store_wide`
    // streams only those). The CPU has AVX2, and the vectors' bytes are
    // whole elements of loaded ones (`deinterleave_step`): each 16-byte
    // half holds whole elements, as `size_of::<T>()` divides 16 (`F *
    // size_of::<T>()` does).
    unsafe {
        let row = |j: usize| out.add(j * row_stride).cast::<u8>();
        each_block();
        let mut last = deinterleave_step::<T, M, F>(a, 0);
        for (j, &first) in last.iter().enumerate() {
            let v = _mm256_castsi256_si128(first);
            store_vector::<STREAMING>(row(j).cast(), v, lines[j]);
        }
        let out = out.cast::<u8>();
        spanning_block::<T, M, F, STREAMING>(a, out, row_stride, 1..vectors, 0, &mut last, lines);
        for b in 1..blocks {
            each_block();
            let block = a.add(b * block_stride);
            let at = b * per_block;
            spanning_block::<T, M, F, STREAMING>(
                block,
                out,
                row_stride,
                0..vectors,
                at,
                &mut last,
                lines,
            );
        }
        for (j, &end) in last.iter().enumerate() {
            let p = row(j).add(blocks * per_block - 16);
            let v = _mm256_extracti128_si256::<1>(end);
            store_vector::<STREAMING>(p.cast(), v, lines[j]);
        }
    }
}

/// Vectors `range` of the block at `a` deinterleaved and stored on the
/// shifted grid of [`deinterleave_shifted`], `at` bytes into each row at
/// `out + j * row_stride` (elements), each spanning the one before it
/// (`last`, which then holds the block's last).
///
/// # Safety
/// As [`deinterleave_shifted`]'s for the block; `range.start > 0` or
/// `at >= 16`.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn spanning_block<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    a: *const T,
    out: *mut u8,
    row_stride: usize,
    range: core::ops::Range<usize>,
    at: usize,
    last: &mut [__m256i; F],
    lines: [[usize; 2]; F],
) {
    let row_bytes = row_stride * core::mem::size_of::<T>();
    for i in range {
        // SAFETY: the caller's contract, as `deinterleave_shifted` says.
        unsafe {
            let rows = deinterleave_step::<T, M, F>(a, i);
            let at = at + 32 * i - 16;
            for (j, (&next, &previous)) in rows.iter().zip(last.iter()).enumerate() {
                let spanning = _mm256_permute2x128_si256::<0x21>(previous, next);
                store_wide::<STREAMING>(out.add(j * row_bytes + at).cast(), spanning, lines[j]);
            }
            *last = rows;
        }
    }
}

/// Output vector `i` of each of the `F` rows that [`deinterleave`] splits
/// from input vectors `F i .. F i + F` at `a`, transformed by `M`.
///
/// # Safety
/// The CPU has AVX2; `F` is 2 or 4 and `F * size_of::<T>()` divides 16;
/// `a` is valid for reads of `32 * F * (i + 1)` bytes. The vectors' bytes
/// are whole elements of loaded ones: `T: NoUninit` has no uninitialised
/// bytes, and the shuffles and unpacks move whole elements (bytes of a
/// group stay together; chunks are whole groups).
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn deinterleave_step<T: NoUninit, M: Mix<T>, const F: usize>(
    a: *const T,
    i: usize,
) -> [__m256i; F] {
    let sort = const { lane_shuffle(F, core::mem::size_of::<T>()) };
    // SAFETY: input vectors `F i + m` (16-byte vectors `2 F i + m` and
    // `2 F i + F + m`) are in bounds (the caller's contract); unaligned
    // loads and register-only instructions of AVX2, which the CPU has.
    unsafe {
        // Lane 0 of `v[m]` is input 16-byte vector `m` of this step's
        // `2 F`, lane 1 vector `F + m`: each row's chunks then come
        // out of the unpacks in order, lane 0 its first 16 bytes.
        let p16 = a.cast::<__m128i>().add(2 * F * i);
        let v: [__m256i; F] = core::array::from_fn(|m| {
            let both = _mm256_loadu2_m128i(p16.add(F + m), p16.add(m));
            shuffle_lanes::<T, F>(both, sort)
        });
        let rows: [__m256i; F] = match F {
            2 => {
                // Lane `L` of vector `m` is `[row 0, row 1]` of chunk
                // `2L + m` (8 bytes); the unpacks gather row `j`'s as
                // chunks `0, 1 | 2, 3`.
                let w = [
                    _mm256_unpacklo_epi64(v[0], v[1]),
                    _mm256_unpackhi_epi64(v[0], v[1]),
                ];
                core::array::from_fn(|j| w[j])
            }
            _ => {
                // Lane `L` of vector `m` is rows 0 to 3 of chunk `4L +
                // m` (4 bytes); the 4 × 4 transpose within lanes gives
                // row `j`'s as chunks `0, 1, 2, 3 | 4, 5, 6, 7`.
                let t = [
                    _mm256_unpacklo_epi32(v[0], v[1]),
                    _mm256_unpackhi_epi32(v[0], v[1]),
                    _mm256_unpacklo_epi32(v[2], v[3]),
                    _mm256_unpackhi_epi32(v[2], v[3]),
                ];
                let w = [
                    _mm256_unpacklo_epi64(t[0], t[2]),
                    _mm256_unpackhi_epi64(t[0], t[2]),
                    _mm256_unpacklo_epi64(t[1], t[3]),
                    _mm256_unpackhi_epi64(t[1], t[3]),
                ];
                core::array::from_fn(|j| w[j])
            }
        };
        match M::WHOLE {
            true => rows,
            false => M::wide_vectors(rows),
        }
    }
}

/// Interleaves 32 bytes of each of the `F` rows at `a + j * row_stride`
/// at a time into `F * vectors` 32-byte vectors at `out`, as
/// [`super::vector_interleave`] does 16 bytes at a time. The unpacks work
/// within 16-byte lanes, so lane `L` of each result is what SSE2's
/// unpacks make of input vector `2 i + L`: the same rounds take half the
/// instructions, and each result's lanes are stored as the 16-byte output
/// vectors they are, with no lane-crossing permute (for four byte rows, 8
/// unpacks per 128 bytes, where SSE2 takes 16). With `STREAMING`, the
/// output vectors whose addresses are in `lines` are streamed.
///
/// # Safety
/// The CPU has AVX2; `F` is 2 or 4; each row at `a + j * row_stride` is
/// valid for reads of `32 * vectors` bytes, and `out` for writes of `32 *
/// F * vectors` bytes, not overlapping the rows. With `STREAMING`, the
/// bounds of `lines` are multiples of 64, and the output vectors whose
/// addresses are in it are 16-byte aligned.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) unsafe fn interleave<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    a: *const T,
    row_stride: usize,
    out: *mut T,
    vectors: usize,
    lines: [usize; 2],
) {
    use core::arch::x86_64::{_mm256_castsi256_si128, _mm256_extracti128_si256};
    let width = core::mem::size_of::<T>();
    let po = out.cast::<__m128i>();
    let mut i = 0;
    while i < vectors {
        // Input vector `i` of each row (16-byte vectors `2 i` and `2 i +
        // 1`) to the 16-byte output vectors `2 F i .. 2 F i + 2 F`.
        // SAFETY: vector `i < vectors` of each row is in bounds, and so
        // are the output vectors (the caller's contract); those in `lines`
        // are 16-byte aligned, the other stores and the loads are the
        // unaligned kind. `T: NoUninit` has no uninitialised bytes, and
        // the unpacks move whole elements, so each stored element is a
        // bitwise copy of a loaded one. The CPU has AVX2.
        unsafe {
            let rows: [__m256i; F] = core::array::from_fn(|j| {
                _mm256_loadu_si256(a.add(j * row_stride).cast::<__m256i>().add(i))
            });
            let rows = match M::WHOLE {
                true => rows,
                false => M::wide_vectors(rows),
            };
            let [low, high] = unpack_lanes(width, rows[0], rows[1]);
            let results: [__m256i; F] = match F {
                2 => core::array::from_fn(|m| [low, high][m]),
                _ => {
                    let [low2, high2] = unpack_lanes(width, rows[2], rows[3]);
                    let [g0, g1] = unpack_lanes(2 * width, low, low2);
                    let [g2, g3] = unpack_lanes(2 * width, high, high2);
                    core::array::from_fn(|m| [g0, g1, g2, g3][m])
                }
            };
            for (m, &g) in results.iter().enumerate() {
                store_vector::<STREAMING>(po.add(2 * F * i + m), _mm256_castsi256_si128(g), lines);
            }
            for (m, &g) in results.iter().enumerate() {
                let high_lane = _mm256_extracti128_si256::<1>(g);
                store_vector::<STREAMING>(po.add(2 * F * i + F + m), high_lane, lines);
            }
        }
        i += 1;
    }
}

/// The low and high halves of each 16-byte lane of `x` and `y`
/// interleaved in lanes of `width` bytes (1, 2, 4 or 8), lane by lane as
/// SSE2's [`unpack`](super::unpack): AVX2's `unpacklo` and `unpackhi`.
///
/// # Safety
/// The CPU has AVX2.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn unpack_lanes(width: usize, x: __m256i, y: __m256i) -> [__m256i; 2] {
    use core::arch::x86_64::*;
    // SAFETY: the caller's CPU has AVX2; the unpacks read and write no
    // memory.
    unsafe {
        match width {
            1 => [_mm256_unpacklo_epi8(x, y), _mm256_unpackhi_epi8(x, y)],
            2 => [_mm256_unpacklo_epi16(x, y), _mm256_unpackhi_epi16(x, y)],
            4 => [_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)],
            _ => [_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)],
        }
    }
}

/// Stores `v` at `p`: when `STREAMING` and `p` is in the lines `[lo,
/// hi)`, with one 32-byte streaming store if `p` is 32-byte aligned, else
/// as two 16-byte [`store_vector`]s (streamed, each half aligned); else
/// with one unaligned 32-byte store.
///
/// # Safety
/// The CPU has AVX2; `p` is valid for a 32-byte write, and 16-byte
/// aligned if `STREAMING` and in `[lo, hi)`.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn store_wide<const STREAMING: bool>(p: *mut __m256i, v: __m256i, lines: [usize; 2]) {
    use core::arch::x86_64::{_mm256_castsi256_si128, _mm256_extracti128_si256};
    let [lo, hi] = lines;
    // SAFETY: the caller's contract; a streamed `p` in `[lo, hi)` is
    // 16-byte aligned, and so is `p + 16`, which `store_vector` streams
    // when it is in the lines too (a normal store otherwise); the
    // 32-byte streaming store takes a 32-byte aligned `p`, whose 32 bytes
    // lie in one line of `[lo, hi)` (the bounds are multiples of 64).
    unsafe {
        if STREAMING && (p as usize).wrapping_sub(lo) < hi.wrapping_sub(lo) {
            if (p as usize).is_multiple_of(32) {
                return stream_store_wide(p, v);
            }
            let half = p.cast::<__m128i>();
            store_vector::<STREAMING>(half, _mm256_castsi256_si128(v), lines);
            store_vector::<STREAMING>(half.add(1), _mm256_extracti128_si256::<1>(v), lines);
        } else {
            _mm256_storeu_si256(p, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lane_shuffle;

    /// The sorted lane holds row `j`'s elements together, in order, the
    /// same in both lanes, and takes every input byte once.
    #[test]
    fn lane_shuffles_sort_by_row() {
        for (f, w) in [(2, 1), (2, 2), (2, 4), (2, 8), (4, 1), (4, 2), (4, 4)] {
            let sort = lane_shuffle(f, w);
            assert_eq!(sort[..16], sort[16..], "{f} {w}");
            let mut taken = [false; 16];
            for &k in &sort[..16] {
                taken[usize::from(k)] = true;
            }
            assert!(taken.iter().all(|&t| t), "{f} {w}: {sort:?}");
            // Byte `b` of element `q` of row `j` (16 / (f w) elements).
            let g = 16 / (f * w);
            for j in 0..f {
                for q in 0..g {
                    for b in 0..w {
                        assert_eq!(sort[(j * g + q) * w + b] as usize, (q * f + j) * w + b);
                    }
                }
            }
        }
    }
}
