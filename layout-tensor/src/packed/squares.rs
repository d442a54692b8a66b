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
//! a tile touches stay in the L1 cache. With SSE2 (x86-64), whole blocks
//! of 16 source rows of 16 bytes go in vectors ([`vectors::tile`]): each
//! group of `k` rows has its fields transposed in its vectors, a 16 × 16
//! byte transpose gives each destination row its bytes in one vector, and
//! a tile's destination rows are staged and written out a row at a time.
//! The other whole squares go one at a time ([`square`]); slots outside
//! whole squares (a partial tile's odd extents), and blocks that do not
//! start on a byte, slot by slot. The module has no `unsafe` code: its
//! loads and stores are slices checked once per block, and its two vector
//! steps are [`Mix::vectors`] and [`transpose_bytes`](crate::relayout::simd::transpose_bytes).

use layout_core::walk::LoopNest;

use crate::relayout::mix::{Fields, Mix};

/// Slots of a tile along each of the two levels: 128 source rows and 128
/// destination rows of at most 64 bytes each, 16 KiB in all.
const TILE: usize = 128;

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
    let [[_, dst_row], [src_row, _]] = nest.block_strides();
    nest.for_each_block(|[s, d], rows, len| {
        let one = |out: &mut [u8], r: usize, i: usize| {
            copy_one(out, s + r + i * src_row, d + r * dst_row + i)
        };
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
        for i_tile in (0..whole_len).step_by(TILE) {
            for r_tile in (0..whole_rows).step_by(TILE) {
                let (i_end, r_end) = (whole_len.min(i_tile + TILE), whole_rows.min(r_tile + TILE));
                let r_vectors = r_end.min(vector_rows).max(r_tile);
                #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
                vectors::tile::<K, N>(
                    src,
                    out,
                    bytes,
                    [i_tile, i_end.min(vector_len)],
                    [r_tile, r_vectors],
                );
                for i in (i_tile..i_end).step_by(K) {
                    let from = match i < vector_len {
                        true => r_vectors,
                        false => r_tile,
                    };
                    for r in (from..r_end).step_by(K) {
                        square::<K, N>(src, out, bytes, [i, r]);
                    }
                }
            }
        }
        // The slots outside whole squares: the last `rows % K` of every
        // `i`, and the last `len % K` of the rest.
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
    });
}

/// Whether the target has the vector kernel ([`vectors::tile`]): SSE2 on
/// x86-64.
const VECTORS: bool = cfg!(all(target_arch = "x86_64", target_feature = "sse2"));

/// One `K × K` square: the `K` source bytes of rows `i..i + K` holding
/// slots `r..r + K` of the source's contiguous level, their fields
/// transposed, into the `K` destination bytes of rows `r..r + K` holding
/// slots `i..i + K` of the destination's. `[[s, d], [src_row, dst_row]]`
/// are the block's start and the two rows' strides, in bytes; `i` and
/// `r` are in slots, multiples of `K`.
#[inline(always)]
fn square<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    ([s, d], [src_row, dst_row]): ([usize; 2], [usize; 2]),
    [i, r]: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    let from = s + i * src_row + r / K;
    let square: [u8; K] = core::array::from_fn(|j| src[from + j * src_row]);
    let to = d + r * dst_row + i / K;
    for (j, byte) in Fields::<N>::elements(square).into_iter().enumerate() {
        out[to + j * dst_row] = byte;
    }
}

/// The vector kernel: 16 source rows of 16 bytes at a time.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod vectors {
    use core::arch::x86_64::__m128i;

    use crate::relayout::mix::{Fields, Mix};
    use crate::relayout::simd::transpose_bytes;

    /// Slots of the destination rows that a stage holds ([`tile`]).
    const STAGE: usize = super::TILE;

    /// The squares of a tile that whole vector blocks cover: slots
    /// `is[0]..is[1]` (multiples of 16) along the destination's rows and
    /// `rs[0]..rs[1]` (multiples of `16 * K`) along the source's, `is`
    /// at most [`STAGE`] long. Each block's `16 * K` destination rows are
    /// staged, `STAGE / K` bytes each, and then written out a row at a
    /// time: written straight, a block's rows are a row stride apart,
    /// often a multiple of 4 KiB and so in one cache set, and a row's
    /// line was written in pieces, evicted between them (13.5–14× memcpy's
    /// time for an `s4` transpose of 16 MiB against 5.9 at 1 MiB).
    #[inline(always)]
    pub(super) fn tile<const K: usize, const N: u32>(
        src: &[u8],
        out: &mut [u8],
        ([s, d], [src_row, dst_row]): ([usize; 2], [usize; 2]),
        is: [usize; 2],
        rs: [usize; 2],
    ) where
        Fields<N>: Mix<u8>,
    {
        let width = is[1].saturating_sub(is[0]) / K;
        if width == 0 {
            return;
        }
        let mut stage = [0u8; 16 * STAGE];
        for r in (rs[0]..rs[1]).step_by(16 * K) {
            for i in (is[0]..is[1]).step_by(16) {
                let from = s + i * src_row + r / K;
                block::<K, N>(
                    src,
                    [from, src_row],
                    &mut stage,
                    [(i - is[0]) / K, STAGE / K],
                );
            }
            let to = d + r * dst_row + is[0] / K;
            for (row, staged) in stage.chunks_exact(STAGE / K).enumerate() {
                let at = to + row * dst_row;
                // A whole stage row is a copy of constant length, inlined.
                match width == STAGE / K {
                    true => out[at..at + STAGE / K].copy_from_slice(staged),
                    false => out[at..at + width].copy_from_slice(&staged[..width]),
                }
            }
        }
    }

    /// 16 source rows of 16 bytes, row `t` from byte `from + t *
    /// src_row` (`16 * K` slots, 16 squares per `K` rows), into `16 * K`
    /// destination rows of `16 / K` bytes, row `e` at byte `to + e *
    /// dst_row`. Each group of `K` rows has its squares' fields
    /// transposed in its vectors ([`Mix::vectors`]), which leaves byte
    /// `q` of vector `e` of group `g` the destination byte of row `K * q
    /// + e` at byte `g`; a 16 × 16 transpose of the bytes
    /// ([`transpose_bytes`]), the vectors taken `e` by `e`, gives each
    /// destination row its `16 / K` bytes in one vector.
    #[inline(always)]
    fn block<const K: usize, const N: u32>(
        src: &[u8],
        [from, src_row]: [usize; 2],
        out: &mut [u8],
        [to, dst_row]: [usize; 2],
    ) where
        Fields<N>: Mix<u8>,
    {
        // The block's spans in each buffer, checked once.
        let groups = 16 / K;
        let src = &src[from..from + 15 * src_row + 16];
        let rows: [__m128i; 16] =
            core::array::from_fn(|t| bytemuck::pod_read_unaligned(&src[t * src_row..][..16]));
        let mut by_place = rows;
        for g in 0..groups {
            let mixed =
                <Fields<N> as Mix<u8>>::vectors::<K>(core::array::from_fn(|e| rows[g * K + e]));
            for (e, v) in mixed.into_iter().enumerate() {
                by_place[e * groups + g] = v;
            }
        }
        let out = &mut out[to..to + (16 * K - 1) * dst_row + groups];
        for (q, v) in transpose_bytes(by_place).into_iter().enumerate() {
            let bytes: [u8; 16] = bytemuck::cast(v);
            for (e, piece) in bytes.chunks_exact(groups).enumerate() {
                let at = (K * q + e) * dst_row;
                out[at..at + groups].copy_from_slice(piece);
            }
        }
    }
}
