//! Packed transposes by squares of fields: `s4` `{1,0:E(4)}` →
//! `{0,1:E(4)}`, whose bytes hold two consecutive `x` in the source and two
//! consecutive `y` in the destination.
//!
//! Under `E(n)` a byte holds `k = 8 / n` slots. In a transpose the source
//! is contiguous along one level of the nest and the destination along
//! another; when each buffer's rows start on a byte, `k` source bytes, one
//! of each of `k` consecutive rows at the same place, hold a `k × k`
//! square of elements, and so do `k` destination bytes: the square's
//! fields transposed ([`Fields`], as the row interleaves do). The planner
//! sees the structure in the nest
//! ([`packed_squares`](crate::relayout::packed_squares)).
//!
//! The squares go in tiles of [`TILE`] × [`TILE`] slots, so that the rows
//! a tile touches stay in the L1 cache. On x86-64, whole blocks of 16
//! source rows of 16 bytes (32 rows with AVX2) go in vectors
//! ([`simd::squares`](crate::relayout::simd::squares)): each group of `k`
//! rows has its fields transposed in its vectors, a 16 × 16 byte
//! transpose gives each destination row its bytes in one vector, and a
//! tile's destination rows are staged and written out a row at a time.
//! The other whole squares go one at a time ([`square`]); slots outside
//! whole squares (a partial tile's odd extents), and blocks that do not
//! start on a byte, slot by slot. The module has no `unsafe` code of its
//! own: the vector blocks are a safe function over slices.

use layout_core::walk::LoopNest;

use crate::relayout::mix::{Fields, Mix};

/// Slots of a tile along each of the two levels: 128 source rows and 128
/// destination rows of at most 64 bytes each, 16 KiB in all (the vector
/// blocks' tile).
const TILE: usize = 128;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const _: () = assert!(TILE == crate::relayout::simd::squares::TILE);

/// Copies along `nest` (in slots, `k` per byte; arranged by
/// [`packed_squares`](crate::relayout::packed_squares), its innermost
/// level contiguous in the destination and the next in the source) by
/// squares of fields; `copy_one(out, s, d)` copies one slot.
pub(super) fn copy(
    nest: &LoopNest,
    k: usize,
    src: &[u8],
    out: &mut [u8],
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    match k {
        2 => copy_squares::<2, 4>(nest, src, out, copy_one),
        4 => copy_squares::<4, 2>(nest, src, out, copy_one),
        _ => copy_squares::<8, 1>(nest, src, out, copy_one),
    }
}

/// [`copy`] for `K` slots of `N` bits per byte.
fn copy_squares<const K: usize, const N: u32>(
    nest: &LoopNest,
    src: &[u8],
    out: &mut [u8],
    copy_one: &impl Fn(&mut [u8], usize, usize),
) where
    Fields<N>: Mix<u8>,
{
    // Element `(r, i)` of a block: `r` along the source's contiguous
    // level, `i` along the destination's.
    let [step, [_, dst_row], [src_row, _]] = nest.plane_strides();
    nest.for_each_plane(|[s, d], [steps, rows, len]| {
        // Blocks whose rows continue each other in the source (tiles of
        // a few destination rows, the `x / 8` level of `{0,1:T(8,128)E(4)}`
        // arranged by `packed_squares`) go as one block of all their rows,
        // each group of `rows` a step on in the destination.
        if steps > 1 && step[0] == rows && rows.is_multiple_of(K) && step[1].is_multiple_of(K) {
            let rows_at = DstRows {
                per: rows,
                block: step[1],
                row: dst_row,
            };
            block::<K, N>(
                src,
                out,
                copy_one,
                [s, d],
                [steps * rows, len],
                src_row,
                rows_at,
            );
            return;
        }
        let rows_at = DstRows {
            per: usize::MAX,
            block: 0,
            row: dst_row,
        };
        for k in 0..steps {
            let at = [s + k * step[0], d + k * step[1]];
            block::<K, N>(src, out, copy_one, at, [rows, len], src_row, rows_at);
        }
    });
}

/// Where a block's destination rows are, in slots: `per` rows `row`
/// apart, then the next `per` a `block` on from the first of them.
#[derive(Clone, Copy)]
struct DstRows {
    per: usize,
    block: usize,
    row: usize,
}

impl DstRows {
    /// Destination row `r`'s offset from the block's start.
    #[inline(always)]
    fn at(self, r: usize) -> usize {
        (r / self.per) * self.block + (r % self.per) * self.row
    }
}

/// One block of [`copy_squares`]: `rows × len` slots from `[s, d]`, the
/// source's rows `src_row` apart along `i`, the destination's at
/// `rows_at` along `r`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn block<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    copy_one: &impl Fn(&mut [u8], usize, usize),
    [s, d]: [usize; 2],
    [rows, len]: [usize; 2],
    src_row: usize,
    rows_at: DstRows,
) where
    Fields<N>: Mix<u8>,
{
    let one = |out: &mut [u8], r: usize, i: usize| {
        copy_one(out, s + r + i * src_row, d + rows_at.at(r) + i)
    };
    let dst_row = rows_at.row;
    if !s.is_multiple_of(K) || !d.is_multiple_of(K) {
        for i in 0..len {
            for r in 0..rows {
                one(out, r, i);
            }
        }
        return;
    }
    let (whole_rows, whole_len) = (rows / K * K, len / K * K);
    // The part that blocks of 16 source rows of 16 bytes cover.
    let (vector_rows, vector_len) = match VECTORS {
        true => (rows / (16 * K) * (16 * K), len / 16 * 16),
        false => (0, 0),
    };
    let bytes = ([s / K, d / K], [src_row / K, dst_row / K]);
    let blocks = match rows_at.per {
        usize::MAX => [usize::MAX, 0],
        per => [per, rows_at.block / K],
    };
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let mut stage = crate::relayout::simd::squares::Stage::new();
    for i_tile in (0..whole_len).step_by(TILE) {
        for r_tile in (0..whole_rows).step_by(TILE) {
            let (i_end, r_end) = (whole_len.min(i_tile + TILE), whole_rows.min(r_tile + TILE));
            let r_vectors = r_end.min(vector_rows).max(r_tile);
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            crate::relayout::simd::squares::tile::<K, N>(
                src,
                out,
                &mut stage,
                bytes,
                blocks,
                [i_tile, i_end.min(vector_len)],
                [r_tile, r_vectors],
            );
            // The squares the vector blocks leave: past their rows along
            // `r` where they cover `i`, and all of the rest.
            let i_vectors = i_end.min(vector_len).max(i_tile);
            for (is, from) in [(i_tile..i_vectors, r_vectors), (i_vectors..i_end, r_tile)] {
                if from < r_end {
                    for i in is.step_by(K) {
                        for r in (from..r_end).step_by(K) {
                            let to = (d + rows_at.at(r) + i) / K;
                            square::<K, N>(src, out, bytes, to, [i, r]);
                        }
                    }
                }
            }
        }
    }
    // The slots outside whole squares: the last `rows % K` of every `i`,
    // and the last `len % K` of the rest.
    for i in 0..len {
        for r in whole_rows..rows {
            one(out, r, i);
        }
    }
    for i in whole_len..len {
        for r in 0..whole_rows {
            one(out, r, i);
        }
    }
}

/// Whether the target has the vector kernel
/// ([`simd::squares::tile`](crate::relayout::simd::squares::tile)): SSE2
/// on x86-64.
const VECTORS: bool = cfg!(all(target_arch = "x86_64", target_feature = "sse2"));

/// One `K × K` square: the `K` source bytes of rows `i..i + K` holding
/// slots `r..r + K` of the source's contiguous level, their fields
/// transposed, into the `K` destination bytes of rows `r..r + K` (`to`,
/// the first's, and then `dst_row` apart) holding slots `i..i + K` of the
/// destination's. `[[s, _], [src_row, dst_row]]` are the block's start
/// and the two rows' strides, in bytes; `i` and `r` are in slots,
/// multiples of `K`.
#[inline(always)]
fn square<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    ([s, _], [src_row, dst_row]): ([usize; 2], [usize; 2]),
    to: usize,
    [i, r]: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    let from = s + i * src_row + r / K;
    let square: [u8; K] = core::array::from_fn(|j| src[from + j * src_row]);
    for (j, byte) in Fields::<N>::elements(square).into_iter().enumerate() {
        out[to + j * dst_row] = byte;
    }
}
