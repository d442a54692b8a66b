//! Relayout: copying a tensor into another layout of the same logical
//! array, tile by tile, with the inner loop over runs that are contiguous
//! in both buffers ([`LoopNest::relayout`]).
//!
//! The copy walks the destination in memory order, so writes stream; the
//! engine's loop nest hands over volumes of its innermost four levels
//! ([`LoopNest::for_each_volume`]), and [`copy_nest`] moves them with the
//! kernel that the planner chose once from the nest's strides
//! ([`RelayoutKernel::for_nest`]): inline copies of runs contiguous in
//! both buffers (streaming stores, and the source prefetched a band
//! ahead, for destinations of [`STREAM_FROM_BYTES`] or more; `memcpy`
//! calls for runs that start at destination addresses that are not
//! 16-byte aligned), an interleave for `T(2,1)`/`T(4,1)` sub-tiles and a
//! deinterleave for their unpack (`T(2,1)`), a transpose in square blocks
//! of vectors when the source's contiguous level is not the
//! destination's ([`transpose`]), or a strided loop. Padding slots
//! of the destination are never written.

mod kernel;
mod simd;
mod stream;
mod transpose;

pub use kernel::RelayoutKernel;

use bytemuck::NoUninit;
use layout_core::walk::{LoopNest, NestTemplate};
use layout_core::{AnyLayout, ArrayLayout, Error, SameShape, Shape};

use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;
use kernel::arrange;
use stream::{STREAM_FROM_BYTES, StreamWriter};

/// How a relayout between two layout types gets its loop nest, decided
/// while compiling.
enum NestPlan {
    /// Both layouts are static: the nest (`None`: no common digits,
    /// element by element), already arranged for its kernel. A shape or
    /// element-type mismatch is a compile error.
    Fixed(Option<LoopNest>, RelayoutKernel),
    /// Both types fix everything but some dims (static and mixed layouts):
    /// the nest for every size of those dims, to which a call adds the
    /// sizes.
    Template(NestTemplate),
    /// A run-time layout, or a pair no template serves: built per call.
    PerCall,
}

const fn nest_plan(fixed: [Option<ArrayLayout>; 2], templates: [Option<Shape>; 2]) -> NestPlan {
    match fixed {
        [Some(a), Some(b)] => match LoopNest::relayout(&a, &b) {
            Ok(nest) => {
                let kernel = RelayoutKernel::for_nest(nest.as_ref());
                match &nest {
                    Some(n) => match arrange(n, kernel) {
                        Some(arranged) => NestPlan::Fixed(Some(arranged), kernel),
                        None => NestPlan::Fixed(nest, kernel),
                    },
                    None => NestPlan::Fixed(None, kernel),
                }
            }
            Err(e) => e.panic(),
        },
        _ => match templates {
            [Some(a), Some(b)] => match NestTemplate::relayout(&a, &b) {
                Some(t) => NestPlan::Template(t),
                None => NestPlan::PerCall,
            },
            _ => NestPlan::PerCall,
        },
    }
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// Copies every element into `dst`, which holds the same logical array
    /// (element type and dims) in its own layout. `dst`'s padding slots
    /// are left as they are.
    ///
    /// For two static layouts a shape or element-type mismatch is a
    /// compile error, and the loop nest is built while compiling. Between
    /// static and mixed layouts whose run-time dims are the most major
    /// (`f32[?,1024]`), the nest is also built while compiling, for every
    /// row count ([`NestTemplate`]); a call only checks the dims and fills
    /// them in. Run-time layouts, and mixed layouts whose run-time dims
    /// change strides, build the nest per call (about 1–2 µs).
    ///
    /// On x86-64, destinations of 8 MiB or more are written with streaming
    /// stores, which bypass the cache: the fastest way to fill a buffer
    /// that big, but the data is not in the cache afterwards.
    ///
    /// ```
    /// use tessera::{PreparedLayout, TensorBuf};
    /// let rm = PreparedLayout::parse("f32[16,256]{1,0}").unwrap();
    /// let tiled = PreparedLayout::parse("f32[16,256]{1,0:T(8,128)}").unwrap();
    /// let src = TensorBuf::from_fn(rm, |i| (i[0] * 256 + i[1]) as f32).unwrap();
    /// let mut dst = TensorBuf::<_, f32>::zeroed(tiled).unwrap();
    /// src.relayout_into(&mut dst).unwrap();
    /// assert_eq!(dst[[9, 130]], (9 * 256 + 130) as f32);
    /// assert_eq!(dst.as_slice()[128], 256.0); // row 1 of the first tile
    /// ```
    ///
    /// # Errors
    /// The layouts differ in element type, rank or a dimension's size.
    pub fn relayout_into<S2, L2>(&self, dst: &mut TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: SameShape<L>,
    {
        // The plan is a constant, promoted to a `'static`.
        let plan: &'static NestPlan = &const {
            nest_plan(
                [L::FIXED_LAYOUT, L2::FIXED_LAYOUT],
                [L::TEMPLATE, L2::TEMPLATE],
            )
        };
        let src = self.as_slice();
        let mut built;
        let nest = match plan {
            // A constant nest: `copy_nest` is inlined here, with its levels
            // and sizes folded (measured 1.1× faster than the same nest
            // read at run time, for `bf16` at 1 MiB).
            NestPlan::Fixed(Some(nest), kernel) => {
                copy_nest(nest, *kernel, src, dst.as_mut_slice());
                return Ok(());
            }
            NestPlan::Fixed(None, _) => None,
            NestPlan::Template(t) => {
                // Built in place: the nest is 4.9 KB, so not moved once more.
                built = t.nest(&self.layout().sizes(), &dst.layout().sizes());
                if built.is_none() {
                    // Sizes that differ: the engine says which.
                    built = LoopNest::relayout(&self.to_array_layout(), &dst.to_array_layout())?;
                }
                built.as_ref()
            }
            NestPlan::PerCall => {
                built = LoopNest::relayout(&self.to_array_layout(), &dst.to_array_layout())?;
                built.as_ref()
            }
        };
        match nest {
            Some(nest) => {
                // The planner: the kernel, from the nest's strides; a
                // transpose copies along the nest rearranged for it.
                let kernel = RelayoutKernel::for_nest(Some(nest));
                match arrange(nest, kernel) {
                    Some(arranged) => copy_nest(&arranged, kernel, src, dst.as_mut_slice()),
                    None => copy_nest(nest, kernel, src, dst.as_mut_slice()),
                }
            }
            None => {
                // No common digits (a `*` merge, or cuts that do not
                // divide each other): element by element.
                let (a, b) = (self.to_array_layout(), dst.to_array_layout());
                let out = dst.as_mut_slice();
                let mut from = a.elements();
                let mut to = b.elements();
                while let (Some(s), Some(d)) = (from.next_offset(), to.next_offset()) {
                    out[d] = src[s];
                }
            }
        }
        Ok(())
    }

    /// A new tensor holding the same array in `layout`, padding slots set
    /// to the layout's padding value (zero when it names none).
    ///
    /// # Errors
    /// As [`TensorBase::relayout_into`], a padding value the element type
    /// does not have, or a new buffer that cannot be allocated
    /// ([`ErrorKind::AllocationFailed`](layout_core::ErrorKind::AllocationFailed)).
    #[cfg(feature = "alloc")]
    pub fn relayout<L2: SameShape<L> + crate::layout::Stores<S::Elem>>(
        &self,
        layout: L2,
    ) -> Result<crate::TensorBuf<L2, S::Elem>, Error> {
        let mut out = crate::TensorBuf::zeroed(layout)?;
        out.fill_padding()?;
        self.relayout_into(&mut out)?;
        Ok(out)
    }
}

/// Copies every element of `src` to `dst` along `nest`: into a
/// destination of [`STREAM_FROM_BYTES`] or more with streaming stores
/// where the target has them ([`StreamWriter`]), else with normal ones;
/// runs contiguous in both buffers that start at destination addresses
/// that are not 16-byte aligned with the platform's `memcpy`
/// ([`Memcpy`]).
#[inline(always)]
fn copy_nest<T: NoUninit>(nest: &LoopNest, kernel: RelayoutKernel, src: &[T], dst: &mut [T]) {
    if core::mem::size_of_val(dst) >= STREAM_FROM_BYTES
        && let Some(writer) = StreamWriter::new(&mut *dst)
    {
        copy_volumes(nest, kernel, src, writer);
    } else if kernel == RelayoutKernel::ContiguousRuns && dst_run_alignment(nest, dst) < 16 {
        copy_volumes(nest, kernel, src, Memcpy(dst));
    } else {
        copy_volumes(nest, kernel, src, dst);
    }
}

/// The largest power of two, up to 64, that divides the byte address of
/// every run's start in the destination (the runs of `nest`'s innermost
/// level).
#[inline(always)]
fn dst_run_alignment<T>(nest: &LoopNest, dst: &[T]) -> usize {
    let size = core::mem::size_of::<T>();
    let mut bits = dst.as_ptr() as usize | 64;
    if let Some((_run, outer)) = nest.levels().split_last() {
        for level in outer {
            if level.extent > 1 {
                bits |= level.strides[1].wrapping_mul(size);
            }
        }
    }
    1 << bits.trailing_zeros()
}

/// Where a relayout's kernels write: the destination itself, or a
/// [`StreamWriter`] over it.
trait Sink<T> {
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
/// are 4 bytes off); glibc's `memcpy` copied the same runs 1.2× faster
/// (the unpack of `f32[253,947]` from `T(8,128)`, measured). For aligned
/// destinations the inline copy is faster ([`copy_run`]), also when the
/// source is not aligned (the pack of the same array: 1.06×).
struct Memcpy<'a, T>(&'a mut [T]);

impl<T: Copy> Sink<T> for Memcpy<'_, T> {
    const STREAMING: bool = false;
    #[inline(always)]
    fn run(&mut self, src: &[T], at: usize) {
        self.0[at..at + src.len()].copy_from_slice(src);
    }
    #[inline(always)]
    fn buffer(&mut self) -> &mut [T] {
        self.0
    }
}

/// Copies every element of `src` into `out` along `nest` with `kernel`
/// ([`RelayoutKernel::for_nest`], the same for every volume of blocks,
/// [`LoopNest::for_each_volume`]).
///
/// A block can be as small as 512 bytes (a `T(8,128)(2,1)` row pair), and
/// a tile 2 KiB, so a call per block or per tile costs a sizeable part of
/// the copy: kernels take a whole volume, a band of tiles (measured 1.1×
/// faster than a call per tile). The interleave, transpose and strided
/// kernels are functions of their own, called once per volume (as
/// parameters, the two buffers are known not to overlap, so loads and
/// stores can be reordered and vectorised). The contiguous copies are
/// inlined into the walk: out of line, the unpack measured 1.6× slower.
#[inline(always)]
fn copy_volumes<T: NoUninit, S: Sink<T>>(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    src: &[T],
    mut out: S,
) {
    let strides = nest.volume_strides();
    let [outer, step, row, [si, di]] = strides;
    let blocks = [outer, step, row];
    match kernel {
        RelayoutKernel::ContiguousRuns => {
            let band = match S::STREAMING {
                true => read_ahead::<T>(nest),
                false => 0,
            };
            nest.for_each_volume(
                #[inline(always)]
                |start, [outers, steps, rows, len]| {
                    for_each_row_start(
                        start,
                        [outers, steps, rows],
                        blocks,
                        #[inline(always)]
                        |[s, d]| {
                            if band > 0 {
                                stream::prefetch(src, s + band, len);
                            }
                            out.run(&src[s..s + len], d);
                        },
                    );
                },
            );
        }
        RelayoutKernel::Interleave { factor } => {
            // A whole block (`len == factor`; a partial tile may be
            // shorter) is dense in the destination and each of its `len`
            // source rows is contiguous: a transpose of `factor` runs into
            // dense groups. Pairs of 2- and 4-byte rows take the
            // interleave kernel, which streams a band's output whole.
            let pairs = factor == 2 && matches!(core::mem::size_of::<T>(), 2 | 4);
            nest.for_each_volume(
                #[inline(always)]
                |start, [outers, steps, rows, len]| {
                    let dst = out.buffer();
                    if pairs && len == 2 {
                        let grid = simd::BlockGrid {
                            start,
                            counts: [outers, steps],
                            strides: [outer, step],
                            row_stride: si,
                            rows,
                        };
                        simd::interleave2_grid(src, dst, &grid, S::STREAMING);
                    } else {
                        let shape = [outers, steps, rows, len];
                        transpose_volume(src, dst, start, shape, strides, S::STREAMING);
                    }
                },
            );
        }
        RelayoutKernel::Deinterleave { .. } => {
            // A block of two steps (`steps == 2`; the last row of an odd
            // row count has one) reads `2 * len` dense source elements
            // into two destination rows.
            nest.for_each_volume(
                #[inline(always)]
                |start, [outers, steps, rows, len]| {
                    let dst = out.buffer();
                    if steps == 2 {
                        let grid = simd::BlockGrid {
                            start,
                            counts: [outers, rows],
                            strides: [outer, row],
                            row_stride: step[1],
                            rows: len,
                        };
                        simd::deinterleave2_grid(src, dst, &grid, S::STREAMING);
                    } else {
                        let shape = [outers, steps, rows, len];
                        strided_volume(src, dst, start, shape, [outer, step, row, [si, di]]);
                    }
                },
            );
        }
        RelayoutKernel::Transpose => {
            // Rows contiguous in the source (`row[0] == 1`, the level the
            // planner moved there), runs in the destination (`di == 1`).
            nest.for_each_volume(
                #[inline(always)]
                |start, shape| {
                    transpose_volume(src, out.buffer(), start, shape, strides, S::STREAMING);
                },
            );
        }
        RelayoutKernel::ElementByElement | RelayoutKernel::Strided => {
            nest.for_each_volume(
                #[inline(always)]
                |start, shape| {
                    strided_volume(
                        src,
                        out.buffer(),
                        start,
                        shape,
                        [outer, step, row, [si, di]],
                    );
                },
            );
        }
    }
}

/// One volume of blocks whose rows are contiguous in the source
/// (`strides[2][0] == 1`) and runs in the destination (`strides[3][1] ==
/// 1`), with the transpose kernel ([`transpose`]).
#[inline(always)]
fn transpose_volume<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    start: [usize; 2],
    [outers, steps, rows, len]: [usize; 4],
    [outer, step, row, [run_stride, _]]: [[usize; 2]; 4],
    streaming: bool,
) {
    let grid = transpose::TransposeGrid {
        start,
        counts: [outers, steps],
        strides: [outer, step],
        rows,
        len,
        run_stride,
        row_stride: row[1],
    };
    transpose::transpose_grid(src, dst, &grid, streaming);
}

/// How far ahead of each run to prefetch the source, in elements, when
/// streaming: one step of the nest's outermost level (the next band of
/// tiles, or of rows: each line is prefetched once, a band before it is
/// read), when that is at most 256 KiB, so that the prefetched lines are
/// still in the caches when the copy gets there; 0 for no prefetch.
///
/// Timed in one process, in turns: the pack of `f32[M,1024]` into
/// `T(8,128)` at 16 MiB went from 0.89–1.01× `memcpy` to 1.21–1.22×, its
/// unpack from 0.94–1.02× to 1.12–1.18×; the pack of `f32[M-3,947]` took
/// 1.38–1.55× the aligned pack's time per byte at 256 MiB and 1.26–1.27×
/// with it. (The interleave kernels prefetch by `stream::ReadAhead`:
/// there, the next band in address order measured faster than each
/// block's rows one band on.)
fn read_ahead<T>(nest: &LoopNest) -> usize {
    let size = core::mem::size_of::<T>();
    match nest.levels().iter().find(|level| level.extent > 1) {
        Some(level) if level.strides[0].saturating_mul(size) <= 256 << 10 => level.strides[0],
        _ => 0,
    }
}

/// Calls `f(start + o * outer + k * step + r * row)` at the start of
/// every row `r < rows` of every block `k < steps` of every plane `o <
/// outers` of a volume, in that order, each offset `[source,
/// destination]`.
///
/// Plain loops calling `f` itself: passed on as `&mut f` to a helper, the
/// per-run closure went through a call that the compiler did not always
/// inline (a call per 512-byte run made the `f32` unpack 1.5× slower).
#[inline(always)]
fn for_each_row_start(
    start: [usize; 2],
    [outers, steps, rows]: [usize; 3],
    [outer, step, row]: [[usize; 2]; 3],
    mut f: impl FnMut([usize; 2]),
) {
    let mut plane = start;
    for _ in 0..outers {
        let mut block = plane;
        for _ in 0..steps {
            let mut at = block;
            for _ in 0..rows {
                f(at);
                at = [at[0] + row[0], at[1] + row[1]];
            }
            block = [block[0] + step[0], block[1] + step[1]];
        }
        plane = [plane[0] + outer[0], plane[1] + outer[1]];
    }
}

/// One volume of blocks with any strides: element `(o, k, r, i)` goes
/// from `src[s + o*outer + k*step + r*row + i*run]` to the same place in
/// `dst`, with each buffer's own strides.
#[inline(never)]
fn strided_volume<T: Copy>(
    src: &[T],
    dst: &mut [T],
    start: [usize; 2],
    [outers, steps, rows, len]: [usize; 4],
    [outer, step, row, [si, di]]: [[usize; 2]; 4],
) {
    for_each_row_start(
        start,
        [outers, steps, rows],
        [outer, step, row],
        |[s, d]| {
            let src_run = &src[s..];
            let dst_run = &mut dst[d..];
            for i in 0..len {
                dst_run[i * di] = src_run[i * si];
            }
        },
    );
}

/// `dst.copy_from_slice(src)` for the runs of a relayout: a short run (a
/// tile row of 128 `f32` is 512 bytes) as inline copies of 16 elements,
/// which measured 1.1× faster than a `memcpy` call per run; a long one as
/// `memcpy`.
#[inline(always)]
fn copy_run<T: Copy>(src: &[T], dst: &mut [T]) {
    if core::mem::size_of_val(src) > 2048 {
        dst.copy_from_slice(src);
        return;
    }
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

#[cfg(test)]
pub(crate) mod tests {
    use layout_core::{ArrayLayout, walk::LoopNest};

    use super::read_ahead;

    /// The relayout nest of two layouts' text (both valid, with a nest).
    pub(crate) fn nest(src: &str, dst: &str) -> LoopNest {
        let src: ArrayLayout = src.parse().unwrap();
        let dst: ArrayLayout = dst.parse().unwrap();
        LoopNest::relayout(&src, &dst).unwrap().unwrap()
    }

    /// One band ahead in the source, pack or unpack, unless a band is
    /// more than 256 KiB of it.
    #[test]
    fn read_ahead_is_one_band_of_the_source() {
        let pack = nest("f32[61,947]{1,0}", "f32[61,947]{1,0:T(8,128)}");
        assert_eq!(read_ahead::<f32>(&pack), 8 * 947);
        let unpack = nest("f32[64,1024]{1,0:T(8,128)}", "f32[64,1024]{1,0}");
        assert_eq!(read_ahead::<f32>(&unpack), 8 * 1024);
        // A band of 8 rows of 8192 `f32` is exactly 256 KiB; of 8193, more.
        let wide = nest("f32[16,8192]{1,0}", "f32[16,8192]{1,0:T(8,128)}");
        assert_eq!(read_ahead::<f32>(&wide), 8 * 8192);
        let wider = nest("f32[16,8193]{1,0}", "f32[16,8193]{1,0:T(8,128)}");
        assert_eq!(read_ahead::<f32>(&wider), 0);
        // The outermost level that takes more than one step: a single
        // band has none beyond the tiles across it.
        let one_band = nest("f32[8,1024]{1,0}", "f32[8,1024]{1,0:T(8,128)}");
        assert_eq!(read_ahead::<f32>(&one_band), 128);
    }
}
