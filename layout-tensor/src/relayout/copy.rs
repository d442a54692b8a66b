//! The copy along a relayout nest: the destination taken as it is, with
//! streaming stores, or through `memcpy` ([`Sink`]), and each volume of
//! the nest moved by the kernel the planner chose
//! ([`RelayoutKernel`]), the dispatch one `match`.

use bytemuck::NoUninit;
use layout_core::walk::{LoopNest, for_each_run_start, for_each_step};

use super::kernel::{RelayoutKernel, staged_units};
use super::sink::{Memcpy, Sink};
use super::stream::{STREAM_FROM_BYTES, StreamWriter};
use super::{simd, squares, stream, transpose};

/// Copies along `nest` with `kernel` as the planner arranged it
/// ([`arrange`](super::kernel::arrange)): a
/// [`RelayoutKernel::UnitTranspose`] nest is in units, so its buffers are
/// taken as slices of units and copied as a transpose, and a
/// [`RelayoutKernel::SquareTranspose`] nest in squares
/// ([`squares::copy_squares`]); any other kernel as [`copy_nest`].
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn copy_planned<T: NoUninit>(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    src: &[T],
    dst: &mut [T],
) {
    match kernel {
        RelayoutKernel::SquareTranspose { side: 2 } => {
            squares::copy_squares::<T, 2, 4>(nest, src, dst);
        }
        RelayoutKernel::SquareTranspose { side: 4 } => {
            squares::copy_squares::<T, 4, 16>(nest, src, dst);
        }
        RelayoutKernel::UnitTranspose { unit: 2 } => copy_units::<T, 2>(nest, src, dst),
        RelayoutKernel::UnitTranspose { unit: 4 } => copy_units::<T, 4>(nest, src, dst),
        RelayoutKernel::UnitTranspose { unit: 8 } => copy_units::<T, 8>(nest, src, dst),
        RelayoutKernel::StagedUnitTranspose { unit: 2 } => copy_staged::<T, 2>(nest, src, dst),
        RelayoutKernel::StagedUnitTranspose { unit: 4 } => copy_staged::<T, 4>(nest, src, dst),
        RelayoutKernel::StagedUnitTranspose { unit: 8 } => copy_staged::<T, 8>(nest, src, dst),
        _ => copy_nest(nest, kernel, src, dst),
    }
}

/// A transpose of units of `K` elements that start at any element of one
/// buffer, along a nest arranged for it ([`staged_units`]): each volume
/// of whole units through the stage ([`transpose::staged_volume`]), in
/// any order, so that the full tiles of a band come as one volume; the
/// units a partial tile cuts short (and every unit, for element types
/// the stage cannot hold) element by element. Into a destination of
/// [`STREAM_FROM_BYTES`] or more, the transpose kernel's stores stream,
/// fenced when the walk ends ([`StreamWriter`]'s drop).
#[inline(never)]
fn copy_staged<T: NoUninit, const K: usize>(nest: &LoopNest, src: &[T], dst: &mut [T]) {
    let Some(staged) = staged_units(nest) else {
        return copy_nest(nest, RelayoutKernel::Strided, src, dst);
    };
    let walk = |dst: &mut [T], streaming: bool| {
        let strides = nest.volume_strides();
        let fits = transpose::Stage::<T>::capacity() >= K;
        let mut stage = transpose::Stage::<T>::new();
        nest.for_each_volume_any_order(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |start, shape| match shape[3] == K && fits {
                true => transpose::staged_volume::<T, K, { transpose::STAGE_WORDS }>(
                    src,
                    dst,
                    &mut stage,
                    staged.misaligned,
                    start,
                    shape,
                    strides,
                    streaming,
                ),
                false => strided_volume(src, dst, start, shape, strides),
            },
        );
    };
    if core::mem::size_of_val(dst) >= STREAM_FROM_BYTES
        && let Some(mut writer) = StreamWriter::new(&mut *dst)
    {
        // The writer lives until the walk has written everything.
        walk(writer.flushed(), true);
    } else {
        walk(dst, false);
    }
}

/// A transpose along a nest in units of `K` elements.
#[inline(never)]
fn copy_units<T: NoUninit, const K: usize>(nest: &LoopNest, src: &[T], dst: &mut [T]) {
    let (src, dst) = (
        transpose::as_units::<T, K>(src),
        transpose::as_units_mut::<T, K>(dst),
    );
    copy_nest(nest, RelayoutKernel::Transpose, src, dst);
}

/// Copies every element of `src` to `dst` along `nest`: into a
/// destination of [`STREAM_FROM_BYTES`] or more with streaming stores
/// where the target has them ([`StreamWriter`]), else with normal ones;
/// runs contiguous in both buffers that start at destination addresses
/// that are not 16-byte aligned with the platform's `memcpy`, up to their
/// first aligned element when longer than 2 KiB ([`Memcpy`]).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn copy_nest<T: NoUninit>(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    src: &[T],
    dst: &mut [T],
) {
    if core::mem::size_of_val(dst) >= STREAM_FROM_BYTES
        && let Some(writer) = StreamWriter::new(&mut *dst)
    {
        if kernel == RelayoutKernel::ContiguousRuns && runs_of_a_page::<T>(nest) {
            copy_volumes(&in_source_order(nest), kernel, src, writer);
        } else {
            copy_volumes(nest, kernel, src, writer);
        }
    } else if kernel == RelayoutKernel::ContiguousRuns && dst_run_alignment(nest, dst) < 16 {
        copy_volumes(nest, kernel, src, Memcpy(dst));
    } else {
        copy_volumes(nest, kernel, src, dst);
    }
}

/// The largest power of two, up to 64, that divides the byte address of
/// every run's start in the destination (the runs of `nest`'s innermost
/// level).
#[cfg_attr(not(debug_assertions), inline(always))]
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

/// Copies every element of `src` into `out` along `nest` with `kernel`
/// ([`RelayoutKernel::for_nest`], the same for every volume of blocks,
/// [`LoopNest::for_each_volume`]).
///
/// A block can be as small as 512 bytes (a `T(8,128)(2,1)` row pair), and
/// a tile 2 KiB, so a call per block or per tile costs a sizeable part of
/// the copy: kernels take a whole volume, a band of tiles. The
/// interleave, transpose and strided kernels are functions of their own,
/// called once per volume (as parameters, the two buffers are known not
/// to overlap, so loads and stores can be reordered and vectorised). The
/// contiguous copies are inlined into the walk, so that a run of 512
/// bytes costs no call.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_volumes<T: NoUninit, S: Sink<T>>(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    src: &[T],
    mut out: S,
) {
    let strides = nest.volume_strides();
    let [outer, step, row, [si, di]] = strides;
    match kernel {
        RelayoutKernel::ContiguousRuns => {
            // Below the streaming threshold the copy runs from the
            // caches, where a store a cycle bounds it: AVX2's 32-byte
            // stores, where the CPU has them, move twice SSE2's bytes.
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            if !S::STREAMING {
                return super::isa::with_best(
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    || contiguous_runs(nest, src, out),
                );
            }
            contiguous_runs(nest, src, out);
        }
        RelayoutKernel::Interleave { factor } => {
            // A whole block (`len == factor`; a partial tile may be
            // shorter) is dense in the destination and each of its `len`
            // source rows is contiguous: a transpose of `factor` runs into
            // dense groups. Element sizes with a vector interleave take
            // that kernel, which streams a band's output whole; others the
            // transpose kernel.
            // In the nest's order: a pack's volumes split only at the
            // rows' end, where any order finds nothing larger, and its
            // checks cost a partial-tile shape (`bf16[721,727]`) 5%.
            let vectors = simd::has_vectors::<T>(factor);
            let mut bands = simd::Bands::new(!S::STREAMING);
            nest.for_each_volume_band(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |start, [outers, steps, rows, len], count, band_stride| {
                    let dst = out.buffer();
                    if vectors && len == factor {
                        let grid = simd::BlockGrid {
                            start,
                            counts: [outers, steps],
                            strides: [outer, step],
                            bands: 1,
                            band_stride: [0, 0],
                            factor,
                            row_stride: si,
                            rows,
                        };
                        for grid in grid.banded(count, band_stride, S::STREAMING) {
                            if let Some(grid) = bands.push(grid) {
                                simd::interleave_grid(src, dst, &grid, S::STREAMING);
                            }
                        }
                    } else {
                        let shape = [outers, steps, rows, len];
                        for_each_step(start, count, band_stride, |start| match len < factor {
                            true => partial_groups(src, dst, start, shape, strides),
                            false => {
                                transpose_volume(src, dst, start, shape, strides, S::STREAMING)
                            }
                        });
                    }
                },
            );
            while let Some(grid) = bands.take() {
                simd::interleave_grid(src, out.buffer(), &grid, S::STREAMING);
            }
        }
        RelayoutKernel::Deinterleave { factor } => {
            // A block of `factor` steps (`steps == factor`; the last rows
            // of a row count that is not a multiple have fewer) reads
            // `factor * len` dense source elements into `factor`
            // destination rows. A partial last tile column would split
            // every band block by block in the nest's order, so the
            // volumes come in any order: the full tile columns of a band
            // in one, the partial one in another.
            let mut bands = simd::Bands::new(!S::STREAMING);
            nest.for_each_volume_band_any_order(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |start, [outers, steps, rows, len], count, band_stride| {
                    let dst = out.buffer();
                    if steps == factor {
                        let grid = simd::BlockGrid {
                            start,
                            counts: [outers, rows],
                            strides: [outer, row],
                            bands: 1,
                            band_stride: [0, 0],
                            factor,
                            row_stride: step[1],
                            rows: len,
                        };
                        for grid in grid.banded(count, band_stride, S::STREAMING) {
                            if let Some(grid) = bands.push(grid) {
                                simd::deinterleave_grid(src, dst, &grid, S::STREAMING);
                            }
                        }
                    } else {
                        let shape = [outers, steps, rows, len];
                        let strides = [outer, step, row, [si, di]];
                        for_each_step(start, count, band_stride, |start| {
                            strided_volume(src, dst, start, shape, strides)
                        });
                    }
                },
            );
            while let Some(grid) = bands.take() {
                simd::deinterleave_grid(src, out.buffer(), &grid, S::STREAMING);
            }
        }
        RelayoutKernel::Transpose => {
            // Rows contiguous in the source (`row[0] == 1`, the level the
            // planner moved there), runs in the destination (`di == 1`).
            // In any order: with a partial tile at the end of every band,
            // the bands' full tiles in one volume and their last in
            // another, rather than band by band, so the kernel can merge
            // the bands' rows (8 of them in a `T(8,128)` band).
            nest.for_each_volume_any_order(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |start, shape| {
                    transpose_volume(src, out.buffer(), start, shape, strides, S::STREAMING);
                },
            );
        }
        // A unit or square transpose comes here only through
        // `copy_planned`, in units; along the nest in elements, the
        // strided copy is right.
        // The planner never names `PackedSlots` for a nest (only
        // `for_layouts` of packed layouts does); the strided copy is the
        // nest's own copy.
        RelayoutKernel::ElementByElement
        | RelayoutKernel::Strided
        | RelayoutKernel::UnitTranspose { .. }
        | RelayoutKernel::StagedUnitTranspose { .. }
        | RelayoutKernel::SquareTranspose { .. }
        | RelayoutKernel::PackedSlots => {
            nest.for_each_volume(
                #[cfg_attr(not(debug_assertions), inline(always))]
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

/// The runs of `nest`, contiguous in both buffers, copied one after the
/// other into `out` ([`Sink::run`], inline), prefetching the source ahead
/// when streaming ([`read_ahead`], [`next_run`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn contiguous_runs<T: NoUninit, S: Sink<T>>(nest: &LoopNest, src: &[T], mut out: S) {
    let [outer, step, row, _] = nest.volume_strides();
    let blocks = [outer, step, row];
    let band = match S::STREAMING {
        true => read_ahead::<T>(nest),
        false => 0,
    };
    nest.for_each_volume(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |start, [outers, steps, rows, len]| {
            let counts = [outers, steps, rows];
            if !S::STREAMING && len * core::mem::size_of::<T>() <= 16 {
                let dst = out.buffer();
                match len {
                    1 => return short_runs::<T, 1>(src, dst, start, counts, blocks),
                    2 => return short_runs::<T, 2>(src, dst, start, counts, blocks),
                    4 => return short_runs::<T, 4>(src, dst, start, counts, blocks),
                    8 => return short_runs::<T, 8>(src, dst, start, counts, blocks),
                    _ => {}
                }
            }
            let next = match S::STREAMING {
                true => next_run::<T>(len, counts, blocks),
                false => 0,
            };
            for_each_run_start(
                start,
                [outers, steps, rows],
                blocks,
                #[cfg_attr(not(debug_assertions), inline(always))]
                |[s, d]| {
                    if next > 0 {
                        stream::prefetch(src, s.saturating_add(next), len);
                    } else if band > 0 {
                        stream::prefetch(src, s + band, len);
                    }
                    out.run(&src[s..s + len], d);
                },
            );
        },
    );
}

/// The runs of `K` elements, `K * size_of::<T>()` at most 16 bytes,
/// that start at `start` and `counts` steps of `blocks` (as
/// [`contiguous_runs`]'s), each moved as one fixed-size load and store:
/// as [`Sink::run`], a run's copy is a call to `memcpy`, which took 24
/// times a `memcpy` of the whole buffer's time for the 4-byte groups of
/// `s8[512,2043]{1,0}` into `{0,1:T(8,128)(4,1)}` (groups a source row
/// of 2043 bytes does not split into 4-byte units).
#[cfg_attr(not(debug_assertions), inline(always))]
fn short_runs<T: Copy, const K: usize>(
    src: &[T],
    dst: &mut [T],
    start: [usize; 2],
    counts: [usize; 3],
    blocks: [[usize; 2]; 3],
) {
    for_each_run_start(
        start,
        counts,
        blocks,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |[s, d]| {
            // `K` is a constant: a fixed-size copy, no call.
            dst[d..d + K].copy_from_slice(&src[s..s + K]);
        },
    );
}

/// One volume of blocks whose rows are contiguous in the source
/// (`strides[2][0] == 1`) and runs in the destination (`strides[3][1] ==
/// 1`), with the transpose kernel ([`transpose`]).
#[cfg_attr(not(debug_assertions), inline(always))]
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
/// still in the caches when the copy gets there; 0 for no prefetch. With
/// streaming stores the copy runs at the speed of memory, and the
/// hardware prefetcher, which follows one stream, does not keep up with
/// the rows of a band read side by side. (Runs of a page or more
/// prefetch their successor instead, [`next_run`]; the interleave kernels
/// prefetch by `stream::ReadAhead`, the next band in address order.)
fn read_ahead<T>(nest: &LoopNest) -> usize {
    let size = core::mem::size_of::<T>();
    match nest.levels().iter().find(|level| level.extent > 1) {
        Some(level) if level.strides[0].saturating_mul(size) <= 256 << 10 => level.strides[0],
        _ => 0,
    }
}

/// Bytes of a contiguous run from which, when streaming, [`copy_volumes`]
/// prefetches each run's successor while it copies the run, rather than
/// the next band ([`read_ahead`]): a page, so that every run starts on a
/// page of its own, where the hardware's prefetchers, which stay within a
/// page, start over. The permutation `f32[64,64,1024]{2,1,0}` →
/// `{2,0,1}` (runs of 4 KiB, 256 KiB apart in the source) went from
/// 1.43–1.65 times `memcpy`'s time to 1.09–1.33 at 16 MiB (four rounds,
/// in turns), and from 1.74–1.80 to 1.49–1.60 at 256 MiB (two). At 1 MiB, where the
/// source comes from the last-level cache, it measured 1.22–1.51 against
/// 1.22–1.40 without, so runs below the streaming threshold take no
/// prefetch.
const PAGE_BYTES: usize = 4096;

/// Whether the runs of `nest` (its innermost level, contiguous in both
/// buffers) are [`PAGE_BYTES`] long or more.
fn runs_of_a_page<T>(nest: &LoopNest) -> bool {
    nest.levels()
        .last()
        .is_some_and(|run| run.extent.saturating_mul(core::mem::size_of::<T>()) >= PAGE_BYTES)
}

/// `nest` with the levels outside its runs ordered by their source
/// strides, largest first, but for two levels of one dimension, which
/// keep their order (the walk counts a dimension's digits most
/// significant first; in a source tiled `T(4)(2,1)` the more significant
/// digit of `x` can have the smaller stride): the copy reads the source
/// in address order, where the layouts allow, and writes each run where
/// it goes. For streamed runs of a page or more, whose stores write whole
/// lines wherever the runs lie while the reads gain from running on in
/// one stream: the permutation `f32[64,64,1024]{2,1,0}` → `{2,0,1}` (runs
/// of 4 KiB, 256 KiB apart in the source in the destination's order) went
/// from 1.45–1.46 times `memcpy`'s time to 1.13–1.14 at 256 MiB and from
/// 1.20–1.31 to 1.05–1.15 at 16 MiB (two rounds in turns with the
/// parent's build). Levels of different dimensions may be taken in any
/// order ([`LoopNest::with_level_moved`]).
fn in_source_order(nest: &LoopNest) -> LoopNest {
    let outside = nest.levels().len().saturating_sub(1);
    // A copy of the levels in use (moving level 0 to 0).
    let mut ordered = nest.with_level_moved(0, 0);
    // An insertion sort by adjacent swaps, each of two levels of
    // different dimensions.
    for k in 1..outside {
        let mut j = k;
        while j > 0 {
            let [outer, inner] = [ordered.levels()[j - 1], ordered.levels()[j]];
            if outer.dim == inner.dim || inner.strides[0] <= outer.strides[0] {
                break;
            }
            ordered = ordered.with_level_moved(j, j - 1);
            j -= 1;
        }
    }
    ordered
}

/// Where the run after each one starts in the source, in elements from
/// its start, when runs are at least [`PAGE_BYTES`] long: the stride of
/// the innermost level of run starts that takes more than one step
/// (`[outers, steps, rows]`, strides `[outer, step, row]`); 0 otherwise.
/// The last run of that level prefetches past it, a wasted hint.
#[cfg_attr(not(debug_assertions), inline(always))]
fn next_run<T>(len: usize, counts: [usize; 3], strides: [[usize; 2]; 3]) -> usize {
    if len.saturating_mul(core::mem::size_of::<T>()) < PAGE_BYTES {
        return 0;
    }
    match (0..3).rev().find(|&k| counts[k] > 1) {
        Some(k) => strides[k][0],
        None => 0,
    }
}

/// One volume of an interleave's last groups, of fewer rows than the
/// factor (`len < row[1]`; the rows of a band past the last whole group:
/// one of `s8[37,N]`'s last tile band of 5 rows into `T(8,128)(4,1)`):
/// each source row's elements (contiguous, `row[0] == 1`) to every
/// `row[1]`-th destination slot. The transpose kernel took such a volume,
/// runs of one element, at over four times `memcpy`'s time for the
/// whole pack.
#[inline(never)]
fn partial_groups<T: Copy>(
    src: &[T],
    dst: &mut [T],
    start: [usize; 2],
    [outers, steps, rows, len]: [usize; 4],
    [outer, step, row, [si, _]]: [[usize; 2]; 4],
) {
    // Each block's start, as the walk gives them (one row per block).
    let blocks = [outer, step, [0, 0]];
    for_each_run_start(start, [outers, steps, 1], blocks, |[s, d]| {
        for i in 0..len {
            let from = &src[s + i * si..][..rows];
            let to = dst[d + i..].iter_mut().step_by(row[1]);
            for (slot, &value) in to.zip(from) {
                *slot = value;
            }
        }
    });
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
    for_each_run_start(
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

#[cfg(test)]
mod tests {
    use super::{in_source_order, next_run, read_ahead, runs_of_a_page};
    use crate::relayout::tests::nest;

    /// The next run of the innermost level of run starts that steps, for
    /// runs of a page or more.
    #[test]
    fn next_run_is_the_innermost_step_for_runs_of_a_page() {
        let strides = [[1 << 20, 7], [1 << 16, 5], [1024, 3]];
        assert_eq!(next_run::<f32>(1024, [4, 4, 4], strides), 1024);
        assert_eq!(next_run::<f32>(1024, [4, 4, 1], strides), 1 << 16);
        assert_eq!(next_run::<f32>(1024, [4, 1, 1], strides), 1 << 20);
        assert_eq!(next_run::<f32>(1024, [1, 1, 1], strides), 0);
        // Shorter than a page: none (the band rule applies).
        assert_eq!(next_run::<f32>(1023, [4, 4, 4], strides), 0);
        assert_eq!(next_run::<u8>(4096, [1, 1, 2], strides), 1024);
        assert_eq!(next_run::<u8>(usize::MAX, [1, 1, 2], strides), 1024);
    }

    /// Runs of a page or more are read in the source's order: the levels
    /// outside the run by source stride, largest first, the run last and
    /// the same set of levels; shorter runs keep the destination's order.
    #[test]
    fn page_runs_are_read_in_source_order() {
        let permute = nest("f32[5,7,1024]{2,1,0}", "f32[5,7,1024]{2,0,1}");
        assert!(runs_of_a_page::<f32>(&permute));
        let sorted = in_source_order(&permute);
        assert_eq!(permute.levels().len(), 3);
        let strides = |n: &layout_core::walk::LoopNest| -> [[usize; 2]; 3] {
            core::array::from_fn(|k| n.levels()[k].strides)
        };
        assert_eq!(
            strides(&permute),
            [[1024, 5 * 1024], [7 * 1024, 1024], [1, 1]]
        );
        assert_eq!(
            strides(&sorted),
            [[7 * 1024, 1024], [1024, 5 * 1024], [1, 1]]
        );
        // Two levels of one dimension keep their order: in a source tiled
        // `T(4)(2,1)`, `x / 4` steps by 1 before `x % 4`'s 2.
        let digits = nest("f32[2,4096]{1,0:T(4)(2,1)}", "f32[2,4096]{0,1}");
        let order = |n: &layout_core::walk::LoopNest| -> [(usize, usize); 3] {
            core::array::from_fn(|k| (n.levels()[k].dim, n.levels()[k].div))
        };
        assert_eq!(digits.levels().len(), 4);
        let kept = in_source_order(&digits);
        for (k, level) in order(&kept).into_iter().enumerate() {
            for later in &order(&kept)[k + 1..] {
                assert!(
                    level.0 != later.0 || level.1 > later.1,
                    "{:?}",
                    order(&kept)
                );
            }
        }
        let short = nest("f32[5,7,1023]{2,1,0}", "f32[5,7,1023]{2,0,1}");
        assert!(!runs_of_a_page::<f32>(&short));
        assert!(runs_of_a_page::<u8>(&nest(
            "u8[2,3,4096]{2,1,0}",
            "u8[2,3,4096]{2,0,1}"
        )));
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
