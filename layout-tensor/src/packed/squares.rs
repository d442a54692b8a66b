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
//! A plane of blocks that continue each other's rows in the source (the
//! 8-row tiles of `{0,1:T(8,128)E(4)}`, side by side once the planner has
//! moved their level next to the block) goes as one block of all their
//! rows, and one whose blocks continue each other's runs in the
//! destination (the reverse) as one block of all their runs; [`BlockRows`]
//! says where such a block's rows are, in groups. Alone, each block was
//! too few rows for the vector blocks (47–56 times `memcpy`'s time).
//! Source rows that start mid-byte (an odd row length of `s4`) are
//! realigned as they are read ([`realign`]: a tile's band at a time into
//! a stage for the vector blocks, a byte at a time for single squares);
//! destination rows that do are written out of the vector blocks' stage
//! shifted, their first and last bytes merged. The other whole squares
//! go one at a time ([`square`]); slots outside whole squares (a partial
//! tile's odd extents), and, on targets without the vector blocks,
//! blocks whose destination rows do not start on a byte, slot by slot.
//! The module has no `unsafe` code of its own: the vector blocks are a
//! safe function over slices.

use layout_core::walk::LoopNest;

use super::bits::straddled_bytes;

use crate::relayout::mix::{Fields, Mix};
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use crate::relayout::simd::squares::Stage;

/// Where the vector tiles stage a tile's rows: nothing on targets without
/// them.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
struct Stage;

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
impl Stage {
    /// The empty stage.
    fn new() -> Stage {
        Stage
    }
}

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
    let whole = |n: usize| n.is_multiple_of(K);
    // One stage for the whole copy (16 KiB on x86-64, zeroed once).
    let mut stage = Stage::new();
    let stage = &mut stage;
    nest.for_each_plane(|[s, d], [steps, rows, len]| {
        let (src_rows, dst_rows) = (BlockRows::plain(s, src_row), BlockRows::plain(d, dst_row));
        // Blocks whose rows continue each other in the source (tiles of a
        // few destination rows, the `x / 8` level of `{0,1:T(8,128)E(4)}`
        // arranged by `packed_squares`) go as one block of all their
        // rows, each group of `rows` a step on in the destination; blocks
        // whose runs continue each other in the destination (the tiles of
        // a few source rows of the reverse), as one block of all their
        // runs.
        let merged = if steps > 1 && step[0] == rows && whole(rows) && whole(step[1]) {
            let dst_rows = BlockRows {
                per: rows,
                block: step[1],
                ..dst_rows
            };
            Some(([src_rows, dst_rows], [steps * rows, len]))
        } else if steps > 1 && step[1] == len && whole(len) && whole(step[0]) {
            let src_rows = BlockRows {
                per: len,
                block: step[0],
                ..src_rows
            };
            Some(([src_rows, dst_rows], [rows, steps * len]))
        } else {
            None
        };
        if let Some((rows_at, extents)) = merged {
            block::<K, N>(src, out, stage, copy_one, rows_at, extents);
        } else {
            for k in 0..steps {
                let rows_at = [
                    BlockRows::plain(s + k * step[0], src_row),
                    BlockRows::plain(d + k * step[1], dst_row),
                ];
                block::<K, N>(src, out, stage, copy_one, rows_at, [rows, len]);
            }
        }
    });
}

/// Where the rows of a packed transpose's block lie in one buffer: `per`
/// rows `row` apart from `start`, then the next `per` a `block` on from
/// the first of them (tiles of a few rows side by side); all `row` apart
/// where `per` is `usize::MAX`. In slots, or in bytes ([`BlockRows::in_bytes`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlockRows {
    pub(crate) start: usize,
    pub(crate) row: usize,
    pub(crate) per: usize,
    pub(crate) block: usize,
}

impl BlockRows {
    /// Rows all `row` apart from `start`.
    fn plain(start: usize, row: usize) -> BlockRows {
        BlockRows {
            start,
            row,
            per: usize::MAX,
            block: 0,
        }
    }

    /// Where row `n` starts.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn at(self, n: usize) -> usize {
        self.start + (n / self.per) * self.block + (n % self.per) * self.row
    }

    /// Where rows `first..first + out.len()` start, stepped row by row.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn fill(self, out: &mut [usize], first: usize) {
        let (mut group, mut e) = (first / self.per, first % self.per);
        let mut at = self.start + group * self.block + e * self.row;
        for o in out {
            *o = at;
            (e, at) = (e + 1, at + self.row);
            if e == self.per {
                (group, e) = (group + 1, 0);
                at = self.start + group * self.block;
            }
        }
    }

    /// Whether every row starts on a byte, `k` slots to a byte (`start`,
    /// `row` and `block` multiples of `k`).
    pub(crate) fn on_bytes(self, k: usize) -> bool {
        [self.start, self.row, self.block]
            .iter()
            .all(|&n| n.is_multiple_of(k))
    }

    /// The rows in bytes, `k` slots to a byte (`start`, `row` and `block`
    /// multiples of `k`: [`BlockRows::on_bytes`]).
    pub(crate) fn in_bytes(self, k: usize) -> BlockRows {
        BlockRows {
            start: self.start / k,
            row: self.row / k,
            block: self.block / k,
            ..self
        }
    }
}

/// `out.len()` bytes of slots of `src` (`K` slots to a byte, the first
/// in the most significant bits) from slot `from` on, shifted to start a
/// byte: each byte out is the two source bytes it straddles.
///
/// # Panics
/// If the slots reach past `src`.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn realign<const K: usize>(src: &[u8], from: usize, out: &mut [u8]) {
    let (byte, shift) = (from / K, (from % K * (8 / K)) as u32);
    if shift == 0 {
        out.copy_from_slice(&src[byte..byte + out.len()]);
        return;
    }
    // Each byte's own slots and the next one's, as slices of one length
    // (no checks in the loop, which the compiler vectorises).
    let n = out.len();
    let (this, next) = (&src[byte..byte + n], &src[byte + 1..byte + n + 1]);
    straddled_bytes(out, this, next, shift);
}

/// One block of [`copy_squares`]: `rows × len` slots, the source's rows
/// (along `i`) and the destination's (along `r`) where `[src_rows,
/// dst_rows]` say.
#[cfg_attr(not(debug_assertions), inline(always))]
fn block<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut Stage,
    copy_one: &impl Fn(&mut [u8], usize, usize),
    [src_rows, dst_rows]: [BlockRows; 2],
    [rows, len]: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let _ = stage;
    let one =
        |out: &mut [u8], r: usize, i: usize| copy_one(out, src_rows.at(i) + r, dst_rows.at(r) + i);
    // Destination rows that start mid-byte go through the vector tiles
    // only (written out shifted); without them, slot by slot.
    let dst_on_bytes = dst_rows.on_bytes(K);
    if !dst_on_bytes && !VECTORS {
        for i in 0..len {
            for r in 0..rows {
                one(out, r, i);
            }
        }
        return;
    }
    let (whole_rows, whole_len) = (rows / K * K, len / K * K);
    // The part that the vector tiles cover: all whole squares (each row
    // where its `BlockRows` says; edge tiles through their stage).
    let (vector_rows, vector_len) = match VECTORS {
        true => (whole_rows, whole_len),
        false => (0, 0),
    };
    // The single squares' rows: the destination's in bytes (read only
    // where they start on bytes).
    let bytes = match dst_on_bytes {
        true => [src_rows, dst_rows.in_bytes(K)],
        false => [src_rows, dst_rows],
    };
    for i_tile in (0..whole_len).step_by(TILE) {
        for r_tile in (0..whole_rows).step_by(TILE) {
            let (i_end, r_end) = (whole_len.min(i_tile + TILE), whole_rows.min(r_tile + TILE));
            let r_vectors = r_end.min(vector_rows).max(r_tile);
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            {
                let place = crate::relayout::simd::squares::TilePlace {
                    rows: [src_rows, dst_rows],
                    is: [i_tile, i_end.min(vector_len)],
                    rs: [r_tile, r_vectors],
                };
                crate::relayout::simd::squares::tile::<K, N>(src, out, stage, place);
            }
            // The squares the vector blocks leave: past their rows along
            // `r` where they cover `i`, and all of the rest.
            let i_vectors = i_end.min(vector_len).max(i_tile);
            for (is, from) in [(i_tile..i_vectors, r_vectors), (i_vectors..i_end, r_tile)] {
                if from < r_end {
                    for i in is.step_by(K) {
                        for r in (from..r_end).step_by(K) {
                            square::<K, N>(src, out, bytes, [i, r]);
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
/// transposed, into the `K` destination bytes of rows `r..r + K` holding
/// slots `i..i + K` of the destination's. `[src_rows, dst_rows]` are the
/// block's rows, the source's in slots (its bytes realigned where a row
/// starts mid-byte) and the destination's in bytes; `i` and `r` are in
/// slots, multiples of `K`, so that a square's `K` destination rows are
/// in one group (`per` a multiple of `K`).
#[cfg_attr(not(debug_assertions), inline(always))]
fn square<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    [src_rows, dst_rows]: [BlockRows; 2],
    [i, r]: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    let square: [u8; K] = core::array::from_fn(|j| {
        let mut byte = [0];
        realign::<K>(src, src_rows.at(i + j) + r, &mut byte);
        byte[0]
    });
    let to = dst_rows.at(r) + i / K;
    for (j, byte) in Fields::<N>::elements(square).into_iter().enumerate() {
        out[to + j * dst_rows.row] = byte;
    }
}
