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
    #[inline(always)]
    fn run(&mut self, src: &[T], at: usize) {
        copy_run(src, &mut self[at..at + src.len()]);
    }
    #[inline(always)]
    fn buffer(&mut self) -> &mut [T] {
        self
    }
}

impl<T: NoUninit> Sink<T> for StreamWriter<'_, T> {
    const STREAMING: bool = true;
    #[inline(always)]
    fn run(&mut self, src: &[T], at: usize) {
        self.copy(src, at);
    }
    #[inline(always)]
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
/// the inline copy: a `memcpy` of some KiB is a `rep movsb`, slow when
/// the destination is a little ahead of the source modulo 4 KiB
/// ([`copy_run`]). The permutation `f32[16,16,1024]{2,1,0}` → `{2,0,1}`
/// into a destination 4 bytes further on than the source (modulo a
/// page) took 8.9–13.4 times memcpy's time as whole runs, 1.59 so, and
/// 1.32–1.37 at other offsets either way (a scratch harness, in turns).
pub(super) struct Memcpy<'a, T>(pub(super) &'a mut [T]);

impl<T: Copy> Sink<T> for Memcpy<'_, T> {
    const STREAMING: bool = false;
    #[inline(always)]
    fn run(&mut self, src: &[T], at: usize) {
        let dst = &mut self.0[at..at + src.len()];
        if core::mem::size_of_val(src) <= 2048 {
            dst.copy_from_slice(src);
            return;
        }
        // `usize::MAX` when no whole element reaches alignment: then all
        // of the run goes to `memcpy`.
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let (dst_head, dst_rest) = dst.split_at_mut(head);
        let (src_head, src_rest) = src.split_at(head);
        dst_head.copy_from_slice(src_head);
        copy_run(src_rest, dst_rest);
    }
    #[inline(always)]
    fn buffer(&mut self) -> &mut [T] {
        self.0
    }
}

/// `dst.copy_from_slice(src)` for the runs of a relayout, as inline
/// copies of 16 elements: a short run (a tile row of 128 `f32` is 512
/// bytes) costs no call, and a long one (the 4 KiB rows of a permutation
/// of major dims) takes no `rep movsb`.
///
/// Runs of more than 2 KiB went to `memcpy`, which copies runs of some
/// KiB with `rep movsb`; on the AMD EPYC of `BENCHMARKS.md` that takes
/// about nine times as long when the destination is a little ahead of
/// the source modulo 4 KiB. The permutation `f32[16,16,1024]{2,1,0}` →
/// `{2,0,1}` into a destination 16 bytes further on than the source
/// (modulo a page) took 9.3-9.9 times memcpy's time that way, 1.13-1.14
/// inline, and level with `memcpy` (1.13-1.20) at other offsets.
#[inline(always)]
fn copy_run<T: Copy>(src: &[T], dst: &mut [T]) {
    let (dst_chunks, dst_tail) = dst.as_chunks_mut::<16>();
    let (src_chunks, src_tail) = src.as_chunks::<16>();
    for (d, s) in dst_chunks.iter_mut().zip(src_chunks) {
        *d = *s;
    }
    // Not `copy_from_slice`: that is a `memcpy` call, made even for the
    // empty tail of a 128-element run (5% of an `f32` pack).
    for (d, s) in dst_tail.iter_mut().zip(src_tail) {
        *d = *s;
    }
}
