//! Vector kernels for relayouts that the compiler does not vectorise well
//! on its own: the row interleave of `T(2,1)` sub-tiles (`bf16`'s
//! `T(8,128)(2,1)`) and the deinterleave that undoes it.
//!
//! Written as plain loops, the interleave becomes 8-byte loads and one
//! unpack per 16 bytes written; here it takes SSE2's 16-byte loads and
//! `unpacklo`/`unpackhi`, a vector of output per unpack.
//! Destinations too large for the caches take streaming stores for the
//! lines the vectors cover whole (as
//! [`StreamWriter`](super::stream::StreamWriter)), and the source
//! is prefetched a grid ahead ([`ReadAhead`]). The kernels,
//! [`interleave2_grid`] and [`deinterleave2_grid`], take a whole grid of
//! blocks, checked against the buffers once; they are safe functions over
//! two slices, and `.ci/run` runs their tests under Miri.
#![allow(unsafe_code)]

use bytemuck::NoUninit;
use layout_core::walk::for_each_step;

use super::stream::ReadAhead;

/// Where the blocks of a row interleave lie: block `(o, k)`, `o <
/// counts[0]`, `k < counts[1]`, interleaves the `rows` elements at source
/// offset `s` with those at `s + row_stride` into the `2 * rows` elements
/// at destination offset `d`, where `[s, d] = start + o * strides[0] + k *
/// strides[1]` (each `[source, destination]`). For a deinterleave
/// ([`deinterleave2_grid`]), the other way round: the `2 * rows` elements
/// at `s` go to the rows at `d` and `d + row_stride`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockGrid {
    pub(crate) start: [usize; 2],
    pub(crate) counts: [usize; 2],
    pub(crate) strides: [[usize; 2]; 2],
    pub(crate) row_stride: usize,
    pub(crate) rows: usize,
}

impl BlockGrid {
    /// One past the last element the grid touches in `buffer` (0: the
    /// source, 1: the destination), whose blocks are a pair of rows when
    /// `buffer == paired` and `2 * rows` dense elements otherwise; `None`
    /// on overflow. Strides are not negative, so every block lies between
    /// `start` and the last block's end.
    fn end(&self, buffer: usize, paired: usize) -> Option<usize> {
        let [outers, steps] = self.counts;
        let reach = match buffer == paired {
            true => self.row_stride.checked_add(self.rows)?,
            false => self.rows.checked_mul(2)?,
        };
        self.start[buffer]
            .checked_add((outers - 1).checked_mul(self.strides[0][buffer])?)?
            .checked_add((steps - 1).checked_mul(self.strides[1][buffer])?)?
            .checked_add(reach)
    }

    /// Checks that every block lies in the buffers, the pairs of rows in
    /// buffer `paired`; `false` for a grid with nothing to do.
    ///
    /// # Panics
    /// If a block reaches past either buffer.
    fn check(&self, [src, dst]: [usize; 2], paired: usize) -> bool {
        if self.counts.contains(&0) || self.rows == 0 {
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
    /// of `paired` being pairs of rows ([`BlockGrid::end`]); else none.
    #[inline(always)]
    fn read_ahead<const STREAMING: bool>(&self, paired: usize) -> ReadAhead {
        match (STREAMING, self.end(0, paired)) {
            (true, Some(end)) => {
                let span = end - self.start[0];
                ReadAhead::new(self.start[0], span, self.counts[0] * self.counts[1])
            }
            _ => ReadAhead::OFF,
        }
    }

    /// Calls `f([s, d])` with the source and destination offsets of every
    /// block, plane by plane (the engine's [`for_each_step`] per level).
    #[inline(always)]
    fn for_each_block(&self, mut f: impl FnMut([usize; 2])) {
        let ([outers, steps], [outer, step]) = (self.counts, self.strides);
        for_each_step(
            self.start,
            outers,
            outer,
            #[inline(always)]
            |plane| for_each_step(plane, steps, step, &mut f),
        );
    }
}

/// The addresses `[lo, hi)` of the 64-byte lines that the `bytes` bytes of
/// output from address `from` cover whole, those to write with streaming
/// stores; none (`[0, 0]`) unless `from` is 16-byte aligned, as streaming
/// stores must be.
#[inline(always)]
pub(crate) fn whole_lines(from: usize, bytes: usize) -> [usize; 2] {
    let to = from + bytes;
    let (lo, hi) = (from.next_multiple_of(64), to - to % 64);
    match from.is_multiple_of(16) && lo < hi {
        true => [lo, hi],
        false => [0, 0],
    }
}

/// Interleaves every block of `grid` (see [`BlockGrid`]): `dst[d + 2 * r]
/// = src[s + r]` and `dst[d + 2 * r + 1] = src[s + row_stride + r]` for
/// every `r < rows`. With `streaming`, the 64-byte lines that the output
/// covers whole are written with streaming stores, and the lines at its
/// ends, shared with other writes, with normal ones (see
/// [`StreamWriter`](super::stream::StreamWriter)): the output of the
/// whole grid when its blocks are adjacent (as a band of `T(8,128)(2,1)` tiles is), else of each block.
/// Streaming grids also prefetch, a piece per block, the source span that
/// follows the grid's own ([`ReadAhead`]): the next band's rows.
///
/// The bounds are checked once for the whole grid, not per block: blocks
/// are as small as 512 bytes (`bf16` `T(8,128)(2,1)`), where checks and
/// slicing per block are a sizeable part of the copy. On x86-64, elements of 2 or 4 bytes go
/// 16 bytes of each row at a time through SSE2 unpacks; other sizes, other
/// targets and the last few elements of each row take a plain loop.
///
/// # Panics
/// If a block reaches past either buffer.
#[inline(never)]
pub(crate) fn interleave2_grid<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
) {
    if !grid.check([src.len(), dst.len()], 0) {
        return;
    }
    // Two copies of the loop, so that neither tests for streaming per
    // store.
    match streaming {
        true => interleave_blocks::<T, true>(src, dst, grid),
        false => interleave_blocks::<T, false>(src, dst, grid),
    }
}

/// The loop of [`interleave2_grid`], for a grid checked against the
/// buffers ([`BlockGrid::check`]) with at least one block.
#[inline(always)]
fn interleave_blocks<T: NoUninit, const STREAMING: bool>(
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
    } = *grid;
    let vectors = rows / vector_elements::<T>();
    let done = vectors * vector_elements::<T>();
    let size = core::mem::size_of::<T>();
    // The lines to stream in `bytes` of output from `from`
    // ([`whole_lines`]), when the vectors cover every row (no line takes
    // both kinds of store). Their stores are 16-byte aligned when the
    // first is, as blocks are `2 * rows * size` bytes, a multiple of 32,
    // apart when they are adjacent.
    let lines_in = |from: *const T, bytes: usize| match STREAMING && done == rows {
        true => whole_lines(from as usize, bytes),
        false => [0, 0],
    };
    let block_bytes = 2 * rows * size;
    let adjacent = step[1] * size == block_bytes && outer[1] == steps * step[1];
    let grid_lines = lines_in(dst[start[1]..].as_ptr(), outers * steps * block_bytes);
    let mut ahead = grid.read_ahead::<STREAMING>(0);
    grid.for_each_block(
        #[inline(always)]
        |[s, d]| {
            ahead.step(src);
            // In bounds: `s + row_stride + rows <= src.len()` and `d + 2 *
            // rows <= dst.len()` for every block (checked by the caller).
            if vectors > 0 {
                // SAFETY: rows `s` and `s + row_stride` of `src` hold
                // `rows >= done` elements each and `dst` holds `2 * rows`
                // from `d` (the caller's check), and `vectors` vectors
                // cover `done` elements; `src` and `dst` do not overlap (a
                // shared and a mutable borrow).
                unsafe {
                    let a = src.as_ptr().add(s);
                    let out = dst.as_mut_ptr().add(d);
                    let lines = match adjacent {
                        true => grid_lines,
                        false => lines_in(out, block_bytes),
                    };
                    vector_interleave2::<T, STREAMING>(a, a.add(row_stride), out, vectors, lines);
                }
            }
            if done < rows {
                let (a, b) = (&src[s + done..s + rows], &src[s + row_stride + done..]);
                let out = &mut dst[d + 2 * done..d + 2 * rows];
                for ((o, &x), &y) in out.chunks_exact_mut(2).zip(a).zip(b) {
                    o[0] = x;
                    o[1] = y;
                }
            }
        },
    );
}

/// Deinterleaves every block of `grid` (see [`BlockGrid`]): `dst[d + r]
/// = src[s + 2 * r]` and `dst[d + row_stride + r] = src[s + 2 * r + 1]`
/// for every `r < rows`: the unpack of `T(2,1)` sub-tiles (`bf16`'s
/// `T(8,128)(2,1)`) into row-major order. On x86-64, elements of 2 or 4
/// bytes go 32 bytes of the source at a time through SSE2 shifts, packs
/// and shuffles; other sizes, other targets and the last few elements of
/// each block take a plain loop. With `streaming`, the 64-byte lines that
/// the destination rows cover whole are written with streaming stores,
/// and the lines at their ends, shared with other writes, with normal
/// ones: the rows of a whole plane of blocks when its blocks continue
/// each other's rows (as the tiles of a band do), else of each block. The
/// source that follows the grid's is prefetched ([`ReadAhead`]), as in
/// [`interleave2_grid`].
///
/// # Panics
/// If a block reaches past either buffer, or its two destination rows
/// overlap (`row_stride < rows`).
#[inline(never)]
pub(crate) fn deinterleave2_grid<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &BlockGrid,
    streaming: bool,
) {
    assert!(grid.row_stride >= grid.rows, "deinterleave rows overlap");
    if !grid.check([src.len(), dst.len()], 1) {
        return;
    }
    match streaming {
        true => deinterleave_blocks::<T, true>(src, dst, grid),
        false => deinterleave_blocks::<T, false>(src, dst, grid),
    }
}

/// The loop of [`deinterleave2_grid`], for a grid checked against the
/// buffers ([`BlockGrid::check`]) with at least one block and rows that
/// do not overlap.
#[inline(always)]
fn deinterleave_blocks<T: NoUninit, const STREAMING: bool>(
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
    } = *grid;
    let vectors = rows / vector_elements::<T>();
    let done = vectors * vector_elements::<T>();
    let size = core::mem::size_of::<T>();
    // The lines to stream in `bytes` of a destination row from `from`
    // ([`whole_lines`]), when the vectors cover every block's rows (no
    // line takes both kinds of store). Their stores are 16-byte aligned
    // when the first is, as blocks are `rows * size` bytes, a multiple of
    // 16, apart when they continue each other's rows.
    let lines_in = |from: *const T, bytes: usize| match STREAMING && done == rows {
        true => whole_lines(from as usize, bytes),
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
    for_each_step(start, outers, outer, |plane| {
        let row_lines = |row: usize| lines_in(dst[plane[1] + row..].as_ptr(), bytes);
        let plane_lines = [row_lines(0), row_lines(row_stride)];
        for_each_step(plane, steps, step, |[s, d]| {
            ahead.step(src);
            // In bounds: `s + 2 * rows <= src.len()` and `d + row_stride +
            // rows <= dst.len()` for every block (checked by the caller).
            if vectors > 0 {
                // SAFETY: `src` holds `2 * rows >= 2 * done` elements from
                // `s`, and `dst` rows `d` and `d + row_stride` hold `rows
                // >= done` each (the caller's check), and `vectors`
                // vectors cover `done` elements of each row; `src` and
                // `dst` do not overlap (a shared and a mutable borrow).
                // The lines to stream are whole lines of this block's
                // rows, or of its plane's when blocks continue each
                // other's rows, and then 16-byte aligned in every block
                // (`lines_in`).
                unsafe {
                    let a = src.as_ptr().add(s);
                    let even = dst.as_mut_ptr().add(d);
                    let odd = even.add(row_stride);
                    let lines = match along {
                        true => plane_lines,
                        false => [lines_in(even, bytes), lines_in(odd, bytes)],
                    };
                    vector_deinterleave2::<T, STREAMING>(a, [even, odd], vectors, lines);
                }
            }
            if done < rows {
                let pairs = src[s + 2 * done..s + 2 * rows].chunks_exact(2);
                let (even, odd) = dst[d + done..].split_at_mut(row_stride);
                for ((pair, e), o) in pairs.zip(&mut even[..rows - done]).zip(odd) {
                    *e = pair[0];
                    *o = pair[1];
                }
            }
        });
    });
}

/// Splits `2 * vectors` 16-byte vectors at `a` into their even elements,
/// `vectors` vectors at `even`, and their odd ones at `odd`. With
/// `STREAMING`, the output vectors at addresses in `lines[0]` (of `even`)
/// and `lines[1]` (of `odd`) are streamed.
///
/// # Safety
/// `T` is 2 or 4 bytes ([`vector_elements`]); `a` is valid for reads of
/// `32 * vectors` bytes, `even` and `odd` for writes of `16 * vectors`
/// bytes each, not overlapping `a` or each other. With `STREAMING`, the
/// bounds of each range of `lines` are multiples of 64, and the output
/// vectors of its row (`even` or `odd`) whose addresses are in the range
/// are 16-byte aligned.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
unsafe fn vector_deinterleave2<T: NoUninit, const STREAMING: bool>(
    a: *const T,
    [even, odd]: [*mut T; 2],
    vectors: usize,
    lines: [[usize; 2]; 2],
) {
    use core::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_packs_epi32, _mm_shuffle_epi32, _mm_slli_epi32,
        _mm_srai_epi32, _mm_unpackhi_epi64, _mm_unpacklo_epi64,
    };
    let pa = a.cast::<__m128i>();
    let (pe, po) = (even.cast::<__m128i>(), odd.cast::<__m128i>());
    // Stores an output vector `p` of row `row` (0: even, 1: odd); called
    // only with `p = pe.add(i)` or `po.add(i)`, `i < vectors` (by the loop
    // below).
    let store = |row: usize, p: *mut __m128i, v: __m128i| {
        // SAFETY: `p` is an output vector `i < vectors` of its row, in
        // bounds (the caller's contract); when its address is in
        // `lines[row]`, it is 16-byte aligned (the caller's contract).
        unsafe { store_vector::<STREAMING>(p, v, lines[row]) }
    };
    let mut i = 0;
    while i < vectors {
        // Input vectors `2i`, `2i + 1` to output vector `i` of each row.
        // SAFETY: input vectors `2i + 1 < 2 * vectors` and output vectors
        // `i < vectors` are in bounds (the caller's contract); the loads
        // and stores are the unaligned kind. `T: NoUninit` has no
        // uninitialised bytes. For 2-byte elements, each 32-bit lane
        // holds an even element in its low half and an odd one in its
        // high half; shifting sign-extends either to 32 bits, which the
        // saturating pack returns unchanged, so each stored element is a
        // bitwise copy of a loaded one. For 4-byte elements, the
        // shuffles move whole lanes. SSE2 is enabled on every x86-64
        // target.
        unsafe {
            let x = _mm_loadu_si128(pa.add(2 * i));
            let y = _mm_loadu_si128(pa.add(2 * i + 1));
            let (e, o) = if core::mem::size_of::<T>() == 2 {
                let low = |v| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(v));
                (
                    _mm_packs_epi32(low(x), low(y)),
                    _mm_packs_epi32(_mm_srai_epi32::<16>(x), _mm_srai_epi32::<16>(y)),
                )
            } else {
                // [x0 x2 x1 x3] and [y0 y2 y1 y3].
                let x = _mm_shuffle_epi32::<0b11_01_10_00>(x);
                let y = _mm_shuffle_epi32::<0b11_01_10_00>(y);
                (_mm_unpacklo_epi64(x, y), _mm_unpackhi_epi64(x, y))
            };
            store(0, pe.add(i), e);
            store(1, po.add(i), o);
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
#[inline(always)]
unsafe fn vector_deinterleave2<T: NoUninit, const STREAMING: bool>(
    _: *const T,
    _: [*mut T; 2],
    _: usize,
    _: [[usize; 2]; 2],
) {
}

/// Stores `v` at `p`: with a streaming store when `STREAMING` and `p` is
/// in the lines `[lo, hi)`, else with a normal (unaligned) one.
///
/// # Safety
/// `p` is valid for a 16-byte write, and 16-byte aligned if `STREAMING`
/// and in `[lo, hi)`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
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

/// Elements of `T` per 16-byte vector that [`vector_interleave2`] moves
/// (`usize::MAX`, so no whole vector, when it has no kernel for `T`).
#[inline(always)]
const fn vector_elements<T>() -> usize {
    match core::mem::size_of::<T>() {
        2 | 4 if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) => {
            16 / core::mem::size_of::<T>()
        }
        _ => usize::MAX,
    }
}

/// Interleaves `vectors` 16-byte vectors of row `a` with as many of row
/// `b` into `2 * vectors` vectors at `out`. With `STREAMING`, the output
/// vectors at addresses in `lines` are streamed.
///
/// # Safety
/// `T` is 2 or 4 bytes ([`vector_elements`]); `a` and `b` are valid for
/// reads of `16 * vectors` bytes and `out` for writes of twice as many,
/// not overlapping them. With `STREAMING`, `lines[0]` and `lines[1]` are
/// multiples of 64 and, unless equal, `out` is 16-byte aligned.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
unsafe fn vector_interleave2<T: NoUninit, const STREAMING: bool>(
    a: *const T,
    b: *const T,
    out: *mut T,
    vectors: usize,
    lines: [usize; 2],
) {
    use core::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpacklo_epi16,
        _mm_unpacklo_epi32,
    };
    let (pa, pb) = (a.cast::<__m128i>(), b.cast::<__m128i>());
    let po = out.cast::<__m128i>();
    // Stores output vector `j`; called only with `p = po.add(j)`, `j < 2 *
    // vectors` (by the loop below).
    let store = |p: *mut __m128i, v: __m128i| {
        // SAFETY: `p` is an output vector `j < 2 * vectors`, in bounds
        // (the caller's contract); when its address is in `lines`, `out`
        // is 16-byte aligned, so `p` is too.
        unsafe { store_vector::<STREAMING>(p, v, lines) }
    };
    let mut i = 0;
    while i < vectors {
        // Input vector `i` of each row to output vectors `2i`, `2i + 1`.
        // SAFETY: vector `i < vectors` of each row is in bounds, and
        // output vectors `2i` and `2i + 1` are (the caller's contract).
        // The loads and stores are the unaligned kind. `T: NoUninit` has
        // no uninitialised bytes to load, and the unpacks move whole
        // elements (2- or 4-byte lanes, as `T`), so each stored element
        // is a bitwise copy of a loaded one. SSE2 is enabled on every
        // x86-64 target.
        unsafe {
            let x = _mm_loadu_si128(pa.add(i));
            let y = _mm_loadu_si128(pb.add(i));
            let (low, high) = if core::mem::size_of::<T>() == 2 {
                (_mm_unpacklo_epi16(x, y), _mm_unpackhi_epi16(x, y))
            } else {
                (_mm_unpacklo_epi32(x, y), _mm_unpackhi_epi32(x, y))
            };
            store(po.add(2 * i), low);
            store(po.add(2 * i + 1), high);
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
#[inline(always)]
unsafe fn vector_interleave2<T: NoUninit, const STREAMING: bool>(
    _: *const T,
    _: *const T,
    _: *mut T,
    _: usize,
    _: [usize; 2],
) {
}

#[cfg(test)]
mod tests {
    use super::{BlockGrid, deinterleave2_grid, interleave2_grid};

    /// Which kernel a test runs.
    #[derive(Clone, Copy, Debug)]
    enum Kernel {
        Interleave { streaming: bool },
        Deinterleave { streaming: bool },
    }

    /// Runs `kernel` on `grid` from `src` into `out` and checks it against
    /// the definition: every block's elements in place, every other
    /// element unchanged.
    fn check_grid<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
        src: &[T],
        out: &mut [T],
        grid: BlockGrid,
        kernel: Kernel,
    ) {
        let mut expected = out.to_vec();
        let [outers, steps] = grid.counts;
        for o in 0..outers {
            for k in 0..steps {
                let at = |b: usize| grid.start[b] + o * grid.strides[0][b] + k * grid.strides[1][b];
                let (s, d, pair) = (at(0), at(1), grid.row_stride);
                for r in 0..grid.rows {
                    match kernel {
                        Kernel::Interleave { .. } => {
                            expected[d + 2 * r] = src[s + r];
                            expected[d + 2 * r + 1] = src[s + pair + r];
                        }
                        Kernel::Deinterleave { .. } => {
                            expected[d + r] = src[s + 2 * r];
                            expected[d + pair + r] = src[s + 2 * r + 1];
                        }
                    }
                }
            }
        }
        match kernel {
            Kernel::Interleave { streaming } => interleave2_grid(src, out, &grid, streaming),
            Kernel::Deinterleave { streaming } => deinterleave2_grid(src, out, &grid, streaming),
        }
        assert_eq!(out, &expected[..], "{kernel:?} {grid:?}");
    }

    /// One block of every length around the vector sizes, at every start
    /// within a vector, then 2×3 grids of blocks of 1, 8 and 9 rows with
    /// `strides(rows)`, for 1-, 2-, 4- and 8-byte elements, and `i16`
    /// with sign bits set (a saturating pack would show). Miri runs this:
    /// it checks every access is in bounds.
    fn check_kernel(kernel: Kernel, strides: fn(usize) -> [[usize; 2]; 2], row_stride: usize) {
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
            make: impl Fn(usize) -> T,
            kernel: Kernel,
            strides: fn(usize) -> [[usize; 2]; 2],
            row_stride: usize,
        ) {
            const N: usize = 40;
            let src: [T; 2 * N + 8] = core::array::from_fn(&make);
            for start in 0..4 {
                for rows in 0..=N {
                    let mut out: [T; 2 * N + 4] = core::array::from_fn(|i| make(i + 1000));
                    let grid = BlockGrid {
                        start: [start, start],
                        counts: [1, 1],
                        strides: [[0, 0]; 2],
                        row_stride: N,
                        rows,
                    };
                    check_grid(&src, &mut out, grid, kernel);
                }
            }
            for rows in [1, 8, 9] {
                let mut out: [T; 160] = core::array::from_fn(|i| make(i + 1000));
                let grid = BlockGrid {
                    start: [1, 3],
                    counts: [2, 3],
                    strides: strides(rows),
                    row_stride: row_stride.max(rows),
                    rows,
                };
                check_grid(&src, &mut out, grid, kernel);
            }
        }
        check(|i| i as u8, kernel, strides, row_stride);
        check(|i| i as u16, kernel, strides, row_stride);
        check(|i| (i as i16).wrapping_neg(), kernel, strides, row_stride);
        check(|i| i as f32, kernel, strides, row_stride);
        check(|i| i as u64, kernel, strides, row_stride);
    }

    /// The interleave ([`check_kernel`]): source rows one block apart (the
    /// second row of one is the first of the next), destination blocks
    /// dense, planes 60 elements apart.
    #[test]
    fn interleaves_like_the_definition() {
        let strides = |rows| [[20, 60], [rows, 2 * rows]];
        check_kernel(Kernel::Interleave { streaming: false }, strides, 0);
    }

    /// The deinterleave ([`check_kernel`]): source blocks overlapping,
    /// destination rows 30 apart, blocks `rows` apart along them, planes
    /// 60 apart.
    #[test]
    fn deinterleaves_like_the_definition() {
        let strides = |rows| [[20, 60], [rows, rows]];
        check_kernel(Kernel::Deinterleave { streaming: false }, strides, 30);
    }

    /// With streaming stores, into a 64-byte-aligned buffer at every
    /// element offset within a line, so that output vectors start on and
    /// off 16-byte alignment and whole lines are streamed: single blocks,
    /// blocks apart, and adjacent blocks streamed as one range (Miri
    /// checks every streamed store is in bounds and 16-byte aligned).
    #[test]
    fn streaming_interleaves_like_the_definition() {
        #[repr(C, align(64))]
        struct Lines<T>([T; 200]);
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let src: [T; 80] = core::array::from_fn(&make);
            for start in 0..64 / core::mem::size_of::<T>() {
                for rows in [0, 1, 7, 8, 9, 16, 24, 31, 32, 33, 40, 47] {
                    let mut out = Lines(core::array::from_fn(|i| make(i + 1000)));
                    let grid = BlockGrid {
                        start: [0, start],
                        counts: [1, 1],
                        strides: [[0, 0]; 2],
                        row_stride: 33,
                        rows,
                    };
                    check_grid(
                        &src,
                        &mut out.0,
                        grid,
                        Kernel::Interleave { streaming: true },
                    );
                }
                // Two blocks of 24 rows, the second starting mid-line.
                let mut out = Lines(core::array::from_fn(|i| make(i + 1000)));
                let grid = BlockGrid {
                    start: [0, start],
                    counts: [1, 2],
                    strides: [[0, 0], [3, 50]],
                    row_stride: 33,
                    rows: 24,
                };
                check_grid(
                    &src,
                    &mut out.0,
                    grid,
                    Kernel::Interleave { streaming: true },
                );
                // 2×2 adjacent blocks of 8 and of 9 rows (the second has a
                // tail past the vectors, so nothing streams).
                for rows in [8, 9] {
                    let mut out = Lines(core::array::from_fn(|i| make(i + 1000)));
                    let grid = BlockGrid {
                        start: [0, start],
                        counts: [2, 2],
                        strides: [[20, 4 * rows], [rows, 2 * rows]],
                        row_stride: 40,
                        rows,
                    };
                    check_grid(
                        &src,
                        &mut out.0,
                        grid,
                        Kernel::Interleave { streaming: true },
                    );
                }
            }
        }
        check(|i| i as u16);
        check(|i| i as f32);
    }

    /// The deinterleave with streaming stores, into a 64-byte-aligned
    /// buffer at every element offset within a line: rows of lengths
    /// around the vector and line sizes, the odd row a whole number of
    /// lines after the even one or not (so that one row may stream while
    /// the other cannot), and a 2×3 grid of blocks side by side along
    /// the rows, which share the lines at their ends (Miri checks every
    /// streamed store is in bounds and 16-byte aligned).
    #[test]
    fn streaming_deinterleaves_like_the_definition() {
        #[repr(C, align(64))]
        struct Lines<T>([T; 240]);
        fn check<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
            let per_line = 64 / core::mem::size_of::<T>();
            let src: [T; 240] = core::array::from_fn(&make);
            for start in 0..per_line {
                for rows in [0, 1, 7, 8, 9, 16, 24, 31, 32, 33, 40, 47, 64] {
                    for row_stride in [2 * per_line + 64, 2 * per_line + 67] {
                        let mut out = Lines(core::array::from_fn(|i| make(i + 1000)));
                        let grid = BlockGrid {
                            start: [1, start],
                            counts: [1, 1],
                            strides: [[0, 0]; 2],
                            row_stride: row_stride.max(rows),
                            rows,
                        };
                        let kernel = Kernel::Deinterleave { streaming: true };
                        check_grid(&src, &mut out.0, grid, kernel);
                    }
                }
                for rows in [8, 16, 17] {
                    let mut out = Lines(core::array::from_fn(|i| make(i + 1000)));
                    let grid = BlockGrid {
                        start: [0, start],
                        counts: [2, 3],
                        strides: [[3 * 2 * rows, 2 * 52], [2 * rows, rows]],
                        row_stride: 52,
                        rows,
                    };
                    let kernel = Kernel::Deinterleave { streaming: true };
                    check_grid(&src, &mut out.0, grid, kernel);
                }
            }
        }
        check(|i| i as u16);
        check(|i| i as f32);
    }

    #[test]
    #[should_panic(expected = "rows overlap")]
    fn overlapping_deinterleave_rows_panic() {
        let grid = BlockGrid {
            start: [0, 0],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            row_stride: 3,
            rows: 4,
        };
        deinterleave2_grid(&[0u16; 8], &mut [0u16; 8], &grid, false);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_block_past_the_source_panics() {
        let grid = BlockGrid {
            start: [0, 0],
            counts: [1, 2],
            strides: [[0, 0], [2, 4]],
            row_stride: 2,
            rows: 2,
        };
        // The second block's second row ends at 2 + 2 + 2 = 6 > 5.
        interleave2_grid(&[0u16; 5], &mut [0u16; 8], &grid, false);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_grid_that_overflows_panics() {
        let grid = BlockGrid {
            start: [0, 0],
            counts: [2, 1],
            strides: [[usize::MAX, 0], [0, 0]],
            row_stride: 1,
            rows: 1,
        };
        interleave2_grid(&[0u16; 4], &mut [0u16; 4], &grid, false);
    }
}
