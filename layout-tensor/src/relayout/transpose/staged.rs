//! The transpose of units that start at any element of one buffer
//! ([`RelayoutKernel::StagedUnitTranspose`]): pieces of that buffer go
//! through a stage on the stack, where every unit starts at a multiple of
//! the unit, and [`transpose_grid`] moves them as units between the stage
//! and the other buffer.
//!
//! A transpose into `(2,1)` sub-tiles of `bf16` rows an odd number of
//! elements long reads pairs that start at odd offsets in every other
//! row: as units, the source's rows would be a fraction of a unit apart.
//! Copied run by run, 2 or 4 elements at a time, such a transpose took
//! 9–18 times `memcpy`'s time; through the stage, the vector kernel moves
//! them as it moves the pairs of even rows.
//!
//! [`RelayoutKernel::StagedUnitTranspose`]: crate::RelayoutKernel::StagedUnitTranspose
#![allow(unsafe_code)]

use core::mem::MaybeUninit;

use bytemuck::NoUninit;

use super::{TransposeGrid, as_units, as_units_mut, transpose_grid};
use crate::relayout::kernel::Misaligned;

/// 8-byte words of the stage: 16 KiB where the vector kernel runs (a
/// third to a half of an x86-64 core's L1 data cache, leaving room for
/// the lines of the other buffer), 2 KiB on other targets, whose stacks
/// may be small.
pub(crate) const STAGE_WORDS: usize =
    match cfg!(all(target_arch = "x86_64", target_feature = "sse2")) {
        true => 2048,
        false => 256,
    };

/// `WORDS` 8-byte words that start a cache line, as the transpose
/// kernel's vectors would have them.
#[repr(C, align(64))]
struct Lines<const WORDS: usize>([MaybeUninit<u64>; WORDS]);

/// A buffer of `WORDS` 8-byte words on the stack, to hold elements of `T`
/// (at most 8-byte aligned), the first `ready` of them written. It starts
/// a cache line: the transpose kernel's squares start where its rows
/// reach a vector boundary, and would go in lead and trailing squares,
/// overlapping their neighbours, in a stage off one.
pub(crate) struct Stage<T, const WORDS: usize = STAGE_WORDS> {
    words: Lines<WORDS>,
    ready: usize,
    _elements: core::marker::PhantomData<T>,
}

impl<T: NoUninit, const WORDS: usize> Stage<T, WORDS> {
    /// An empty stage (nothing written).
    pub(crate) fn new() -> Self {
        Stage {
            words: Lines([MaybeUninit::uninit(); WORDS]),
            ready: 0,
            _elements: core::marker::PhantomData,
        }
    }

    /// Elements of `T` the stage holds: 0 for zero-sized types and those
    /// aligned to more than 8 bytes.
    pub(crate) const fn capacity() -> usize {
        let size = core::mem::size_of::<T>();
        match size == 0 || core::mem::align_of::<T>() > 8 {
            true => 0,
            false => WORDS * 8 / size,
        }
    }

    /// The stage's first `n` elements, those never written before set to
    /// `fill`.
    ///
    /// # Panics
    /// If `n` is more than [`Stage::capacity`].
    pub(crate) fn elements(&mut self, n: usize, fill: T) -> &mut [T] {
        assert!(n <= Self::capacity(), "stage overflow");
        let base = self.words.0.as_mut_ptr().cast::<T>();
        // Counted in a local, so that the loop is a fill the compiler
        // vectorises (counting in `self.ready`, it stored the count after
        // every element: a deinterleave's stage of 8 KiB per band took
        // longer to fill than the band took to copy).
        let mut ready = self.ready;
        while ready < n {
            // SAFETY: `ready < n <= capacity`, so the element lies in
            // `words` (8-byte aligned, at least `T`'s alignment, as
            // `capacity` is 0 otherwise); writing a `T` there is a plain
            // write into memory the stage owns.
            unsafe { base.add(ready).write(fill) };
            ready += 1;
        }
        self.ready = ready;
        // SAFETY: the first `n` elements lie in `words`, aligned for `T`,
        // and each was written with a `T` (above, or by an earlier call);
        // the slice borrows the stage uniquely, as `self` is.
        unsafe { core::slice::from_raw_parts_mut(base, n) }
    }
}

/// Bytes of units a piece of a staged volume takes across the misaligned
/// buffer's contiguous count, at least: eight cache lines of each
/// block's rows (or runs) in the other buffer. With two, the `s8`
/// transpose into `T(8,128)(4,1)` took twice as long (in a scratch
/// harness; `bf16`'s read 20% faster).
const ACROSS_BYTES: usize = 512;

/// One volume of a staged unit transpose, of units of `K` elements, all
/// whole (the volume's runs are `K` long): block `o < outers` starts at
/// `start + o * outer` and copies its `steps × rows` units, unit `(r, i)`
/// from `src[s + r * K + i * row[0]]` to `dst[d + r * step[1] + i * K]`
/// (`strides` are the nest's `[outer, step, row, run]`, with `step[0] ==
/// K` and `row[1] == K`). The `misaligned` buffer's pieces go through
/// `stage`; with `streaming`, the destination, when written by the
/// transpose kernel, takes its streaming stores.
///
/// # Panics
/// If a unit lies outside its buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn staged_volume<T: NoUninit, const K: usize, const WORDS: usize>(
    src: &[T],
    dst: &mut [T],
    stage: &mut Stage<T, WORDS>,
    misaligned: Misaligned,
    [s, d]: [usize; 2],
    [outers, steps, rows, _]: [usize; 4],
    [outer, step, row, _]: [[usize; 2]; 4],
    streaming: bool,
) {
    if misaligned == Misaligned::Neither {
        let grid = TransposeGrid {
            start: [s / K, d / K],
            counts: [outers, 1],
            strides: [[outer[0] / K, outer[1] / K], [0, 0]],
            rows: steps,
            len: rows,
            run_stride: row[0] / K,
            row_stride: step[1] / K,
        };
        return transpose_grid(
            as_units::<T, K>(src),
            as_units_mut::<T, K>(dst),
            &grid,
            streaming,
        );
    }
    let Some(&fill) = src.get(s) else {
        // An empty volume reads nothing; any other is out of bounds.
        assert!(
            outers == 0 || steps == 0 || rows == 0,
            "volume out of bounds"
        );
        return;
    };
    let capacity = Stage::<T, WORDS>::capacity() / K;
    // A piece is `blocks` blocks of `part[0]` rows by `part[1]` runs, in
    // units. Along the misaligned buffer's contiguous count (rows in the
    // source, runs in the destination) it takes whole blocks, or as much
    // of one as leaves room across for [`ACROSS_BYTES`] (or all there
    // is): a merged tile row of `s8[37,28339]` into
    // `{0,1:T(8,128)(4,1)}` is 7084 units along by 37 across, and pieces
    // of 4096 by 1 went unit by unit (12 times `memcpy`'s time; 1.0 so).
    // Across, at least that much, and as many blocks side by side as then
    // fit: blocks that continue each other in the misaligned buffer are
    // one copy of each row, 512 bytes of each source row of
    // `bf16[721,727]` into `T(8,128)(2,1)`.
    let (along, across) = match misaligned {
        Misaligned::Source => (steps, rows),
        _ => (rows, steps),
    };
    let least = (ACROSS_BYTES / (K * core::mem::size_of::<T>()).max(1)).max(1);
    let along_part = along.min(capacity / across.clamp(1, least)).max(1);
    let room = capacity / along_part;
    let across_part = across
        .min((capacity / along_part.saturating_mul(outers).max(1)).max(least))
        .min(room)
        .max(1);
    let blocks = (room / across_part).max(1);
    let part = match misaligned {
        Misaligned::Source => [along_part, across_part],
        _ => [across_part, along_part],
    };
    assert!(capacity > 0, "stage too small for a unit");
    let mut o0 = 0;
    while o0 < outers {
        let nb = blocks.min(outers - o0);
        let mut r0 = 0;
        while r0 < steps {
            let nr = part[0].min(steps - r0);
            let mut i0 = 0;
            while i0 < rows {
                let ni = part[1].min(rows - i0);
                let at = [
                    s + o0 * outer[0] + r0 * K + i0 * row[0],
                    d + o0 * outer[1] + r0 * step[1] + i0 * K,
                ];
                let piece = Piece {
                    at,
                    counts: [nb, nr, ni],
                    strides: [outer, step, row],
                };
                let stage = stage.elements(nb * nr * ni * K, fill);
                match misaligned {
                    Misaligned::Source => {
                        piece.source_through_stage::<T, K>(src, dst, stage, streaming)
                    }
                    _ => piece.destination_through_stage::<T, K>(src, dst, stage),
                }
                i0 += ni;
            }
            r0 += nr;
        }
        o0 += nb;
    }
}

/// A piece of a staged volume: `counts[0]` blocks of `counts[1]` rows by
/// `counts[2]` runs, in units of `K` elements, starting at `at` (`[source,
/// destination]`) with the volume's `[outer, step, row]` strides.
struct Piece {
    at: [usize; 2],
    counts: [usize; 3],
    strides: [[usize; 2]; 3],
}

impl Piece {
    /// Source misaligned: each block's runs (`counts[1]` units, contiguous
    /// in the source) copied into the stage, run `i` of block `b` at unit
    /// `(i * blocks + b) * rows` (the blocks side by side, so that runs
    /// that continue each other in the source are one copy), then
    /// transposed as units from the stage into the destination.
    fn source_through_stage<T: NoUninit, const K: usize>(
        &self,
        src: &[T],
        dst: &mut [T],
        stage: &mut [T],
        streaming: bool,
    ) {
        let ([s, d], [blocks, rows, runs]) = (self.at, self.counts);
        let [outer, step, row] = self.strides;
        let lines = [runs, blocks, rows * K];
        for_each_span(lines, [row[0], outer[0]], s, |at, staged, n| {
            copy(&mut stage[staged..staged + n], &src[at..at + n]);
        });
        let grid = TransposeGrid {
            start: [0, d / K],
            counts: [blocks, 1],
            strides: [[rows, outer[1] / K], [0, 0]],
            rows,
            len: runs,
            run_stride: blocks * rows,
            row_stride: step[1] / K,
        };
        transpose_grid(
            as_units::<T, K>(stage),
            as_units_mut::<T, K>(dst),
            &grid,
            streaming,
        );
    }

    /// Destination misaligned: transposed as units from the source into
    /// the stage, row `r` of block `b` at unit `(r * blocks + b) * runs`
    /// (the blocks side by side, so that rows that continue each other in
    /// the destination are one copy), then each block's rows (`counts[2]`
    /// units, contiguous in the destination) copied out.
    fn destination_through_stage<T: NoUninit, const K: usize>(
        &self,
        src: &[T],
        dst: &mut [T],
        stage: &mut [T],
    ) {
        let ([s, d], [blocks, rows, runs]) = (self.at, self.counts);
        let [outer, step, row] = self.strides;
        let grid = TransposeGrid {
            start: [s / K, 0],
            counts: [blocks, 1],
            strides: [[outer[0] / K, runs], [0, 0]],
            rows,
            len: runs,
            run_stride: row[0] / K,
            row_stride: blocks * runs,
        };
        transpose_grid(
            as_units::<T, K>(src),
            as_units_mut::<T, K>(stage),
            &grid,
            false,
        );
        let lines = [rows, blocks, runs * K];
        for_each_span(lines, [step[1], outer[1]], d, |at, staged, n| {
            copy(&mut dst[at..at + n], &stage[staged..staged + n]);
        });
    }
}

/// The spans a piece copies between the stage and its misaligned buffer:
/// line `l < lines` (a run in the source, a row in the destination) of
/// block `b < blocks`, `len` elements, at `base + l * strides[0] + b *
/// strides[1]` in the buffer and `(l * blocks + b) * len` in the stage
/// (the blocks side by side), passed to `f` as `(buffer offset, stage
/// offset, length)`; one span per line when the blocks continue each
/// other in the buffer (`strides[1] == len`).
#[cfg_attr(not(debug_assertions), inline(always))]
fn for_each_span(
    [lines, blocks, len]: [usize; 3],
    [line_stride, block_stride]: [usize; 2],
    base: usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let continued = blocks > 1 && block_stride == len;
    for l in 0..lines {
        let (at, staged) = (base + l * line_stride, l * blocks * len);
        match continued {
            true => f(at, staged, blocks * len),
            false => {
                for b in 0..blocks {
                    f(at + b * block_stride, staged + b * len, len);
                }
            }
        }
    }
}

/// `dst` = `src`, slices of one length: up to 64 bytes inline, as two
/// pieces of a fixed size that overlap (16 and 16 for 20 bytes), longer
/// ones through `memcpy`. A piece's runs and rows are often a few dozen
/// bytes (16 for the pairs of four rows of `T(8,128)(2,1)`), and a call
/// to `memcpy` for each took 40% of a staged transpose's time. (A loop of
/// fixed-size moves would be no better: the compiler turns it into that
/// call.)
///
/// # Panics
/// If the lengths differ.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy<T: NoUninit>(dst: &mut [T], src: &[T]) {
    assert_eq!(
        dst.len(),
        src.len(),
        "copy between slices of different lengths"
    );
    let n = core::mem::size_of_val(src);
    if n > 64 {
        return dst.copy_from_slice(src);
    }
    let (from, to) = (src.as_ptr().cast::<u8>(), dst.as_mut_ptr().cast::<u8>());
    /// `N` bytes from `from + k` to `to + k`.
    ///
    /// # Safety
    /// Both spans lie in their slices.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn piece<const N: usize>(from: *const u8, to: *mut u8, k: usize) {
        // SAFETY: the caller's; unaligned reads and writes of bytes.
        unsafe {
            let bytes = from.add(k).cast::<[u8; N]>().read_unaligned();
            to.add(k).cast::<[u8; N]>().write_unaligned(bytes);
        }
    }
    // SAFETY: both slices are `n` bytes long, and each piece lies within
    // `0..n` (a piece of `N` bytes at `0` or `n - N`, with `N <= n`). `T:
    // NoUninit` has no uninitialised bytes to read, and the bytes written
    // into `dst` are those of `src`'s values, whole: every element of
    // `dst` ends up a copy of a valid `T` (bytes written twice are written
    // with the same value). The slices do not overlap (`&` and `&mut`).
    unsafe {
        match n {
            0 => {}
            1..4 => {
                piece::<1>(from, to, 0);
                piece::<1>(from, to, n / 2);
                piece::<1>(from, to, n - 1);
            }
            4..8 => {
                piece::<4>(from, to, 0);
                piece::<4>(from, to, n - 4);
            }
            8..16 => {
                piece::<8>(from, to, 0);
                piece::<8>(from, to, n - 8);
            }
            16..32 => {
                piece::<16>(from, to, 0);
                piece::<16>(from, to, n - 16);
            }
            _ => {
                piece::<32>(from, to, 0);
                piece::<32>(from, to, n - 32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Misaligned, Stage, copy, staged_volume};
    use alloc::vec;
    use alloc::vec::Vec;

    /// `copy` of every length up to 80 bytes, between slices at every
    /// offset of a 16-byte line: the copied elements equal, the ones
    /// around them untouched.
    #[test]
    fn copies_every_length() {
        let src: Vec<u16> = (0..64).collect();
        for len in 0..40 {
            for at in 0..8 {
                let mut dst = [u16::MAX; 64];
                copy(&mut dst[at..at + len], &src[3..3 + len]);
                for (k, &v) in dst.iter().enumerate() {
                    let expected = match (at..at + len).contains(&k) {
                        true => src[3 + k - at],
                        false => u16::MAX,
                    };
                    assert_eq!(v, expected, "len {len} at {at}");
                }
            }
        }
        let bytes: Vec<u8> = (0..64).collect();
        for len in 0..60 {
            let mut dst = [0xA5u8; 72];
            copy(&mut dst[5..5 + len], &bytes[1..1 + len]);
            assert_eq!(&dst[5..5 + len], &bytes[1..1 + len]);
            assert!(dst[..5].iter().chain(&dst[5 + len..]).all(|&b| b == 0xA5));
        }
    }

    /// Runs `staged_volume` on a volume of `K`-element units of `u16` and
    /// checks the destination against the definition: unit `(o, r, i)`
    /// from `src[s + o * outer[0] + r * K + i * row[0]]` to `dst[d + o *
    /// outer[1] + r * step[1] + i * K]`, every other slot unchanged.
    fn check<const K: usize, const WORDS: usize>(
        misaligned: Misaligned,
        [outers, steps, rows]: [usize; 3],
        [outer, step, row]: [[usize; 2]; 3],
        [s, d]: [usize; 2],
    ) {
        let unit = |o: usize, r: usize, i: usize| {
            [
                s + o * outer[0] + r * K + i * row[0],
                d + o * outer[1] + r * step[1] + i * K,
            ]
        };
        let [src_len, dst_len] = unit(outers - 1, steps - 1, rows - 1).map(|end| end + K);
        let src: Vec<u16> = (0..src_len as u16).collect();
        let mut dst = vec![u16::MAX; dst_len];
        let mut expected = dst.clone();
        for o in 0..outers {
            for r in 0..steps {
                for i in 0..rows {
                    let [a, b] = unit(o, r, i);
                    expected[b..b + K].copy_from_slice(&src[a..a + K]);
                }
            }
        }
        let mut stage = Stage::<u16, WORDS>::new();
        let strides = [outer, step, row, [1, 1]];
        let shape = [outers, steps, rows, K];
        staged_volume::<u16, K, WORDS>(
            &src,
            &mut dst,
            &mut stage,
            misaligned,
            [s, d],
            shape,
            strides,
            false,
        );
        assert_eq!(
            dst, expected,
            "{misaligned:?} {shape:?} {strides:?} stage {WORDS}"
        );
    }

    /// Each buffer misaligned (and neither), with blocks that continue
    /// each other there and blocks that do not, through stages that hold
    /// several blocks, part of one, and a single unit's worth of a run.
    #[test]
    fn staged_volumes_copy_like_the_definition() {
        fn each_stage<const K: usize>(
            misaligned: Misaligned,
            counts: [usize; 3],
            strides: [[usize; 2]; 3],
            start: [usize; 2],
        ) {
            check::<K, 1>(misaligned, counts, strides, start);
            check::<K, 4>(misaligned, counts, strides, start);
            check::<K, 64>(misaligned, counts, strides, start);
            check::<K, { super::STAGE_WORDS }>(misaligned, counts, strides, start);
        }
        let [outers, steps, rows] = [3, 3, 5];
        // Pairs: source rows 13 and 19 elements apart, the destination's
        // blocks apart or side by side.
        let dst = [[steps * rows * 2, rows * 2], [rows * 2 * outers, rows * 2]];
        for (src_outer, run) in [(rows * 13, 13), (steps * 2, outers * steps * 2 + 1)] {
            for [dst_outer, dst_step] in dst {
                let strides = [[src_outer, dst_outer], [2, dst_step], [run, 2]];
                each_stage::<2>(Misaligned::Source, [outers, steps, rows], strides, [1, 4]);
            }
        }
        // Quads: destination rows an odd number of elements apart (21, the
        // blocks apart, or 61, the blocks side by side).
        for (dst_outer, dst_step) in [(steps * 21, 21), (rows * 4, outers * rows * 4 + 1)] {
            let strides = [[rows * steps * 4, dst_outer], [4, dst_step], [steps * 4, 4]];
            each_stage::<4>(
                Misaligned::Destination,
                [outers, steps, rows],
                strides,
                [8, 3],
            );
        }
        // Both aligned.
        let strides = [
            [rows * steps * 4, rows * 4 * steps],
            [4, rows * 4],
            [steps * 4, 4],
        ];
        each_stage::<4>(Misaligned::Neither, [outers, steps, rows], strides, [4, 8]);
    }
}
