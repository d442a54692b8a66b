//! The transpose kernel ([`RelayoutKernel::Transpose`]): blocks whose rows
//! are contiguous in the source and whose runs are contiguous in the
//! destination, copied in square blocks of vectors.
//!
//! On x86-64 with SSE2 (every x86-64 target but those built without it),
//! a block of `V × V` elements, `V` = 16 bytes over the element size (4
//! `f32`, 8 `bf16`, 16 `s8`, 2 `f64`), is loaded as `V` vectors, one from
//! each of `V` source runs, transposed in registers by `log2(V)` rounds of
//! `unpacklo`/`unpackhi`, and stored as `V` vectors, one per destination
//! row. When the CPU has AVX2 (detected once at run time, [`isa`]),
//! squares stored straight to the destination (below) are `W × W`, `W =
//! 2V`, in 32-byte vectors: the same rounds within each 16-byte half, then
//! one that swaps the halves. Bytes, whose square of 32 would take 32
//! registers, go in half squares instead: 32 rows of 16 runs, each
//! 16-byte half of the vectors a square of its own, stored a half to
//! each row (the `u8[1024,1024]` transpose at 1 MiB from 4.5–4.8 times
//! `memcpy`'s time to 3.1–3.4). When it has AVX-512 (F and BW), squares
//! of 4- and 8-byte elements are `W = 4V` in 64-byte vectors (16 `f32`, a
//! cache line a row): two rounds over whole 16-byte lanes end them; where
//! a plane's blocks are not whole squares of `4V`, squares of AVX2's `2V`
//! or of `V` (the 8-row tiles of `T(8,128)`). Squares of 2-byte elements
//! take them too above the streaming threshold (32 `bf16`, below).
//!
//! A grid's rows are merged with a level whose blocks continue them in
//! the source, and its runs with one whose blocks continue them in the
//! destination (the tiles of `{1,0}` → `{0,1:T(8,128)}` side by side, and
//! of its reverse), so that tiles of few rows still read and write whole
//! cache lines.
//!
//! Below the streaming threshold the squares are stored straight to the
//! destination rows, in blocks of 128 bytes by 128 bytes: inside blocks
//! when each axis of the plane lies at one stride or in blocks of whole
//! squares (plain transposes, and the `T(8,128)` and `T(4,128)` tiles of
//! `f32`; squares of `V` where the blocks are whole squares of `V` but
//! not of `W`, as `T(4,128)`'s 4-row tiles of `f32`), else across blocks
//! (`T(2,128)`'s 2-row tiles, the 4-row tiles of bytes), with each row's
//! destination offset and each run's source offset from a table: a
//! square's rows are consecutive in the source and its runs in the
//! destination, since the merged blocks continue each other there (bytes
//! with AVX2 in half squares here too: the `s4` transpose into
//! `T(8,128)(2,1)E(4)` at 1 MiB from 5.0–5.8 times `memcpy`'s time to
//! 3.1–4.0). When
//! the destination's rows crowd into few sets of the L1 cache (rows a
//! multiple of 1 KiB apart, or tiles a multiple of 4 KiB apart), a
//! block's squares go in sweeps of fewer rows, so that a line half
//! written by one square is still cached when the next one writes the
//! rest; rows that all fall in one set (a multiple of 4 KiB apart) are
//! staged as above the threshold (below), and so are rows 2 KiB apart
//! (crowded before 32) where a square's rows are less than a line, which
//! a square leaves part written for the next one (with AVX-512, bytes'
//! half squares and AVX2's squares of 2-byte elements; without it, all
//! squares). But squares inside blocks whose two squares of rows are a
//! source line or more (AVX-512's of 4- and 8-byte elements, AVX2's of
//! 2-byte ones), into rows that crowd before 32, go through a stage of
//! their own: two squares of rows by 512 bytes of runs stored to it,
//! then each row's 512 bytes copied out at once (the 1 MiB
//! `f32[1024,256]` transpose, rows 4 KiB apart, from 3.0–3.3 times
//! `memcpy`'s time to 2.3; `f32[512,512]`, 2 KiB, from 2.8 to 2.5;
//! `bf16[2048,256]` from 4.3–4.4 to 2.8–3.0); so do bytes' half squares,
//! 32 rows by 512 bytes (`u8[4096,256]` from 6.6–6.9 to 2.8). Squares
//! start where the destination's rows reach a vector boundary (and the
//! source's runs, where every row and run shares one), with a lead
//! square from the first element and a trailing one to the last
//! overlapping their neighbours:
//! no store splits a cache line, though a `Vec`'s buffer starts 16 bytes
//! past one (the 1 MiB `f32` transpose in 64-byte squares at 2.2–2.3
//! times `memcpy`'s time, against 3.0 with split stores).
//!
//! Above the threshold, 64-byte squares of 64-byte rows (AVX-512's `f32`
//! and `bf16` squares) are streamed straight to the destination when their rows
//! start lines: each square row is one whole line, each source line read
//! whole once, `W` source runs at a time, so that the source is `W`
//! streams that the hardware prefetches (the `f32` transposes of 16 and
//! 256 MiB from 2.2–2.5 times `memcpy`'s time to 1.7–1.8). Bytes with
//! AVX-512 go so in lane squares: 16 rows of 64 runs, each 64-byte vector
//! loaded as four 16-byte lanes from runs 16 apart, so that the unpacks
//! within lanes alone leave each vector a destination row's 64 bytes (the
//! `u8` transposes of 16 and 256 MiB from 3.3–4.4 times `memcpy`'s time
//! to 2.1–2.4). Below the threshold they measured no faster than AVX2's
//! half squares (1 MiB, 3.1–3.2 either way; in the L1 cache, 1.6 times
//! as long), and bytes keep those there. Otherwise the
//! plane is copied in tiles of 128 bytes of each of
//! a cache line's worth of source runs: each source line read whole once,
//! the tile transposed into a staging buffer in the L1 cache, and each
//! destination row's line written whole from it, with streaming stores
//! when the destination is [`STREAM_FROM_BYTES`](super::stream::STREAM_FROM_BYTES)
//! or more and the line is one of the destination's. Where the
//! destination's rows run on for 2 KiB or more (plain transposes), a tile
//! takes up to four lines' worth of source runs (as many as the element's
//! bytes; four when streamed, bytes then reading one line of each of 256
//! runs) and writes that many lines of each row at once. Power-of-two row
//! lengths put all of a tile's source runs (or destination rows) in one
//! set of the L1 cache; reading and writing whole lines at once keeps them
//! from evicting each other, and squares of bytes whose 16 runs crowd a
//! set copy them side by side first. Each square prefetches the source
//! of the runs 32 on, or a tile on where tiles are smaller.
//! Other element sizes, other targets and the edges of a tile (fewer than
//! `V` rows or runs left) take a plain loop.
//!
//! One of the crate's modules with `unsafe` code; [`transpose_grid`] is a
//! safe function over two slices, checked against them once per grid, and
//! `.ci/run` runs its tests under Miri.
//!
//! [`RelayoutKernel::Transpose`]: crate::RelayoutKernel::Transpose
#![allow(unsafe_code)]

use bytemuck::NoUninit;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use super::isa;

mod staged;
#[cfg(test)]
mod tests;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod vector;

pub(crate) use staged::{STAGE_WORDS, Stage, staged_volume};

/// `K` consecutive elements taken as one, for a transpose of units
/// ([`RelayoutKernel::UnitTranspose`](crate::RelayoutKernel::UnitTranspose)):
/// a pair of `bf16` rows of a `(2,1)` sub-tile moves as a 4-byte element.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Unit<T, const K: usize>(pub(crate) [T; K]);

// SAFETY: `NoUninit`'s rules: `Unit<T, K>` is `repr(transparent)` over
// `[T; K]`; an array has no padding between or after its elements, and
// `T: NoUninit` has no uninitialised or padding bytes of its own, so
// neither has the array (bytemuck implements `NoUninit` for arrays of a
// few element types only, but an array of any `NoUninit` type meets each
// rule); it is inhabited, `Copy` and `'static` as `T` is.
unsafe impl<T: NoUninit, const K: usize> NoUninit for Unit<T, K> {}

/// `s` as units of `K` elements (the last `s.len() % K` left out).
pub(crate) fn as_units<T: NoUninit, const K: usize>(s: &[T]) -> &[Unit<T, K>] {
    // SAFETY: `Unit<T, K>` is `[T; K]`, `K` consecutive `T` with `T`'s
    // alignment: the first `s.len() / K * K` elements of `s` are that
    // many units, in the same borrow.
    unsafe { core::slice::from_raw_parts(s.as_ptr().cast(), s.len() / K) }
}

/// [`as_units`], writable.
pub(crate) fn as_units_mut<T: NoUninit, const K: usize>(s: &mut [T]) -> &mut [Unit<T, K>] {
    // SAFETY: as in `as_units`; the borrow is unique, as `s`'s is, and
    // any units written are `K` values of `T`.
    unsafe { core::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), s.len() / K) }
}

/// Where the blocks of a transpose lie: block `(o, k)`, `o < counts[0]`,
/// `k < counts[1]`, starts at `[s, d] = start + o * strides[0] + k *
/// strides[1]` (each `[source, destination]`) and copies `src[s + r + i *
/// run_stride]` to `dst[d + r * row_stride + i]` for every row `r < rows`
/// and element `i < len`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TransposeGrid {
    pub(crate) start: [usize; 2],
    pub(crate) counts: [usize; 2],
    pub(crate) strides: [[usize; 2]; 2],
    pub(crate) rows: usize,
    pub(crate) len: usize,
    /// Source elements between a block's runs (`i` to `i + 1`).
    pub(crate) run_stride: usize,
    /// Destination elements between a block's rows (`r` to `r + 1`).
    pub(crate) row_stride: usize,
}

impl TransposeGrid {
    /// One past the last element the grid touches in `[source,
    /// destination]`; `None` on overflow. Strides are not negative, so
    /// every block lies between `start` and the last block's last
    /// element.
    fn ends(&self) -> Option<[usize; 2]> {
        let [outers, steps] = self.counts;
        let last_block = |b: usize| {
            self.start[b]
                .checked_add((outers - 1).checked_mul(self.strides[0][b])?)?
                .checked_add((steps - 1).checked_mul(self.strides[1][b])?)
        };
        let src = last_block(0)?
            .checked_add(self.rows - 1)?
            .checked_add((self.len - 1).checked_mul(self.run_stride)?)?
            .checked_add(1)?;
        let dst = last_block(1)?
            .checked_add((self.rows - 1).checked_mul(self.row_stride)?)?
            .checked_add(self.len)?;
        Some([src, dst])
    }

    /// Checks that every block lies in the buffers; `false` for a grid
    /// with nothing to do.
    ///
    /// # Panics
    /// If a block reaches past either buffer.
    fn check(&self, [src, dst]: [usize; 2]) -> bool {
        if self.counts.contains(&0) || self.rows == 0 || self.len == 0 {
            return false;
        }
        assert!(
            self.ends().is_some_and(|[s, d]| s <= src && d <= dst),
            "transpose blocks out of bounds"
        );
        true
    }

    /// The offsets `[s, d]` of block `(o, k)`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn block(&self, o: usize, k: usize) -> [usize; 2] {
        let [outer, step] = self.strides;
        [0, 1].map(|b| self.start[b] + o * outer[b] + k * step[b])
    }
}

/// Copies every block of `grid` ([`TransposeGrid`]) from `src` to `dst`;
/// with `streaming`, the 64-byte lines that a destination row covers whole
/// are written with streaming stores (a plane's rows, when its blocks
/// continue each other's rows: the tiles of a band side by side).
///
/// # Panics
/// If a block reaches past either buffer.
#[inline(never)]
pub(crate) fn transpose_grid<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
    streaming: bool,
) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    transpose_grid_on(src, dst, grid, streaming, isa::Isa::best());
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let _ = streaming;
        if grid.check([src.len(), dst.len()]) {
            scalar_blocks(src, dst, grid);
        }
    }
}

/// [`transpose_grid`] with the vectors of `isa` (when the CPU runs them:
/// SSE2 otherwise).
///
/// # Panics
/// If a block reaches past either buffer.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) fn transpose_grid_on<T: NoUninit>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
    streaming: bool,
    isa: isa::Isa,
) {
    if !grid.check([src.len(), dst.len()]) {
        return;
    }
    let isa = match isa.runs() {
        true => isa,
        false => isa::Isa::Sse2,
    };
    match streaming {
        false => blocks_on::<T, false>(src, dst, grid, isa),
        true => blocks_on::<T, true>(src, dst, grid, isa),
    }
}

/// The vector kernel for `T`'s size, with the widest vectors of `isa`
/// (which the CPU runs) that the size has a kernel for: 64-byte ones for
/// 4- and 8-byte elements with AVX-512, and for 2-byte ones when
/// streaming, 32-byte ones with AVX2 (and for 1-byte elements with
/// AVX-512, whose square of 64 vectors would not fit its 32 registers;
/// likewise 2-byte ones below the streaming threshold, where the square
/// of 32 vectors, stored straight, spills: a 1 MiB `bf16` transpose took
/// 1.5 times as long; bytes above the streaming threshold take 64-byte
/// lane squares, [`avx512_byte_blocks`]), else 16-byte ones; the plain
/// loop for sizes without one. Streamed, each of the 2-byte square's rows
/// is a whole line, and the `bf16` transpose of 256 MiB took 0.7 times
/// AVX2's time. `grid` is checked.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[cfg_attr(not(debug_assertions), inline(always))]
fn blocks_on<T: NoUninit, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
    isa: isa::Isa,
) {
    use isa::Isa::{Avx2, Avx512, Sse2};
    match (lanes::<T>(), isa) {
        // SAFETY: `isa` runs on this CPU (the caller checked), and
        // AVX-512 implies AVX2.
        (16, Avx2) => unsafe { avx2_blocks::<T, 16, 32, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (16, Avx512) => unsafe { avx512_byte_blocks::<T, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (8, Avx2) => unsafe { avx2_blocks::<T, 8, 16, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (8, Avx512) if STREAMING => unsafe {
            avx512_blocks::<T, 8, 32, 16, STREAMING>(src, dst, grid)
        },
        // SAFETY: as above.
        (8, Avx512) => unsafe { avx2_blocks::<T, 8, 16, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (4, Avx2) => unsafe { avx2_blocks::<T, 4, 8, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (2, Avx2) => unsafe { avx2_blocks::<T, 2, 4, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (4, Avx512) => unsafe { avx512_blocks::<T, 4, 16, 8, STREAMING>(src, dst, grid) },
        // SAFETY: as above.
        (2, Avx512) => unsafe { avx512_blocks::<T, 2, 8, 4, STREAMING>(src, dst, grid) },
        (16, Sse2) => sse2_blocks::<T, 16, STREAMING>(src, dst, grid),
        (8, Sse2) => sse2_blocks::<T, 8, STREAMING>(src, dst, grid),
        (4, Sse2) => sse2_blocks::<T, 4, STREAMING>(src, dst, grid),
        (2, Sse2) => sse2_blocks::<T, 2, STREAMING>(src, dst, grid),
        _ => scalar_blocks(src, dst, grid),
    }
}

/// The vector kernel with SSE2's 16-byte vectors (`V` elements), a
/// function of its own as the other two are: inlined into their caller,
/// the four sizes' kernels made one stack frame of over a megabyte in
/// unoptimised builds, past a test thread's stack.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(never)]
fn sse2_blocks<T: NoUninit, const V: usize, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
) {
    vector::blocks::<T, core::arch::x86_64::__m128i, V, V, V, STREAMING, false>(src, dst, grid);
}

/// The vector kernel with AVX2's 32-byte vectors (`W = 2 * V` elements),
/// compiled for AVX2: the kernel's functions and the vectors' methods
/// inline into this one.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx2")]
unsafe fn avx2_blocks<T: NoUninit, const V: usize, const W: usize, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
) {
    vector::blocks::<T, core::arch::x86_64::__m256i, V, W, V, STREAMING, false>(src, dst, grid);
}

/// The vector kernel with AVX-512's 64-byte vectors (`W = 4 * V`
/// elements, `H = 2 * V` in AVX2's halves), compiled for AVX-512 F and
/// BW, as [`avx2_blocks`].
///
/// # Safety
/// The CPU has AVX-512 F and BW.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn avx512_blocks<
    T: NoUninit,
    const V: usize,
    const W: usize,
    const H: usize,
    const STREAMING: bool,
>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
) {
    vector::blocks::<T, core::arch::x86_64::__m512i, V, W, H, STREAMING, false>(src, dst, grid);
}

/// The vector kernel of 1-byte elements with AVX-512: AVX2's (the square
/// of 64 bytes would not fit the registers), but above the streaming
/// threshold planes whose rows start lines are streamed in lane squares
/// of 64 runs by 16 rows, each row a whole line (`lane_squares_plane`).
///
/// # Safety
/// The CPU has AVX-512 F and BW.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn avx512_byte_blocks<T: NoUninit, const STREAMING: bool>(
    src: &[T],
    dst: &mut [T],
    grid: &TransposeGrid,
) {
    vector::blocks::<T, core::arch::x86_64::__m256i, 16, 32, 16, STREAMING, true>(src, dst, grid);
}

/// Elements of `T` per 16-byte vector when the target has the vector
/// kernel for `T` (1-, 2-, 4- and 8-byte elements with SSE2); 0 otherwise.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const fn lanes<T>() -> usize {
    match core::mem::size_of::<T>() {
        1 | 2 | 4 | 8 if cfg!(all(target_arch = "x86_64", target_feature = "sse2")) => {
            16 / core::mem::size_of::<T>()
        }
        _ => 0,
    }
}

/// Rows and runs per cache-sized tile of a block: 256 bytes of `T` (four
/// cache lines), at least 4.
const fn tile<T>() -> usize {
    let per_tile = TILE_BYTES / core::mem::size_of::<T>();
    if per_tile < 4 { 4 } else { per_tile }
}

/// Bytes of a tile's rows and runs ([`tile`]).
const TILE_BYTES: usize = 256;

/// `dst[d + r * row_stride + i] = src[s + r + i * run_stride]` for `r` in
/// `rows` and `i` in `runs` (the plain loop, for other targets and
/// element sizes, and the edges of the vector kernel's blocks).
#[cfg_attr(not(debug_assertions), inline(always))]
fn scalar_part<T: Copy>(
    src: &[T],
    dst: &mut [T],
    [s, d]: [usize; 2],
    rows: core::ops::Range<usize>,
    runs: core::ops::Range<usize>,
    [run_stride, row_stride]: [usize; 2],
) {
    // Runs outside, rows inside: each source run is read in order once
    // (with few rows, as in `T(2,128)` tiles of a transpose, the other
    // order read every source line once per row, with a whole block's
    // runs, all in one cache set, in between).
    for i in runs {
        let from = &src[s + i * run_stride..];
        for r in rows.clone() {
            dst[d + r * row_stride + i] = from[r];
        }
    }
}

/// Every block of a checked `grid`, a tile (a line of rows by a line of
/// runs) at a time, with the plain loop.
fn scalar_blocks<T: Copy>(src: &[T], dst: &mut [T], grid: &TransposeGrid) {
    let t = tile::<T>();
    let strides = [grid.run_stride, grid.row_stride];
    for o in 0..grid.counts[0] {
        for k in 0..grid.counts[1] {
            let at = grid.block(o, k);
            for r0 in (0..grid.rows).step_by(t) {
                for i0 in (0..grid.len).step_by(t) {
                    let rows = r0..(r0 + t).min(grid.rows);
                    let runs = i0..(i0 + t).min(grid.len);
                    scalar_part(src, dst, at, rows, runs, strides);
                }
            }
        }
    }
}
