//! Vector kernels for relayouts that the compiler does not vectorise well
//! on its own: the row interleave of `T(2,1)` sub-tiles (`bf16`'s
//! `T(8,128)(2,1)`).
//!
//! Written as plain loops, the interleave becomes 8-byte loads and one
//! unpack per 16 bytes written; with SSE2's 16-byte loads and
//! `unpacklo`/`unpackhi` it measured 1.2–1.3× faster (BENCHMARKS.md).
//! Destinations too large for the caches take streaming stores for the
//! lines the vectors cover whole ([`interleave2_streaming`], as
//! [`Streamer::copy`]). Both are safe functions over three slices;
//! `.ci/run` runs their tests under Miri.
#![allow(unsafe_code)]

use bytemuck::NoUninit;

use crate::stream::Streamer;

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
    let done = vector_interleave2(a, b, out, false);
    finish_interleave2(a, b, out, done);
}

/// [`interleave2`] writing the 64-byte cache lines that its vectors cover
/// whole with streaming stores (see [`Streamer::copy`]; the lines at the
/// ends, shared with the neighbouring blocks, take normal stores).
///
/// # Panics
/// As [`interleave2`].
#[inline]
pub(crate) fn interleave2_streaming<T: NoUninit>(
    a: &[T],
    b: &[T],
    out: &mut [T],
    _streamer: &mut Streamer,
) {
    assert!(
        b.len() == a.len() && out.len() == 2 * a.len(),
        "interleave of unequal lengths"
    );
    let done = vector_interleave2(a, b, out, true);
    finish_interleave2(a, b, out, done);
}

/// The elements of [`interleave2`] from `done` on, one by one.
#[inline(always)]
fn finish_interleave2<T: NoUninit>(a: &[T], b: &[T], out: &mut [T], done: usize) {
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
/// With `streaming`, the output vectors that make up whole 64-byte lines
/// are streamed (only when `out` is 16-byte aligned, so every vector
/// store is).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn vector_interleave2<T: NoUninit>(a: &[T], b: &[T], out: &mut [T], streaming: bool) -> usize {
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
    // Output vectors `[first, first + streamed)` fill whole lines.
    let (first, streamed) = if streaming && (po as usize).is_multiple_of(16) {
        let first = ((64 - po as usize % 64) % 64 / 16).min(2 * vectors);
        (first, (2 * vectors - first) / 4 * 4)
    } else {
        (0, 0)
    };
    // Stores output vector `j`; called only with `p = po.add(j)`, `j < 2 *
    // vectors` (by the loop below).
    let store = |j: usize, p: *mut __m128i, v: __m128i| {
        // SAFETY: `p` is output vector `j < 2 * vectors` of `out`, in
        // bounds (see the loop); when `j` is in the streamed range, `out` is
        // 16-byte aligned, so `p` is too, as a streaming store requires.
        unsafe {
            if j.wrapping_sub(first) < streamed {
                crate::stream::stream_store(p, v);
            } else {
                _mm_storeu_si128(p, v);
            }
        }
    };
    let mut i = 0;
    while i < vectors {
        // Input vector `i` of each row to output vectors `2i`, `2i + 1`.
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
            store(2 * i, po.add(2 * i), lo);
            store(2 * i + 1, po.add(2 * i + 1), hi);
        }
        i += 1;
    }
    vectors * per_vector
}

/// No vector kernel on this target: the caller's loop does it all.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn vector_interleave2<T: NoUninit>(_: &[T], _: &[T], _: &mut [T], _: bool) -> usize {
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

    /// The streaming variant, into a 64-byte-aligned buffer at every
    /// element offset within a line, so that output vectors start on and
    /// off 16-byte alignment and whole lines are streamed (Miri checks
    /// every streamed store is in bounds and 16-byte aligned).
    #[test]
    fn streaming_interleaves_like_the_definition() {
        #[repr(C, align(64))]
        struct Lines<T>([T; 160]);
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let mut streamer = crate::stream::Streamer::new();
            let Some(streamer) = streamer.as_mut() else {
                return; // no streaming stores on this target
            };
            let src: [T; 80] = core::array::from_fn(&make);
            for start in 0..64 / core::mem::size_of::<T>() {
                for len in [0, 1, 7, 8, 9, 16, 24, 31, 32, 33, 40, 47] {
                    let (a, b) = (&src[..len], &src[33..33 + len]);
                    let mut out = Lines(core::array::from_fn(|i| make(i + 1000)));
                    let mut expected = out.0;
                    for r in 0..len {
                        expected[start + 2 * r] = a[r];
                        expected[start + 2 * r + 1] = b[r];
                    }
                    super::interleave2_streaming(
                        a,
                        b,
                        &mut out.0[start..start + 2 * len],
                        streamer,
                    );
                    assert_eq!(out.0, expected, "start {start}, len {len}");
                }
            }
        }
        check(|i| i as u16);
        check(|i| i as f32);
    }

    #[test]
    #[should_panic(expected = "unequal lengths")]
    fn unequal_lengths_panic() {
        interleave2(&[1u16, 2], &[3u16], &mut [0u16; 3]);
    }
}
