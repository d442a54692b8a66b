//! The row deinterleave in AVX2's 32-byte vectors: 32 bytes of each of
//! the `F` rows at a time, when the CPU has AVX2
//! ([`has_avx2`](crate::relayout::isa::has_avx2)).
//!
//! SSE2 has no inverse of its unpacks: its deinterleave of four byte
//! rows takes four rounds of 16 unpacks per 64 bytes, of two rows
//! masks, shifts and saturating packs ([`super::split`]). Here every
//! element size and factor takes three steps. A 16-byte lane of
//! interleaved data holds `16 / (F w)` groups of `F` elements of `w`
//! bytes; one byte shuffle (`pshufb`, within each lane) sorts a lane by
//! row, into `F` chunks of `16 / F` bytes, one of each row. The chunks
//! of `F` vectors are then transposed within lanes (unpacks of 4- and
//! 8-byte chunks), and one lane-crossing permute (`vpermd`, `vpermq`)
//! puts each row's chunks in order: for four byte rows, 4 shuffles, 8
//! unpacks and 4 permutes per 128 bytes. Timed in turns with the SSE2
//! kernel at 1 MiB (medians of three rounds), the unpacks of `bf16`
//! `T(8,128)(2,1)`, `s8` `T(8,128)(4,1)` and `u8` `T(32,128)(4,1)` took
//! 0.73–0.77 of its time; at 16 MiB, bound by memory, both read the
//! same within the noise.
//! (The interleave stays with SSE2's unpacks, which double a group per
//! round: see [`super::interleave_grid`].)
//!
//! Each function is `#[inline(always)]` without a `target_feature` of its
//! own: the callers are compiled for AVX2 ([`super::deinterleave_grid`]'s
//! dispatch), and these inline into them.

use core::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32,
    _mm256_setr_epi32, _mm256_shuffle_epi8, _mm256_storeu_si256, _mm256_unpackhi_epi32,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
};

use bytemuck::NoUninit;

use super::store_vector;
use crate::relayout::mix::Mix;

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
#[inline(always)]
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
/// `STREAMING`, the output vectors of row `j` whose addresses are in
/// `lines[j]` are streamed.
///
/// # Safety
/// The CPU has AVX2; `F` is 2 or 4 and `F * size_of::<T>()` divides 16;
/// `a` is valid for reads of `32 * F * vectors` bytes, and each row for
/// writes of `32 * vectors` bytes, not overlapping `a` or each other.
/// With `STREAMING`, the bounds of each range of `lines` are multiples of
/// 64, and the output vectors of its row whose addresses are in the range
/// are 16-byte aligned.
#[inline(always)]
pub(super) unsafe fn deinterleave<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    a: *const T,
    out: *mut T,
    row_stride: usize,
    vectors: usize,
    lines: [[usize; 2]; F],
) {
    let sort = const { lane_shuffle(F, core::mem::size_of::<T>()) };
    let pa = a.cast::<__m256i>();
    let mut i = 0;
    while i < vectors {
        // Input vectors `F i .. F i + F` to output vector `i` of each row.
        // SAFETY: input vectors `F i + m < F * vectors` and output vectors
        // `i < vectors` of each row are in bounds (the caller's contract);
        // the loads and stores are the unaligned kind but for streamed
        // ones, 16-byte aligned (the caller's contract, `store_wide`).
        // `T: NoUninit` has no uninitialised bytes, and the shuffles,
        // unpacks and permutes move whole elements (bytes of a group stay
        // together; chunks are whole groups), so each stored element is a
        // bitwise copy of a loaded one. The CPU has AVX2.
        unsafe {
            let v: [__m256i; F] = core::array::from_fn(|m| {
                shuffle_lanes::<T, F>(_mm256_loadu_si256(pa.add(F * i + m)), sort)
            });
            let rows: [__m256i; F] = match F {
                2 => {
                    // Lane `L` of vector `m` is `[row 0, row 1]` of chunk
                    // `2m + L` (8 bytes); the unpacks gather row `j`'s as
                    // chunks `0, 2 | 1, 3`, and the permute orders them.
                    let w = [
                        _mm256_unpacklo_epi64(v[0], v[1]),
                        _mm256_unpackhi_epi64(v[0], v[1]),
                    ];
                    core::array::from_fn(|j| _mm256_permute4x64_epi64::<0b11_01_10_00>(w[j]))
                }
                _ => {
                    // Lane `L` of vector `m` is rows 0 to 3 of chunk `2m +
                    // L` (4 bytes); the 4 × 4 transpose within lanes gives
                    // row `j`'s as chunks `0, 2, 4, 6 | 1, 3, 5, 7`.
                    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
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
                    core::array::from_fn(|j| _mm256_permutevar8x32_epi32(w[j], order))
                }
            };
            let rows = match M::WHOLE {
                true => rows,
                false => M::wide_vectors(rows),
            };
            for (j, row) in rows.into_iter().enumerate() {
                let p = out.add(j * row_stride).cast::<__m256i>().add(i);
                store_wide::<STREAMING>(p, row, lines[j]);
            }
        }
        i += 1;
    }
}

/// Stores `v` at `p`, as two 16-byte [`store_vector`]s when `STREAMING`
/// and `p` is in the lines `[lo, hi)` (streamed, each half aligned), else
/// with one unaligned 32-byte store.
///
/// # Safety
/// The CPU has AVX2; `p` is valid for a 32-byte write, and 16-byte
/// aligned if `STREAMING` and in `[lo, hi)`.
#[inline(always)]
unsafe fn store_wide<const STREAMING: bool>(p: *mut __m256i, v: __m256i, lines: [usize; 2]) {
    use core::arch::x86_64::{__m128i, _mm256_castsi256_si128, _mm256_extracti128_si256};
    let [lo, hi] = lines;
    // SAFETY: the caller's contract; a streamed `p` in `[lo, hi)` is
    // 16-byte aligned, and so is `p + 16`, which `store_vector` streams
    // when it is in the lines too (a normal store otherwise).
    unsafe {
        if STREAMING && (p as usize).wrapping_sub(lo) < hi.wrapping_sub(lo) {
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
