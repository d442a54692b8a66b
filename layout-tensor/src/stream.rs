//! Streaming (non-temporal) stores for relayouts too large for the caches.
//!
//! A normal store first reads the destination's cache line (read for
//! ownership), so a copy of `n` bytes that misses the caches moves `3n`
//! bytes over the memory bus; a streaming store writes the line without
//! reading it and keeps it out of the caches, moving `2n`. That pays only
//! when the destination would not stay in the cache anyway: below about
//! half the last-level cache, normal stores win (the data is reused from
//! the cache by whoever reads it next, and streaming stores have their own
//! cost). Measured in `benches/relayout.rs` (BENCHMARKS.md).
//!
//! This is the crate's only `unsafe` code: [`Streamer::copy`] is a safe
//! function over two slices, and `.ci/run` runs its tests under Miri.
#![allow(unsafe_code)]

/// Destinations of at least this many bytes are written with streaming
/// stores where the target has them (x86-64): half the last-level cache of
/// a typical 16 MiB-L3 part. Tuned on the benchmark machine (32 MiB L3):
/// streaming was 1.2–1.6× faster than normal stores at 16 MiB, and slower
/// at 1 MiB (BENCHMARKS.md).
pub(crate) const STREAM_FROM_BYTES: usize = 8 << 20;

/// Copies runs with streaming stores; dropping it issues the store fence
/// that orders them before any later store (so another thread that is
/// handed the buffer afterwards sees the data).
pub(crate) struct Streamer {
    _private: (),
}

impl Streamer {
    /// A streamer, if the target has streaming stores (x86-64, where SSE2
    /// is part of the base instruction set).
    pub(crate) fn new() -> Option<Streamer> {
        if cfg!(target_arch = "x86_64") {
            Some(Streamer { _private: () })
        } else {
            None
        }
    }

    /// `dst.copy_from_slice(src)`, writing the 64-byte cache lines that
    /// `dst` covers whole with streaming stores and its ends with normal
    /// ones. (A line written partly by streaming stores and partly by
    /// normal ones, from this run and its neighbour, costs a round trip to
    /// memory: 3–10× slower in the benchmarks. Line-sized granules keep
    /// every line to one kind of store.)
    ///
    /// # Panics
    /// If the lengths differ (as `copy_from_slice`).
    #[inline]
    pub(crate) fn copy<T: Copy>(&mut self, src: &[T], dst: &mut [T]) {
        assert_eq!(src.len(), dst.len(), "stream copy of unequal lengths");
        #[cfg(target_arch = "x86_64")]
        {
            const LINE: usize = 64;
            let bytes = core::mem::size_of_val(src);
            let s = src.as_ptr().cast::<u8>();
            let d = dst.as_mut_ptr().cast::<u8>();
            let head = d.align_offset(LINE).min(bytes);
            let lines = (bytes - head) / LINE;
            let tail = bytes - head - lines * LINE;
            // SAFETY: `src` and `dst` are `bytes` bytes long (equal element
            // counts of one type) and do not overlap (a shared and a
            // mutable borrow). The three parts `[0, head)`, `[head, head +
            // 64 * lines)`, `[.., bytes)` split that range, so every
            // access below is in bounds of both. `d + head` is 64-byte
            // aligned (`align_offset`), so every 16-byte store is 16-byte
            // aligned, as `_mm_stream_si128` requires; the loads are
            // unaligned loads. SSE2 is enabled on every x86-64 target.
            // Copying the bytes of `T: Copy` values (the ends may split an
            // element) leaves a bitwise copy of each element once all three
            // parts are done, and nothing reads `dst` in between.
            unsafe {
                use core::arch::x86_64::{__m128i, _mm_loadu_si128};
                core::ptr::copy_nonoverlapping(s, d, head);
                let (s_lines, d_lines) = (s.add(head), d.add(head));
                let mut i = 0;
                while i < lines * (LINE / 16) {
                    let v = _mm_loadu_si128(s_lines.add(16 * i).cast::<__m128i>());
                    stream_store(d_lines.add(16 * i).cast::<__m128i>(), v);
                    i += 1;
                }
                let end = head + LINE * lines;
                core::ptr::copy_nonoverlapping(s.add(end), d.add(end), tail);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        dst.copy_from_slice(src);
    }
}

/// One streaming store (`movntdq`). Miri cannot run the instruction (the
/// standard library writes it in inline assembly), so under Miri it is a
/// normal aligned store, which Miri checks for bounds and alignment alike.
///
/// # Safety
/// `p` is valid for a 16-byte write and 16-byte aligned.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn stream_store(
    p: *mut core::arch::x86_64::__m128i,
    v: core::arch::x86_64::__m128i,
) {
    // SAFETY: the caller's contract.
    #[cfg(not(miri))]
    unsafe {
        core::arch::x86_64::_mm_stream_si128(p, v)
    };
    // SAFETY: the caller's contract.
    #[cfg(miri)]
    unsafe {
        p.write(v)
    };
}

impl Drop for Streamer {
    fn drop(&mut self) {
        // SAFETY: `sfence` has no memory operands and no preconditions;
        // SSE is enabled on every x86-64 target. (Miri cannot run it, and
        // needs no fence: its streaming stores are normal stores.)
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        unsafe {
            core::arch::x86_64::_mm_sfence()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::Streamer;

    /// Lengths and starts around the 16- and 64-byte boundaries, against
    /// `copy_from_slice`, for one-, two- and four-byte elements (Miri runs
    /// this: it checks every access is in bounds and aligned).
    #[test]
    fn copies_like_copy_from_slice() {
        fn check<T: Copy + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            const N: usize = 300;
            let src: [T; N] = core::array::from_fn(&make);
            let starts = [0, 1, 2, 3, 15, 16, 17, 31, 63, 64, 65];
            let lens = [0, 1, 15, 16, 17, 33, 63, 64, 65, 127, 128, 129, 200];
            for start in starts {
                for len in lens {
                    let mut dst: [T; N] = core::array::from_fn(|i| make(i + 1000));
                    let mut expected = dst;
                    expected[start..start + len].copy_from_slice(&src[..len]);
                    Streamer::new()
                        .expect("x86-64 streams")
                        .copy(&src[..len], &mut dst[start..start + len]);
                    assert_eq!(dst, expected, "start {start}, len {len}");
                }
            }
        }
        if Streamer::new().is_none() {
            return; // nothing to test on this target
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
    }

    #[test]
    #[should_panic(expected = "unequal lengths")]
    fn unequal_lengths_panic() {
        if let Some(mut s) = Streamer::new() {
            s.copy(&[1u8, 2], &mut [0u8; 3]);
        } else {
            panic!("unequal lengths (no streamer on this target)");
        }
    }
}
