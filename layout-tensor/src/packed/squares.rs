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
//!
//! Where every destination row lies alike against the cache lines (rows
//! a multiple of 64 bytes apart) and takes more than one tile, the
//! first tile along the rows is cut short so that each later tile's
//! piece of a row, 64 bytes of `s4`, is one whole line on a line
//! ([`lead_to_pieces`]); past the streaming threshold those pieces take
//! streaming stores. Tiles from 0 wrote each piece across two lines of a
//! row 16 bytes past one (a large `Vec`'s), each line in two parts a
//! tile apart. In a scratch harness on the machine of `BENCHMARKS.md`
//! (run-time layouts, medians in turns with the parent's build, times
//! over `memcpy`'s), `s4[2048,1024]` → `{0,1:E(4)}` took 2.4 against
//! 3.7–4.1, `s4[32768,1024]` 1.6 against 6.0–6.6 and `s4[524288,1024]`
//! 2.9–3.1 against 11–13 (the streaming stores 1.6–2.0 times faster than
//! the aligned tiles alone at 16 and 256 MiB); shapes the bench does not
//! name as much: `s4[2560,1200]` 2.3–3.2 against 4.1–4.3,
//! `s4[6144,3000]` 2.4–2.8 against 3.9–4.4, `s4[20480,1700]` 2.5–3.0
//! against 6.4. Rows that lie unalike (`s4[3000,2800]`, rows of 1,500
//! bytes) keep the tiles from 0 and read as before (3.9–5.3). Tried and
//! not kept: two or four tiles along the rows in turn for each band of
//! destination rows (pieces of 128 or 256 bytes of each row written
//! together), 1.0–1.15 times the time of one at 16 and 256 MiB.
//!
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
use crate::relayout::stream::{STREAM_FROM_BYTES, fence};

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
    // Destinations past the streaming threshold take streaming stores for
    // the vector tiles' pieces that are whole lines on a line (`s4`'s,
    // [`lead_to_pieces`]), fenced once at the end.
    let stream = out.len() >= STREAM_FROM_BYTES;
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
            block::<K, N>(src, out, stage, copy_one, rows_at, extents, stream);
        } else {
            for k in 0..steps {
                let rows_at = [
                    BlockRows::plain(s + k * step[0], src_row),
                    BlockRows::plain(d + k * step[1], dst_row),
                ];
                block::<K, N>(src, out, stage, copy_one, rows_at, [rows, len], stream);
            }
        }
    });
    if stream {
        fence();
    }
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
    stream: bool,
) where
    Fields<N>: Mix<u8>,
{
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let _ = (stage, stream);
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
    // Only where a row takes more than one tile: a row of one tile (the
    // 128 slots of a `T(8,128)E(4)` tile row) is written whole by it, and
    // cut in two it took two calls for one (the `s4` transpose into
    // `{0,1:T(8,128)E(4)}` read 3.6–4.2 times `memcpy`'s time against
    // 3.3–3.4 at 1 MiB in criterion, 3.1–3.7 against 2.7–3.3 in the
    // scratch harness; with this rule, 2.6–3.1).
    let lead = match dst_on_bytes && whole_len > TILE {
        true => lead_to_pieces::<K>(out, dst_rows),
        false => 0,
    };
    let mut i_tile = 0;
    while i_tile < whole_len {
        let i_end = whole_len.min(match (i_tile, lead) {
            (0, 1..) => lead,
            _ => i_tile + TILE,
        });
        for r_tile in (0..whole_rows).step_by(TILE) {
            let r_end = whole_rows.min(r_tile + TILE);
            let r_vectors = r_end.min(vector_rows).max(r_tile);
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            {
                let place = crate::relayout::simd::squares::TilePlace {
                    rows: [src_rows, dst_rows],
                    is: [i_tile, i_end.min(vector_len)],
                    rs: [r_tile, r_vectors],
                    stream,
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
        i_tile = i_end;
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

/// Slots of the first tile along the destination's rows (`i`) that
/// take its pieces, [`TILE`] slots of each row, to start on a boundary
/// of `min(64, TILE / K)` bytes (a cache line for `s4`) in every row;
/// 0 when they start on one already, or when the rows do not all lie
/// alike against it (`dst_rows` in slots, on bytes). Tiles from 0 would
/// write each row's piece across two lines whenever a row is not on
/// one, as a large `Vec`'s rows start 16 bytes past one: each line in
/// two parts, a tile apart, and with rows a multiple of 4 KiB apart
/// (the `TILE` rows of a tile in one cache set) evicted between them.
fn lead_to_pieces<const K: usize>(out: &[u8], dst_rows: BlockRows) -> usize {
    let unit = (TILE / K).min(64);
    let BlockRows {
        start,
        row,
        per,
        block,
    } = dst_rows.in_bytes(K);
    let alike = row.is_multiple_of(unit) && (per == usize::MAX || block.is_multiple_of(unit));
    let first = out.as_ptr().addr().wrapping_add(start);
    match alike {
        true => (unit - first % unit) % unit * K,
        false => 0,
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

#[cfg(test)]
mod tests {
    use super::{BlockRows, TILE, lead_to_pieces};

    /// Rows that lie alike against the pieces' boundaries (`min(64, TILE
    /// / K)` bytes) start their second tile on one, at every offset of
    /// the buffer and of the first row; rows that do not, at 0.
    #[test]
    fn leads_put_pieces_on_lines() {
        fn check<const K: usize>() {
            let unit = (TILE / K).min(64);
            let buffer = [0u8; 4096];
            let base = buffer.as_ptr().align_offset(64);
            for offset in 0..64 {
                let out = &buffer[base + offset..];
                for start in [0, K, 5 * K, 64 * K] {
                    for rows in [
                        BlockRows::plain(start, 2 * unit * K),
                        BlockRows {
                            per: 8,
                            block: 3 * unit * K,
                            ..BlockRows::plain(start, unit * K)
                        },
                    ] {
                        let lead = lead_to_pieces::<K>(out, rows);
                        assert!(
                            lead.is_multiple_of(K) && lead < TILE,
                            "{K} {offset} {start}: {lead}"
                        );
                        for r in [0, 1, 7, 8, 9, 20] {
                            let byte = (rows.at(r) + lead) / K;
                            let at = out[byte..].as_ptr().addr();
                            assert!(at.is_multiple_of(unit), "{K} {offset} {start} row {r}");
                        }
                    }
                    let unalike = BlockRows::plain(start, unit * K + K);
                    assert_eq!(lead_to_pieces::<K>(out, unalike), 0);
                }
            }
        }
        check::<2>();
        check::<4>();
        check::<8>();
    }
}
