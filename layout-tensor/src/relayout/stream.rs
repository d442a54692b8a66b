//! Streaming (non-temporal) stores and source prefetch for relayouts too
//! large for the caches.
//!
//! A normal store first reads the destination's cache line (read for
//! ownership), so a copy of `n` bytes that misses the caches moves `3n`
//! bytes over the memory bus; a streaming store writes the line without
//! reading it and keeps it out of the caches, moving `2n`. That pays only
//! when the destination would not stay in the cache anyway: below about
//! half the last-level cache, normal stores win (the data is reused from
//! the cache by whoever reads it next, and streaming stores have their own
//! cost). `benches/relayout.rs` measures both (BENCHMARKS.md).
//!
//! One of the relayout kernels' modules with `unsafe` code (with `simd`
//! and `transpose`):
//! [`StreamWriter`] is safe to use, and `.ci/run` runs its tests under
//! Miri.
#![allow(unsafe_code)]

/// Destinations of at least this many bytes are written with streaming
/// stores where the target has them (x86-64): half the last-level cache of
/// a typical 16 MiB-L3 part: above it streaming stores are faster than
/// normal ones, below it slower (the benchmark groups of 1 and 16 MiB in
/// `benches/relayout.rs`).
///
/// Fuzz builds (`cfg(fuzzing)`, which cargo-fuzz sets) stream from 16 KiB,
/// so that the fuzzer reaches the streaming paths with inputs it can run
/// thousands of times a second; the paths are the same, only where they
/// start moves.
#[cfg(not(fuzzing))]
pub(crate) const STREAM_FROM_BYTES: usize = 8 << 20;
/// The fuzz builds' threshold (see above).
#[cfg(fuzzing)]
pub(crate) const STREAM_FROM_BYTES: usize = 16 << 10;

/// Bytes per cache line, the unit of a streaming store's write.
const LINE: usize = 64;

/// A cache line's bytes, aligned as one.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; LINE]);

/// Writes runs into a destination buffer with streaming stores; dropping
/// it issues the store fence that orders them before any later store (so
/// another thread that is handed the buffer afterwards sees the data).
///
/// A streaming store writes a whole 64-byte line. A line that a run covers
/// only in part is shared with the neighbouring run, and writing it partly
/// with streaming stores and partly with normal ones costs a round trip to
/// memory; writing it with normal stores
/// reads the line first. So the writer keeps the part of a line at a run's
/// end and, when the next run continues right there (the next row of a
/// tile, the next piece of a row-major row), completes the line and
/// streams it whole. Only lines where the runs are not contiguous (before
/// padding, between tiles that are not adjacent) take normal stores. Runs
/// of 512 bytes into a buffer that is not 64-byte aligned (as `Vec`'s
/// large allocations are not) otherwise write 2 of every 9 lines with
/// normal stores.
pub(crate) struct StreamWriter<'a, T> {
    dst: &'a mut [T],
    /// Byte offset, in `dst`, of the line being completed: its first
    /// `filled` bytes are in `line` and not yet in `dst` (`filled == 0`:
    /// no such line).
    at: usize,
    filled: usize,
    line: Line,
    /// Whether dropping the writer issues the store fence
    /// ([`StreamWriter::unfenced`]: not).
    fence: bool,
}

impl<'a, T: bytemuck::NoUninit> StreamWriter<'a, T> {
    /// A writer into `dst`, if the target has streaming stores (x86-64,
    /// where SSE2 is part of the base instruction set).
    pub(crate) fn new(dst: &'a mut [T]) -> Option<StreamWriter<'a, T>> {
        if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
            Some(StreamWriter {
                dst,
                at: 0,
                filled: 0,
                line: Line([0; LINE]),
                fence: true,
            })
        } else {
            None
        }
    }

    /// A writer into `dst` whose drop writes the waiting part of a line
    /// but issues no fence: for a kernel that streams within a walk
    /// whose own writer fences when the walk ends, as every kernel
    /// called with streaming stores leaves its fence to its caller.
    pub(crate) fn unfenced(dst: &'a mut [T]) -> Option<StreamWriter<'a, T>> {
        let mut writer = StreamWriter::new(dst)?;
        writer.fence = false;
        Some(writer)
    }

    /// The destination, every run copied so far written to it (for stores
    /// of other kinds; streaming stores made through it are ordered by
    /// the writer's fence too).
    pub(crate) fn flushed(&mut self) -> &mut [T] {
        self.flush();
        self.dst
    }

    /// `dst[at..at + src.len()].copy_from_slice(src)`, with streaming
    /// stores for the lines the run completes (the last line, if partial,
    /// waits for the next run).
    ///
    /// # Panics
    /// If the run reaches past the destination (as slicing).
    #[inline]
    pub(crate) fn copy(&mut self, src: &[T], at: usize) {
        let end = at.checked_add(src.len()).expect("stream run out of bounds");
        assert!(end <= self.dst.len(), "stream run out of bounds");
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            let size = core::mem::size_of::<T>();
            let mut s = src.as_ptr().cast::<u8>();
            let mut bytes = size_of_val(src);
            let mut d = at * size; // byte offset in `dst`
            if self.filled > 0 && d != self.at + self.filled {
                self.flush();
            }
            if self.filled > 0 {
                // Continue the waiting line.
                let take = bytes.min(LINE - self.filled);
                // SAFETY: `s` is valid for `bytes >= take` bytes of
                // reads; `filled + take <= LINE`, so the write is in
                // `line`. `T: NoUninit`: the bytes are initialised.
                unsafe {
                    let to = self.line.0.as_mut_ptr().add(self.filled);
                    core::ptr::copy_nonoverlapping(s, to, take);
                    s = s.add(take);
                }
                self.filled += take;
                bytes -= take;
                d += take;
                if self.filled < LINE {
                    return; // the run ended inside the line
                }
                // SAFETY: the line's bytes `[at, at + LINE)` are in
                // `dst`: they start at a byte of an earlier run and end
                // at a byte of this one. `dst`'s byte `at` is 64-byte
                // aligned (`at` was a line start when the line began).
                unsafe {
                    let to = self.dst.as_mut_ptr().cast::<u8>().add(self.at);
                    stream_line(to, &self.line);
                };
                self.filled = 0;
            }
            // SAFETY: `[d, d + bytes)` is the rest of the run, in `dst`
            // (the bounds check above), and `s` the rest of `src`; they
            // do not overlap (a shared and a mutable borrow). The split
            // into a head up to the next line start, whole lines, and a
            // tail covers it exactly, so every access is in bounds; the
            // whole lines start 64-byte aligned (`align_offset`), as
            // streaming stores require. `T: NoUninit`: every byte loaded
            // is initialised. Copying the bytes of `T` values (the ends
            // may split an element) leaves a bitwise copy of each once the
            // parts are all written, and `dst` is not read in between
            // (the writer holds it).
            unsafe {
                let p = self.dst.as_mut_ptr().cast::<u8>().add(d);
                let head = p.align_offset(LINE).min(bytes);
                core::ptr::copy_nonoverlapping(s, p, head);
                let lines = (bytes - head) / LINE;
                stream_whole_lines(s.add(head), p.add(head), lines);
                let done = head + LINE * lines;
                let tail = bytes - done;
                if tail > 0 {
                    // A line start, and the line's first `tail` bytes.
                    core::ptr::copy_nonoverlapping(s.add(done), self.line.0.as_mut_ptr(), tail);
                    self.at = d + done;
                    self.filled = tail;
                }
            }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            self.dst[at..end].copy_from_slice(src);
        }
    }
}

impl<T> StreamWriter<'_, T> {
    /// Writes the waiting part of a line with normal stores.
    fn flush(&mut self) {
        if self.filled > 0 {
            // SAFETY: the waiting bytes `[at, at + filled)` were copied
            // from a run into `dst`, so they are in bounds; `line` does
            // not overlap `dst`.
            unsafe {
                let to = self.dst.as_mut_ptr().cast::<u8>().add(self.at);
                core::ptr::copy_nonoverlapping(self.line.0.as_ptr(), to, self.filled);
            }
            self.filled = 0;
        }
    }
}

/// `dst.copy_from_slice(src)`, with streaming stores when `dst` is whole
/// lines that start on one (else normal stores): for kernels that write
/// pieces of a line or more, each on a line, in no order a
/// [`StreamWriter`] could join. The caller issues the store fence
/// ([`fence`]) once the last piece is written.
///
/// # Panics
/// If the two differ in length.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn copy_streamed(src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len(), "streamed copy of unequal lengths");
    if dst.as_ptr().addr().is_multiple_of(LINE) && dst.len().is_multiple_of(LINE) {
        // SAFETY: `src` is initialised bytes, `dst` as many writable
        // ones, starting a line (checked), whole lines long; a shared
        // and a mutable borrow do not overlap.
        return unsafe { stream_whole_lines(src.as_ptr(), dst.as_mut_ptr(), dst.len() / LINE) };
    }
    dst.copy_from_slice(src);
}

/// The store fence that orders the streaming stores before it before any
/// later store (`sfence`), for kernels that stream without a
/// [`StreamWriter`] ([`copy_streamed`]); nothing on other targets, and
/// under Miri, whose streaming stores are normal ones.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn fence() {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
    // SAFETY: `sfence` has no memory operands and no preconditions; SSE
    // is enabled on every x86-64 target.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// Streams `lines` whole lines from `from` to `to`: where the CPU has
/// AVX-512 (F and BW), one 64-byte store a line, else where it has AVX2
/// two of 32 bytes, else four of SSE2's 16 bytes. In a scratch copy of 16
/// and 256 MiB on the Xeon of `BENCHMARKS.md`, the 64-byte streaming
/// stores took 0.75–0.9 times as long as the 16-byte ones; the `f32`
/// packs, unpacks and permutation of 16 MiB in its matrix 0.77–0.91
/// times (commit deb5304). On the Zen 3 EPYC (AVX2, no AVX-512), in turns
/// with the 16-byte stores in one build (a scratch harness, run-time
/// layouts, medians of seven to nine rounds), the 32-byte ones took the
/// permutation `f32[256,256,1024]{2,1,0}` → `{2,0,1}` (256 MiB) from
/// 2.12–2.31 times `memcpy`'s time to 1.61–1.82, `f32[64,64,1024]` (16
/// MiB) from 1.08–1.15 to 0.68–0.91; the `f32` `T(8,128)` pack and unpack
/// of 256 MiB read the same within the noise (1.18–1.30 both ways), as
/// did runs of 4000 bytes (`f32[100,300,1000]`, 1.00 against 1.04).
///
/// # Safety
/// `from` is valid for `lines * 64` bytes of reads, all initialised;
/// `to` for as many writes, 64-byte aligned; the two do not overlap.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn stream_whole_lines(from: *const u8, to: *mut u8, lines: usize) {
    if lines > 0 && super::isa::has_avx512() {
        // SAFETY: the CPU has AVX-512; the caller's contract.
        return unsafe { stream_whole_lines_avx512(from, to, lines) };
    }
    if lines > 0 && super::isa::has_avx2() {
        // SAFETY: the CPU has AVX2; the caller's contract.
        return unsafe { stream_whole_lines_avx2(from, to, lines) };
    }
    // SAFETY: the caller's contract.
    unsafe { stream_whole_lines_sse2(from, to, lines) }
}

/// [`stream_whole_lines`] in AVX2's vectors, two a line.
///
/// # Safety
/// The CPU has AVX2; as [`stream_whole_lines`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx2")]
unsafe fn stream_whole_lines_avx2(from: *const u8, to: *mut u8, lines: usize) {
    use core::arch::x86_64::{__m256i, _mm256_loadu_si256};
    for k in 0..2 * lines {
        // SAFETY: half `k % 2` of line `k / 2 < lines` of both ranges (the
        // caller's contract), 32-byte aligned at `to`; the CPU has AVX2.
        unsafe {
            let v = _mm256_loadu_si256(from.add(32 * k).cast::<__m256i>());
            stream_store_wide(to.add(32 * k).cast::<__m256i>(), v);
        }
    }
}

/// [`stream_whole_lines`] in SSE2's vectors, four a line.
///
/// # Safety
/// As [`stream_whole_lines`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn stream_whole_lines_sse2(from: *const u8, to: *mut u8, lines: usize) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128};
    let mut i = 0;
    while i < lines * (LINE / 16) {
        // SAFETY: vector `i` of `lines * 4` lies in both ranges (the
        // caller's contract), 16-byte aligned at `to`.
        unsafe {
            let v = _mm_loadu_si128(from.add(16 * i).cast::<__m128i>());
            stream_store(to.add(16 * i).cast::<__m128i>(), v);
        }
        i += 1;
    }
}

/// [`stream_whole_lines`] in AVX-512's vectors, a line each.
///
/// # Safety
/// The CPU has AVX-512 (F and BW); as [`stream_whole_lines`].
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn stream_whole_lines_avx512(from: *const u8, to: *mut u8, lines: usize) {
    use super::isa::Vector;
    use core::arch::x86_64::__m512i;
    for k in 0..lines {
        // SAFETY: line `k < lines` of both ranges (the caller's
        // contract), 64-byte aligned at `to`; the CPU has AVX-512.
        unsafe {
            let v = <__m512i as Vector>::load(from.add(LINE * k));
            <__m512i as Vector>::stream(to.add(LINE * k), v);
        }
    }
}

/// Writes a whole line with streaming stores.
///
/// # Safety
/// `to` is 64-byte aligned and valid for 64 bytes of writes.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn stream_line(to: *mut u8, line: &Line) {
    // SAFETY: `line` is 64 initialised bytes, apart from the line at
    // `to` (the caller's contract: aligned, valid for its writes).
    unsafe { stream_whole_lines(line.0.as_ptr(), to, 1) };
}

/// One streaming store (`movntdq`). Miri cannot run the instruction (the
/// standard library writes it in inline assembly), so under Miri it is a
/// normal aligned store, which Miri checks for bounds and alignment alike.
///
/// # Safety
/// `p` is valid for a 16-byte write and 16-byte aligned.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
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

/// One 32-byte streaming store (`vmovntdq`); under Miri, a normal aligned
/// store, as [`stream_store`].
///
/// # Safety
/// The CPU has AVX2; `p` is valid for a 32-byte write and 32-byte
/// aligned.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn stream_store_wide(
    p: *mut core::arch::x86_64::__m256i,
    v: core::arch::x86_64::__m256i,
) {
    // SAFETY: the caller's contract.
    #[cfg(not(miri))]
    unsafe {
        core::arch::x86_64::_mm256_stream_si256(p, v)
    };
    // SAFETY: the caller's contract.
    #[cfg(miri)]
    unsafe {
        p.write(v)
    };
}

/// Prefetches the source that follows a part of a relayout, a piece per
/// step: the span `[start, start + span)` that a volume of blocks reads is
/// followed by the next volume's, when volumes follow each other through
/// the source (the bands of a row-major array), and that span is brought
/// into the caches while the current one is copied.
///
/// The pack of `bf16[M,1024]` into `T(8,128)(2,1)` reads bands of 16 KiB
/// of source as eight rows of 2 KiB, 256 bytes of each per tile: the
/// hardware's own prefetchers do not learn streams that short, so the
/// next band is prefetched in address order, a piece per block (rather
/// than each block's rows one band further on, which touches as many
/// streams as the copy). Contiguous runs prefetch by other rules
/// (`relayout::read_ahead`, and `next_run` for runs of a page or more):
/// a volume of them can be a single destination row whose source is
/// spread over a band, where the span after it is not what is read next.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadAhead {
    /// The first element not yet prefetched.
    next: usize,
    /// Elements per step; 0 for none.
    piece: usize,
}

impl ReadAhead {
    /// Prefetches nothing.
    pub(crate) const OFF: ReadAhead = ReadAhead { next: 0, piece: 0 };

    /// Prefetches `[start + span, start + 2 * span)` in `steps` steps.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn new(start: usize, span: usize, steps: usize) -> ReadAhead {
        ReadAhead {
            next: start.saturating_add(span),
            piece: span.div_ceil(steps.max(1)),
        }
    }

    /// Prefetches the next piece of `src` (nothing past its end).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn step<T>(&mut self, src: &[T]) {
        if let Some([from, len]) = self.next_piece() {
            prefetch(src, from, len);
        }
    }

    /// The next piece, `[first element, length]`, and moves past it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_piece(&mut self) -> Option<[usize; 2]> {
        let from = self.next;
        self.next = from.saturating_add(self.piece);
        (self.piece > 0).then_some([from, self.piece])
    }
}

/// Asks the CPU to bring the cache lines of `buf[from..from + len]` into
/// its caches (`prefetcht0`), so that loads from them later do not wait
/// on memory; nothing when the range is not wholly in `buf` or the target has no
/// prefetch instruction. A hint: it changes no memory, and a wrong one
/// costs only bandwidth.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn prefetch<T>(buf: &[T], from: usize, len: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        let Some(range) = from.checked_add(len).and_then(|end| buf.get(from..end)) else {
            return;
        };
        let bytes = size_of_val(range);
        let first = range.as_ptr().cast::<i8>();
        let mut at = 0;
        while at < bytes {
            prefetch_line(first.wrapping_add(at));
            at += LINE;
        }
        if bytes > 0 {
            // The last line, which the steps of `LINE` miss when `range`
            // does not start on a line.
            prefetch_line(first.wrapping_add(bytes - 1));
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let _ = (buf, from, len);
}

/// `prefetcht0` of the line holding `p`, any address (a prefetch never
/// faults); nothing on targets without the instruction.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn prefetch_line<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch reads and writes no memory (any address is
        // allowed, and it never faults); SSE is enabled on every x86-64
        // target.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let _ = p;
}

impl<T> Drop for StreamWriter<'_, T> {
    fn drop(&mut self) {
        self.flush();
        if self.fence {
            fence();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ReadAhead, StreamWriter, prefetch};

    /// The pieces cover the span after the current one, in order, in the
    /// number of steps asked for (the last piece may reach past it).
    #[test]
    fn read_ahead_covers_the_next_span() {
        let mut ahead = ReadAhead::new(100, 16 * 1024, 32);
        let pieces: [[usize; 2]; 32] = core::array::from_fn(|_| ahead.next_piece().unwrap());
        assert_eq!(pieces[0], [100 + 16 * 1024, 512]);
        assert!(pieces.windows(2).all(|w| w[1][0] == w[0][0] + w[0][1]));
        assert_eq!(pieces[31][0] + pieces[31][1], 100 + 2 * 16 * 1024);
        // A span that does not divide: pieces round up, so still covered.
        let mut ahead = ReadAhead::new(0, 10, 3);
        let ends: [usize; 3] = core::array::from_fn(|_| {
            let [from, len] = ahead.next_piece().unwrap();
            from + len
        });
        assert_eq!(ends, [14, 18, 22]);
        let mut off = ReadAhead::OFF;
        assert_eq!(off.next_piece(), None);
        assert_eq!(ReadAhead::new(5, 0, 4).next_piece(), None);
        // Near the end of the address space, the pieces stop moving
        // instead of wrapping.
        let mut ahead = ReadAhead::new(usize::MAX - 1, 8, 2);
        assert_eq!(ahead.next_piece(), Some([usize::MAX, 4]));
        assert_eq!(ahead.next_piece(), Some([usize::MAX, 4]));
    }

    /// Prefetching ranges in, across and past the end of a buffer touches
    /// no memory (Miri checks) and does not panic.
    #[test]
    fn prefetch_ignores_ranges_outside_the_buffer() {
        let buf = [7u16; 100];
        for (from, len) in [
            (0, 100),
            (3, 40),
            (90, 20),
            (100, 1),
            (200, 5),
            (usize::MAX, 2),
        ] {
            prefetch(&buf, from, len);
        }
        let mut ahead = ReadAhead::new(0, 60, 4);
        for _ in 0..8 {
            ahead.step(&buf);
        }
        assert_eq!(buf, [7u16; 100]);
    }

    /// A 64-byte-aligned buffer, so that offsets in it are offsets within
    /// cache lines.
    #[repr(C, align(64))]
    struct Lines<T, const N: usize>([T; N]);

    /// Copies `runs` (`(source start, length, destination start)`) from
    /// `src` into a fresh buffer, starting `base` elements into it, through
    /// one writer, and checks the result against `copy_from_slice`.
    fn check_runs<T, const N: usize>(
        src: &[T],
        base: usize,
        runs: &[(usize, usize, usize)],
        make: &impl Fn(usize) -> T,
    ) where
        T: bytemuck::NoUninit + PartialEq + core::fmt::Debug,
    {
        let mut dst = Lines::<T, N>(core::array::from_fn(|i| make(i + 1000)));
        let mut expected = dst.0;
        for &(s, len, d) in runs {
            expected[base + d..base + d + len].copy_from_slice(&src[s..s + len]);
        }
        let mut writer = StreamWriter::new(&mut dst.0[base..]).expect("x86-64 streams");
        for &(s, len, d) in runs {
            writer.copy(&src[s..s + len], d);
        }
        drop(writer);
        assert_eq!(dst.0, expected, "base {base}, runs {runs:?}");
    }

    /// Single runs of lengths and starts around the 16- and 64-byte
    /// boundaries, for one-, two- and four-byte elements (Miri runs this:
    /// it checks every access is in bounds and aligned).
    #[test]
    fn copies_like_copy_from_slice() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let src: [T; 300] = core::array::from_fn(&make);
            let starts = [0, 1, 2, 3, 15, 16, 17, 31, 63, 64, 65];
            let lens = [0, 1, 15, 16, 17, 33, 63, 64, 65, 127, 128, 129, 200];
            for start in starts {
                for len in lens {
                    check_runs::<T, 300>(&src, 0, &[(0, len, start)], &make);
                }
            }
        }
        if StreamWriter::new(&mut [0u8]).is_none() {
            return; // nothing to test on this target
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
    }

    /// Sequences of runs, at every base offset within a line: contiguous
    /// runs that complete a waiting line (in one step or several), runs
    /// that leave a gap, go back, or overwrite earlier ones (each flushes
    /// the waiting line first), and runs shorter than a line.
    #[test]
    fn sequences_of_runs_copy_like_copy_from_slice() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let src: [T; 200] = core::array::from_fn(&make);
            let per_line = 64 / core::mem::size_of::<T>();
            let sequences: [&[(usize, usize, usize)]; 6] = [
                // Rows of a tile: contiguous runs of 1.5 lines.
                &[(0, 24, 0), (30, 24, 24), (60, 24, 48), (90, 24, 72)],
                // Short runs filling one line piece by piece.
                &[(0, 3, 5), (10, 2, 8), (20, 1, 10), (30, 40, 11)],
                // A gap (padding), then contiguous again.
                &[(0, 20, 0), (40, 20, 25), (70, 20, 45)],
                // Backwards, and an overwrite of a waiting line.
                &[(0, 20, 60), (50, 30, 10), (100, 10, 35), (120, 5, 36)],
                // Empty runs between others.
                &[(0, 20, 0), (5, 0, 20), (30, 20, 20), (0, 0, 0)],
                // Long runs, contiguous.
                &[(0, 70, 1), (80, 90, 71)],
            ];
            // Under Miri (slow), every fifth base: still every residue
            // modulo 16 bytes for two-byte and larger elements.
            let every = if cfg!(miri) { 5 } else { 1 };
            for base in (0..per_line).step_by(every) {
                for runs in sequences {
                    check_runs::<T, 256>(&src, base, runs, &make);
                }
            }
        }
        if StreamWriter::new(&mut [0u8]).is_none() {
            return;
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
        check(|i| i as f64);
    }

    /// Zero to four whole lines streamed from sources on and off the 16-
    /// and 64-byte boundaries, in each instruction set the CPU has (SSE2's
    /// always; AVX2's and AVX-512's where it has them, or under Miri where
    /// the build enables them), land as a copy and write nothing past
    /// their end.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn whole_lines_stream_as_copies() {
        use super::{
            stream_whole_lines, stream_whole_lines_avx2, stream_whole_lines_avx512,
            stream_whole_lines_sse2,
        };
        type Stream = unsafe fn(*const u8, *mut u8, usize);
        let avx512: Stream = |from, to, lines| {
            // SAFETY: called only where the CPU has AVX-512 (below); the
            // rest is the test's call.
            unsafe { stream_whole_lines_avx512(from, to, lines) }
        };
        let avx2: Stream = |from, to, lines| {
            // SAFETY: called only where the CPU has AVX2 (below); the rest
            // is the test's call.
            unsafe { stream_whole_lines_avx2(from, to, lines) }
        };
        let has_avx512 = crate::relayout::isa::has_avx512();
        let has_avx2 = crate::relayout::isa::has_avx2();
        let ways: [(&str, Stream, bool); 4] = [
            ("dispatched", stream_whole_lines, true),
            ("sse2", stream_whole_lines_sse2, true),
            ("avx2", avx2, has_avx2),
            ("avx512", avx512, has_avx512),
        ];
        let src: [u8; 4 * 64 + 64] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        for (name, stream, _) in ways.into_iter().filter(|way| way.2) {
            for lines in 0..=4 {
                for offset in [0, 1, 15, 16, 33, 63] {
                    let mut dst = Lines::<u8, { 5 * 64 }>([0xEE; 5 * 64]);
                    // SAFETY: `src` holds `offset + lines * 64 <= 319`
                    // bytes from `offset`; `dst` (64-byte aligned) holds
                    // `lines * 64 <= 256` from its start; they are apart.
                    unsafe { stream(src[offset..].as_ptr(), dst.0.as_mut_ptr(), lines) };
                    // Orders the streaming stores before the reads.
                    super::fence();
                    let n = lines * 64;
                    assert_eq!(
                        dst.0[..n],
                        src[offset..offset + n],
                        "{name}, {lines} lines from {offset}"
                    );
                    assert!(
                        dst.0[n..].iter().all(|&b| b == 0xEE),
                        "{name} wrote past {lines} lines"
                    );
                }
            }
        }
    }

    /// A streamed copy lands as a copy at every offset against a line and
    /// of every length around whole lines (streamed where the piece is
    /// whole lines on one, copied otherwise), writing nothing around it.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn streamed_copies_copy() {
        use super::{copy_streamed, fence};
        let src: [u8; 3 * 64] = core::array::from_fn(|i| (i * 5 + 3) as u8);
        for len in [0, 1, 16, 63, 64, 65, 128, 3 * 64] {
            for offset in [0, 1, 16, 48, 63] {
                let mut dst = Lines::<u8, { 4 * 64 }>([0xEE; 4 * 64]);
                copy_streamed(&src[..len], &mut dst.0[offset..offset + len]);
                fence();
                assert_eq!(dst.0[offset..offset + len], src[..len], "{len} at {offset}");
                let around = dst.0[..offset].iter().chain(&dst.0[offset + len..]);
                assert!(around.into_iter().all(|&b| b == 0xEE), "{len} at {offset}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "unequal lengths")]
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn a_streamed_copy_of_unequal_lengths_panics() {
        super::copy_streamed(&[1u8; 64], &mut [0u8; 63]);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_run_past_the_destination_panics() {
        let mut dst = [0u8; 3];
        match StreamWriter::new(&mut dst) {
            Some(mut writer) => writer.copy(&[1u8, 2], 2),
            None => panic!("out of bounds (no writer on this target)"),
        }
    }
}
