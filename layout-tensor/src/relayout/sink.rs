//! Where a relayout's kernels write ([`Sink`]): the destination itself,
//! a [`StreamWriter`] over it, or the destination through `memcpy`
//! ([`Memcpy`]).

use bytemuck::NoUninit;

use super::stream::StreamWriter;

/// Where a relayout's kernels write: the destination itself, a
/// [`StreamWriter`] over it, or the destination with its runs copied by
/// `memcpy` ([`Memcpy`]).
pub(super) trait Sink<T> {
    /// Whether the destination takes streaming stores: the interleave and
    /// deinterleave then stream the lines they write whole, and every
    /// kernel prefetches its source.
    const STREAMING: bool;
    /// `dst[at..at + src.len()].copy_from_slice(src)`.
    fn run(&mut self, src: &[T], at: usize);
    /// The destination, for the kernels that take it whole.
    fn buffer(&mut self) -> &mut [T];
}

impl<T: Copy> Sink<T> for &mut [T] {
    const STREAMING: bool = false;
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run(&mut self, src: &[T], at: usize) {
        copy_run(src, &mut self[at..at + src.len()]);
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn buffer(&mut self) -> &mut [T] {
        self
    }
}

impl<T: NoUninit> Sink<T> for StreamWriter<'_, T> {
    const STREAMING: bool = true;
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run(&mut self, src: &[T], at: usize) {
        self.copy(src, at);
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn buffer(&mut self) -> &mut [T] {
        self.flushed()
    }
}

/// A destination whose runs are copied with `copy_from_slice`, a call to
/// the platform's `memcpy`, which aligns its stores and uses the widest
/// vectors the CPU has.
///
/// Into runs that are not 16-byte aligned (rows of 947 `f32`), the inline
/// copy's 16-byte stores straddle cache lines (one in four where the rows
/// are 4 bytes off), and `memcpy`, which aligns its stores, is faster
/// (the unpack of `f32[M-3,947]` in `benches/relayout.rs`). For aligned
/// destinations the inline copy is faster ([`copy_run`]), also when the
/// source is not aligned. Runs longer than 2 KiB go to `memcpy` only up
/// to their first 16-byte-aligned element, and the rest, now aligned, as
/// the inline copy (all of it, if no element is aligned: 16-byte elements
/// 8 bytes off): a `memcpy` of some KiB is a `rep movsb`, slow when
/// the destination is a little ahead of the source modulo 4 KiB
/// ([`copy_run`]). The permutation `f32[16,16,1024]{2,1,0}` → `{2,0,1}`
/// into a destination 4 bytes further on than the source (modulo a
/// page) took 8.9–13.4 times memcpy's time as whole runs, 1.59 so, and
/// 1.32–1.37 at other offsets either way (a scratch harness, in turns).
pub(super) struct Memcpy<'a, T>(pub(super) &'a mut [T]);

impl<T: Copy> Sink<T> for Memcpy<'_, T> {
    const STREAMING: bool = false;
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn run(&mut self, src: &[T], at: usize) {
        let dst = &mut self.0[at..at + src.len()];
        if core::mem::size_of_val(src) <= 2048 {
            dst.copy_from_slice(src);
            return;
        }
        let head = memcpy_head(dst);
        let (dst_head, dst_rest) = dst.split_at_mut(head);
        let (src_head, src_rest) = src.split_at(head);
        dst_head.copy_from_slice(src_head);
        copy_run(src_rest, dst_rest);
    }
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn buffer(&mut self) -> &mut [T] {
        self.0
    }
}

/// How many elements of a long run into `dst` the [`Memcpy`] sink hands to
/// `memcpy`: those before the first 16-byte-aligned one, or none when no
/// element can be aligned (a 16-byte `c128` 8 bytes off), and then all of
/// the run is copied inline, its stores unaligned, rather than risk the
/// `rep movsb`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn memcpy_head<T>(dst: &[T]) -> usize {
    match dst.as_ptr().align_offset(16) {
        usize::MAX => 0,
        head => head.min(dst.len()),
    }
}

/// `dst.copy_from_slice(src)` for the runs of a relayout, inline, in
/// chunks of 32 bytes on the destination's 32-byte grid
/// ([`copy_chunks_on_grid`]) for elements of 1, 2, 4, 8 or 16 bytes
/// (others in chunks of 16 elements, [`copy_chunks`]): a short run (a
/// tile row of 128 `f32` is 512 bytes) costs no call, and a long one (the
/// 4 KiB rows of a permutation of major dims) takes no `rep movsb`.
///
/// Runs of more than 2 KiB went to `memcpy`, which copies runs of some
/// KiB with `rep movsb`; on the AMD EPYC of `BENCHMARKS.md` that takes
/// about nine times as long when the destination is a little ahead of
/// the source modulo 4 KiB. The permutation `f32[16,16,1024]{2,1,0}` →
/// `{2,0,1}` into a destination 16 bytes further on than the source
/// (modulo a page) took 9.3-9.9 times memcpy's time that way, 1.13-1.14
/// inline, and level with `memcpy` (1.13-1.20) at other offsets.
///
/// Chunks of one 32-byte vector, not of 64 bytes: the compiler copies a
/// 64-byte chunk as two loads and then two stores, often the second
/// half's store first. On the Xeon of `BENCHMARKS.md`, where the
/// destination sits at the source's offset modulo a page (as two large
/// `Vec`s do: both 16 bytes into a page), the 512-byte runs of an `f32`
/// `T(8,128)` pack of 1 MiB took 1.5–1.9 times `memcpy`'s time that way
/// and 1.2–1.3 with each vector's load and store side by side, in order;
/// its unpack 1.7–2.0 against 1.2–1.3, a permutation of major dims
/// 1.7–1.9 against 1.2 (a scratch harness, run-time layouts, `memcpy`
/// reading the same source; six and three rounds in turns). With the
/// destination on a cache line the two read the same.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_run<T: Copy>(src: &[T], dst: &mut [T]) {
    match core::mem::size_of::<T>() {
        1 => copy_chunks_on_grid::<T, 32, 16>(src, dst),
        2 => copy_chunks_on_grid::<T, 16, 8>(src, dst),
        4 => copy_chunks_on_grid::<T, 8, 4>(src, dst),
        8 => copy_chunks_on_grid::<T, 4, 2>(src, dst),
        16 => copy_chunks_on_grid::<T, 2, 1>(src, dst),
        _ => copy_chunks::<T, 16>(src, dst),
    }
}

/// `dst.copy_from_slice(src)` in chunks of `N` elements (32 bytes) on the
/// destination's 32-byte grid: where the destination starts 16 bytes past
/// a 32-byte boundary (as a large `Vec`'s elements do, 16 bytes into a
/// page), a chunk of `H` elements (16 bytes) first; then the 32-byte
/// chunks; then one of 16 bytes if that much is left, and the rest
/// element by element.
///
/// A 32-byte store that straddles two cache lines takes a write of each.
/// On the Xeon of `BENCHMARKS.md`, in a scratch harness (run-time
/// layouts, the destination at the source's offset modulo a page, both 16
/// bytes past a line, `memcpy` reading the same source; three rounds in
/// turns with the chunks from the run's start), `f32[512,512]` →
/// `T(8,128)` took 1.13–1.18 times `memcpy`'s time against 1.25–1.43,
/// its unpack 1.13–1.16 against 1.27–1.43, `f64` out of `T(2,128)`
/// 1.13–1.14 against 1.25, `f32[300,640]` into `T(8,128)` 1.34–1.35
/// against 1.66–1.73 (two rounds).
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_chunks_on_grid<T: Copy, const N: usize, const H: usize>(src: &[T], dst: &mut [T]) {
    let head = match (dst.as_ptr() as usize) % 32 == 16 && dst.len() >= H {
        true => H,
        false => 0,
    };
    let (dst_head, dst) = dst.split_at_mut(head);
    let (src_head, src) = src.split_at(head.min(src.len()));
    copy_chunks::<T, H>(src_head, dst_head);
    let (dst_chunks, dst_tail) = dst.as_chunks_mut::<N>();
    let (src_chunks, src_tail) = src.as_chunks::<N>();
    for (d, s) in dst_chunks.iter_mut().zip(src_chunks) {
        *d = *s;
    }
    copy_chunks::<T, H>(src_tail, dst_tail);
}

/// `dst.copy_from_slice(src)` as chunks of `N` elements, then the tail
/// element by element.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_chunks<T: Copy, const N: usize>(src: &[T], dst: &mut [T]) {
    let (dst_chunks, dst_tail) = dst.as_chunks_mut::<N>();
    let (src_chunks, src_tail) = src.as_chunks::<N>();
    for (d, s) in dst_chunks.iter_mut().zip(src_chunks) {
        *d = *s;
    }
    // Not `copy_from_slice`: that is a `memcpy` call, made even for the
    // empty tail of a 128-element run (5% of an `f32` pack).
    for (d, s) in dst_tail.iter_mut().zip(src_tail) {
        *d = *s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// A 16-byte element aligned to 8, as `c128` is.
    type Pair = [u64; 2];

    /// `len` elements of `Pair` in `buf`, starting `off` bytes past a
    /// 16-byte boundary (0 or 8).
    fn pairs_at(buf: &mut [u64], off: usize, len: usize) -> &mut [Pair] {
        let skip = (0..2)
            .find(|&k| buf[k..].as_ptr() as usize % 16 == off)
            .unwrap();
        bytemuck::cast_slice_mut(&mut buf[skip..skip + 2 * len])
    }

    #[test]
    fn memcpy_takes_the_unaligned_head_or_nothing() {
        let mut buf = vec![0u64; 2 * 300 + 2];
        assert_eq!(memcpy_head(pairs_at(&mut buf, 0, 300)), 0);
        // No element of 16 bytes 8 bytes off is ever aligned.
        assert_eq!(memcpy_head(pairs_at(&mut buf, 8, 300)), 0);
        // 4-byte elements from one past a 16-byte boundary: three before
        // the next (or the run's end, if sooner).
        let words = vec![0u32; 600];
        let line = (0..4)
            .find(|&k| (words[k..].as_ptr() as usize).is_multiple_of(16))
            .unwrap();
        assert_eq!(memcpy_head(&words[line + 1..]), 3);
        assert_eq!(memcpy_head(&words[line + 1..line + 3]), 2);
        assert_eq!(memcpy_head(&words[line + 4..]), 0);
    }

    /// Long runs of 16-byte elements into a destination on and 8 bytes
    /// off a 16-byte boundary: every element copied, nothing else written.
    #[test]
    fn long_runs_of_wide_elements_copy_at_either_alignment() {
        let len = if cfg!(miri) { 140 } else { 3001 };
        let src: Vec<Pair> = (0..len as u64).map(|k| [k, !k]).collect();
        for off in [0, 8] {
            let mut buf = vec![u64::MAX; 2 * len + 6];
            let dst = pairs_at(&mut buf, off, len + 2);
            Memcpy(&mut *dst).run(&src, 1);
            assert_eq!(dst[0], [u64::MAX; 2]);
            assert_eq!(&dst[1..=len], &src[..]);
            assert_eq!(dst[len + 1], [u64::MAX; 2]);
        }
    }

    /// A 64-byte-aligned buffer.
    #[repr(C, align(64))]
    struct Lines<T>([T; 256]);

    /// `copy_run` into a destination at every element offset within a
    /// line (so on the 32-byte grid, 16 bytes past it, or neither), runs
    /// of every length to past three 32-byte chunks: each run's elements
    /// copied, nothing else written; for elements of 1, 2, 4, 8 and 16
    /// bytes and of 3 (the chunks of 16 elements).
    #[test]
    fn runs_copy_at_every_offset_and_length() {
        fn check<T: Copy + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let size = core::mem::size_of::<T>();
            let src: Vec<T> = (0..200).map(&make).collect();
            for offset in 0..64 / size {
                for len in 0..=(128 / size + 3).min(200) {
                    let mut buf = Lines(core::array::from_fn(|k| make(k + 1000)));
                    copy_run(&src[1..1 + len], &mut buf.0[offset..offset + len]);
                    for (k, &got) in buf.0.iter().enumerate() {
                        let want = match k.checked_sub(offset) {
                            Some(i) if i < len => src[1 + i],
                            _ => make(k + 1000),
                        };
                        assert_eq!(got, want, "size {size}, offset {offset}, len {len}, at {k}");
                    }
                }
            }
        }
        check(|k| k as u8);
        check(|k| k as u16);
        check(|k| k as u32);
        check(|k| k as u64);
        check(|k| [k as u64, !(k as u64)]);
        check(|k| [k as u8, (k >> 8) as u8, 7]);
    }
}
