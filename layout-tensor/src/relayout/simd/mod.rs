//! Vector kernels for relayouts that the compiler does not vectorise well
//! on its own: the row interleave of sub-tiles of `factor` rows (2 or 4:
//! `bf16`'s `T(8,128)(2,1)`, `s8`'s `T(8,128)(4,1)`, `u8`'s and `pred`'s
//! `T(32,128)(4,1)`) and the deinterleave that undoes it.
//!
//! Written as plain loops, an interleave of 1- or 2-byte elements becomes
//! narrow loads and stores, or a generic transpose of `factor`-element
//! runs; here it takes SSE2's 16-byte loads and `unpacklo`/`unpackhi`
//! (one round per doubling of the group: bytes to pairs to quads), a
//! vector of output per unpack, or the same rounds in AVX2's 32-byte
//! vectors when the CPU has it ([`avx2`]); the deinterleave takes SSE2's
//! packs and shuffles, one round per halving, or, with AVX2, a byte
//! shuffle and unpacks per 32 bytes of each row.
//! The elements past a block's last vector go one at a time, out of
//! line. Destinations too large for the caches
//! take streaming stores for every line the vectors write
//! ([`stream_lines`]), and the source is prefetched a grid ahead
//! ([`ReadAhead`]); a deinterleave into rows that share lines and
//! continue each other goes through a stage, so that every line streams
//! whole ([`deinterleave_staged`]). The kernels,
//! [`interleave_grid`] and [`deinterleave_grid`], take a whole grid of
//! blocks (below the streaming threshold, every band of a walk's tiles
//! joined into one, [`Bands`], and a deinterleave's read in order,
//! [`BlockGrid::in_read_order`]), checked against the buffers once; they
//! are safe functions over two slices, and `.ci/run` runs their tests
//! under Miri. Packed
//! transposes take a 16 × 16 byte transpose in registers from here too
//! ([`transpose_bytes`]).
#![allow(unsafe_code)]

use bytemuck::NoUninit;
use layout_core::walk::for_each_step;

use super::mix::{Fields, Mix, Whole};
use super::stream::{ReadAhead, StreamWriter};
use super::transpose::Stage;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod avx2;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) mod squares;

/// The most rows a block interleaves ([`BlockGrid::factor`]).
const MAX_FACTOR: usize = 4;

/// Where the blocks of a row interleave lie: block `(b, o, k)`, `b <
/// bands`, `o < counts[0]`, `k < counts[1]`, interleaves the `factor`
/// rows of `rows` elements at source offsets `s + j * row_stride` (`j <
/// factor`) into the `factor * rows` elements at destination offset `d`,
/// element `r` of row `j` to `d + factor * r + j`, where `[s, d]` is
/// `start + b * band_stride + o * strides[0] + k * strides[1]` (each
/// `[source, destination]`). For a deinterleave ([`deinterleave_grid`]),
/// the other way round: the `factor * rows` elements at `s` go to the
/// rows at `d + j * row_stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockGrid {
    pub(crate) start: [usize; 2],
    pub(crate) counts: [usize; 2],
    pub(crate) strides: [[usize; 2]; 2],
    /// Copies of the grid one `band_stride` apart: the bands of tiles of
    /// a walk's volumes, joined ([`Bands`]); 1 for a volume's own grid.
    pub(crate) bands: usize,
    /// See [`BlockGrid::bands`].
    pub(crate) band_stride: [usize; 2],
    /// Rows per block: 2 or 4.
    pub(crate) factor: usize,
    pub(crate) row_stride: usize,
    pub(crate) rows: usize,
}

impl BlockGrid {
    /// One past the last element the grid touches in `buffer` (0: the
    /// source, 1: the destination), whose blocks are `factor` rows when
    /// `buffer == paired` and `factor * rows` dense elements otherwise;
    /// `None` on overflow. Strides are not negative, so every block lies
    /// between `start` and the last block's end.
    fn end(&self, buffer: usize, paired: usize) -> Option<usize> {
        let [outers, steps] = self.counts;
        let bands = self.bands;
        let reach = match buffer == paired {
            true => (self.factor - 1)
                .checked_mul(self.row_stride)?
                .checked_add(self.rows)?,
            false => self.rows.checked_mul(self.factor)?,
        };
        self.start[buffer]
            .checked_add((bands - 1).checked_mul(self.band_stride[buffer])?)?
            .checked_add((outers - 1).checked_mul(self.strides[0][buffer])?)?
            .checked_add((steps - 1).checked_mul(self.strides[1][buffer])?)?
            .checked_add(reach)
    }

    /// Checks that every block lies in the buffers, the rows in buffer
    /// `paired`; `false` for a grid with nothing to do.
    ///
    /// # Panics
    /// If the factor is not 2 or 4, or a block reaches past either
    /// buffer.
    fn check(&self, [src, dst]: [usize; 2], paired: usize) -> bool {
        assert!(
            matches!(self.factor, 2 | MAX_FACTOR),
            "interleave factor {} is not 2 or 4",
            self.factor
        );
        if self.counts.contains(&0) || self.bands == 0 || self.rows == 0 {
            return false;
        }
        assert!(
            self.end(0, paired).is_some_and(|end| end <= src)
                && self.end(1, paired).is_some_and(|end| end <= dst),
            "interleave blocks out of bounds"
        );
        true
    }

    /// With `STREAMING`, a prefetch of the source that the next grid
    /// reads, when grids follow each other through it (the next band of
    /// tiles): the span after this grid's, a piece per block, the blocks
    /// of `paired` being rows ([`BlockGrid::end`]); else none.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_ahead<const STREAMING: bool>(&self, paired: usize) -> ReadAhead {
        match (STREAMING, self.end(0, paired)) {
            (true, Some(end)) => {
                let span = end - self.start[0];
                let blocks = self.bands * self.counts[0] * self.counts[1];
                ReadAhead::new(self.start[0], span, blocks)
            }
            _ => ReadAhead::OFF,
        }
    }

    /// Whether a streamed deinterleave of this grid can go through a
    /// stage in parts of whole planes ([`deinterleave_staged`]): each plane's
    /// `factor` rows are one span of the destination (blocks that
    /// continue each other's rows, rows that continue each other), the
    /// planes follow each other there, the grid is one copy (`bands ==
    /// 1`, as above the streaming threshold), and a plane fits the stage.
    fn stages_planes<T: NoUninit>(&self) -> bool {
        let [outers, steps] = self.counts;
        let [outer, step] = self.strides;
        let Some(span) = self.factor.checked_mul(self.row_stride) else {
            return false;
        };
        let along = steps == 1 || step[1] == self.rows;
        let dense = steps.checked_mul(self.rows) == Some(self.row_stride);
        let following = outers == 1 || outer[1] == span;
        let fits = span > 0 && span <= Stage::<T>::capacity();
        self.bands == 1 && along && dense && following && fits
    }

    /// Whether a streamed deinterleave of this grid into `dst` goes
    /// through a stage ([`deinterleave_staged`], which says why): blocks
    /// of four rows, rows that share lines ([`shares_lines`]) and planes
    /// the stage can take ([`BlockGrid::stages_planes`]), but for rows
    /// that AVX2's kernel writes across a plane's blocks when it is taken
    /// (`wide`): rows 16 bytes past a 32-byte boundary and blocks of
    /// whole 32-byte vectors ([`avx2::deinterleave_shifted`]), which
    /// write every line of a row whole in place but the two at its ends.
    fn takes_stage<T: NoUninit>(&self, dst: &[T], wide: bool) -> bool {
        let carried =
            wide && only_wide::<T, MAX_FACTOR, true>(self.rows) && self.shifted_planes(dst);
        self.factor == MAX_FACTOR
            && !carried
            && shares_lines::<T>(dst, self)
            && self.stages_planes::<T>()
    }

    /// Whether the rows of every plane start 16 bytes past a 32-byte
    /// boundary of `dst` and lie a multiple of 32 bytes apart
    /// ([`shifted_rows`]): the first plane's do, and planes and bands lie
    /// multiples of 32 bytes apart.
    fn shifted_planes<T>(&self, dst: &[T]) -> bool {
        let size = core::mem::size_of::<T>();
        let first = dst.as_ptr().wrapping_add(self.start[1]) as usize;
        let apart = |stride: usize| stride.wrapping_mul(size).is_multiple_of(32);
        shifted_rows::<T>(first, self.row_stride)
            && apart(self.strides[0][1])
            && apart(self.band_stride[1])
    }

    /// The same blocks with the inner level the one that steps less far
    /// through the source, so that they are read in the order they lie:
    /// the order the deinterleave takes below the streaming threshold,
    /// where its dense side, the source, comes from the caches and the
    /// hardware prefetches it best in order. An `s8` `T(8,128)(4,1)`
    /// unpack comes in planes of four destination rows, each reading
    /// every other 512-byte block of its band; tile by tile, in turns with
    /// the planes' order at 1 MiB (two rounds), the unpacks of `bf16`,
    /// `u8` and `pred` took 0.86 to 0.97 of the time (`s8`'s the same).
    /// The interleave's dense side is the destination, which the walk's
    /// order already writes in order: read in order, its packs went
    /// both ways, 0.90 to 1.01 of the time in the matrix and 1.10 for
    /// `u8[1000,1100]` into `T(32,128)(4,1)`, so it keeps the walk's
    /// order. Above the threshold both keep it, as their streamed lines
    /// follow it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn in_read_order(mut self) -> BlockGrid {
        if self.strides[0][0] < self.strides[1][0] {
            self.counts.swap(0, 1);
            self.strides.swap(0, 1);
        }
        self
    }

    /// This grid of one band and the `count - 1` copies of it that follow
    /// one `stride` apart (the alike volumes of a band of them,
    /// [`LoopNest::for_each_volume_band`]): one grid of `count` bands
    /// below the streaming threshold, as [`Bands`] would join them one by
    /// one, without a call and a join per volume; a grid per copy with
    /// `streaming`, each prefetching the next ([`BlockGrid::read_ahead`]).
    ///
    /// [`LoopNest::for_each_volume_band`]: layout_core::walk::LoopNest::for_each_volume_band
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn banded(
        self,
        count: usize,
        stride: [usize; 2],
        streaming: bool,
    ) -> impl Iterator<Item = BlockGrid> {
        debug_assert_eq!(self.bands, 1, "a grid of one band");
        let (grids, bands) = match streaming {
            true => (count, 1),
            false => (count.min(1), count),
        };
        (0..grids).map(move |b| BlockGrid {
            start: [self.start[0] + b * stride[0], self.start[1] + b * stride[1]],
            bands,
            band_stride: if bands > 1 { stride } else { [0, 0] },
            ..self
        })
    }

    /// Calls `f([s, d])` with the source and destination offsets of the
    /// first block of every plane (`k == 0`), band by band.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn for_each_plane(&self, mut f: impl FnMut([usize; 2])) {
        let (outers, outer) = (self.counts[0], self.strides[0]);
        for_each_step(
            self.start,
            self.bands,
            self.band_stride,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |band| for_each_step(band, outers, outer, &mut f),
        );
    }

    /// Calls `f([s, d])` with the source and destination offsets of every
    /// block, plane by plane (the engine's [`for_each_step`] per level).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn for_each_block(&self, mut f: impl FnMut([usize; 2])) {
        let (steps, step) = (self.counts[1], self.strides[1]);
        self.for_each_plane(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |plane| for_each_step(plane, steps, step, &mut f),
        );
    }
}

/// The grids of a walk's volumes, one after another, joined into one grid
/// of bands ([`BlockGrid::bands`]) while each continues the last: the
/// same blocks, one band stride after the last band. A band of `s8`
/// `T(8,128)(4,1)` tiles over 1024 columns is 8 KiB, and in `perf` the
/// calls per band (the checks, the dispatch, the loop's set-up) took 5
/// to 8% of its unpack's time at 1 MiB. Where the walk knows the bands
/// alike, it hands them over as one grid ([`BlockGrid::banded`]), which
/// has nothing to join: the walk's call and the push per band had
/// still cost the same unpack 8% (1.20 times `memcpy`'s time against
/// 1.10 in turns, in a scratch harness).
///
/// Two grids wait at a time, so that two kinds of volume that alternate
/// join each into its own grid: the full tile columns of a band and its
/// partial last one (of 1000 columns, 7 of 128 and one of 104), which
/// [`LoopNest::for_each_volume_any_order`] hands over in turn. The
/// kernels write disjoint destinations, so the order they run in is free.
///
/// Joined only below the streaming threshold: above it a grid prefetches
/// the source of the grid after it ([`BlockGrid::read_ahead`]).
///
/// [`LoopNest::for_each_volume_any_order`]: layout_core::walk::LoopNest::for_each_volume_any_order
#[derive(Debug)]
pub(crate) struct Bands {
    /// The grids waiting, the older first; `pending[1]` is empty while
    /// `pending[0]` is.
    pending: [Option<BlockGrid>; 2],
    join: bool,
}

impl Bands {
    /// No grid yet; grids are joined when `join`.
    pub(crate) fn new(join: bool) -> Bands {
        Bands {
            pending: [None, None],
            join,
        }
    }

    /// Takes `grid` (of one band): joined to a waiting grid when it
    /// continues it, or waiting itself while there is room, and then
    /// `None`; else the older waiting grid, to run now, with `grid`
    /// waiting in its place.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn push(&mut self, grid: BlockGrid) -> Option<BlockGrid> {
        if !self.join {
            return Some(grid);
        }
        for pending in &mut self.pending {
            match pending {
                Some(waiting) => {
                    if waiting.join(&grid) {
                        return None;
                    }
                }
                None => {
                    *pending = Some(grid);
                    return None;
                }
            }
        }
        let older = self.pending[0].take();
        self.pending = [self.pending[1].take(), Some(grid)];
        older
    }

    /// A waiting grid, the older first, to run after the last
    /// [`Bands::push`]; `None` when none is left.
    pub(crate) fn take(&mut self) -> Option<BlockGrid> {
        let older = self.pending[0].take();
        self.pending = [self.pending[1].take(), None];
        older
    }
}

impl BlockGrid {
    /// Adds `next`, a grid of one band, as this grid's next band when it
    /// is the same grid one band stride after the last band (the first
    /// band it joins sets the stride); `false`, and nothing changed,
    /// otherwise.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn join(&mut self, next: &BlockGrid) -> bool {
        let [a, b] = [next.strides, self.strides];
        let alike = next.counts[0] == self.counts[0]
            && next.counts[1] == self.counts[1]
            && a[0][0] == b[0][0]
            && a[0][1] == b[0][1]
            && a[1][0] == b[1][0]
            && a[1][1] == b[1][1]
            && next.factor == self.factor
            && next.row_stride == self.row_stride
            && next.rows == self.rows;
        if next.bands != 1 || !alike {
            return false;
        }
        let Some(delta) = sub(next.start, self.start) else {
            return false;
        };
        if self.bands == 1 {
            if delta == [0, 0] {
                return false;
            }
            self.band_stride = delta;
        } else if self.band_stride.map(|b| b.checked_mul(self.bands)) != delta.map(Some) {
            return false;
        }
        self.bands += 1;
        true
    }
}

/// `a - b`, each of source and destination, or `None` if either is
/// negative.
fn sub(a: [usize; 2], b: [usize; 2]) -> Option<[usize; 2]> {
    Some([a[0].checked_sub(b[0])?, a[1].checked_sub(b[1])?])
}

/// The addresses `[lo, hi)` of the 64-byte lines that the `bytes` bytes of
/// output from address `from` touch, those to write with streaming
/// stores; none (`[0, 0]`) unless `from` is 16-byte aligned, as streaming
/// stores must be.
///
/// The partial lines at the ends are streamed too (a streaming store
/// writes only its own 16 bytes). A normal store to them reads the line
/// from memory first and holds up the stores behind it: with destination
/// rows 16 bytes past a line, as a large `Vec`'s are, an `s8`
/// `T(8,128)(4,1)` unpack of 256 MiB took 1.4–1.5 times as long as with
/// every store streamed (2.97 against 1.96–2.15 times memcpy's time), for
/// one such line per 1 KiB row.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn stream_lines(from: usize, bytes: usize) -> [usize; 2] {
    let to = from.saturating_add(bytes);
    let (lo, hi) = (from - from % 64, to.saturating_add(63) / 64 * 64);
    match from.is_multiple_of(16) && bytes > 0 {
        true => [lo, hi],
        false => [0, 0],
    }
}

/// Whether the interleave and deinterleave of `factor` rows of `T` have a
/// vector kernel on this target (else they are plain loops).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) const fn has_vectors<T>(factor: usize) -> bool {
    match factor {
        2 => vector_elements::<T, 2>() != usize::MAX,
        MAX_FACTOR => vector_elements::<T, MAX_FACTOR>() != usize::MAX,
        _ => false,
    }
}

/// Interleaves every block of `grid` (see [`BlockGrid`]):
/// `dst[d + factor * r + j] = src[s + j * row_stride + r]` for every row
/// `j < factor` and `r < rows`. With `streaming`, the output is written
/// with streaming stores, the partial lines at its ends too
/// ([`stream_lines`]), when the vectors cover every block: the output of
/// the whole grid when its blocks are adjacent (as a band of `T(8,128)(2,1)` tiles
/// is), else of each block. Streaming grids also prefetch, a piece per
/// block, the source span that follows the grid's own ([`ReadAhead`]): the
/// next band's rows.
///
/// The bounds are checked once for the whole grid, not per block: blocks
/// are as small as 512 bytes (`bf16` `T(8,128)(2,1)`, `s8`
/// `T(8,128)(4,1)`), where checks and slicing per block are a sizeable
/// part of the copy. On x86-64, 16 bytes of each row at a time go through
/// SSE2 unpacks (elements of 1, 2, 4 or 8 bytes for 2 rows; 1, 2 or 4 for
/// 4 rows), 32 through AVX2's when the CPU has it ([`avx2::interleave`]);
/// other sizes, other targets and the last few elements of each row take
/// a plain loop.
///
/// # Panics
/// If the factor is not 2 or 4, or a block reaches past either buffer.
#[inline(never)]
pub(crate) fn interleave_grid<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
) {
    interleave_mixed::<T, Whole, Whole>(src, dst, grid, streaming, true);
}

/// Whether the interleave and deinterleave take AVX2's 32-byte vectors
/// ([`avx2`]): the CPU has AVX2 ([`has_avx2`](super::isa::has_avx2));
/// SSE2's 16-byte ones otherwise.
#[inline]
fn wide_vectors() -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    return super::isa::has_avx2();
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    false
}

/// [`interleave_grid`] with the rows of each block transformed by `M2`
/// (2 rows) or `M4` (4 rows) first ([`Mix`]), in 32-byte vectors when
/// `wide` and the CPU has AVX2 ([`wide_vectors`]; tests pass `false` to
/// run the SSE2 kernel on such CPUs too): the check, then [`dispatch`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn interleave_mixed<T: NoUninit, M2: Mix<T>, M4: Mix<T>>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
    wide: bool,
) {
    if !grid.check([src.len(), dst.len()], 0) {
        return;
    }
    dispatch::<T, M2, M4, INTERLEAVE>(src, dst, grid, streaming, wide);
}

/// The direction a grid's blocks go ([`dispatch`]).
const INTERLEAVE: bool = false;
/// See [`INTERLEAVE`].
const DEINTERLEAVE: bool = true;

/// The loop of [`interleave_blocks`] or [`deinterleave_blocks`] (as
/// `DIRECTION` says), for a grid already checked: a copy per factor,
/// streaming and vector width (32-byte vectors when `wide` and the CPU
/// has AVX2, [`wide_vectors`]), so that none is tested per block or
/// store.
#[cfg_attr(not(debug_assertions), inline(always))]
fn dispatch<T: NoUninit, M2: Mix<T>, M4: Mix<T>, const DIRECTION: bool>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
    wide: bool,
) {
    let wide = wide && wide_vectors();
    match (grid.factor, streaming) {
        (2, true) => blocks_on::<T, M2, 2, true, DIRECTION>(src, dst, grid, wide),
        (2, false) => blocks_on::<T, M2, 2, false, DIRECTION>(src, dst, grid, wide),
        (_, true) => blocks_on::<T, M4, MAX_FACTOR, true, DIRECTION>(src, dst, grid, wide),
        (_, false) => blocks_on::<T, M4, MAX_FACTOR, false, DIRECTION>(src, dst, grid, wide),
    }
}

/// The blocks of `DIRECTION`, compiled for AVX2 and with its vectors when
/// `wide` (the CPU has AVX2).
#[cfg_attr(not(debug_assertions), inline(always))]
fn blocks_on<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const DIRECTION: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    wide: bool,
) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if wide {
        // SAFETY: `wide` says the CPU has AVX2 (`wide_vectors`).
        return unsafe { wide_blocks::<T, M, F, STREAMING, DIRECTION>(src, dst, grid) };
    }
    let _ = wide;
    blocks::<T, M, F, STREAMING, false, DIRECTION>(src, dst, grid);
}

/// [`blocks`] with 32-byte vectors, compiled for AVX2.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx2")]
unsafe fn wide_blocks<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const DIRECTION: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
) {
    blocks::<T, M, F, STREAMING, true, DIRECTION>(src, dst, grid);
}

/// [`interleave_blocks`] or [`deinterleave_blocks`], as `DIRECTION` says,
/// with AVX2's vectors alone where the grid's rows are whole ones of
/// them ([`only_wide`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn blocks<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const WIDE: bool,
    const DIRECTION: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
) {
    match (DIRECTION, only_wide::<T, F, WIDE>(grid.rows)) {
        (INTERLEAVE, true) => interleave_blocks::<T, M, F, STREAMING, WIDE, true>(src, dst, grid),
        (INTERLEAVE, false) => interleave_blocks::<T, M, F, STREAMING, WIDE, false>(src, dst, grid),
        (DEINTERLEAVE, true) => {
            deinterleave_blocks::<T, M, F, STREAMING, WIDE, true>(src, dst, grid)
        }
        (DEINTERLEAVE, false) => {
            deinterleave_blocks::<T, M, F, STREAMING, WIDE, false>(src, dst, grid)
        }
    }
}

/// The loop of [`interleave_grid`], for a grid of factor `F` checked
/// against the buffers ([`BlockGrid::check`]) with at least one block;
/// with AVX2's vectors alone when `ONLY_WIDE` ([`only_wide`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn interleave_blocks<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const WIDE: bool,
    const ONLY_WIDE: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
) {
    let BlockGrid {
        start,
        counts: [outers, steps],
        strides: [outer, step],
        row_stride,
        rows,
        ..
    } = *grid;
    let vectors = rows / vector_elements::<T, F>();
    let done = vectors * vector_elements::<T, F>();
    let size = core::mem::size_of::<T>();
    // The lines to stream in `bytes` of output from `from`
    // ([`stream_lines`]), when the vectors cover every row (the plain
    // loop's normal stores take no line of a grid's). Their stores are
    // 16-byte aligned when the first is, as blocks are `F * rows * size`
    // bytes, a multiple of 32, apart when they are adjacent.
    let lines_in = |from: *const T, bytes: usize| match STREAMING && done == rows {
        true => stream_lines(from as usize, bytes),
        false => [0, 0],
    };
    let block_bytes = F * rows * size;
    let adjacent = grid.bands == 1 && step[1] * size == block_bytes && outer[1] == steps * step[1];
    let grid_lines = lines_in(dst[start[1]..].as_ptr(), outers * steps * block_bytes);
    let mut ahead = grid.read_ahead::<STREAMING>(0);
    grid.for_each_block(
        #[cfg_attr(not(debug_assertions), inline(always))]
        |[s, d]| {
            ahead.step(src);
            // In bounds: `s + (F - 1) * row_stride + rows <= src.len()`
            // and `d + F * rows <= dst.len()` for every block (checked by
            // the caller).
            if vectors > 0 {
                // SAFETY: the `F` rows `s + j * row_stride` of `src` hold
                // `rows >= done` elements each and `dst` holds `F * rows`
                // from `d` (the caller's check), and `vectors` vectors
                // cover `done` elements; `src` and `dst` do not overlap (a
                // shared and a mutable borrow). `wide` 32-byte vectors
                // cover the first `skip` elements of each row and `F *
                // skip` of the output, the 16-byte ones the rest (`2 *
                // wide <= vectors`), and streamed stores fall on the same
                // 16-byte aligned addresses either way; with `WIDE`, this
                // is compiled for AVX2 and the CPU has it (`blocks_on`).
                unsafe {
                    let a = src.as_ptr().add(s);
                    let out = dst.as_mut_ptr().add(d);
                    let lines = match adjacent {
                        true => grid_lines,
                        false => lines_in(out, block_bytes),
                    };
                    let wide = if WIDE { vectors / 2 } else { 0 };
                    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                    if WIDE && wide > 0 {
                        avx2::interleave::<T, M, F, STREAMING>(a, row_stride, out, wide, lines);
                    }
                    if !ONLY_WIDE {
                        let skip = 2 * wide * vector_elements::<T, F>();
                        vector_interleave::<T, M, F, STREAMING>(
                            a.add(skip),
                            row_stride,
                            out.add(F * skip),
                            vectors - 2 * wide,
                            lines,
                        );
                    }
                }
            }
            if !ONLY_WIDE && done < rows {
                if vectors > 0 {
                    // The last vector's worth of each row again, ending at
                    // the row's end: the elements past `done`, and some
                    // the vectors wrote already, written again alike.
                    let back = rows - vector_elements::<T, F>();
                    // SAFETY: as for the vectors above, for one vector of
                    // each row from `back`, `back + vector_elements <=
                    // rows`; with normal stores (no lines), as `done <
                    // rows` streams none of the grid's.
                    unsafe {
                        vector_interleave::<T, M, F, false>(
                            src.as_ptr().add(s + back),
                            row_stride,
                            dst.as_mut_ptr().add(d + F * back),
                            1,
                            [0, 0],
                        );
                    }
                } else {
                    interleave_tail::<T, M, F>(src, dst, [s, d], row_stride, done..rows);
                }
            }
        },
    );
}

/// The elements `r` in `rows` of each row of the block at `[s, d]`
/// interleaved one at a time: rows shorter than a vector in
/// [`interleave_blocks`] (longer ones end in a vector that overlaps the
/// last whole one). Out of line, so that the loop over blocks does
/// not work out its bounds for blocks that have no such elements (the
/// compiler did, for every block: a quarter to a half of the time of
/// 512-byte blocks in `perf`).
#[inline(never)]
#[cold]
fn interleave_tail<T: NoUninit, M: Mix<T>, const F: usize>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    row_stride: usize,
    rows: core::ops::Range<usize>,
) {
    let out = &mut dst[d + F * rows.start..d + F * rows.end];
    for (r, group) in rows.zip(out.chunks_exact_mut(F)) {
        if M::WHOLE {
            for (j, o) in group.iter_mut().enumerate() {
                *o = src[s + j * row_stride + r];
            }
        } else {
            let rows: [T; F] = core::array::from_fn(|j| src[s + j * row_stride + r]);
            group.copy_from_slice(&M::elements(rows));
        }
    }
}

/// Deinterleaves every block of `grid` (see [`BlockGrid`]): `dst[d + j *
/// row_stride + r] = src[s + factor * r + j]` for every row `j < factor`
/// and `r < rows`: the unpack of `T(2,1)` or `T(4,1)` sub-tiles (`bf16`'s
/// `T(8,128)(2,1)`, `s8`'s `T(8,128)(4,1)`) into row-major order. On
/// x86-64, `factor` vectors of the source at a time go through SSE2
/// packs, shifts and shuffles into a vector of each row (elements of 1,
/// 2, 4 or 8 bytes for 2 rows; 1, 2 or 4 for 4 rows), 32-byte ones
/// through AVX2's shuffles when the CPU has it ([`avx2::deinterleave`],
/// 0.73–0.77 of SSE2's time at 1 MiB); other sizes, other targets and
/// the last few elements of each block take a plain loop.
/// With `streaming`, the destination rows are written with streaming
/// stores, the partial lines at their ends too ([`stream_lines`]), when
/// the vectors cover every block: the rows of a whole plane
/// of blocks when its blocks continue each other's rows (as the tiles of
/// a band do), else of each block. The source that follows the grid's is
/// prefetched ([`ReadAhead`]), as in [`interleave_grid`]; a grid of
/// four rows a block whose rows share lines goes through a stage instead
/// ([`deinterleave_staged`]), but for rows that AVX2's kernel writes
/// across each plane's blocks ([`avx2::deinterleave_shifted`]).
///
/// # Panics
/// If the factor is not 2 or 4, a block reaches past either buffer, or
/// its destination rows overlap (`row_stride < rows`).
#[inline(never)]
pub(crate) fn deinterleave_grid<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
) {
    deinterleave_mixed::<T, Whole, Whole>(src, dst, grid, streaming, true);
}

/// [`deinterleave_grid`] with the rows of each block transformed by `M2`
/// (2 rows) or `M4` (4 rows) after ([`Mix`]), in 32-byte vectors when
/// `wide` and the CPU has AVX2 ([`wide_vectors`]; tests pass `false` to
/// run the SSE2 kernel on such CPUs too): the checks, then [`dispatch`],
/// or, streaming, [`deinterleave_staged`] where its conditions hold.
#[cfg_attr(not(debug_assertions), inline(always))]
fn deinterleave_mixed<T: NoUninit, M2: Mix<T>, M4: Mix<T>>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
    wide: bool,
) {
    assert!(grid.row_stride >= grid.rows, "deinterleave rows overlap");
    if !grid.check([src.len(), dst.len()], 1) {
        return;
    }
    let grid = match streaming {
        false => grid.in_read_order(),
        true => *grid,
    };
    // Whole elements only: the packed fields' unpack (`s4`'s
    // `T(8,128)(2,1)E(4)`, rows of 512 bytes) read slower staged at 256
    // MiB (2.07–2.13 times `memcpy`'s time against 1.81–1.86 in place)
    // and the same at 16 MiB. Four rows a block only
    // ([`deinterleave_staged`] says why).
    let whole = M2::WHOLE && M4::WHOLE;
    if streaming && whole && grid.takes_stage(dst, wide && wide_vectors()) {
        return deinterleave_staged::<T, M2, M4>(src, dst, &grid, wide);
    }
    dispatch::<T, M2, M4, DEINTERLEAVE>(src, dst, &grid, streaming, wide);
}

/// Whether two destination rows of `grid` can share a cache line: its
/// first row does not start one, or its rows are not whole lines apart.
/// Streamed in place, such a line is written in two parts far apart
/// ([`deinterleave_staged`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn shares_lines<T>(dst: &[T], grid: &BlockGrid) -> bool {
    let size = core::mem::size_of::<T>();
    let first = dst.as_ptr().wrapping_add(grid.start[1]) as usize;
    !first.is_multiple_of(64) || !grid.row_stride.wrapping_mul(size).is_multiple_of(64)
}

/// A streamed deinterleave of four rows a block whose planes are one
/// span of the destination each, following each other
/// ([`BlockGrid::stages_planes`]): a few planes at a time
/// ([`STAGED_PART_BYTES`]) deinterleaved with normal stores into a stage
/// on the stack, in the L1 cache, then streamed out in whole lines
/// ([`StreamWriter`]), the part of a line where one part meets the next
/// joined before it is written; the source of the next grid prefetched a
/// piece per part.
///
/// Written in place, a destination whose rows do not start cache lines
/// (a large `Vec`'s start 16 bytes past one) has a line at each row's
/// end that two rows share: the kernel writes its two parts a plane
/// apart, and a streaming store that fills part of a line sends that
/// part to memory alone; a block of four rows has four such lines open
/// at once. On a Xeon of the Emerald Rapids generation, at 16 MiB into a
/// destination 16 bytes past a line, paired call by call in a scratch
/// harness, the stage took 0.30–0.60 of the in-place time for the
/// unpacks of `s8` and `s16` `T(8,128)(4,1)` and `u8` `T(32,128)(4,1)`
/// (rows of 512 to 2048 bytes). Blocks of two rows gain nothing and
/// stream in place: through the stage, `bf16` and `s16` `T(8,128)(2,1)`
/// took 0.94–1.08 of the in-place time with rows of 2 to 8 KiB and
/// 1.12–1.45 with rows of 512 bytes to 1 KiB, `s8` `T(8,128)(2,1)` 1.09.
/// Rows that start lines and lie whole lines apart stream in place
/// ([`shares_lines`]), and so do packed fields (see the caller).
///
/// With AVX2, rows 16 bytes past a 32-byte boundary (a large `Vec`'s) in
/// blocks of whole 32-byte vectors do not come here
/// ([`BlockGrid::takes_stage`]): the AVX2 kernel writes them across each
/// plane's blocks, every line of a row whole but the two at its ends
/// ([`avx2::deinterleave_shifted`]). On the Zen 3 machine of
/// `BENCHMARKS.md` that takes about three quarters of the stage's time
/// at 256 MiB (its module docs and `BENCHMARKS.md` have the figures);
/// there even block by block, with 32-byte streaming stores, the stage
/// had been the slower way (1.1 to 1.8 times as long at 16 and 256 MiB).
/// The Xeon above has not measured the kernel across blocks. The stage
/// takes the grids that kernel cannot: CPUs without AVX2, rows at other
/// offsets, blocks with elements past their 32-byte vectors.
#[inline(never)]
fn deinterleave_staged<T: NoUninit, M2: Mix<T>, M4: Mix<T>>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    wide: bool,
) {
    let Some(mut writer) = StreamWriter::unfenced(dst) else {
        return dispatch::<T, M2, M4, DEINTERLEAVE>(src, dst, grid, true, wide);
    };
    let [outers, _] = grid.counts;
    let span = grid.factor * grid.row_stride;
    // Planes a part: as many as fill `STAGED_PART_BYTES`, at least one.
    let per_part = (STAGED_PART_BYTES / (span * core::mem::size_of::<T>())).clamp(1, outers);
    let mut stage = Stage::<T>::new();
    let mut ahead = match grid.end(0, 1) {
        Some(end) => ReadAhead::new(
            grid.start[0],
            end - grid.start[0],
            outers.div_ceil(per_part),
        ),
        None => ReadAhead::OFF,
    };
    let staged = stage.elements(per_part * span, src[grid.start[0]]);
    let mut first = 0;
    while first < outers {
        let count = per_part.min(outers - first);
        let part = BlockGrid {
            start: [grid.start[0] + first * grid.strides[0][0], 0],
            counts: [count, grid.counts[1]],
            strides: [[grid.strides[0][0], span], grid.strides[1]],
            ..*grid
        };
        ahead.step(src);
        let staged = &mut staged[..count * span];
        dispatch::<T, M2, M4, DEINTERLEAVE>(src, staged, &part, false, wide);
        writer.copy(staged, grid.start[1] + first * grid.strides[0][1]);
        first += count;
    }
}

/// Bytes of the destination that [`deinterleave_staged`] stages at a
/// time: whole planes, as many as fit in 4 KiB (a call per few planes
/// where rows are short), or one larger plane. Staged a band at a time
/// (16 KiB of a `bf16` `T(8,128)(2,1)` band, measured when blocks of two
/// rows took the stage too), the unpack read 1.4 times `memcpy`'s time
/// at 16 MiB, against 1.04–1.08 a plane at a time (a scratch harness).
const STAGED_PART_BYTES: usize = 4 << 10;

/// [`interleave_grid`] of bytes of packed sub-byte fields, `8 / factor`
/// bits each, with the square transpose of each group of `factor` rows'
/// fields first ([`Fields`]): the pack of `factor` rows into `(k,1)`
/// sub-tiles (`k = factor`: 2 for `E(4)`, 4 for `E(2)`), each output
/// byte one `x` of the `factor` rows. The grid counts bytes.
///
/// # Panics
/// As [`interleave_grid`].
#[inline(never)]
pub(crate) fn interleave_fields_grid(
    src: &[u8],
    dst: &mut [u8],
    grid: &BlockGrid,
    streaming: bool,
) {
    interleave_mixed::<u8, Fields<4>, Fields<2>>(src, dst, grid, streaming, true);
}

/// [`deinterleave_grid`] of bytes of packed sub-byte fields, `8 / factor`
/// bits each, with the square transpose of each group of `factor` rows'
/// fields after ([`Fields`]): the unpack of `(k,1)` sub-tiles into `k`
/// rows. The grid counts bytes.
///
/// # Panics
/// As [`deinterleave_grid`].
#[inline(never)]
pub(crate) fn deinterleave_fields_grid(
    src: &[u8],
    dst: &mut [u8],
    grid: &BlockGrid,
    streaming: bool,
) {
    deinterleave_mixed::<u8, Fields<4>, Fields<2>>(src, dst, grid, streaming, true);
}

/// `count` where `CONSTANT` and it is 2 or 4, else 0: the `COUNT` of
/// [`avx2::deinterleave`], the vectors of each row of a block as a
/// constant, so that the block's loop unrolls and the loop over blocks
/// is the only one (blocks whose rows are 64 or 128 bytes: a tile row of
/// 128 `s4`, or of 128 bytes). With the count read per block, the unpack
/// of `s4` `T(8,128)(2,1)E(4)` took 1.51–1.54 times `memcpy`'s time at 1
/// MiB where it takes 1.30, that of `u2` `T(8,128)(4,1)E(2)` 2.5–2.8
/// (1.9–2.0), `u8` `T(8,64)(2,1)` 2.0 (1.65) and `u8` `T(32,128)(4,1)`
/// 1.29–1.33 (1.26), in turns in a scratch harness. The interleaves read
/// the count: unrolled the same way, the `u8` `T(32,128)(4,1)` pack took
/// 1.36 where it takes 1.21.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
const fn unrolled<const CONSTANT: bool>(count: usize) -> usize {
    match (CONSTANT, count) {
        (true, 2 | 4) => count,
        _ => 0,
    }
}

/// Whether rows of `T` from address `first`, `row_stride` elements
/// apart, all start 16 bytes past a 32-byte boundary, as a large `Vec`'s
/// do (its elements begin 16 bytes into a page): AVX2's deinterleave
/// stores them on a grid shifted by 16 bytes ([`avx2`]'s docs).
#[cfg_attr(not(debug_assertions), inline(always))]
fn shifted_rows<T>(first: usize, row_stride: usize) -> bool {
    let size = core::mem::size_of::<T>();
    first % 32 == 16 && row_stride.wrapping_mul(size).is_multiple_of(32)
}

/// Whether blocks of `rows` elements per row are whole 32-byte vectors
/// of each row, with `WIDE`: then the block loops take AVX2's vectors
/// alone, a loop with no SSE2 vectors or tail behind them. As one loop
/// with them, the compiler kept a pointer per row and vector width
/// live across blocks and spilled them, which took a fifth of an `s8`
/// `T(8,128)(4,1)` unpack's time at 1 MiB in `perf` (blocks of 512
/// bytes).
#[cfg_attr(not(debug_assertions), inline(always))]
const fn only_wide<T, const F: usize, const WIDE: bool>(rows: usize) -> bool {
    let per = vector_elements::<T, F>();
    WIDE && per != usize::MAX && rows.is_multiple_of(2 * per)
}

/// The loop of [`deinterleave_grid`], for a grid of factor `F` checked
/// against the buffers ([`BlockGrid::check`]) with at least one block
/// and rows that do not overlap; with `WIDE` (only in a function
/// compiled for AVX2), 32 bytes of each row at a time
/// ([`avx2::deinterleave`]) and a last 16 with SSE2, or AVX2's vectors
/// alone when `ONLY_WIDE` ([`only_wide`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn deinterleave_blocks<
    T: NoUninit,
    M: Mix<T>,
    const F: usize,
    const STREAMING: bool,
    const WIDE: bool,
    const ONLY_WIDE: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
) {
    let BlockGrid {
        counts: [_, steps],
        strides: [_, step],
        row_stride,
        rows,
        ..
    } = *grid;
    let vectors = rows / vector_elements::<T, F>();
    let done = vectors * vector_elements::<T, F>();
    let size = core::mem::size_of::<T>();
    // The lines to stream in `bytes` of a destination row from `from`
    // ([`stream_lines`]), when the vectors cover every block's rows (the
    // plain loop's normal stores take no line of a grid's). Their stores
    // are 16-byte aligned when the first is, as blocks are `rows * size`
    // bytes, a multiple of 16, apart when they continue each other's
    // rows.
    let lines_in = |from: *const T, bytes: usize| match STREAMING && done == rows {
        true => stream_lines(from as usize, bytes),
        false => [0, 0],
    };
    // Whether the blocks of a plane continue each other's rows (the tiles
    // of a band, side by side): then the lines of the plane's whole rows
    // are streamed, also those where one block's part of a row meets the
    // next one's, which the two write in turn.
    let along = step[1] == rows;
    let bytes = match along {
        true => steps * rows * size,
        false => rows * size,
    };
    let mut ahead = grid.read_ahead::<STREAMING>(1);
    // The lines to stream of the plane at `plane` (below the threshold
    // nothing streams: no bounds to check).
    let first = dst.as_ptr();
    let plane_lines = |plane: [usize; 2]| -> [[usize; 2]; F] {
        match STREAMING {
            true => core::array::from_fn(|j| {
                lines_in(first.wrapping_add(plane[1] + j * row_stride), bytes)
            }),
            false => [[0, 0]; F],
        }
    };
    // Rows 16 bytes past a 32-byte boundary in every plane, whose blocks
    // continue each other, all of them whole 32-byte vectors: a plane a
    // call, each row written on the shifted grid across its blocks
    // ([`avx2::deinterleave_shifted`]). A loop of its own: as a branch
    // per plane in the loop below, it cost that loop's blocks registers
    // (reloads from the stack in `perf`), and the matrix's unpacks at 1
    // MiB, which read in the other order and take that loop, slowed
    // (three runs in turns with the code before: `s8` `T(8,128)(4,1)`
    // 1.29–1.33 times `memcpy`'s time against 1.12–1.21, `s4`
    // `T(8,128)(2,1)E(4)` 1.54–2.02 against 1.28–1.46).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if WIDE && ONLY_WIDE && along && grid.shifted_planes(dst) {
        let wide = vectors / 2;
        let blocks = [steps, step[0]];
        grid.for_each_plane(|plane| {
            let lines = plane_lines(plane);
            // SAFETY: as for the blocks below, for every block of the
            // plane, which continue each other's rows (`along`), all of
            // them whole 32-byte vectors of each row (`ONLY_WIDE`:
            // `vectors` is even and not 0, as `rows` is not), into rows
            // that start 16 bytes past a 32-byte boundary and lie a
            // multiple of 32 bytes apart (`shifted_planes`). The plane's
            // streamed lines are those of its whole rows (`along`), as
            // each block's would be below.
            unsafe {
                let a = src.as_ptr().add(plane[0]);
                let out = dst.as_mut_ptr().add(plane[1]);
                let each = || ahead.step(src);
                match unrolled::<ONLY_WIDE>(wide) {
                    2 => avx2::deinterleave_shifted::<T, M, F, STREAMING, 2>(
                        a, out, row_stride, 2, lines, blocks, each,
                    ),
                    4 => avx2::deinterleave_shifted::<T, M, F, STREAMING, 4>(
                        a, out, row_stride, 4, lines, blocks, each,
                    ),
                    _ => avx2::deinterleave_shifted::<T, M, F, STREAMING, 0>(
                        a, out, row_stride, wide, lines, blocks, each,
                    ),
                }
            }
        });
        return;
    }
    grid.for_each_plane(|plane| {
        let plane_lines = plane_lines(plane);
        for_each_step(plane, steps, step, |[s, d]| {
            ahead.step(src);
            // In bounds: `s + F * rows <= src.len()` and `d + (F - 1) *
            // row_stride + rows <= dst.len()` for every block (checked by
            // the caller).
            if vectors > 0 {
                // SAFETY: `src` holds `F * rows >= F * done` elements from
                // `s`, and the `F` rows `d + j * row_stride` of `dst` hold
                // `rows >= done` each (the caller's check), not
                // overlapping each other (`row_stride >= rows`), and
                // `vectors` vectors cover `done` elements of each row;
                // `src` and `dst` do not overlap (a shared and a mutable
                // borrow). The lines to stream are those of this
                // block's rows, or of its plane's when blocks continue
                // each other's rows, and then 16-byte aligned in every
                // block (`lines_in`). `wide` 32-byte vectors cover the
                // first `skip` elements of each row, the 16-byte ones the
                // rest (`2 * wide <= vectors`); with `WIDE`, this is
                // compiled for AVX2 and the CPU has it
                // (`blocks_on`).
                unsafe {
                    let a = src.as_ptr().add(s);
                    let out = dst.as_mut_ptr().add(d);
                    let lines = match along {
                        true => plane_lines,
                        false => core::array::from_fn(|j| {
                            lines_in(out.wrapping_add(j * row_stride), bytes)
                        }),
                    };
                    let wide = if WIDE { vectors / 2 } else { 0 };
                    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                    if WIDE && wide > 0 {
                        // A block's loop unrolled at 2 and 4 vectors a row.
                        match unrolled::<ONLY_WIDE>(wide) {
                            2 => avx2::deinterleave::<T, M, F, STREAMING, 2>(
                                a, out, row_stride, 2, lines,
                            ),
                            4 => avx2::deinterleave::<T, M, F, STREAMING, 4>(
                                a, out, row_stride, 4, lines,
                            ),
                            _ => avx2::deinterleave::<T, M, F, STREAMING, 0>(
                                a, out, row_stride, wide, lines,
                            ),
                        }
                    }
                    if !ONLY_WIDE {
                        let skip = 2 * wide * vector_elements::<T, F>();
                        vector_deinterleave::<T, M, F, STREAMING>(
                            a.add(F * skip),
                            out.add(skip),
                            row_stride,
                            vectors - 2 * wide,
                            lines,
                        );
                    }
                }
            }
            if !ONLY_WIDE && done < rows {
                if vectors > 0 {
                    // The last vector's worth of each row again, ending at
                    // the row's end (as the interleave's).
                    let back = rows - vector_elements::<T, F>();
                    // SAFETY: as for the vectors above, for one vector of
                    // each row from `back`, `back + vector_elements <=
                    // rows`; with normal stores (no lines), as `done <
                    // rows` streams none of the grid's.
                    unsafe {
                        vector_deinterleave::<T, M, F, false>(
                            src.as_ptr().add(s + F * back),
                            dst.as_mut_ptr().add(d + back),
                            row_stride,
                            1,
                            [[0, 0]; F],
                        );
                    }
                } else {
                    deinterleave_tail::<T, M, F>(src, dst, [s, d], row_stride, done..rows);
                }
            }
        });
    });
}

/// The elements `r` in `rows` of each row of the block at `[s, d]`
/// deinterleaved one at a time: rows shorter than a vector in
/// [`deinterleave_blocks`], out of line as [`interleave_tail`].
#[inline(never)]
#[cold]
fn deinterleave_tail<T: NoUninit, M: Mix<T>, const F: usize>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    row_stride: usize,
    rows: core::ops::Range<usize>,
) {
    let groups = src[s + F * rows.start..s + F * rows.end].chunks_exact(F);
    for (r, group) in rows.zip(groups) {
        if M::WHOLE {
            for (j, &x) in group.iter().enumerate() {
                dst[d + j * row_stride + r] = x;
            }
        } else {
            let rows = M::elements::<F>(core::array::from_fn(|j| group[j]));
            for (j, x) in rows.into_iter().enumerate() {
                dst[d + j * row_stride + r] = x;
            }
        }
    }
}

/// Elements of `T` per 16-byte vector that the vector kernels of `F` rows
/// move ([`vector_interleave`], [`vector_deinterleave`]); `usize::MAX`,
/// so no whole vector, when they have none for `T`: SSE2 on x86-64, for
/// 2 rows of 1-, 2-, 4- or 8-byte elements and 4 rows of 1-, 2- or
/// 4-byte ones (an element group of at most 16 bytes, a lane of one
/// unpack).
#[cfg_attr(not(debug_assertions), inline(always))]
const fn vector_elements<T, const F: usize>() -> usize {
    let size = core::mem::size_of::<T>();
    let sse2 = cfg!(all(target_arch = "x86_64", target_feature = "sse2"));
    match (F, size) {
        (2, 1 | 2 | 4 | 8) | (MAX_FACTOR, 1 | 2 | 4) if sse2 => 16 / size,
        _ => usize::MAX,
    }
}

/// Stores `v` at `p`: with a streaming store when `STREAMING` and `p` is
/// in the lines `[lo, hi)`, else with a normal (unaligned) one.
///
/// # Safety
/// `p` is valid for a 16-byte write, and 16-byte aligned if `STREAMING`
/// and in `[lo, hi)`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn store_vector<const STREAMING: bool>(
    p: *mut core::arch::x86_64::__m128i,
    v: core::arch::x86_64::__m128i,
    [lo, hi]: [usize; 2],
) {
    // SAFETY: the caller's contract: a streaming store gets an aligned
    // `p`, a normal store any valid one. SSE2 is enabled on every x86-64
    // target.
    unsafe {
        if STREAMING && (p as usize).wrapping_sub(lo) < hi.wrapping_sub(lo) {
            super::stream::stream_store(p, v);
        } else {
            core::arch::x86_64::_mm_storeu_si128(p, v);
        }
    }
}

/// The low and high halves of `x` and `y` interleaved in lanes of `width`
/// bytes (1, 2, 4 or 8): `unpacklo` and `unpackhi`. Each output lane is a
/// bitwise copy of an input lane.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack(
    width: usize,
    x: core::arch::x86_64::__m128i,
    y: core::arch::x86_64::__m128i,
) -> [core::arch::x86_64::__m128i; 2] {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is enabled (the `cfg` above); the unpacks read and
    // write no memory.
    unsafe {
        match width {
            1 => [_mm_unpacklo_epi8(x, y), _mm_unpackhi_epi8(x, y)],
            2 => [_mm_unpacklo_epi16(x, y), _mm_unpackhi_epi16(x, y)],
            4 => [_mm_unpacklo_epi32(x, y), _mm_unpackhi_epi32(x, y)],
            _ => [_mm_unpacklo_epi64(x, y), _mm_unpackhi_epi64(x, y)],
        }
    }
}

/// The even lanes of `width` bytes (1, 2, 4 or 8) of `x` then of `y`, and
/// the odd ones: the inverse of [`unpack`]. Each output lane is a bitwise
/// copy of an input lane: bytes are masked or shifted into 16-bit lanes
/// (so at most 255) before the unsigned saturating pack; 16-bit lanes are
/// sign-extended to 32 bits, which the signed saturating pack returns
/// unchanged; 4-byte lanes are shuffled whole, 8-byte lanes unpacked.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
fn split(
    width: usize,
    x: core::arch::x86_64::__m128i,
    y: core::arch::x86_64::__m128i,
) -> [core::arch::x86_64::__m128i; 2] {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is enabled (the `cfg` above); the packs, shifts and
    // shuffles read and write no memory.
    unsafe {
        match width {
            1 => {
                let low = _mm_set1_epi16(0x00ff);
                [
                    _mm_packus_epi16(_mm_and_si128(x, low), _mm_and_si128(y, low)),
                    _mm_packus_epi16(_mm_srli_epi16::<8>(x), _mm_srli_epi16::<8>(y)),
                ]
            }
            2 => {
                let low = |v| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(v));
                [
                    _mm_packs_epi32(low(x), low(y)),
                    _mm_packs_epi32(_mm_srai_epi32::<16>(x), _mm_srai_epi32::<16>(y)),
                ]
            }
            4 => {
                // [x0 x2 x1 x3] and [y0 y2 y1 y3].
                let x = _mm_shuffle_epi32::<0b11_01_10_00>(x);
                let y = _mm_shuffle_epi32::<0b11_01_10_00>(y);
                [_mm_unpacklo_epi64(x, y), _mm_unpackhi_epi64(x, y)]
            }
            _ => [_mm_unpacklo_epi64(x, y), _mm_unpackhi_epi64(x, y)],
        }
    }
}

/// Interleaves `vectors` 16-byte vectors of each of the `F` rows at `a +
/// j * row_stride` (elements) into `F * vectors` vectors at `out`: for 2
/// rows one round of [`unpack`]s in lanes of `T`, for 4 rows a second
/// one in lanes of two `T` (pairs of rows 0, 1 with pairs of rows 2, 3).
/// With `STREAMING`, the output vectors at addresses in `lines` are
/// streamed.
///
/// # Safety
/// `vector_elements::<T, F>()` is not `usize::MAX`; the `F` rows are
/// valid for reads of `16 * vectors` bytes and `out` for writes of `F`
/// times as many, not overlapping them. With `STREAMING`, `lines[0]` and
/// `lines[1]` are multiples of 64 and, unless equal, `out` is 16-byte
/// aligned.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn vector_interleave<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    a: *const T,
    row_stride: usize,
    out: *mut T,
    vectors: usize,
    lines: [usize; 2],
) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128};
    let width = core::mem::size_of::<T>();
    let po = out.cast::<__m128i>();
    let mut i = 0;
    while i < vectors {
        // Input vector `i` of each row to output vectors `F i .. F i + F`.
        // SAFETY: vector `i < vectors` of each row is in bounds, and
        // output vectors `F i + m`, `m < F`, are (the caller's contract);
        // when an output vector's address is in `lines`, `out` is 16-byte
        // aligned, so the vector is too. The loads and stores are
        // otherwise the unaligned kind. `T: NoUninit` has no
        // uninitialised bytes to load, and the unpacks move whole
        // elements (lanes of `T`, then of two `T`), so each stored
        // element is a bitwise copy of a loaded one. SSE2 is enabled on
        // every x86-64 target.
        unsafe {
            let load = |j: usize| _mm_loadu_si128(a.add(j * row_stride).cast::<__m128i>().add(i));
            let store = |m: usize, v| store_vector::<STREAMING>(po.add(F * i + m), v, lines);
            // Rows that move whole are loaded as the unpacks take them
            // (an array of all `F` first measured 1.3x slower at 1 MiB).
            let mixed = match M::WHOLE {
                true => None,
                false => Some(M::vectors::<F>(core::array::from_fn(load))),
            };
            let row = |j: usize| match mixed {
                Some(rows) => rows[j],
                None => load(j),
            };
            let [low, high] = unpack(width, row(0), row(1));
            if F == 2 {
                store(0, low);
                store(1, high);
            } else {
                let [low2, high2] = unpack(width, row(2), row(3));
                let [g0, g1] = unpack(2 * width, low, low2);
                let [g2, g3] = unpack(2 * width, high, high2);
                store(0, g0);
                store(1, g1);
                store(2, g2);
                store(3, g3);
            }
        }
        i += 1;
    }
}

/// Splits `F * vectors` 16-byte vectors at `a` into the `F` rows of
/// `vectors` vectors at `out + j * row_stride` (elements): row `j` takes
/// element `j` of each group of `F`. For 2 rows one round of [`split`]s
/// in lanes of `T`; for 4, rounds of [`unpack`]s in lanes of `T`. With
/// `STREAMING`, the output vectors of row `j` at addresses in `lines[j]`
/// are streamed.
///
/// # Safety
/// `vector_elements::<T, F>()` is not `usize::MAX`; `a` is valid for
/// reads of `16 * F * vectors` bytes, and each row for writes of `16 *
/// vectors` bytes, not overlapping `a` or each other. With `STREAMING`,
/// the bounds of each range of `lines` are multiples of 64, and the
/// output vectors of its row whose addresses are in the range are 16-byte
/// aligned.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn vector_deinterleave<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    a: *const T,
    out: *mut T,
    row_stride: usize,
    vectors: usize,
    lines: [[usize; 2]; F],
) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128};
    let width = core::mem::size_of::<T>();
    let pa = a.cast::<__m128i>();
    let mut i = 0;
    while i < vectors {
        // Input vectors `F i .. F i + F` to output vector `i` of each row.
        // SAFETY: input vectors `F i + m < F * vectors` and output vectors
        // `i < vectors` of each row are in bounds (the caller's
        // contract); the loads and stores are the unaligned kind, but
        // for a store in its row's `lines`, aligned (the caller's
        // contract). `T: NoUninit` has no uninitialised bytes, and
        // [`split`] moves whole lanes, so each stored element is a
        // bitwise copy of a loaded one. SSE2 is enabled on every x86-64
        // target.
        unsafe {
            let load = |m: usize| _mm_loadu_si128(pa.add(F * i + m));
            let store = |j: usize, v| {
                let p = out.add(j * row_stride).cast::<__m128i>().add(i);
                store_vector::<STREAMING>(p, v, lines[j]);
            };
            if F == 2 {
                let [even, odd] = split(width, load(0), load(1));
                if M::WHOLE {
                    store(0, even);
                    store(1, odd);
                } else {
                    let rows = M::vectors::<F>(core::array::from_fn(|j| [even, odd][j]));
                    store(0, rows[0]);
                    store(1, rows[1]);
                }
            } else {
                // Rounds of interleaving the first 32 bytes with the last
                // 32, each of which rotates the bits of an element's
                // index in the 64 bytes left by one: `log2(16 / width)`
                // rounds of its `log2(64 / width)` bits take its lowest
                // two (its row) to the top, so vector `j` holds row `j`.
                // (16 unpacks for bytes, where two rounds of [`split`]
                // take 28 instructions.)
                let mut v = [load(0), load(1), load(2), load(3)];
                let mut round = width;
                while round < 16 {
                    let [v0, v1] = unpack(width, v[0], v[2]);
                    let [v2, v3] = unpack(width, v[1], v[3]);
                    v = [v0, v1, v2, v3];
                    round *= 2;
                }
                if !M::WHOLE {
                    let mixed = M::vectors::<F>(core::array::from_fn(|j| v[j]));
                    v = core::array::from_fn(|j| mixed[j]);
                }
                store(0, v[0]);
                store(1, v[1]);
                store(2, v[2]);
                store(3, v[3]);
            }
        }
        i += 1;
    }
}

/// No vector kernel on this target ([`vector_elements`] is `usize::MAX`,
/// so this is never called with `vectors > 0`).
///
/// # Safety
/// None needed: it does nothing.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn vector_interleave<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    _: *const T,
    _: usize,
    _: *mut T,
    _: usize,
    _: [usize; 2],
) {
}

/// No vector kernel on this target ([`vector_elements`] is `usize::MAX`,
/// so this is never called with `vectors > 0`).
///
/// # Safety
/// None needed: it does nothing.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn vector_deinterleave<T: NoUninit, M: Mix<T>, const F: usize, const STREAMING: bool>(
    _: *const T,
    _: *mut T,
    _: usize,
    _: usize,
    _: [[usize; 2]; F],
) {
}

/// 16 vectors of 16 bytes transposed: byte `t` of vector `q` out is byte
/// `q` of vector `t` in (the squares of packed transposes,
/// [`crate::packed`]); [`transpose_lanes`] in SSE2's vectors.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn transpose_bytes(
    x: [core::arch::x86_64::__m128i; 16],
) -> [core::arch::x86_64::__m128i; 16] {
    // SAFETY: SSE2, which the build enables (the `cfg` above).
    unsafe { transpose_lanes(x) }
}

/// Each 16-byte lane of 16 vectors transposed as 16 × 16 bytes, lane by
/// lane (AVX2's two lanes are two squares side by side). Four rounds of
/// the perfect shuffle: vectors `j` and `j + 8` interleaved byte by byte
/// within lanes ([`Vector::unpack`](super::isa::Vector::unpack)) into
/// `2j` and `2j + 1`, each round a rotation of the four bits of a byte's
/// row and the four of its column.
///
/// # Safety
/// The CPU has `X`'s instructions (the caller is compiled for them, and
/// this inlines into it).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn transpose_lanes<X: super::isa::Vector>(mut x: [X; 16]) -> [X; 16] {
    for _ in 0..4 {
        x = core::array::from_fn(|j| {
            let (a, b) = (x[j / 2], x[j / 2 + 8]);
            // SAFETY: the caller's CPU has `X`'s instructions; bytes
            // unpacked within 16-byte lanes, register-only.
            unsafe { X::unpack(1, j % 2 == 1, a, b) }
        });
    }
    x
}

#[cfg(test)]
mod tests {
    use alloc::boxed::Box;
    use alloc::vec::Vec;

    use super::{Bands, BlockGrid, MAX_FACTOR, Whole, deinterleave_grid, interleave_grid};

    /// Whether to check case `n`: every case natively; under Miri, which
    /// runs these tests about a thousand times slower, those next to a
    /// multiple of `every` (`n % every` 0, 1 or `every - 1`: vector and
    /// line boundaries and one element either side).
    fn miri_case(n: usize, every: usize) -> bool {
        !cfg!(miri) || matches!(n % every, 0 | 1) || n % every == every - 1
    }

    /// Whether a streaming test starts its output at element `start` of a
    /// line: under Miri only on a line, one element past it, and one
    /// element before the next vector and before the next line (`vector`:
    /// elements per vector, four to a line); every offset natively.
    fn miri_start(start: usize, vector: usize) -> bool {
        !cfg!(miri) || matches!(start, 0 | 1) || start == vector - 1 || start + 1 == 4 * vector
    }

    /// Whether a streaming test runs a block of `rows` rows: under Miri
    /// only those that make no whole vector, one vector with a tail, and
    /// whole lines with and without a tail; every one natively.
    fn miri_rows(rows: usize) -> bool {
        !cfg!(miri) || matches!(rows, 0 | 9 | 32 | 33)
    }

    /// Which kernel a test runs.
    #[derive(Clone, Copy, Debug)]
    enum Kernel {
        Interleave { streaming: bool },
        Deinterleave { streaming: bool },
    }

    /// The vector widths the kernels' tests run besides the one their
    /// entry points take ([`super::wide_vectors`], which every test also
    /// runs): SSE2's 16 bytes (`false`) where the CPU has AVX2, none
    /// otherwise. Under Miri, the entry point's width only: AVX2's where
    /// the build enables it, SSE2's where it does not (CI's Miri runs
    /// both builds, `.ci/run`).
    fn other_widths() -> impl Iterator<Item = bool> {
        let only_entry = cfg!(miri);
        let sse2 = (!only_entry && super::wide_vectors()).then_some(false);
        sse2.into_iter()
    }

    /// Runs `kernel` on `grid` from `src` into `out` through its entry
    /// point and in the other vector widths ([`other_widths`]), and
    /// checks it against the definition: every block's elements in place,
    /// every other element unchanged.
    fn check_grid<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
        src: &[T],
        out: &mut [T],
        grid: BlockGrid,
        kernel: Kernel,
    ) {
        let mut expected = out.to_vec();
        let [outers, steps] = grid.counts;
        let f = grid.factor;
        let blocks = (0..grid.bands).flat_map(|b| (0..outers).map(move |o| (b, o)));
        for (b, o) in blocks {
            for k in 0..steps {
                let at = |i: usize| {
                    let band = grid.start[i] + b * grid.band_stride[i];
                    band + o * grid.strides[0][i] + k * grid.strides[1][i]
                };
                let (s, d, stride) = (at(0), at(1), grid.row_stride);
                for r in 0..grid.rows {
                    for j in 0..f {
                        match kernel {
                            Kernel::Interleave { .. } => {
                                expected[d + f * r + j] = src[s + j * stride + r];
                            }
                            Kernel::Deinterleave { .. } => {
                                expected[d + j * stride + r] = src[s + f * r + j];
                            }
                        }
                    }
                }
            }
        }
        let before = out.to_vec();
        for wide in other_widths() {
            out.copy_from_slice(&before);
            match kernel {
                Kernel::Interleave { streaming } => {
                    super::interleave_mixed::<T, Whole, Whole>(src, out, &grid, streaming, wide)
                }
                Kernel::Deinterleave { streaming } => {
                    super::deinterleave_mixed::<T, Whole, Whole>(src, out, &grid, streaming, wide)
                }
            }
            assert_eq!(out, &expected[..], "{kernel:?} {grid:?} wide {wide}");
        }
        // The entry points take the widest vectors the CPU has.
        out.copy_from_slice(&before);
        match kernel {
            Kernel::Interleave { streaming } => interleave_grid(src, out, &grid, streaming),
            Kernel::Deinterleave { streaming } => deinterleave_grid(src, out, &grid, streaming),
        }
        assert_eq!(out, &expected[..], "{kernel:?} {grid:?}");
    }

    /// For factors 2 and 4: one block of every length around the vector
    /// sizes, at every start within a vector, then 2×3 grids of blocks of
    /// 1, 8 and 9 rows with `strides(factor, rows)`, for 1-, 2-, 4- and
    /// 8-byte elements, and natively `i16` and `i8` with sign bits set (a
    /// saturating pack would show). Miri runs this: it checks every
    /// access is in bounds.
    fn check_kernel(
        kernel: Kernel,
        strides: fn(usize, usize) -> [[usize; 2]; 2],
        row_stride: fn(usize) -> usize,
    ) {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
            make: impl Fn(usize) -> T,
            kernel: Kernel,
            strides: fn(usize, usize) -> [[usize; 2]; 2],
            row_stride: fn(usize) -> usize,
        ) {
            const N: usize = 36;
            let src: [T; 4 * N + 8] = core::array::from_fn(&make);
            for factor in [2, 4] {
                for start in 0..4 {
                    for rows in (0..=N).filter(|&rows| miri_case(rows, 8)) {
                        let mut out: [T; 4 * N + 4] = core::array::from_fn(|i| make(i + 1000));
                        let grid = BlockGrid {
                            start: [start, start],
                            counts: [1, 1],
                            strides: [[0, 0]; 2],
                            bands: 1,
                            band_stride: [0, 0],
                            factor,
                            row_stride: N,
                            rows,
                        };
                        check_grid(&src, &mut out, grid, kernel);
                    }
                }
                for rows in [1, 8, 9] {
                    let mut out: [T; 320] = core::array::from_fn(|i| make(i + 1000));
                    let grid = BlockGrid {
                        start: [1, 3],
                        counts: [2, 3],
                        strides: strides(factor, rows),
                        bands: 1,
                        band_stride: [0, 0],
                        factor,
                        row_stride: row_stride(factor).max(rows),
                        rows,
                    };
                    check_grid(&src, &mut out, grid, kernel);
                }
            }
        }
        check(|i| i as u8, kernel, strides, row_stride);
        check(|i| i as u16, kernel, strides, row_stride);
        check(|i| i as f32, kernel, strides, row_stride);
        check(|i| i as u64, kernel, strides, row_stride);
        // Under Miri (slow), not the signed types: they run the code of
        // the unsigned ones of their size, and their sign bits matter to
        // the values, which the native run checks.
        if !cfg!(miri) {
            check(|i| (i as i8).wrapping_neg(), kernel, strides, row_stride);
            check(|i| (i as i16).wrapping_neg(), kernel, strides, row_stride);
        }
    }

    /// Grids of three bands ([`BlockGrid::bands`]) of 2 × 3 blocks, each
    /// band 5 and 7 elements past the last one's end, with rows that
    /// are whole 32-byte vectors or not ([`only_wide`]), for 1-, 2-, 4-
    /// and 8-byte elements and factors 2 and 4, both ways (a
    /// deinterleave's blocks in read order, [`BlockGrid::in_read_order`]).
    #[test]
    fn bands_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            for kernel in [
                Kernel::Interleave { streaming: false },
                Kernel::Deinterleave { streaming: false },
            ] {
                for factor in [2, 4] {
                    for rows in [9, 32].into_iter().filter(|&rows| miri_rows(rows)) {
                        let block = factor * rows;
                        let grid = BlockGrid {
                            start: [2, 1],
                            counts: [2, 3],
                            // The planes interleaved in the source:
                            // read in order, the planes go inner.
                            strides: [[block, 3 * block], [2 * block, block]],
                            bands: 3,
                            band_stride: [6 * block + 5, 6 * block + 7],
                            factor,
                            row_stride: rows,
                            rows,
                        };
                        let len = 3 * (6 * block + 7) + 2;
                        let src: Vec<T> = (0..len).map(&make).collect();
                        let mut out: Vec<T> = (0..len).map(|i| make(i + 5000)).collect();
                        check_grid(&src, &mut out, grid, kernel);
                    }
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as f32);
        // (Under Miri, 1- and 4-byte elements only: the 2- and 8-byte
        // kernels are the same loops, and each type takes 9 s there.)
        if !cfg!(miri) {
            check(|i| i as u16);
            check(|i| i as u64);
        }
    }

    /// The grid of one band of an `s8[.., 1024]{1,0:T(8,128)(4,1)}`
    /// unpack at `start`, as the walk hands it over: planes of four
    /// destination rows, the eight tiles of the band along each.
    fn unpack_band(start: [usize; 2]) -> BlockGrid {
        BlockGrid {
            start,
            counts: [2, 8],
            strides: [[512, 4096], [1024, 128]],
            bands: 1,
            band_stride: [0, 0],
            factor: 4,
            row_stride: 1024,
            rows: 128,
        }
    }

    /// Read in order, the level with the larger source stride goes outer
    /// (the tiles of an `s8` `T(8,128)(4,1)` band, unpacked, go tile by
    /// tile rather than row group by row group); in order already, the
    /// grid stays as it is.
    #[test]
    fn read_order_puts_the_longer_source_stride_outer() {
        let read = unpack_band([0, 0]).in_read_order();
        assert_eq!(
            (read.counts, read.strides),
            ([8, 2], [[1024, 128], [512, 4096]])
        );
        assert_eq!(read.in_read_order(), read);
    }

    /// Grids of one band join while each starts one band stride after the
    /// last; a grid that differs, or comes at another stride, starts a
    /// new one, and the joined grid comes back to be run.
    #[test]
    fn bands_join_while_they_continue() {
        let band = unpack_band;
        let mut bands = Bands::new(true);
        assert_eq!(bands.push(band([0, 0])), None);
        assert_eq!(bands.push(band([8192, 8192])), None);
        assert_eq!(bands.push(band([16384, 16384])), None);
        // Not one stride on: this one waits beside the three bands.
        assert_eq!(bands.push(band([30000, 24576])), None);
        // Another grid shape joins neither: the oldest comes back.
        let other = BlockGrid {
            rows: 64,
            ..band([40000, 40000])
        };
        let joined = bands.push(other).unwrap();
        assert_eq!((joined.bands, joined.band_stride), (3, [8192, 8192]));
        assert_eq!(joined.start, [0, 0]);
        // Two kinds that alternate join each into its own grid.
        let other_at = |start| BlockGrid { start, ..other };
        assert_eq!(bands.push(band([38192, 32768])), None);
        assert_eq!(bands.push(other_at([48192, 48192])), None);
        assert_eq!(bands.push(band([46384, 40960])), None);
        let three = BlockGrid {
            bands: 3,
            band_stride: [8192, 8192],
            ..band([30000, 24576])
        };
        // A grid before the waiting ones joins neither.
        assert_eq!(bands.push(band([0, 0])).unwrap(), three);
        let two = BlockGrid {
            bands: 2,
            band_stride: [8192, 8192],
            ..other
        };
        assert_eq!(bands.take(), Some(two));
        assert_eq!(bands.take(), Some(band([0, 0])));
        assert_eq!(bands.take(), None);
        // Not joining: every grid comes straight back.
        let mut apart = Bands::new(false);
        assert_eq!(apart.push(band([0, 0])), Some(band([0, 0])));
        assert_eq!(apart.take(), None);
    }

    /// The interleave ([`check_kernel`]): source rows one block apart (the
    /// second row of one is the first of the next), destination blocks
    /// dense, planes 20 and `30 * factor` elements apart.
    #[test]
    fn interleaves_like_the_definition() {
        let strides = |factor, rows| [[20, 30 * factor], [rows, factor * rows]];
        check_kernel(Kernel::Interleave { streaming: false }, strides, |_| 0);
    }

    /// The deinterleave ([`check_kernel`]): source blocks overlapping,
    /// destination rows 28 apart, blocks `rows` apart along them, planes
    /// `28 * factor` apart.
    #[test]
    fn deinterleaves_like_the_definition() {
        let strides = |factor, rows| [[20, 28 * factor], [rows, rows]];
        check_kernel(Kernel::Deinterleave { streaming: false }, strides, |_| 28);
    }

    /// A 2×3 grid of deinterleave blocks of `rows` rows, from source
    /// element 7 (three blocks a plane) into destination rows `row_stride`
    /// apart from element `start` (blocks side by side along the rows).
    fn side_by_side(factor: usize, rows: usize, row_stride: usize, start: usize) -> BlockGrid {
        BlockGrid {
            start: [7, start],
            counts: [2, 3],
            strides: [
                [3 * factor * rows, factor * row_stride],
                [factor * rows, rows],
            ],
            bands: 1,
            band_stride: [0, 0],
            factor,
            row_stride,
            rows,
        }
    }

    /// Rows of whole 32-byte vectors, 1 to 5 of them ([`unrolled`]: 2
    /// and 4 take loops of a constant count, the others the loop that
    /// reads it; under Miri 2, 3 and 4), in 2×3 grids of blocks side by
    /// side along the destination rows, with and without streaming
    /// stores, for factors 2 and 4 and 1-, 2-, 4- and 8-byte elements.
    #[test]
    fn deinterleaves_of_whole_vectors_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let size = core::mem::size_of::<T>();
            for factor in [2, 4] {
                for count in (1..=5).filter(|&count| !cfg!(miri) || matches!(count, 2..=4)) {
                    let rows = count * 32 / size;
                    let row_stride = 3 * rows + 5;
                    let src: Vec<T> = (0..6 * factor * rows + 7).map(&make).collect();
                    for streaming in [false, true] {
                        let mut out: Vec<T> = (0..2 * factor * row_stride)
                            .map(|i| make(i + 1000))
                            .collect();
                        let grid = side_by_side(factor, rows, row_stride, 2);
                        check_grid(&src, &mut out, grid, Kernel::Deinterleave { streaming });
                    }
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
        check(|i| i as u64);
    }

    /// Rows of whole 32-byte vectors a multiple of 32 bytes apart, in a
    /// 64-byte-aligned buffer at every element offset within a line, so
    /// that the rows start on a 32-byte boundary, 16 bytes past one (these
    /// take `avx2::deinterleave`'s shifted stores when not streamed), or
    /// neither: 1 to 5 vectors a row, 2×3 grids of blocks side by side
    /// along the rows, with and without streaming stores, factors 2 and 4,
    /// 1-, 2-, 4- and 8-byte elements. Under Miri, the offsets on a line
    /// and 16 bytes past it, 2 and 3 vectors a row (the loops of a
    /// constant count and of a read one), without streaming (which the
    /// streaming tests cover), 1- and 8-byte elements.
    #[test]
    fn deinterleaves_into_rows_at_every_offset_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let size = core::mem::size_of::<T>();
            for factor in [2, 4] {
                for count in (1..=5).filter(|&count| !cfg!(miri) || matches!(count, 2 | 3)) {
                    let rows = count * 32 / size;
                    // 3 blocks of a row and a line: `96 count + 64` bytes.
                    let row_stride = 3 * rows + 64 / size;
                    let src: Vec<T> = (0..6 * factor * rows + 7).map(&make).collect();
                    let starts = (0..64 / size)
                        .filter(|&start| !cfg!(miri) || start * size == 0 || start * size == 16);
                    let streamings: &[bool] = if cfg!(miri) { &[false] } else { &[false, true] };
                    let cases = starts.flat_map(|s| streamings.iter().map(move |&t| (s, t)));
                    for (start, streaming) in cases {
                        let mut out =
                            Box::new(Lines::<T, 4500>(core::array::from_fn(|i| make(i + 1000))));
                        let grid = side_by_side(factor, rows, row_stride, start);
                        check_grid(&src, &mut out.0, grid, Kernel::Deinterleave { streaming });
                    }
                }
            }
        }
        check(|i| i as u8);
        if !cfg!(miri) {
            check(|i| i as u16);
            check(|i| i as f32);
        }
        check(|i| i as u64);
    }

    /// Rows 16 bytes past a 32-byte boundary in grids of three bands of
    /// 2×3 blocks side by side along the rows, read in order as they
    /// come (planes outer): with band strides a multiple of 32 bytes
    /// apart in the destination, every plane is written across its blocks
    /// (`avx2::deinterleave_shifted`, with AVX2); 16 bytes more, and the
    /// later bands' rows start on a 32-byte boundary and every block takes
    /// the block loop. Streamed and not, factors 2 and 4, 1-, 2- and
    /// 4-byte elements (under Miri 1-byte ones).
    #[test]
    fn deinterleaves_bands_of_shifted_rows_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let size = core::mem::size_of::<T>();
            for factor in [2, 4] {
                // Two 32-byte vectors of each row a block; rows 224 bytes
                // apart (three blocks and 32 bytes).
                let rows = 64 / size;
                let row_stride = 3 * rows + 32 / size;
                let plane = factor * row_stride;
                let src: Vec<T> = (0..20 * factor * rows + 20).map(&make).collect();
                for extra in [0, 32 / size, 16 / size] {
                    for streaming in [false, true] {
                        let grid = BlockGrid {
                            start: [5, 16 / size],
                            counts: [2, 3],
                            strides: [[3 * factor * rows, plane], [factor * rows, rows]],
                            bands: 3,
                            band_stride: [6 * factor * rows + 3, 2 * plane + extra],
                            factor,
                            row_stride,
                            rows,
                        };
                        let mut out =
                            Box::new(Lines::<T, 6144>(core::array::from_fn(|i| make(i + 9000))));
                        check_grid(&src, &mut out.0, grid, Kernel::Deinterleave { streaming });
                    }
                }
            }
        }
        check(|i| i as u8);
        if !cfg!(miri) {
            check(|i| i as u16);
            check(|i| i as f32);
        }
    }

    /// A 64-byte-aligned buffer of `N` elements.
    #[repr(C, align(64))]
    struct Lines<T, const N: usize>([T; N]);

    /// With streaming stores, into a 64-byte-aligned buffer at every
    /// element offset within a line, so that output vectors start on and
    /// off 16-byte alignment and whole lines are streamed, for factors 2
    /// and 4: single blocks, blocks apart, and adjacent blocks streamed
    /// as one range (Miri checks every streamed store is in bounds and
    /// 16-byte aligned).
    #[test]
    fn streaming_interleaves_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let src: [T; 160] = core::array::from_fn(&make);
            let kernel = Kernel::Interleave { streaming: true };
            let size = core::mem::size_of::<T>();
            for factor in [2, 4] {
                for start in (0..64 / size).filter(|&start| miri_start(start, 16 / size)) {
                    for rows in [0, 1, 7, 8, 9, 16, 24, 31, 32, 33, 40, 47]
                        .into_iter()
                        .filter(|&rows| miri_rows(rows))
                    {
                        let mut out = Lines::<T, 256>(core::array::from_fn(|i| make(i + 1000)));
                        let grid = BlockGrid {
                            start: [0, start],
                            counts: [1, 1],
                            strides: [[0, 0]; 2],
                            bands: 1,
                            band_stride: [0, 0],
                            factor,
                            row_stride: 33,
                            rows,
                        };
                        check_grid(&src, &mut out.0, grid, kernel);
                    }
                    // Two blocks of 24 rows (2 rows) or 16 (4 rows), the
                    // second starting mid-line.
                    let rows = 48 / factor;
                    let mut out = Lines::<T, 256>(core::array::from_fn(|i| make(i + 1000)));
                    let grid = BlockGrid {
                        start: [0, start],
                        counts: [1, 2],
                        strides: [[0, 0], [3, factor * rows + 2]],
                        bands: 1,
                        band_stride: [0, 0],
                        factor,
                        row_stride: 33,
                        rows,
                    };
                    check_grid(&src, &mut out.0, grid, kernel);
                    // 2×2 adjacent blocks of 8 and of 9 rows (the second
                    // has a tail past the vectors, so nothing streams).
                    for rows in [8, 9] {
                        let mut out = Lines::<T, 256>(core::array::from_fn(|i| make(i + 1000)));
                        let grid = BlockGrid {
                            start: [0, start],
                            counts: [2, 2],
                            strides: [[20, 2 * factor * rows], [rows, factor * rows]],
                            bands: 1,
                            band_stride: [0, 0],
                            factor,
                            row_stride: 30,
                            rows,
                        };
                        check_grid(&src, &mut out.0, grid, kernel);
                    }
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
    }

    /// The deinterleave with streaming stores, into a 64-byte-aligned
    /// buffer at every element offset within a line, for factors 2 and 4:
    /// rows of lengths around the vector and line sizes, the rows a whole
    /// number of lines apart or not (so that one row may stream while
    /// another cannot), and a 2×3 grid of blocks side by side along the
    /// rows, which share the lines at their ends (Miri checks every
    /// streamed store is in bounds and 16-byte aligned).
    #[test]
    fn streaming_deinterleaves_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let per_line = 64 / core::mem::size_of::<T>();
            let src: [T; 420] = core::array::from_fn(&make);
            let kernel = Kernel::Deinterleave { streaming: true };
            let size = core::mem::size_of::<T>();
            for factor in [2, 4] {
                for start in (0..per_line).filter(|&start| miri_start(start, 16 / size)) {
                    for rows in [0, 1, 7, 8, 9, 16, 24, 31, 32, 33, 40, 47, 64]
                        .into_iter()
                        .filter(|&rows| miri_rows(rows))
                    {
                        for row_stride in [per_line + 64, per_line + 67] {
                            let mut out = Lines::<T, 640>(core::array::from_fn(|i| make(i + 1000)));
                            let grid = BlockGrid {
                                start: [1, start],
                                counts: [1, 1],
                                strides: [[0, 0]; 2],
                                bands: 1,
                                band_stride: [0, 0],
                                factor,
                                row_stride: row_stride.max(rows),
                                rows,
                            };
                            check_grid(&src, &mut out.0, grid, kernel);
                        }
                    }
                    for rows in [8, 16, 17] {
                        let mut out = Lines::<T, 640>(core::array::from_fn(|i| make(i + 1000)));
                        let grid = BlockGrid {
                            start: [0, start],
                            counts: [2, 3],
                            strides: [[3 * factor * rows, factor * 52], [factor * rows, rows]],
                            bands: 1,
                            band_stride: [0, 0],
                            factor,
                            row_stride: 52,
                            rows,
                        };
                        check_grid(&src, &mut out.0, grid, kernel);
                    }
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
    }

    /// The streamed deinterleave of planes that are one span of the
    /// destination each, following each other ([`BlockGrid::stages_planes`]),
    /// which goes through the stage ([`super::deinterleave_staged`]) for
    /// blocks of four rows whose rows share lines ([`super::shares_lines`]:
    /// all but those where the first row starts a line and rows are whole
    /// lines apart), in place for the others: at every element offset
    /// within a line, for factors 2 and 4 (under Miri 4, whose in-place
    /// kernel the other tests run), rows with and without a tail past the
    /// vectors, one block or three along the rows, and one to three
    /// planes; and 40 planes of 1 KiB. Grids whose rows or planes leave
    /// gaps take the kernel in place.
    #[test]
    fn staged_deinterleaves_like_the_definition() {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let size = core::mem::size_of::<T>();
            let per_line = 64 / size;
            let src: Vec<T> = (0..5000).map(&make).collect();
            let kernel = Kernel::Deinterleave { streaming: true };
            let staged = |factor: usize, [outers, steps]: [usize; 2], rows: usize| {
                let row_stride = steps * rows;
                BlockGrid {
                    start: [3, 0],
                    counts: [outers, steps],
                    strides: [
                        [factor * row_stride + 5, factor * row_stride],
                        [factor * rows, rows],
                    ],
                    bands: 1,
                    band_stride: [0, 0],
                    factor,
                    row_stride,
                    rows,
                }
            };
            for factor in [2, 4]
                .into_iter()
                .filter(|&f| !cfg!(miri) || f == MAX_FACTOR)
            {
                for start in (0..per_line).filter(|&start| miri_start(start, 16 / size)) {
                    for rows in [8, 17, 32]
                        .into_iter()
                        .filter(|&rows| miri_rows(rows) || rows == 8)
                    {
                        for counts in [[1, 1], [2, 3], [3, 1]] {
                            let grid = BlockGrid {
                                start: [3, start],
                                ..staged(factor, counts, rows)
                            };
                            assert!(grid.stages_planes::<T>());
                            let mut out =
                                Lines::<T, 1024>(core::array::from_fn(|i| make(i + 1000)));
                            let shares = !start.is_multiple_of(per_line)
                                || !grid.row_stride.is_multiple_of(per_line);
                            assert_eq!(grid.takes_stage(&out.0[..], false), factor == 4 && shares);
                            // With AVX2's vectors (of four rows of
                            // elements up to 4 bytes), rows 16 bytes past
                            // a 32-byte boundary in blocks of whole
                            // 32-byte vectors stay in place.
                            let carried = size <= 4
                                && (start * size) % 32 == 16
                                && (rows * size).is_multiple_of(32)
                                && (grid.row_stride * size).is_multiple_of(32);
                            let staged = factor == 4 && shares && !carried;
                            assert_eq!(grid.takes_stage(&out.0[..], true), staged, "{grid:?}");
                            check_grid(&src, &mut out.0[..], grid, kernel);
                        }
                    }
                }
                if !cfg!(miri) {
                    // 40 planes of 1 KiB, each line of a plane's end
                    // joined with the next plane's start.
                    let rows = 1024 / factor / size / 2;
                    let grid = BlockGrid {
                        start: [0, 16 / size],
                        ..staged(factor, [40, 2], rows)
                    };
                    assert!(grid.stages_planes::<T>());
                    let src: Vec<T> = (0..45 * 1024).map(&make).collect();
                    let mut out: Vec<T> = (0..41 * 1024).map(|i| make(i + 1000)).collect();
                    check_grid(&src, &mut out, grid, kernel);
                }
                // Rows with a gap between them, and planes with one.
                let gap_rows = BlockGrid {
                    row_stride: 3 * 8 + 1,
                    ..staged(factor, [2, 3], 8)
                };
                let gap_planes = BlockGrid {
                    strides: [[factor * 24, factor * 24 + 1], [factor * 8, 8]],
                    ..staged(factor, [2, 3], 8)
                };
                for grid in [gap_rows, gap_planes] {
                    assert!(!grid.stages_planes::<T>());
                    let mut out = Lines::<T, 1024>(core::array::from_fn(|i| make(i + 1000)));
                    assert!(!grid.takes_stage(&out.0[..], false));
                    check_grid(&src, &mut out.0[..], grid, kernel);
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as u16);
        check(|i| i as f32);
        check(|i| i as u64);
    }

    /// A grid at the buffers' start with `counts` blocks `strides` apart
    /// (the panic tests below name only what they break).
    fn grid(
        counts: [usize; 2],
        strides: [[usize; 2]; 2],
        factor: usize,
        row_stride: usize,
        rows: usize,
    ) -> BlockGrid {
        BlockGrid {
            start: [0, 0],
            counts,
            strides,
            bands: 1,
            band_stride: [0, 0],
            factor,
            row_stride,
            rows,
        }
    }

    #[test]
    #[should_panic(expected = "rows overlap")]
    fn overlapping_deinterleave_rows_panic() {
        let one = grid([1, 1], [[0, 0]; 2], 2, 3, 4);
        deinterleave_grid(&[0u16; 8], &mut [0u16; 8], &one, false);
    }

    #[test]
    #[should_panic(expected = "factor 3 is not 2 or 4")]
    fn a_factor_of_three_panics() {
        let one = grid([1, 1], [[0, 0]; 2], 3, 2, 2);
        interleave_grid(&[0u8; 8], &mut [0u8; 8], &one, false);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_block_past_the_source_panics() {
        // The second block's second row ends at 2 + 2 + 2 = 6 > 5.
        let two = grid([1, 2], [[0, 0], [2, 4]], 2, 2, 2);
        interleave_grid(&[0u16; 5], &mut [0u16; 8], &two, false);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_fourth_row_past_the_source_panics() {
        // The fourth row ends at 3 * 4 + 4 = 16 > 15.
        let one = grid([1, 1], [[0, 0]; 2], 4, 4, 4);
        interleave_grid(&[0u8; 15], &mut [0u8; 16], &one, false);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_grid_that_overflows_panics() {
        let two = grid([2, 1], [[usize::MAX, 0], [0, 0]], 2, 1, 1);
        interleave_grid(&[0u16; 4], &mut [0u16; 4], &two, false);
    }

    /// Byte `t` of vector `q` of the transpose is byte `q` of vector `t`.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[test]
    fn transposes_sixteen_by_sixteen_bytes() {
        let rows: [[u8; 16]; 16] =
            core::array::from_fn(|t| core::array::from_fn(|q| (t * 16 + q) as u8));
        let out = super::transpose_bytes(rows.map(bytemuck::cast));
        for (q, v) in out.into_iter().enumerate() {
            let bytes: [u8; 16] = bytemuck::cast(v);
            assert_eq!(
                bytes,
                core::array::from_fn(|t| (t * 16 + q) as u8),
                "row {q}"
            );
        }
    }
}
