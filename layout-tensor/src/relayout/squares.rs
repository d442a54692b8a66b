//! The copy of a [`RelayoutKernel::SquareTranspose`]: a transpose between
//! two layouts of `(side,1)` sub-tiles, along the nest in squares
//! ([`LoopNest::in_squares`]), each square `side × side` elements
//! consecutive in both buffers and transposed between them.
//!
//! One pass along the nest: each square loaded from the source,
//! transposed in registers and stored to the destination. The
//! transposition is one array built from constant indices
//! ([`transposed`]), which the compiler turns into a byte shuffle (one
//! `pshufb` in a function compiled for AVX2, where the CPU has it).
//!
//! - **Squares of 8 bytes** (`bf16` in `(2,1)` sub-tiles), where the CPU
//!   has AVX2 and the nest arranged as a transpose has rows of squares
//!   consecutive in the source and runs in the destination: tiles of 4 ×
//!   4 squares, 4 vectors loaded, transposed as 64-bit lanes, shuffled
//!   and stored ([`avx2::tiles`]).
//! - **Others**, along the nest in the destination's order, a block of
//!   its innermost two levels at a time ([`gathered`]): squares of 4 or 8
//!   bytes 16 bytes at a time where they are consecutive in the
//!   destination (4 or 2 of them loaded, shuffled in one register and
//!   stored at once), wider ones one by one; runs of 2, 4 or 8 squares
//!   unrolled.
//!
//! Into a destination of [`STREAM_FROM_BYTES`] or more, the squares of
//! each volume go through a stage in the L1 cache, a few KiB at a time,
//! and stream out in whole lines where the volume's steps are spans of
//! the destination ([`staged_volume`], measured in commit 6f93b3d); elsewhere
//! every 16-byte store that is 16-byte aligned streams (a 16-byte
//! square, a group of narrower ones, each half of an AVX2 vector). The
//! source is prefetched along the nest ([`StepAhead`]), a level moved
//! inside volumes too large for the caches ([`with_line_steps_inside`],
//! which below the threshold moves it into every volume): the
//! transposes between `T(8,128)` tilings, both ways, at 16 and 256 MiB
//! from 3.2–5.3 times `memcpy`'s time to 1.7–2.45 (commits 34f9e9a and
//! 2ae1559, on the Zen 4 EPYC of `BENCHMARKS.md`).
//!
//! Before this module, the squares were moved whole by the kernel the
//! planner picks for the nest in squares (a transpose of units; for the
//! 16-byte squares of `s8` `(4,1)`, which no vector holds as an
//! element, its plain loop), then transposed in place in a second pass.
//! In a scratch harness (run-time layouts, median of 200–300 calls timed
//! in turns with `memcpy` of the same bytes), at 1 MiB:
//!
//! | pair | two passes | one pass, a square at a time | AVX2 tiles |
//! | --- | --- | --- | --- |
//! | `s8[1024,1024]` `{0,1:T(8,128)(4,1)}` → `{1,0:T(8,128)(4,1)}` | 17.5 | 3.2 | |
//! | `bf16[1024,1024]` `{0,1:T(8,128)(2,1)}` → `{1,0:T(8,128)(2,1)}` | 10.0–10.2 | 4.4 | 2.8 |
//! | `bf16[1000,1000]`, the same layouts | | 4.4 | 2.9 |
//!
//! Blocks and their bounds are checked once, not per square: the
//! `bf16` copy a square at a time read 4.7 with a check per square. The
//! nest ordered to put the levels of small strides innermost (so that
//! both buffers' lines are used whole while cached) read 4.6 for `s8`:
//! its blocks became 2 × 2 squares.
//!
//! One of the relayout kernels' modules with `unsafe` code: a block's
//! squares are indexed unchecked once its last one is found in both
//! buffers. `.ci/run` runs its tests under Miri.
//!
//! [`RelayoutKernel::SquareTranspose`]: super::RelayoutKernel::SquareTranspose
#![allow(unsafe_code)]

use bytemuck::NoUninit;
use layout_core::walk::{LoopNest, for_each_run_start};

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::kernel::{RelayoutKernel, arrange};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::stream::StreamWriter;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::stream::stream_store;
use super::stream::{STREAM_FROM_BYTES, prefetch_line};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::transpose::Stage;
use super::transpose::{Unit, as_units, as_units_mut};

/// A [`RelayoutKernel::SquareTranspose`] along `squares`, the nest in
/// units of `SIDE × SIDE` squares (`UNIT` elements,
/// [`LoopNest::in_squares`]), as the module says.
#[inline(never)]
pub(super) fn copy_squares<T: NoUninit, const SIDE: usize, const UNIT: usize>(
    squares: &LoopNest,
    src: &[T],
    dst: &mut [T],
) {
    let stream = core::mem::size_of_val(dst) >= STREAM_FROM_BYTES;
    copy_squares_streamed::<T, SIDE, UNIT>(squares, src, dst, stream);
}

/// [`copy_squares`], with streaming stores when `stream` and the target
/// has them (x86-64), through a stage where the nest's volumes allow it
/// ([`Out::Streamed`]); the source prefetched along the nest when
/// `stream` ([`StepAhead`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_squares_streamed<T: NoUninit, const SIDE: usize, const UNIT: usize>(
    squares: &LoopNest,
    src: &[T],
    dst: &mut [T],
    stream: bool,
) {
    const { assert!(SIDE * SIDE == UNIT) };
    let (src, dst) = (as_units::<T, UNIT>(src), as_units_mut::<T, UNIT>(dst));
    let copy = |out: Out<'_, '_, Unit<T, UNIT>>| {
        with_best(
            #[cfg_attr(not(debug_assertions), inline(always))]
            || match core::mem::size_of::<Unit<T, UNIT>>() {
                4 => gathered::<T, SIDE, UNIT, 4>(squares, src, out),
                8 => {
                    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                    if super::isa::has_avx2()
                        && let Some(tiles) = in_tiles(squares)
                    {
                        // SAFETY: the CPU has AVX2.
                        return unsafe { avx2::tiles::<T, SIDE, UNIT>(&tiles, src, out) };
                    }
                    gathered::<T, SIDE, UNIT, 2>(squares, src, out)
                }
                _ => gathered::<T, SIDE, UNIT, 1>(squares, src, out),
            },
        );
    };
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if stream && let Some(mut writer) = StreamWriter::new(&mut *dst) {
        // The writer's drop fences the streaming stores once every square
        // is written.
        return copy(Out::Streamed(&mut writer));
    }
    let _ = stream;
    copy(Out::Cached(dst));
}

/// Where a copy of squares writes its volumes.
enum Out<'a, 'w, U> {
    /// Into the destination, with normal stores (below the streaming
    /// threshold).
    Cached(&'a mut [U]),
    /// Through a streaming writer: a volume whose outer level's steps are
    /// spans of the destination goes through a stage on the stack, a part
    /// at a time ([`staged_volume`]), and the writer streams it out in
    /// whole lines, joining the line where one part meets the next; other
    /// volumes are written in place with streaming stores.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    Streamed(&'a mut StreamWriter<'w, U>),
    /// Never made: targets without streaming stores have no writer, and
    /// this holds its lifetime.
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    #[allow(dead_code)]
    Unstreamed(core::convert::Infallible, core::marker::PhantomData<&'w ()>),
}

/// How a volume's squares are stored ([`Out::for_each_volume`]).
/// (Targets without streaming stores store them [`Stores::Cached`] only.)
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(
    not(all(target_arch = "x86_64", target_feature = "sse2")),
    allow(dead_code)
)]
enum Stores {
    /// Normal stores, no prefetch: below the streaming threshold.
    Cached,
    /// Streaming stores (where aligned) into the destination, the source
    /// prefetched.
    Streamed,
    /// Normal stores into a stage, the source prefetched.
    Staged,
}

impl<U: NoUninit> Out<'_, '_, U> {
    /// Whether the copy streams (is above the streaming threshold).
    fn streams(&self) -> bool {
        match self {
            Out::Cached(_) => false,
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Out::Streamed(_) => true,
            #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
            Out::Unstreamed(never, _) => match *never {},
        }
    }

    /// Calls `volume(start, counts, dst, stores, outer)` for every
    /// volume of `nest` (or, staged, every part of one: `start` and
    /// `counts` then the part's, its destination offsets in `dst`, the
    /// stage), `counts` as [`LoopNest::for_each_volume`]'s, `outer` the
    /// strides of its outer level (`[source, destination]`): the nest's,
    /// or in a stage, where a part's outer steps lie side by side, the
    /// span of one.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn for_each_volume(
        self,
        nest: &LoopNest,
        src: &[U],
        mut volume: impl FnMut([usize; 2], [usize; 4], &mut [U], Stores, [usize; 2]),
    ) {
        match self {
            Out::Cached(dst) => {
                let _ = src;
                let [outer, ..] = nest.volume_strides();
                nest.for_each_volume(
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |start, counts| volume(start, counts, dst, Stores::Cached, outer),
                )
            }
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            Out::Streamed(writer) => {
                let strides = nest.volume_strides();
                let mut stage = Stage::<U>::new();
                nest.for_each_volume(
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |start, counts| {
                        staged_volume(writer, &mut stage, src, start, counts, strides, &mut volume)
                    },
                )
            }
            #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
            Out::Unstreamed(never, _) => match never {},
        }
    }
}

/// Bytes of the destination a staged volume ([`staged_volume`]) whose
/// outer steps continue each other takes through the stage at a time: as
/// many whole steps of the volume's outer level as fit, at least one.
/// Parts of 16 KiB (a `bf16` tile row of `T(8,128)(2,1)` tiles 1024 wide)
/// measured the same.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const STAGED_PART_BYTES: usize = 4 << 10;

/// One volume of a streamed copy (`start`, `counts` and `strides` as
/// [`LoopNest::for_each_volume`] and [`LoopNest::volume_strides`] give
/// them), copied by `volume`: where each step of its outer level is one
/// span of the destination that fits the stage ([`dense_span`]), a part
/// of a few steps at a time into the stage with normal stores
/// ([`Stores::Staged`]), the steps side by side, then through `writer`
/// into the destination in whole lines, a step's span at its place;
/// elsewhere in place ([`Stores::Streamed`]).
///
/// A part holds the steps of [`STAGED_PART_BYTES`] where they continue
/// each other in the destination; as many as the stage holds where they
/// share source lines (a source stride under 64 bytes), for a kernel to
/// read each line whole across them ([`avx2::tiles`]); else one. The way
/// back of the `bf16` transpose between `T(8,128)(2,1)` tilings
/// (`{1,0:T}` → `{0,1:T}`) has volumes of 16 steps 32 bytes apart in the
/// source, each a tile of the destination 2 KiB long, the tiles far
/// apart: a step a part, the kernel read half of each of 4 lines from 16
/// source tiles 16 KiB apart (in one set of the L1 cache, which has 12
/// ways on the Xeon below) and came back for the other halves a step
/// later. Paired call by call in a scratch harness (run-time layouts, on
/// that Xeon), 8 steps a part took 0.80–0.90 of the time of one, at 16
/// and 256 MiB, into destinations on a line and 16 bytes past one; 2
/// steps a part took 1.05–1.12. Grouping the destination tiles of 2 to 8
/// neighbouring volumes a part as well, so that the writer streams runs
/// of 4 to 16 KiB, not 2, measured 0.71–1.33 of the time of 8 steps a
/// part, mostly slower. The copies of squares that go one by one
/// ([`gathered`]; `u8`, `s16`, `s8`, `f32`), which walk a part's steps
/// one after the other, measured 0.97–1.04 with such parts in the
/// harness; `s8` back in the benchmark matrix, a little faster
/// (commit 1d6c65d).
///
/// Streamed in place, the transpose writes a tile's rows side by side
/// (AVX2's 4 × 4 squares of `bf16` store 32 bytes to each of 4 rows at a
/// time), with a line of each row open at once, filled a part at a time;
/// into rows that do not start lines (a large `Vec`'s start 16 bytes past
/// one), the line two rows share is written in two parts a row's sweep
/// apart, and a streaming store that fills part of a line sends that part
/// to memory alone. On a Xeon of the Emerald Rapids generation, paired
/// call by call with the in-place copy in a scratch harness (run-time
/// layouts, 16 MiB, `{0,1:T}` → `{1,0:T}` / back), the stage took, of
/// the in-place time, into a destination 16 bytes past a line: `bf16`
/// `T(8,128)(2,1)` 0.33 / 0.47 (`[8192,1024]`) and 0.40 / 0.50
/// (`[8000,1000]`), `u8` `(2,1)` 0.51, `f32` `(2,1)` 0.45, `s16` `(4,1)`
/// 0.68, `s8` `(4,1)` 0.79–0.89 / 1.00–1.01; into one that starts a line:
/// `bf16` 0.80–0.83 / 0.72–0.79, `u8` 0.76, `s16` 0.53, `s8` 0.90–1.04,
/// `f32` 1.01; at 256 MiB, `bf16` 0.44 / 0.54 off a line and 0.88 / 0.81
/// on one, `s8` 0.89–1.03 / 0.96–0.98. Moving no level into the volumes
/// while staging (so that the way back's volumes are spans of the
/// destination, not a tile per step) measured the same or slower (`s8`
/// back 1.14).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
fn staged_volume<U: NoUninit>(
    writer: &mut StreamWriter<'_, U>,
    stage: &mut Stage<U>,
    src: &[U],
    start: [usize; 2],
    counts: [usize; 4],
    [outer, step, row, inner]: [[usize; 2]; 4],
    volume: &mut impl FnMut([usize; 2], [usize; 4], &mut [U], Stores, [usize; 2]),
) {
    let [outers, steps, rows, len] = counts;
    let size = core::mem::size_of::<U>();
    let capacity = Stage::<U>::capacity();
    let span = dense_span([steps, rows, len], [step[1], row[1], inner[1]])
        .filter(|&span| span <= capacity);
    let (Some(span), Some(&fill)) = (span, src.get(start[0])) else {
        return volume(start, counts, writer.flushed(), Stores::Streamed, outer);
    };
    let continues = outer[1] == span;
    let per_part = match (continues, steps_share_lines::<U>(outer[0])) {
        (true, _) => (STAGED_PART_BYTES / (span * size)).clamp(1, capacity / span),
        (false, true) => capacity / span,
        (false, false) => 1,
    }
    .min(outers);
    let staged = stage.elements(per_part * span, fill);
    let mut first = 0;
    while first < outers {
        let count = per_part.min(outers - first);
        let part = &mut staged[..count * span];
        let at = [start[0] + first * outer[0], 0];
        volume(
            at,
            [count, steps, rows, len],
            part,
            Stores::Staged,
            [outer[0], span],
        );
        match continues {
            true => writer.copy(part, start[1] + first * outer[1]),
            false => {
                for (k, step) in part.chunks_exact(span).enumerate() {
                    writer.copy(step, start[1] + (first + k) * outer[1]);
                }
            }
        }
        first += count;
    }
}

/// Whether steps `stride` units of `U` apart share cache lines (are
/// less than 64 bytes apart). (Not `simd`'s `shares_lines`, which asks
/// whether a grid's destination rows can share one.)
fn steps_share_lines<U>(stride: usize) -> bool {
    stride.saturating_mul(core::mem::size_of::<U>()) < 64
}

/// The units a box of `extents` steps of `strides` covers, when it covers
/// `0..span` once each (its levels, ordered by stride, each step over all
/// the levels below it); `None` otherwise, or for an empty box.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn dense_span<const N: usize>(extents: [usize; N], strides: [usize; N]) -> Option<usize> {
    let mut levels: [(usize, usize); N] = core::array::from_fn(|k| (strides[k], extents[k]));
    levels.sort_unstable();
    let mut span = 1usize;
    for (stride, extent) in levels {
        match extent {
            0 => return None,
            1 => {}
            _ if stride == span => span = span.checked_mul(extent)?,
            _ => return None,
        }
    }
    Some(span)
}

/// Writes `value` to `to`: with a streaming store ([`stream_store`]) when
/// `stream`, the value is 16 bytes and the target has them (x86-64), else
/// with a normal one.
///
/// # Safety
/// `to` is valid for a write of a `V`, and 16-byte aligned when `stream`;
/// `V` has no uninitialised bytes (a square or an array of them).
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn store<V: Copy>(to: *mut V, value: V, stream: bool) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if stream && core::mem::size_of::<V>() == 16 {
        // SAFETY: `V` is 16 bytes, every one initialised (the caller's
        // contract), and any 16 bytes are a `__m128i`; `to` is aligned
        // and valid for them (the caller's contract).
        return unsafe {
            let value = core::mem::transmute_copy::<V, core::arch::x86_64::__m128i>(&value);
            stream_store(to.cast(), value)
        };
    }
    let _ = stream;
    // SAFETY: the caller's contract.
    unsafe { to.write(value) }
}

/// `squares` arranged as a transpose ([`arrange`], or as it is where
/// its levels already are): each block's rows consecutive squares in the
/// source and its runs in the destination, so that a tile of 4 × 4
/// squares is 4 vectors in and 4 out; `None` where the nest has no such
/// levels. (Taking only what `arrange` moved, `bf16[8192,128]`
/// `{1,0:T(8,128)(2,1)}` → `{0,1:T(8,128)(2,1)}`, one column of tiles,
/// whose nest in squares is a transpose as it comes, went square by
/// square: 7.3 times `memcpy`'s time at 2 MiB.)
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn in_tiles(squares: &LoopNest) -> Option<LoopNest> {
    let arranged = arrange(squares, RelayoutKernel::Transpose).unwrap_or(*squares);
    let [_, _, row, inner] = arranged.volume_strides();
    (row[0] == 1 && inner[1] == 1).then_some(arranged)
}

/// Every square of `squares` loaded from `src`, transposed and stored to
/// `dst`, along the nest's volumes: each block of its innermost two
/// levels a loop over rows of runs, a run (the innermost level, in the
/// destination's order) the inner loop; the level outside them inside
/// each row when its squares share a source line (`s8`'s 16-byte
/// squares: in a scratch harness at 1 MiB, `u8[1024,1024]` in `(2,1)`
/// squares took 4.8–4.9 times `memcpy`'s time against 6.7, `f32[512,512]`
/// 2.2 against 2.6, `s8` `(4,1)` 3.2–3.5 against 3.3–3.6; as blocks of
/// their own, those steps made `s8`'s blocks 2 × 2 squares, 4.8). Runs
/// of 2, 4 or 8 squares (the `(2,1)` and `(4,1)` squares of a sub-tile
/// row of XLA's tiles, the rest of a run cut across the next level) are
/// loops of a constant count, unrolled: a loop of two steps took half the
/// time of the copy.
#[cfg_attr(not(debug_assertions), inline(always))]
fn gathered<T: NoUninit, const SIDE: usize, const UNIT: usize, const GROUP: usize>(
    squares: &LoopNest,
    src: &[Unit<T, UNIT>],
    out: Out<'_, '_, Unit<T, UNIT>>,
) {
    let stream = out.streams();
    let moved = with_line_steps_inside::<Unit<T, UNIT>>(squares, stream);
    let squares = moved.as_ref().unwrap_or(squares);
    let [_, step, row, inner] = squares.volume_strides();
    // Steps within a source line of each other (the squares of a `(4,1)`
    // sub-tile's row of `s8`, 16 bytes apart in the source) go inside
    // each row of a block, so that a line's squares are read one after
    // the other, not a block of rows (8 KiB apart, sharing a set of the
    // L1 cache) later.
    let steps_in_rows = steps_share_lines::<Unit<T, UNIT>>(step[0]);
    let step_ahead = StepAhead::new(squares, stream);
    out.for_each_volume(
        squares,
        src,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |start, [outers, steps, rows, len], dst, stores, outer| {
            let ahead = step_ahead.squares::<Unit<T, UNIT>>([outers, steps, rows, len]);
            let [steps, in_rows] = match steps_in_rows {
                true => [1, steps],
                false => [steps, 1],
            };
            let staged = stores == Stores::Staged;
            for_each_run_start(
                start,
                [1, outers, steps],
                [[0, 0], outer, step],
                #[cfg_attr(not(debug_assertions), inline(always))]
                |at| {
                    let block = Block {
                        at,
                        rows,
                        row,
                        steps: in_rows,
                        step,
                        inner,
                    };
                    // Streaming (with its alignment checks and prefetch) a
                    // copy of its own, so that the one below the threshold
                    // is compiled as if it did not exist.
                    let dst = &mut *dst;
                    match (len, stores == Stores::Cached) {
                        (2, true) => {
                            block.runs::<T, SIDE, UNIT, GROUP, 2, false>(src, dst, len, 0, false)
                        }
                        (4, true) => {
                            block.runs::<T, SIDE, UNIT, GROUP, 4, false>(src, dst, len, 0, false)
                        }
                        (8, true) => {
                            block.runs::<T, SIDE, UNIT, GROUP, 8, false>(src, dst, len, 0, false)
                        }
                        (_, true) => {
                            block.runs::<T, SIDE, UNIT, GROUP, 0, false>(src, dst, len, 0, false)
                        }
                        (2, false) => block
                            .runs::<T, SIDE, UNIT, GROUP, 2, true>(src, dst, len, ahead, staged),
                        (4, false) => block
                            .runs::<T, SIDE, UNIT, GROUP, 4, true>(src, dst, len, ahead, staged),
                        (8, false) => block
                            .runs::<T, SIDE, UNIT, GROUP, 8, true>(src, dst, len, ahead, staged),
                        (_, false) => block
                            .runs::<T, SIDE, UNIT, GROUP, 0, true>(src, dst, len, ahead, staged),
                    }
                },
            );
        },
    );
}

/// `squares` with the level outside its volumes moved inside them, as
/// their outer level, where that level's steps share source lines (a
/// source stride under 64 bytes) and either the copy is below the
/// streaming threshold (`!stream`) or a volume holds more than
/// [`CACHED_VOLUME_BYTES`]; `None` elsewhere.
///
/// In the destination's order, the transpose out of row-major tiles
/// (`s8[M,1024]` `{1,0:T(8,128)(4,1)}` → `{0,1:T(8,128)(4,1)}`) has
/// volumes of a whole column of tiles, each reading half of a few source
/// lines per tile, whose other half the level outside reads a column (2
/// MiB at 256 MiB) later, from memory again. Moved in, each volume
/// reads its tiles' lines whole, and the destination takes 16 runs of 1
/// KiB at a time: in a scratch harness (run-time layouts, medians in
/// turns with `memcpy` of the same bytes) that `s8` transpose from 3.1–3.2
/// times `memcpy`'s time to 1.9–2.0 at 16 MiB and from 5.0–5.1 to 2.1 at
/// 256 MiB, `bf16`'s `(2,1)` from 2.3 to 1.7 and from 3.2 to 1.9,
/// `s8[16000,1000]` from 3.1 to 1.9–2.0.
///
/// Below the threshold small volumes gain too, each line's other half
/// read while the line is in the L1 cache, not from the L2 later: in the
/// same harness, `s8[1024,1024]` both ways 3.21–3.26 → 3.00–3.05,
/// `s8[1000,3000]` 3.37–3.39 → 3.01–3.04, `s8[2048,2048]` 3.10–3.14 →
/// 2.98–3.00, `u8[1024,1024]` in `(2,1)` squares 4.98–5.09 → 4.77–4.78,
/// `bf16[1000,1000]` 2.75–2.78 → 2.61–2.66 (through AVX2's tiles), and
/// `s16[512,1024]` the same within the noise. Above the threshold, small
/// volumes keep their order, which the source prefetch ([`StepAhead`])
/// follows.
fn with_line_steps_inside<U>(squares: &LoopNest, stream: bool) -> Option<LoopNest> {
    let outside = squares.band_level()?;
    let levels = squares.levels();
    let level = levels[outside];
    let volume = volume_bytes::<U>(levels[outside + 1..].iter().map(|level| level.extent));
    let shared = steps_share_lines::<U>(level.strides[0]);
    (level.extent > 1 && shared && (!stream || volume > CACHED_VOLUME_BYTES))
        .then(|| squares.with_level_moved(outside, outside + 1))
}

/// The most bytes of squares a volume may hold for the copy to count on
/// them staying cached until the walk's next step or two (a quarter of
/// the L2 cache of the machines measured): [`StepAhead`] prefetches for
/// such volumes, and [`with_line_steps_inside`] moves a level into
/// larger ones.
const CACHED_VOLUME_BYTES: usize = 64 << 10;

/// Bytes of a volume of `extents` squares (each a `U`), saturating.
fn volume_bytes<U>(extents: impl IntoIterator<Item = usize>) -> usize {
    extents
        .into_iter()
        .fold(core::mem::size_of::<U>(), |bytes, n| {
            bytes.saturating_mul(n)
        })
}

/// Where a streamed copy prefetches its source: each square's line two
/// steps ahead along the level outside the nest's volumes (the one the
/// walk steps after each volume), for volumes small enough that what is
/// prefetched is still cached when the walk gets there.
///
/// Above the streaming threshold, the source of a transpose between
/// `T(8,128)` tilings is read from memory a few squares of each of 128
/// tiles at a time, 2 MiB apart and revisited a square further on at each
/// step of that level, a pattern the hardware's prefetchers do not learn:
/// in a scratch harness (run-time layouts, medians in turns with `memcpy`
/// of the same bytes), the transposes of `bf16[M,1024]`
/// `{0,1:T(8,128)(2,1)}` → `{1,0:T(8,128)(2,1)}` and of `s8`'s `(4,1)`
/// from 2.0 and 3.0 times `memcpy`'s time to 1.6–1.75 and 1.8–2.1 at 16
/// MiB, from 2.5 and 3.8 to 2.0–2.3 and 2.3–2.5 at 256 MiB (with
/// streaming stores either way; 3.1–3.2 and 3.9 with neither). Four
/// steps ahead measured better for `bf16` at 256 MiB (1.8–1.95) and
/// worse at 16 MiB (1.8–1.9), eight steps worse at both; below the
/// threshold, where the source is cached, prefetching made the 1 MiB
/// copies slower (`s8` 3.3 → 3.7). Where a volume is larger than
/// [`CACHED_VOLUME_BYTES`], the lines are gone before the walk
/// comes back to them: prefetching the volumes of a whole column of
/// tiles (going back to `{0,1:T(8,128)(4,1)}`, before
/// [`with_line_steps_inside`] moved a level into them) made that copy
/// slower (`s8` 5.2 → 6.3).
#[derive(Clone, Copy)]
struct StepAhead {
    /// Squares of the source two steps of the level outside the volumes
    /// take; 0 for no prefetch.
    ahead: usize,
}

impl StepAhead {
    /// The read-ahead of a copy along `nest`: none unless `stream`, or
    /// where the level outside the volumes has fewer than 3 steps.
    fn new(nest: &LoopNest, stream: bool) -> StepAhead {
        let outside = nest.band_level().map(|k| nest.levels()[k]);
        let ahead = match outside {
            Some(level) if stream && level.extent > 2 => level.strides[0].saturating_mul(2),
            _ => 0,
        };
        StepAhead { ahead }
    }

    /// How many squares (each a `U`) ahead of each square read the
    /// source is prefetched in a volume of `shape` (`[outers, steps,
    /// rows, len]`): 0 for none.
    fn squares<U>(self, shape: [usize; 4]) -> usize {
        match volume_bytes::<U>(shape) <= CACHED_VOLUME_BYTES {
            true => self.ahead,
            false => 0,
        }
    }
}

/// A block of the nest's innermost two levels, and of the level outside
/// them taken inside each row: `rows × steps` runs, run `(r, t)`'s
/// square `i` at `at + r * row + t * step + i * inner` (each `[source,
/// destination]`).
#[derive(Clone, Copy)]
struct Block {
    at: [usize; 2],
    rows: usize,
    row: [usize; 2],
    steps: usize,
    step: [usize; 2],
    inner: [usize; 2],
}

impl Block {
    /// One past the block's last square in buffer `b` (0 the source, 1
    /// the destination) for runs of `len`; `None` on overflow, or for a
    /// block with no squares.
    fn end(&self, b: usize, len: usize) -> Option<usize> {
        let last_row = self.rows.checked_sub(1)?.checked_mul(self.row[b])?;
        let last_step = self.steps.checked_sub(1)?.checked_mul(self.step[b])?;
        let last = len.checked_sub(1)?.checked_mul(self.inner[b])?;
        self.at[b]
            .checked_add(last_row)?
            .checked_add(last_step)?
            .checked_add(last)?
            .checked_add(1)
    }

    /// Every square of the block moved and transposed, runs of `len`
    /// squares (`LEN` when not 0, a constant): where a run is contiguous
    /// in the destination, `GROUP` squares at a time, stored as one.
    /// Indexed without bounds checks once the block's last square is
    /// found in both buffers (checked per square, the `bf16` copy took
    /// 4.7 times `memcpy`'s time at 1 MiB, against 4.4); else, for a
    /// block that does not fit (which a nest of the buffers' layouts
    /// never makes), with them, so that it panics. With `STREAM`, each
    /// square's line `ahead` squares on is prefetched (0: none), and
    /// unless `staged` (`dst` is a stage) its 16-byte stores stream where
    /// the block's are all 16-byte aligned.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn runs<
        T: NoUninit,
        const SIDE: usize,
        const UNIT: usize,
        const GROUP: usize,
        const LEN: usize,
        const STREAM: bool,
    >(
        self,
        src: &[Unit<T, UNIT>],
        dst: &mut [Unit<T, UNIT>],
        len: usize,
        ahead: usize,
        staged: bool,
    ) {
        let ahead = match STREAM {
            true => ahead,
            false => 0,
        };
        let len = match LEN {
            0 => len,
            _ => LEN,
        };
        if self.rows == 0 || self.steps == 0 || len == 0 {
            return;
        }
        let fits = self.end(0, len).is_some_and(|end| end <= src.len())
            && self.end(1, len).is_some_and(|end| end <= dst.len());
        if !fits {
            return self.checked_runs::<T, SIDE, UNIT>(src, dst, len);
        }
        let [si, di] = self.inner;
        let (src, dst) = (src.as_ptr(), dst.as_mut_ptr());
        // Streaming stores where every 16-byte store of the block (a group,
        // or a square of 16 bytes) is 16-byte aligned: its first square
        // is, and so is every step between its stores (a group's squares
        // are consecutive, so groups are 16 bytes apart when `di == 1`).
        // Modulo a power of two, wrapping arithmetic is exact.
        let bytes = |stride: usize| stride.wrapping_mul(core::mem::size_of::<Unit<T, UNIT>>());
        let stream = STREAM
            && !staged
            && dst.wrapping_add(self.at[1]).addr().is_multiple_of(16)
            && bytes(self.row[1]).is_multiple_of(16)
            && bytes(self.step[1]).is_multiple_of(16)
            && (di == 1 || bytes(di).is_multiple_of(16));
        let mut row_at = self.at;
        for _ in 0..self.rows {
            let mut at = row_at;
            // (Past the last row and step, unused: wrapping.)
            row_at = [0, 1].map(|b| row_at[b].wrapping_add(self.row[b]));
            for _ in 0..self.steps {
                let [s, d] = at;
                at = [0, 1].map(|b| at[b].wrapping_add(self.step[b]));
                // Square `i` of run `(r, t)` (the `r`-th row and `t`-th
                // step of the loops) is at `s + i * si` in the source and
                // `d + i * di` in the destination, `r < rows`, `t < steps`
                // and `i < len`: at most the block's last square in each,
                // which `fits` found in the buffers.
                // Apart from the loads: a branch among them keeps the
                // compiler from gathering a group's squares into one
                // shuffle (`u8` in `(2,1)` squares, 4 bytes, at 1 MiB:
                // 14.5 times `memcpy`'s time against 4.8–5.1).
                if ahead > 0 {
                    for i in 0..len {
                        prefetch_line(src.wrapping_add(s + i * si + ahead));
                    }
                }
                let load = |i: usize| {
                    // SAFETY: `i < len`, as above.
                    unsafe { src.add(s + i * si).read() }
                };
                if di != 1 {
                    for i in 0..len {
                        // SAFETY: as above; with `stream`, a 16-byte
                        // square's address is a multiple of 16 (above).
                        unsafe {
                            store(
                                dst.add(d + i * di),
                                transposed::<T, SIDE, UNIT>(load(i)),
                                stream,
                            )
                        };
                    }
                    continue;
                }
                let groups = len / GROUP;
                for g in 0..groups {
                    let group: [_; GROUP] = core::array::from_fn(
                        #[cfg_attr(not(debug_assertions), inline(always))]
                        |k| transposed::<T, SIDE, UNIT>(load(g * GROUP + k)),
                    );
                    // SAFETY: as above; the group's squares are consecutive
                    // in the destination (`di == 1`), `g * GROUP + GROUP <=
                    // len`, and an array of units has their alignment; with
                    // `stream`, a group of 16 bytes starts at a multiple of
                    // 16 (above: `d` is, and so is `g * GROUP` squares).
                    unsafe {
                        let to = dst.add(d + g * GROUP).cast::<[Unit<T, UNIT>; GROUP]>();
                        store(to, group, stream)
                    };
                }
                for i in groups * GROUP..len {
                    // SAFETY: as above.
                    unsafe { dst.add(d + i).write(transposed::<T, SIDE, UNIT>(load(i))) };
                }
            }
        }
    }

    /// [`Block::runs`] with every index checked.
    ///
    /// # Panics
    /// If a square of the block lies past either buffer.
    #[cold]
    fn checked_runs<T: NoUninit, const SIDE: usize, const UNIT: usize>(
        self,
        src: &[Unit<T, UNIT>],
        dst: &mut [Unit<T, UNIT>],
        len: usize,
    ) {
        let [si, di] = self.inner;
        for r in 0..self.rows {
            for t in 0..self.steps {
                let [s, d] = [0, 1].map(|b| self.at[b] + r * self.row[b] + t * self.step[b]);
                for i in 0..len {
                    dst[d + i * di] = transposed::<T, SIDE, UNIT>(src[s + i * si]);
                }
            }
        }
    }
}

/// `square`'s `SIDE` rows of `SIDE` elements as columns: element `c *
/// SIDE + r` of the result is element `r * SIDE + c` of `square`. Written
/// as one array built from constant indices, which the compiler turns
/// into a shuffle of the square's bytes (`pshufb` with AVX2).
#[inline(always)]
fn transposed<T: Copy, const SIDE: usize, const UNIT: usize>(
    square: Unit<T, UNIT>,
) -> Unit<T, UNIT> {
    Unit(core::array::from_fn(|i| {
        square.0[i % SIDE * SIDE + i / SIDE]
    }))
}

/// `f()` in a function compiled for AVX2 where the CPU has it (so that a
/// square's transpose is a byte shuffle), as it is on other targets.
#[cfg_attr(not(debug_assertions), inline(always))]
fn with_best<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    return super::isa::with_best(f);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    f()
}

/// Squares of 8 bytes (`bf16` in `(2,1)` sub-tiles) in AVX2's 32-byte
/// vectors.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx2 {
    use bytemuck::NoUninit;
    use core::arch::x86_64::{
        __m128i, __m256i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
        _mm256_permute2x128_si256, _mm256_shuffle_epi8, _mm256_storeu_si256, _mm256_unpackhi_epi64,
        _mm256_unpacklo_epi64,
    };
    use layout_core::walk::{LoopNest, for_each_run_start};

    use super::{
        Block, Out, StepAhead, Stores, Unit, prefetch_line, steps_share_lines, stream_store,
        transposed, with_line_steps_inside,
    };

    /// Every square of `tiles` ([`in_tiles`](super::in_tiles): a block's
    /// rows consecutive in the source, its runs in the destination)
    /// moved and transposed, 4 × 4 squares at a time: 4 rows of 4 squares
    /// loaded as 4 vectors, transposed as 64-bit lanes (each vector then
    /// a run's 4 squares), each square transposed by one byte shuffle,
    /// and stored as 4 vectors. The edges of a block, fewer than 4 rows
    /// or squares of a run, a square at a time. A volume's blocks are
    /// checked against the buffers once, and a block with no edges skips
    /// their loop: `bf16`'s `T(8,128)(2,1)` blocks are one tile each, and
    /// with a check and an empty edge loop per block the transpose of
    /// `bf16[1024,1024]` read 3.8 times `memcpy`'s time at 1 MiB, against
    /// 2.8. A staged part's outer steps, where they share source lines,
    /// go inside its steps: each line is read whole, not half of it a
    /// step and the other half the next ([`staged_volume`](super::staged_volume)).
    ///
    /// # Safety
    /// The CPU has AVX2, and `Unit<T, UNIT>` is 8 bytes.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tiles<T: NoUninit, const SIDE: usize, const UNIT: usize>(
        tiles: &LoopNest,
        src: &[Unit<T, UNIT>],
        out: Out<'_, '_, Unit<T, UNIT>>,
    ) {
        // Instantiated for every `T` (the caller's `match` is on a value).
        assert_eq!(
            core::mem::size_of::<Unit<T, UNIT>>(),
            8,
            "squares of 8 bytes"
        );
        let shuffle = square_shuffle::<T, SIDE, UNIT>();
        // SAFETY: 32 bytes, read from the array.
        let shuffle = unsafe { _mm256_loadu_si256(shuffle.as_ptr().cast()) };
        let stream = out.streams();
        let moved = with_line_steps_inside::<Unit<T, UNIT>>(tiles, stream);
        let tiles = moved.as_ref().unwrap_or(tiles);
        let [_, step, row, inner] = tiles.volume_strides();
        let step_ahead = StepAhead::new(tiles, stream);
        out.for_each_volume(
            tiles,
            src,
            |start, [outers, steps, rows, len], dst, stores, outer| {
                let ahead = step_ahead.squares::<Unit<T, UNIT>>([outers, steps, rows, len]);
                // The volume's last block ends past every other (strides are
                // not negative), so when it fits, they all do.
                let last = [0, 1].map(|b| {
                    start[b]
                        .checked_add(outers.checked_sub(1)?.checked_mul(outer[b])?)?
                        .checked_add(steps.checked_sub(1)?.checked_mul(step[b])?)
                });
                let fits = match last {
                    [Some(s), Some(d)] if rows > 0 && len > 0 => {
                        let last = Block {
                            at: [s, d],
                            rows,
                            row,
                            steps: 1,
                            step: [0, 0],
                            inner,
                        };
                        last.end(0, len).is_some_and(|end| end <= src.len())
                            && last.end(1, len).is_some_and(|end| end <= dst.len())
                    }
                    _ => false,
                };
                // A staged part's outer steps that share source lines
                // inside its steps, so that each line is read whole
                // ([`staged_volume`]).
                let inside =
                    stores == Stores::Staged && steps_share_lines::<Unit<T, UNIT>>(outer[0]);
                let (counts, strides) = match inside {
                    true => ([1, steps, outers], [[0, 0], step, outer]),
                    false => ([1, outers, steps], [[0, 0], outer, step]),
                };
                for_each_run_start(start, counts, strides, |at| {
                    let block = Block {
                        at,
                        rows,
                        row,
                        steps: 1,
                        step: [0, 0],
                        inner,
                    };
                    if !fits {
                        return block.checked_runs::<T, SIDE, UNIT>(src, dst, len);
                    }
                    // Streaming where every vector store of the block is
                    // 16-byte aligned: its first square is, and its rows are
                    // an even number of 8-byte squares apart (a vector's
                    // squares are 4 from the run's start).
                    let streamed = stores == Stores::Streamed
                        && dst.as_ptr().wrapping_add(at[1]).addr().is_multiple_of(16)
                        && row[1].is_multiple_of(2);
                    // SAFETY: the CPU has AVX2, the block's squares lie in
                    // the buffers (`fits`), its rows are consecutive in the
                    // source and its runs in the destination (`in_tiles`);
                    // when streamed, every vector store is 16-byte aligned
                    // (above).
                    unsafe {
                        match streamed {
                            true => block_in_tiles::<T, SIDE, UNIT, true>(
                                &block, src, dst, len, shuffle, ahead,
                            ),
                            false => block_in_tiles::<T, SIDE, UNIT, false>(
                                &block, src, dst, len, shuffle, ahead,
                            ),
                        }
                    };
                });
            },
        );
    }

    /// One block of [`tiles`], its whole tiles' vectors stored with
    /// streaming stores when `STREAM` (the edges with normal ones).
    ///
    /// # Safety
    /// The CPU has AVX2; the block's squares lie in both buffers; its
    /// rows are consecutive in the source (`block.row[0] == 1`) and its
    /// runs in the destination (`block.inner[1] == 1`); when `STREAM`,
    /// its first square's address in the destination and its rows'
    /// stride there are multiples of 16 bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block_in_tiles<
        T: NoUninit,
        const SIDE: usize,
        const UNIT: usize,
        const STREAM: bool,
    >(
        block: &Block,
        src: &[Unit<T, UNIT>],
        dst: &mut [Unit<T, UNIT>],
        len: usize,
        shuffle: __m256i,
        ahead: usize,
    ) {
        let ([s0, d0], si, dr) = (block.at, block.inner[0], block.row[1]);
        let (src, dst) = (src.as_ptr(), dst.as_mut_ptr());
        let whole = [block.rows / 4 * 4, len / 4 * 4];
        // Square `(r, i)`, `r < rows`, `i < len`, is at `s0 + r + i *
        // si` in the source and `d0 + r * dr + i` in the destination:
        // within the block, which lies in the buffers.
        for r in (0..whole[0]).step_by(4) {
            for i in (0..whole[1]).step_by(4) {
                let first = src.wrapping_add(s0 + r + i * si);
                if ahead > 0 {
                    (0..4).for_each(|k| prefetch_line(first.wrapping_add(k * si + ahead)));
                }
                // SAFETY: the 4 squares `(r..r + 4, i + k)`, `k < 4`, are
                // consecutive in the source, in the block.
                let [a, b, c, d] = [0, 1, 2, 3]
                    .map(|k| unsafe { _mm256_loadu_si256(first.wrapping_add(k * si).cast()) });
                // 64-bit lanes: `a` holds rows `r..r + 4` of run `i`.
                let (ab_lo, ab_hi) = (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
                let (cd_lo, cd_hi) = (_mm256_unpacklo_epi64(c, d), _mm256_unpackhi_epi64(c, d));
                let runs = [
                    _mm256_permute2x128_si256::<0x20>(ab_lo, cd_lo),
                    _mm256_permute2x128_si256::<0x20>(ab_hi, cd_hi),
                    _mm256_permute2x128_si256::<0x31>(ab_lo, cd_lo),
                    _mm256_permute2x128_si256::<0x31>(ab_hi, cd_hi),
                ];
                for (k, run) in runs.into_iter().enumerate() {
                    let to = dst.wrapping_add(d0 + (r + k) * dr + i).cast::<__m128i>();
                    let run = _mm256_shuffle_epi8(run, shuffle);
                    // SAFETY: the 4 squares `(r + k, i..i + 4)` are
                    // consecutive in the destination, in the block; with
                    // `STREAM`, `to` is 16-byte aligned (`d0` and `dr`
                    // are even, `i` a multiple of 4).
                    unsafe {
                        match STREAM {
                            true => {
                                stream_store(to, _mm256_castsi256_si128(run));
                                stream_store(to.add(1), _mm256_extracti128_si256::<1>(run));
                            }
                            false => _mm256_storeu_si256(to.cast(), run),
                        }
                    };
                }
            }
        }
        // The edges: rows past the last whole 4, and in the rows before
        // them, squares past a run's last whole 4.
        let edge = |r: usize, i: usize| {
            // SAFETY: `(r, i)` is in the block.
            unsafe {
                let square = src.add(s0 + r + i * si).read();
                dst.add(d0 + r * dr + i)
                    .write(transposed::<T, SIDE, UNIT>(square));
            }
        };
        if whole[1] < len {
            for r in 0..whole[0] {
                (whole[1]..len).for_each(|i| edge(r, i));
            }
        }
        for r in whole[0]..block.rows {
            (0..len).for_each(|i| edge(r, i));
        }
    }

    /// The byte shuffle that transposes each 8-byte square of a
    /// 32-byte vector ([`transposed`] on the bytes of its elements), as
    /// `pshufb` indexes within each 16-byte lane.
    fn square_shuffle<T: NoUninit, const SIDE: usize, const UNIT: usize>() -> [i8; 32] {
        let size = core::mem::size_of::<T>();
        core::array::from_fn(|j| {
            let (element, within) = ((j % 8) / size, j % size);
            let from = element % SIDE * SIDE + element / SIDE;
            (j % 16 / 8 * 8 + from * size + within) as i8
        })
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec;
    use alloc::vec::Vec;

    use super::{Block, StepAhead, copy_squares_streamed, transposed, with_line_steps_inside};
    use crate::relayout::tests::nest;
    use crate::relayout::transpose::Unit;
    use layout_core::ArrayLayout;

    /// `len` elements starting at a 16-byte boundary (a `Vec` of `T`
    /// need only be aligned as `T`, and under Miri is no more than that).
    struct Aligned16<T> {
        lines: Vec<u128>,
        len: usize,
        _element: core::marker::PhantomData<T>,
    }

    impl<T: bytemuck::Pod> Aligned16<T> {
        fn new(len: usize, value: T) -> Aligned16<T> {
            let bytes = len * core::mem::size_of::<T>();
            let mut buffer = Aligned16 {
                lines: vec![0u128; bytes.div_ceil(16)],
                len,
                _element: core::marker::PhantomData,
            };
            buffer.as_mut_slice().fill(value);
            buffer
        }

        fn as_mut_slice(&mut self) -> &mut [T] {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.lines);
            let size = core::mem::size_of::<T>();
            bytemuck::cast_slice_mut(&mut bytes[..self.len * size])
        }
    }

    /// A square of `SIDE × SIDE` distinct values: element `k` is `first + k`.
    fn square<const SIDE: usize, const UNIT: usize>(first: u16) -> Unit<u16, UNIT> {
        Unit(core::array::from_fn(|k| first + k as u16))
    }

    /// Element `c * SIDE + r` of the transpose is element `r * SIDE + c`.
    #[test]
    fn squares_transpose_rows_to_columns() {
        let two = transposed::<u16, 2, 4>(square::<2, 4>(0));
        assert_eq!(two.0, [0, 2, 1, 3]);
        let four = transposed::<u16, 4, 16>(square::<4, 16>(0));
        assert_eq!(
            four.0,
            [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15]
        );
    }

    /// Every square of a block, in runs of each count the kernel
    /// specialises (2, 4, 8) and others, in groups of 1, 2 and 4, into
    /// contiguous runs and strided ones, with one step in each row or
    /// more, moved to where the block's strides say and transposed;
    /// nothing else written.
    #[test]
    fn blocks_move_every_square_where_their_strides_say() {
        fn check<const GROUP: usize, const LEN: usize>(len: usize, di: usize, steps: usize) {
            let (rows, si, run) = (3, 5, len * di + 2);
            let block = Block {
                at: [2, 1],
                rows,
                row: [1, steps * run],
                steps,
                step: [7, run],
                inner: [si, di],
            };
            let src: Vec<Unit<u16, 4>> = (0..96).map(|k| square::<2, 4>(4 * k)).collect();
            let mut dst = vec![Unit([u16::MAX; 4]); rows * steps * run + 1];
            block.runs::<u16, 2, 4, GROUP, LEN, false>(&src, &mut dst, len, 0, false);
            // Streamed where aligned, prefetching past the source's end
            // (a hint): the same squares.
            let mut streamed = vec![Unit([u16::MAX; 4]); dst.len()];
            block.runs::<u16, 2, 4, GROUP, LEN, true>(&src, &mut streamed, len, 1000, false);
            // Into a stage: normal stores, the same squares.
            let mut staged = vec![Unit([u16::MAX; 4]); dst.len()];
            block.runs::<u16, 2, 4, GROUP, LEN, true>(&src, &mut staged, len, 1000, true);
            let mut expected = vec![Unit([u16::MAX; 4]); dst.len()];
            for r in 0..rows {
                for t in 0..steps {
                    for i in 0..len {
                        let d = 1 + r * block.row[1] + t * run + i * di;
                        expected[d] = transposed::<u16, 2, 4>(src[2 + r + t * 7 + i * si]);
                    }
                }
            }
            let as_values = |v: &[Unit<u16, 4>]| v.iter().map(|u| u.0).collect::<Vec<_>>();
            assert_eq!(
                as_values(&dst),
                as_values(&expected),
                "group {GROUP}, len {len}, di {di}, steps {steps}"
            );
            assert_eq!(
                as_values(&streamed),
                as_values(&expected),
                "streamed, group {GROUP}, len {len}, di {di}, steps {steps}"
            );
            assert_eq!(
                as_values(&staged),
                as_values(&expected),
                "staged, group {GROUP}, len {len}, di {di}, steps {steps}"
            );
        }
        for (di, steps) in [(1, 1), (3, 1), (1, 2), (3, 3)] {
            check::<1, 2>(2, di, steps);
            check::<2, 2>(2, di, steps);
            check::<2, 4>(4, di, steps);
            check::<4, 4>(4, di, steps);
            check::<4, 8>(8, di, steps);
            check::<2, 8>(8, di, steps);
            for len in [1, 3, 5, 7] {
                check::<1, 0>(len, di, steps);
                check::<2, 0>(len, di, steps);
                check::<4, 0>(len, di, steps);
            }
        }
    }

    /// A streamed copy prefetches two steps ahead along the level outside
    /// the volumes, for volumes of at most 64 KiB; a copy that does not
    /// stream, a larger volume and a nest of fewer levels prefetch
    /// nothing.
    #[test]
    fn streamed_copies_prefetch_two_steps_along_the_level_outside_volumes() {
        type Square = Unit<u16, 4>;
        let (squares, _) = nest(
            "u16[256,256]{0,1:T(8,128)(2,1)}",
            "u16[256,256]{1,0:T(8,128)(2,1)}",
        )
        .in_squares()
        .unwrap();
        let levels = squares.levels();
        let outside = levels[levels.len() - 5];
        // The rows of a `T(8,128)` tile, 4 squares (a half line) apart.
        assert_eq!((outside.extent, outside.strides[0]), (16, 4));
        let streamed = StepAhead::new(&squares, true);
        assert_eq!(streamed.squares::<Square>([8, 16, 4, 4]), 8);
        assert_eq!(streamed.squares::<Square>([1024, 1, 1, 8]), 8);
        assert_eq!(streamed.squares::<Square>([1024, 1, 1, 9]), 0);
        assert_eq!(
            StepAhead::new(&squares, false).squares::<Square>([8, 16, 4, 4]),
            0
        );
        let (few, _) = nest("u16[8,8]{1,0:T(2,1)}", "u16[8,8]{0,1:T(2,1)}")
            .in_squares()
            .unwrap();
        assert!(few.levels().len() < 5);
        assert_eq!(
            StepAhead::new(&few, true).squares::<Square>([1, 1, 1, 1]),
            0
        );
    }

    /// A nest whose volumes span a column of tiles (past 64 KiB) and whose
    /// level outside them steps within source lines has that level moved
    /// in as the volumes' outer one; so do volumes of a few tiles below
    /// the streaming threshold, which stay as they are above it; levels
    /// outside that step a line or more stay as they are.
    #[test]
    fn line_sharing_levels_move_inside_large_or_cached_volumes() {
        type Square = Unit<u8, 16>;
        let (rows, columns) = (
            "u8[16384,256]{1,0:T(8,128)(4,1)}",
            "u8[16384,256]{0,1:T(8,128)(4,1)}",
        );
        let (squares, _) = nest(rows, columns).in_squares().unwrap();
        let levels = squares.levels();
        let n = levels.len();
        // A volume: 128 tiles of 64 squares; outside it, 16-byte steps.
        assert_eq!((levels[n - 4].extent, levels[n - 5].strides[0]), (128, 2));
        let mut expected = levels.to_vec();
        expected.swap(n - 5, n - 4);
        for stream in [true, false] {
            let moved = with_line_steps_inside::<Square>(&squares, stream).unwrap();
            assert_eq!(moved.levels(), &expected[..]);
        }
        // The other way, volumes of 8 tiles (8 KiB): as they are when
        // streamed.
        let (back, _) = nest(columns, rows).in_squares().unwrap();
        assert!(with_line_steps_inside::<Square>(&back, true).is_none());
        // 8 tiles: as they are when streamed, moved below the threshold.
        let (few, _) = nest(
            "u8[1024,1024]{1,0:T(8,128)(4,1)}",
            "u8[1024,1024]{0,1:T(8,128)(4,1)}",
        )
        .in_squares()
        .unwrap();
        assert!(with_line_steps_inside::<Square>(&few, true).is_none());
        let moved = with_line_steps_inside::<Square>(&few, false).unwrap();
        let mut expected = few.levels().to_vec();
        let n = expected.len();
        expected.swap(n - 5, n - 4);
        assert_eq!(moved.levels(), &expected[..]);
        // Squares of 64 bytes: each step outside is a line of its own.
        for stream in [true, false] {
            assert!(with_line_steps_inside::<Unit<u32, 16>>(&squares, stream).is_none());
        }
    }

    /// AVX2's tiles take a nest in squares that is a transpose as it
    /// comes (one column of tiles, both ways) as they take one that
    /// [`arrange`](super::arrange) moves a level of.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn tiles_take_nests_arranged_or_not() {
        for shape in ["u16[256,128]", "u16[256,1024]"] {
            let rows = format!("{shape}{{1,0:T(8,128)(2,1)}}");
            let columns = format!("{shape}{{0,1:T(8,128)(2,1)}}");
            for (from, to) in [(&rows, &columns), (&columns, &rows)] {
                let (squares, _) = nest(from, to).in_squares().unwrap();
                let tiles = super::in_tiles(&squares);
                let [_, _, row, inner] = tiles.expect(from).volume_strides();
                assert_eq!((row[0], inner[1]), (1, 1), "{from} -> {to}");
            }
        }
    }

    /// A block that reaches past a buffer (which no nest of the buffers'
    /// layouts makes) panics rather than writing outside it.
    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_block_past_the_buffers_panics() {
        let block = Block {
            at: [0, 0],
            rows: 2,
            row: [1, 4],
            steps: 1,
            step: [0, 0],
            inner: [2, 1],
        };
        let src = vec![Unit([0u16; 4]); 8];
        let mut dst = vec![Unit([0u16; 4]); 7];
        block.runs::<u16, 2, 4, 2, 4, false>(&src, &mut dst, 4, 0, false);
    }

    /// The units a box covers when it covers a span once each.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn dense_spans_are_boxes_without_gaps() {
        use super::dense_span;
        assert_eq!(dense_span([4, 16, 8], [16, 1, 64]), Some(512));
        assert_eq!(dense_span([1, 16, 8], [1000, 1, 16]), Some(128));
        assert_eq!(dense_span([4, 16], [17, 1]), None); // rows with gaps
        assert_eq!(dense_span([4, 16], [8, 1]), None); // rows that overlap
        assert_eq!(dense_span([0, 16], [16, 1]), None);
    }

    /// A streamed copy's volume goes through the stage, a part at a time,
    /// where its destination is one span per step of its outer level that
    /// fits the stage, and in place elsewhere; every unit lands where the
    /// volume's strides put it either way, and nothing else is written.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn streamed_volumes_stage_where_their_lines_are_shared() {
        use super::{Stage, Stores, staged_volume};
        use crate::relayout::stream::StreamWriter;
        /// A volume of `outers` blocks of 4 rows of `len` `u64`, blocks
        /// `outer` and rows `row` apart in the destination (`from` and
        /// 100 in the source, which counts its units), starting `lead`
        /// units past a line.
        fn check(
            lead: usize,
            [from, outers, outer, row, len]: [usize; 5],
            stores: Stores,
            parts: usize,
        ) {
            let rows = 4;
            let strides = [[from, outer], [0, 0], [100, row], [1, 1]];
            let src: Vec<u64> = (0..from * outers + 400).map(|k| k as u64).collect();
            let span = (outers - 1) * outer + (rows - 1) * row + len;
            let mut buffer = vec![u64::MAX; span + 16];
            let first = (64 - buffer.as_ptr().addr() % 64) % 64 / 8 + lead;
            let mut seen = Vec::new();
            {
                let mut writer = StreamWriter::new(&mut buffer[first..first + span]).unwrap();
                let mut stage = Stage::<u64>::new();
                let counts = [outers, 1, rows, len];
                let mut volume = |[s, d]: [usize; 2],
                                  [o, _, r, l]: [usize; 4],
                                  dst: &mut [u64],
                                  how,
                                  outer: [usize; 2]| {
                    seen.push((how, outer));
                    for (a, c, i) in (0..o)
                        .flat_map(|a| (0..r).flat_map(move |c| (0..l).map(move |i| (a, c, i))))
                    {
                        let at = |b: usize| a * outer[b] + c * strides[2][b] + i;
                        dst[d + at(1)] = src[s + at(0)];
                    }
                };
                staged_volume(
                    &mut writer,
                    &mut stage,
                    &src,
                    [0, 0],
                    counts,
                    strides,
                    &mut volume,
                );
            }
            let mut expected = vec![u64::MAX; buffer.len()];
            for a in 0..outers {
                for c in 0..rows {
                    for i in 0..len {
                        expected[first + a * outer + c * row + i] = (a * from + c * 100 + i) as u64;
                    }
                }
            }
            let case = format!("lead {lead}, outers {outers} {outer} apart, rows {row} apart");
            assert!(buffer == expected, "{case}");
            // Staged, the outer steps lie side by side in the stage.
            let outer = match stores {
                Stores::Staged => [from, 4 * 16],
                _ => [from, outer],
            };
            assert!(
                seen.iter().all(|&seen| seen == (stores, outer)),
                "{case}: stores {seen:?}"
            );
            assert_eq!(seen.len(), parts, "{case}: parts");
        }
        // Blocks of 512 bytes that continue each other: 10 KiB in parts
        // of 4 KiB, into a destination 16 bytes past a line, or on one.
        check(2, [1000, 20, 64, 16, 16], Stores::Staged, 3);
        check(0, [1000, 20, 64, 16, 16], Stores::Staged, 3);
        // Blocks apart: a block a part; where their source steps share
        // lines (8 bytes apart), as many as the stage holds (32 of 512
        // bytes), 70 in three parts.
        check(2, [1000, 5, 200, 16, 16], Stores::Staged, 5);
        check(2, [1, 70, 200, 16, 16], Stores::Staged, 3);
        check(0, [1, 70, 200, 16, 16], Stores::Staged, 3);
        // Rows apart, or blocks larger than the stage: in place.
        check(2, [1000, 3, 64, 17, 16], Stores::Streamed, 1);
        check(2, [1000, 2, 2400, 600, 600], Stores::Streamed, 1);
    }

    /// A transpose between two sub-tiled layouts, through the kernel, of
    /// 1- and 2-byte elements (squares of 4 to 32 bytes: each path of
    /// [`copy_squares`](super::copy_squares), with AVX2's tiles of 8-byte
    /// squares where the build or the CPU has it), with normal stores and
    /// with streaming ones (through the stage where a volume's steps are
    /// spans of the destination, in place elsewhere), into a destination
    /// 16 bytes past a cache line and one an element past one (where no
    /// streaming store may go):
    /// every element where the destination's layout puts it, padding and
    /// the elements around the destination untouched.
    /// Small enough for Miri, which checks each streaming store's
    /// alignment.
    #[test]
    fn copies_squares_as_the_layouts_say() {
        fn check<T: bytemuck::Pod + PartialEq + core::fmt::Debug>(
            value: impl Fn(usize) -> T,
            padding: T,
        ) {
            let pairs = [
                (
                    "[8,16]{0,1:T(4,8)(2,1)}",
                    "[8,16]{1,0:T(4,8)(2,1)}",
                    [8, 16],
                ),
                (
                    "[8,16]{0,1:T(8,8)(4,1)}",
                    "[8,16]{1,0:T(8,8)(4,1)}",
                    [8, 16],
                ),
                (
                    "[16,8]{0,1:T(8,8)(4,1)}",
                    "[16,8]{1,0:T(8,8)(4,1)}",
                    [16, 8],
                ),
                // One column of tiles: a transpose as it comes.
                (
                    "[32,8]{0,1:T(4,8)(2,1)}",
                    "[32,8]{1,0:T(4,8)(2,1)}",
                    [32, 8],
                ),
                // Partial tiles: padding in both buffers.
                (
                    "[6,12]{0,1:T(4,8)(2,1)}",
                    "[6,12]{1,0:T(4,8)(2,1)}",
                    [6, 12],
                ),
                // Blocks of 6 squares by 12: tiles of 4 × 4 and edges; and
                // partial tiles (6 by 10) whose rows are not spans of the
                // destination, streamed in place.
                (
                    "[24,44]{0,1:T(12,24)(2,1)}",
                    "[24,44]{1,0:T(12,24)(2,1)}",
                    [24, 44],
                ),
            ];
            let ty = match core::mem::size_of::<T>() {
                1 => "u8",
                _ => "u16",
            };
            // Under Miri in a build with AVX2 (`.ci/run`'s wider job),
            // only the squares that reach AVX2's tiles, the 8 bytes of
            // `u16` in `(2,1)` sub-tiles: the others run the same code as
            // in the SSE2 build, which checks them all.
            let only_tiles = cfg!(all(miri, target_feature = "avx2"));
            let reaches_tiles = |tiling: &str| ty == "u16" && tiling.contains("(2,1)");
            for (a, b, [rows, cols]) in pairs {
                if only_tiles && !reaches_tiles(a) {
                    continue;
                }
                for (from, to) in [(a, b), (b, a)] {
                    let (from, to) = (format!("{ty}{from}"), format!("{ty}{to}"));
                    let (src, dst): (ArrayLayout, ArrayLayout) =
                        (from.parse().unwrap(), to.parse().unwrap());
                    let (squares, side) = nest(&from, &to).in_squares().unwrap();
                    let values: Vec<T> = (0..src.buffer_len()).map(&value).collect();
                    let mut expected = vec![padding; dst.buffer_len()];
                    for y in 0..rows {
                        for x in 0..cols {
                            let index = [y, x];
                            expected[dst.offset(&index)] = values[src.offset(&index)];
                        }
                    }
                    let size = core::mem::size_of::<T>();
                    for (stream, past) in [(false, 0), (true, 16 / size), (true, 1)] {
                        // The destination `past` elements past a cache
                        // line, in a buffer that starts 16-byte aligned.
                        let (line, len) = (64 / size, dst.buffer_len());
                        let mut buffer = Aligned16::new(line + past + len, padding);
                        let addr = buffer.as_mut_slice().as_ptr().addr();
                        let at = (64 - addr % 64) % 64 / size + past;
                        let out = &mut buffer.as_mut_slice()[at..at + len];
                        match side {
                            2 => copy_squares_streamed::<T, 2, 4>(&squares, &values, out, stream),
                            _ => copy_squares_streamed::<T, 4, 16>(&squares, &values, out, stream),
                        }
                        let out = buffer.as_mut_slice();
                        assert!(out[..at].iter().all(|&v| v == padding));
                        assert!(out[at + len..].iter().all(|&v| v == padding));
                        assert_eq!(
                            out[at..at + len],
                            expected,
                            "{from} -> {to}, streaming {stream}, {past} elements past a line"
                        );
                    }
                }
            }
        }
        check(|k| k as u8, 0xEE);
        check(|k| k as u16, 0xEEEE);
    }
}
