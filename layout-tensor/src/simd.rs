//! Vector kernels for relayouts that the compiler does not vectorise well
//! on its own: the row interleave of `T(2,1)` sub-tiles (`bf16`'s
//! `T(8,128)(2,1)`).
//!
//! Written as plain loops, the interleave becomes 8-byte loads and one
//! unpack per 16 bytes written; with SSE2's 16-byte loads and
//! `unpacklo`/`unpackhi` it measured 1.2–1.3× faster (BENCHMARKS.md).
//! [`interleave2`] is a safe function over three slices; `.ci/run` runs
//! its tests under Miri.
#![allow(unsafe_code)]

use bytemuck::NoUninit;

/// `out[2 * r] = a[r]` and `out[2 * r + 1] = b[r]` for every `r <
/// a.len()`.
///
/// On x86-64, elements of 2 or 4 bytes go 16 bytes of each row at a time
/// through SSE2 unpacks; other sizes, other targets and the last few
/// elements take a plain loop.
///
/// # Panics
/// If `b.len() != a.len()` or `out.len() != 2 * a.len()`.
#[inline]
pub(crate) fn interleave2<T: NoUninit>(a: &[T], b: &[T], out: &mut [T]) {
    assert!(
        b.len() == a.len() && out.len() == 2 * a.len(),
        "interleave of unequal lengths"
    );
    let done = vector_interleave2(a, b, out);
    for ((o, &x), &y) in out[2 * done..]
        .chunks_exact_mut(2)
        .zip(&a[done..])
        .zip(&b[done..])
    {
        o[0] = x;
        o[1] = y;
    }
}

/// The vector part of [`interleave2`]: interleaves the first `n` elements
/// of each row, `n` a whole number of 16-byte vectors, and returns `n`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn vector_interleave2<T: NoUninit>(a: &[T], b: &[T], out: &mut [T]) -> usize {
    use core::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpacklo_epi16, _mm_unpacklo_epi32,
    };
    let size = core::mem::size_of::<T>();
    if size != 2 && size != 4 {
        return 0;
    }
    let per_vector = 16 / size;
    let vectors = a.len() / per_vector;
    let (pa, pb) = (a.as_ptr().cast::<__m128i>(), b.as_ptr().cast::<__m128i>());
    let po = out.as_mut_ptr().cast::<__m128i>();
    let mut i = 0;
    while i < vectors {
        // SAFETY: `a` and `b` hold `a.len() >= 16 * vectors / size`
        // elements of `size` bytes, so vector `i < vectors` of each is in
        // bounds; `out` holds twice as many (checked by the caller), so
        // its vectors `2i` and `2i + 1` are too. The loads and stores are
        // the unaligned kind. The three slices do not overlap (two shared
        // borrows and a mutable one). `T: NoUninit` has no uninitialised
        // bytes to load, and the unpacks move whole elements (2- or
        // 4-byte lanes, as `size`), so each stored element is a bitwise
        // copy of a loaded one. SSE2 is enabled on every x86-64 target.
        unsafe {
            let x = _mm_loadu_si128(pa.add(i));
            let y = _mm_loadu_si128(pb.add(i));
            let (lo, hi) = if size == 2 {
                (_mm_unpacklo_epi16(x, y), _mm_unpackhi_epi16(x, y))
            } else {
                (_mm_unpacklo_epi32(x, y), _mm_unpackhi_epi32(x, y))
            };
            _mm_storeu_si128(po.add(2 * i), lo);
            _mm_storeu_si128(po.add(2 * i + 1), hi);
        }
        i += 1;
    }
    vectors * per_vector
}

/// No vector kernel on this target: the caller's loop does it all.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn vector_interleave2<T: NoUninit>(_: &[T], _: &[T], _: &mut [T]) -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::interleave2;

    /// Every length around the vector sizes, at every start within a
    /// vector, for 1-, 2-, 4- and 8-byte elements, against the plain
    /// definition (Miri runs this: it checks every access is in bounds).
    #[test]
    fn interleaves_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            const N: usize = 40;
            let src: [T; 2 * N + 8] = core::array::from_fn(&make);
            for start in 0..4 {
                for len in 0..=N {
                    let a = &src[start..start + len];
                    let b = &src[N + start..N + start + len];
                    let mut out: [T; 2 * N + 4] = core::array::from_fn(|i| make(i + 1000));
                    let mut expected = out;
                    for r in 0..len {
                        expected[start + 2 * r] = a[r];
                        expected[start + 2 * r + 1] = b[r];
                    }
                    interleave2(a, b, &mut out[start..start + 2 * len]);
                    assert_eq!(out, expected, "start {start}, len {len}");
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
        check(|i| i as u64);
    }

    #[test]
    #[should_panic(expected = "unequal lengths")]
    fn unequal_lengths_panic() {
        interleave2(&[1u16, 2], &[3u16], &mut [0u16; 3]);
    }
}
