//! Packed relayouts that interleave rows of sub-byte fields: the pack
//! into `(2,1)` sub-tiles of `E(4)` (`(4,1)` of `E(2)`, `(8,1)` of
//! `E(1)`) and its unpack, a byte at a time.
//!
//! Under `E(n)` a byte holds `k = 8 / n` slots. When a layout's sub-tile
//! gathers `k` rows (`T(8,128)(2,1)E(4)`), each of its bytes holds one
//! `x` of `k` rows, where a row-major byte holds `k` consecutive `x` of
//! one row: `k` bytes of `k` source rows become `k` destination bytes by
//! a square transpose of their `n`-bit fields ([`Fields`]), and the
//! unpack is the same transpose back. For 2 and 4 rows that is the byte
//! row interleave kernel with the transpose in its vectors
//! ([`simd::interleave_fields_grid`]); 8 rows of bits go block by block.
//! The planner sees the structure in the nest
//! ([`packed_fields`](crate::relayout::packed_fields)). Blocks whose
//! rows in the row-major layout start mid-byte (rows of an odd number of
//! `s4`) go through a stage on the stack with the same kernels, the
//! source's rows realigned into it ([`pack_realigned`]), the
//! destination's shifted out of it ([`unpack_shifted`]); the slots of a
//! partial sub-tile, and the last `x % k` of such rows, go slot by slot.

use layout_core::walk::{LoopNest, for_each_step};

use super::relayout::copy_shifted_run;
use super::squares::realign;
use crate::relayout::RelayoutKernel;
use crate::relayout::mix::{Fields, Mix};
use crate::relayout::simd::{self, BlockGrid};
use crate::relayout::stream::{STREAM_FROM_BYTES, StreamWriter};

/// Packs one block of `K` source rows of `bytes` bytes each, row `r` from
/// byte `row_starts[r]`, into `K * bytes` consecutive destination bytes
/// from `dst_start` (each one `x` of the `K` rows): the block loop of 8
/// rows of bits, which the vector kernels (2 and 4 rows) do not take.
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack_block<const K: usize, const N: u32>(
    src: &[u8],
    row_starts: [usize; K],
    bytes: usize,
    out: &mut [u8],
    dst_start: usize,
) where
    Fields<N>: Mix<u8>,
{
    let rows: [&[u8]; K] = core::array::from_fn(|r| &src[row_starts[r]..][..bytes]);
    let (groups, _) = out[dst_start..][..K * bytes].as_chunks_mut::<K>();
    for (j, group) in groups.iter_mut().enumerate() {
        *group = Fields::<N>::elements(core::array::from_fn(|r| rows[r][j]));
    }
}

/// Unpacks one block: `K * bytes` consecutive source bytes from
/// `src_start` into `K` destination rows of `bytes` bytes each, row `r`
/// from byte `row_starts[r]` (as [`pack_block`], for 8 rows of bits).
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack_block<const K: usize, const N: u32>(
    src: &[u8],
    src_start: usize,
    bytes: usize,
    out: &mut [u8],
    row_starts: [usize; K],
) where
    Fields<N>: Mix<u8>,
{
    let (groups, _) = src[src_start..][..K * bytes].as_chunks::<K>();
    for (j, group) in groups.iter().enumerate() {
        for (r, byte) in Fields::<N>::elements(*group).into_iter().enumerate() {
            out[row_starts[r] + j] = byte;
        }
    }
}

/// Bytes of the stage on the stack of [`pack_realigned`] and
/// [`unpack_shifted`].
const STAGE: usize = 8 << 10;

/// A grid of blocks of `K` rows each, in slots: the first block's rows
/// (in the row-major layout) or its group (in the sub-tiles) at `first`,
/// source and destination; `counts[0]` planes `strides[0]` apart of
/// `counts[1]` blocks `strides[1]` apart; the row-major layout's rows
/// `row` apart within a block, each `bytes` bytes of whole slots long;
/// the sub-tiles' groups of `K` bytes dense.
#[derive(Clone, Copy)]
struct Blocks {
    first: [usize; 2],
    counts: [usize; 2],
    strides: [[usize; 2]; 2],
    row: usize,
    bytes: usize,
}

impl Blocks {
    /// Calls `f(blocks, x)` for each part of the grid and piece of its
    /// rows that fit the stage together, `K` rows of `blocks.bytes` bytes
    /// a block: whole planes where they fit, else runs of a plane's
    /// blocks; `x` is the first byte of the rows.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn in_pieces<const K: usize>(self, mut f: impl FnMut(Blocks, usize)) {
        if self.bytes == 0 || self.counts.contains(&0) {
            return;
        }
        let piece = self.bytes.min(STAGE / K);
        let [planes, per_plane] = self.counts;
        let at = |o: usize, t: usize| {
            [0, 1].map(|b| self.first[b] + o * self.strides[0][b] + t * self.strides[1][b])
        };
        for x in (0..self.bytes).step_by(piece) {
            let width = piece.min(self.bytes - x);
            let fit = STAGE / (K * width);
            let part = |first, counts| Blocks {
                first,
                counts,
                bytes: width,
                ..self
            };
            if per_plane <= fit {
                for o in (0..planes).step_by(fit / per_plane) {
                    let n = (fit / per_plane).min(planes - o);
                    f(part(at(o, 0), [n, per_plane]), x);
                }
            } else {
                for o in 0..planes {
                    for t in (0..per_plane).step_by(fit) {
                        f(part(at(o, t), [1, fit.min(per_plane - t)]), x);
                    }
                }
            }
        }
    }

    /// Calls `f(block, [o, t, r])` for each row of a part
    /// ([`Blocks::in_pieces`]): row `r` of block `t` of plane `o`, its
    /// block's first slots in `block` (source and destination); plane by
    /// plane, block by block.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn for_each_row<const K: usize>(self, mut f: impl FnMut([usize; 2], [usize; 3])) {
        let [planes, per_plane] = self.counts;
        for o in 0..planes {
            for t in 0..per_plane {
                let block =
                    [0, 1].map(|b| self.first[b] + o * self.strides[0][b] + t * self.strides[1][b]);
                for r in 0..K {
                    f(block, [o, t, r]);
                }
            }
        }
    }

    /// Whether every block starts on a byte in buffer `b` (its sub-tile
    /// groups' side), `K` slots to a byte.
    fn on_bytes<const K: usize>(self, b: usize) -> bool {
        on_byte::<K>(self.first[b])
            && (0..2).all(|l| self.counts[l] <= 1 || on_byte::<K>(self.strides[l][b]))
    }

    /// This grid with the level whose blocks continue each other's rows
    /// in buffer `b` (the row-major side: tiles side by side along `x`)
    /// as the level within a plane, and whether one does, its rows whole
    /// (one piece): then a part's rows can be joined in the stage
    /// ([`Blocks::stage_layout`]), copied a plane's row at a time.
    fn joined_along<const K: usize>(mut self, b: usize) -> (Blocks, bool) {
        let run = self.bytes * K;
        if self.strides[0][b] == run && self.strides[1][b] != run {
            self.counts.swap(0, 1);
            self.strides.swap(0, 1);
        }
        let joined = self.strides[1][b] == run && self.bytes <= STAGE / K;
        (self, joined)
    }

    /// Where the stage holds a part's rows: planes, blocks and rows this
    /// far apart. One block after another, each its `K` rows; or, with
    /// `joined`, each row of a plane the blocks' pieces of it side by
    /// side, so that blocks that continue each other's rows in the
    /// buffer do so in the stage.
    fn stage_layout<const K: usize>(self, joined: bool) -> StageLayout {
        let (width, per_plane) = (self.bytes, self.counts[1]);
        match joined {
            false => StageLayout {
                plane: per_plane * K * width,
                block: K * width,
                row: width,
            },
            true => StageLayout {
                plane: K * per_plane * width,
                block: width,
                row: per_plane * width,
            },
        }
    }

    /// The grid of the row interleave kernels over this part, the stage
    /// on side `staged` (0: the source, 1: the destination) as `layout`
    /// says, the other at its byte `x` of the rows.
    fn grid<const K: usize>(self, staged: usize, x: usize, layout: StageLayout) -> BlockGrid {
        let width = self.bytes;
        let stage = [layout.plane, layout.block];
        let other = 1 - staged;
        let mut start = [0; 2];
        start[other] = self.first[other] / K + x * K;
        let mut strides = [[0; 2]; 2];
        for level in 0..2 {
            strides[level][staged] = stage[level];
            strides[level][other] = self.strides[level][other] / K;
        }
        BlockGrid {
            start,
            counts: self.counts,
            strides,
            bands: 1,
            band_stride: [0, 0],
            factor: K,
            row_stride: layout.row,
            rows: width,
        }
    }
}

/// Where a stage holds the rows of a part of [`Blocks`]
/// ([`Blocks::stage_layout`]): planes, blocks and rows this many bytes
/// apart.
#[derive(Clone, Copy)]
struct StageLayout {
    plane: usize,
    block: usize,
    row: usize,
}

impl StageLayout {
    /// Where the stage holds row `r` of block `t` of plane `o`.
    fn at(self, [o, t, r]: [usize; 3]) -> usize {
        o * self.plane + t * self.block + r * self.row
    }
}

/// Packs `blocks` whose source rows start at any slot (their destination
/// groups on bytes): each part that fits the stage has its rows realigned
/// into it ([`realign`]), a plane's row at a time where its blocks
/// continue each other's rows ([`Blocks::joined_along`]), and is packed
/// from there by the row interleave kernel with the field transpose for
/// 2 and 4 rows, block by block for 8.
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack_realigned<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut [u8; STAGE + 1],
    streaming: bool,
    blocks: Blocks,
) where
    Fields<N>: Mix<u8>,
{
    // Rows joined where the blocks continue each other's source rows
    // (see `unpack_shifted`).
    let (blocks, joined) = blocks.joined_along::<K>(0);
    blocks.in_pieces::<K>(|part, x| {
        let width = part.bytes;
        let layout = part.stage_layout::<K>(joined);
        // Each row, or with `joined` each row of a plane from its first
        // block, with the bytes of all its blocks.
        let length = match joined {
            true => part.counts[1] * width,
            false => width,
        };
        part.for_each_row::<K>(|[s, _], [o, t, r]| {
            if !(joined && t > 0) {
                let row = &mut stage[layout.at([o, t, r])..][..length];
                realign::<K>(src, s + r * part.row + x * K, row);
            }
        });
        if K <= 4 {
            let grid = part.grid::<K>(0, x, layout);
            simd::interleave_fields_grid(&stage[..], out, &grid, streaming);
        } else {
            part.for_each_row::<K>(|[_, d], [o, t, r]| {
                if r == 0 {
                    let starts = core::array::from_fn(|r| layout.at([o, t, r]));
                    pack_block::<K, N>(&stage[..], starts, width, out, d / K + x * K);
                }
            });
        }
    });
}

/// Unpacks `blocks` whose destination rows start at any slot (their
/// source groups on bytes): each part that fits the stage is unpacked
/// into it by the row deinterleave kernel with the field transpose for 2
/// and 4 rows, block by block for 8, and each row written out, a plane's
/// row at a time where its blocks continue each other's rows
/// ([`Blocks::joined_along`]), shifted where it starts mid-byte, its
/// first and last bytes merged ([`copy_shifted_run`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack_shifted<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut [u8; STAGE + 1],
    blocks: Blocks,
) where
    Fields<N>: Mix<u8>,
{
    // Blocks that continue each other's rows in the destination (tiles
    // side by side along `x`), their rows joined in the stage: one
    // shifted copy per row of a plane, where a copy per tile row of 32
    // bytes (`u2` out of `T(16,128)(4,1)`) took 3.7 times as long.
    let (blocks, joined) = blocks.joined_along::<K>(1);
    blocks.in_pieces::<K>(|part, x| {
        let width = part.bytes;
        let per_plane = part.counts[1];
        let layout = part.stage_layout::<K>(joined);
        if K <= 4 {
            let grid = part.grid::<K>(1, x, layout);
            simd::deinterleave_fields_grid(src, &mut stage[..], &grid, false);
        } else {
            part.for_each_row::<K>(|[s, _], [o, t, r]| {
                if r == 0 {
                    let starts = core::array::from_fn(|r| layout.at([o, t, r]));
                    unpack_block::<K, N>(src, s / K + x * K, width, &mut stage[..], starts);
                }
            });
        }
        // Each row, or with `joined` each row of a plane from its first
        // block, with the bytes of all its blocks.
        let length = match joined {
            true => per_plane * width,
            false => width,
        };
        part.for_each_row::<K>(|[_, d], [o, t, r]| {
            if joined && t > 0 {
                return;
            }
            let at = d + r * part.row + x * K;
            let staged = &stage[layout.at([o, t, r])..];
            match on_byte::<K>(at) {
                true => out[at / K..][..length].copy_from_slice(&staged[..length]),
                // The shifted copy reads the byte after the one the run
                // starts in: a row of one byte reads the stage's next
                // (the stage has a byte past its rows).
                false => copy_shifted_run(staged, out, [0, at], length * K, N),
            }
        });
    });
}

/// Whether slot `offset` starts a byte, `K` slots to a byte.
fn on_byte<const K: usize>(offset: usize) -> bool {
    offset.is_multiple_of(K)
}

/// Whether every one of `count` steps of `stride` slots starts on a byte
/// when the first does.
fn steps_on_bytes<const K: usize>(count: usize, stride: [usize; 2]) -> bool {
    count <= 1 || stride.iter().all(|&s| on_byte::<K>(s))
}

/// What [`for_each_piece`] hands over: a grid of whole blocks for the
/// vector kernels, or a volume (`start`, `[outers, steps, rows, len]`)
/// for the block loops.
enum Piece {
    Grid(BlockGrid),
    Volume([usize; 2], [usize; 4]),
}

/// Walks `nest`'s volumes a band at a time
/// ([`LoopNest::for_each_volume_band`], its `_any_order` form when
/// `ANY_ORDER`), handing `f` each volume as the grid `grid_of` makes of
/// it, or as itself where it makes none; a band of alike volumes on whole
/// bytes as one grid of them ([`BlockGrid::banded`], below the streaming
/// threshold).
fn for_each_piece<const K: usize, const ANY_ORDER: bool>(
    nest: &LoopNest,
    streaming: bool,
    grid_of: impl Fn([usize; 2], [usize; 4]) -> Option<BlockGrid>,
    mut f: impl FnMut(Piece),
) {
    let band = |start: [usize; 2], shape, count: usize, stride: [usize; 2]| {
        if count > 1
            && stride.iter().all(|&b| on_byte::<K>(b))
            && let Some(grid) = grid_of(start, shape)
        {
            for grid in grid.banded(count, stride.map(|b| b / K), streaming) {
                f(Piece::Grid(grid));
            }
            return;
        }
        for_each_step(start, count, stride, |start| match grid_of(start, shape) {
            Some(grid) => f(Piece::Grid(grid)),
            None => f(Piece::Volume(start, shape)),
        });
    };
    match ANY_ORDER {
        true => nest.for_each_volume_band_any_order(band),
        false => nest.for_each_volume_band(band),
    }
}

/// Copies along `nest` (in slots of `K` per byte) with `kernel`, an
/// [`RelayoutKernel::Interleave`] or [`RelayoutKernel::Deinterleave`] of
/// `K` rows: each volume of whole bytes of whole blocks as a grid of the
/// row interleave kernels with the field transpose ([`Fields`]) for 2 and
/// 4 rows (SSE2 on x86-64, streaming into destinations of
/// [`STREAM_FROM_BYTES`] or more, as byte relayouts), block by block for
/// 8; blocks whose row-major rows start mid-byte, block by block through
/// a stage; other blocks slot by slot through `copy_one(out,
/// source_slot, destination_slot)`.
fn copy_fields<const K: usize, const N: u32>(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    src: &[u8],
    out: &mut [u8],
    streaming: bool,
    copy_one: &impl Fn(&mut [u8], usize, usize),
) where
    Fields<N>: Mix<u8>,
{
    let [outer, step, row, run] = nest.volume_strides();
    let bytes = |slots: [usize; 2]| [slots[0] / K, slots[1] / K];
    match kernel {
        RelayoutKernel::Interleave { .. } => {
            // A block: `len` (K when whole) rows `run[0]` apart in the
            // source, `rows` consecutive `x` each; consecutive in the
            // destination.
            let mut bands = simd::Bands::new(!streaming);
            // Made (zeroed) only for rows that start mid-byte.
            let mut stage = None;
            let whole = |start: [usize; 2], [outers, steps, rows, len]: [usize; 4]| {
                len == K
                    && start.iter().all(|&o| on_byte::<K>(o))
                    && steps_on_bytes::<K>(outers, outer)
                    && steps_on_bytes::<K>(steps, step)
                    && on_byte::<K>(run[0])
                    && on_byte::<K>(rows)
            };
            let grid = |start: [usize; 2], [outers, steps, rows, _]: [usize; 4]| BlockGrid {
                start: bytes(start),
                counts: [outers, steps],
                strides: [bytes(outer), bytes(step)],
                bands: 1,
                band_stride: [0, 0],
                factor: K,
                row_stride: run[0] / K,
                rows: rows / K,
            };
            let grid_of =
                |start, shape| (K <= 4 && whole(start, shape)).then(|| grid(start, shape));
            for_each_piece::<K, false>(nest, streaming, grid_of, |piece| {
                let (start, [outers, steps, rows, len]) = match piece {
                    Piece::Grid(grid) => {
                        if let Some(grid) = bands.push(grid) {
                            simd::interleave_fields_grid(src, out, &grid, streaming);
                        }
                        return;
                    }
                    Piece::Volume(start, shape) => (start, shape),
                };
                let whole = whole(start, [outers, steps, rows, len]);
                // Source rows that start mid-byte (rows of an odd number of
                // `s4`), the blocks otherwise whole in the destination:
                // realigned through a stage, but for the last `rows % K`
                // slots of each row.
                let paired = rows / K * K;
                let blocks = Blocks {
                    first: start,
                    counts: [outers, steps],
                    strides: [outer, step],
                    row: run[0],
                    bytes: paired / K,
                };
                let realigned = !whole && len == K && paired > 0 && blocks.on_bytes::<K>(1);
                if realigned {
                    let stage = stage.get_or_insert([0u8; STAGE + 1]);
                    pack_realigned::<K, N>(src, out, stage, streaming, blocks);
                }
                let x0 = if realigned { paired } else { 0 };
                for o in 0..outers {
                    for t in 0..steps {
                        let s = start[0] + o * outer[0] + t * step[0];
                        let d = start[1] + o * outer[1] + t * step[1];
                        if whole {
                            let starts = core::array::from_fn(|r| (s + r * run[0]) / K);
                            pack_block::<K, N>(src, starts, rows / K, out, d / K);
                            continue;
                        }
                        for x in x0..rows {
                            for r in 0..len {
                                let (sx, dx) = (s + x * row[0] + r * run[0], d + x * row[1] + r);
                                copy_one(out, sx, dx);
                            }
                        }
                    }
                }
            });
            while let Some(grid) = bands.take() {
                simd::interleave_fields_grid(src, out, &grid, streaming);
            }
        }
        RelayoutKernel::Deinterleave { .. } => {
            // A block: `steps` (K when whole) destination rows
            // `step[1]` apart, `len` consecutive `x` each; consecutive in
            // the source. In any order, so that a partial last tile
            // column comes as one volume per band, not block by block
            // (see `relayout::copy`).
            let mut bands = simd::Bands::new(!streaming);
            let mut stage = None;
            let whole = |start: [usize; 2], [outers, steps, rows, len]: [usize; 4]| {
                steps == K
                    && start.iter().all(|&o| on_byte::<K>(o))
                    && steps_on_bytes::<K>(outers, outer)
                    && steps_on_bytes::<K>(rows, row)
                    && on_byte::<K>(step[1])
                    && on_byte::<K>(len)
            };
            let grid = |start: [usize; 2], [outers, _, rows, len]: [usize; 4]| BlockGrid {
                start: bytes(start),
                counts: [outers, rows],
                strides: [bytes(outer), bytes(row)],
                bands: 1,
                band_stride: [0, 0],
                factor: K,
                row_stride: step[1] / K,
                rows: len / K,
            };
            let grid_of =
                |start, shape| (K <= 4 && whole(start, shape)).then(|| grid(start, shape));
            for_each_piece::<K, true>(nest, streaming, grid_of, |piece| {
                let (start, [outers, steps, rows, len]) = match piece {
                    Piece::Grid(grid) => {
                        if let Some(grid) = bands.push(grid) {
                            simd::deinterleave_fields_grid(src, out, &grid, streaming);
                        }
                        return;
                    }
                    Piece::Volume(start, shape) => (start, shape),
                };
                let whole = whole(start, [outers, steps, rows, len]);
                // Destination rows that start mid-byte, the blocks
                // otherwise whole in the source: through a stage, shifted
                // as they are written, but for the last `len % K` slots of
                // each row.
                let paired = len / K * K;
                let blocks = Blocks {
                    first: start,
                    counts: [outers, rows],
                    strides: [outer, row],
                    row: step[1],
                    bytes: paired / K,
                };
                let shifted = !whole && steps == K && paired > 0 && blocks.on_bytes::<K>(0);
                if shifted {
                    let stage = stage.get_or_insert([0u8; STAGE + 1]);
                    unpack_shifted::<K, N>(src, out, stage, blocks);
                }
                let i0 = if shifted { paired } else { 0 };
                for o in 0..outers {
                    for q in 0..rows {
                        let s = start[0] + o * outer[0] + q * row[0];
                        let d = start[1] + o * outer[1] + q * row[1];
                        if whole {
                            let starts = core::array::from_fn(|r| (d + r * step[1]) / K);
                            unpack_block::<K, N>(src, s / K, len / K, out, starts);
                            continue;
                        }
                        for t in 0..steps {
                            for i in i0..len {
                                let (si, di) = (s + t * step[0] + i * run[0], d + t * step[1] + i);
                                copy_one(out, si, di);
                            }
                        }
                    }
                }
            });
            while let Some(grid) = bands.take() {
                simd::deinterleave_fields_grid(src, out, &grid, streaming);
            }
        }
        _ => unreachable!("a field kernel is an interleave or a deinterleave"),
    }
}

/// Copies along `nest` with `kernel` for `n`-bit slots
/// ([`packed_fields`](crate::relayout::packed_fields) chose it), through
/// the instance of [`copy_fields`] for `n`.
pub(super) fn copy(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    n: u32,
    src: &[u8],
    out: &mut [u8],
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    // Large destinations with streaming stores, as byte relayouts; the
    // writer's fence when it drops orders them.
    if out.len() >= STREAM_FROM_BYTES
        && let Some(mut writer) = StreamWriter::new(&mut *out)
    {
        return copy_bits(nest, kernel, n, src, writer.flushed(), true, copy_one);
    }
    copy_bits(nest, kernel, n, src, out, false, copy_one);
}

/// [`copy_fields`] for `n`-bit slots.
fn copy_bits(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    n: u32,
    src: &[u8],
    out: &mut [u8],
    streaming: bool,
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    match n {
        4 => copy_fields::<2, 4>(nest, kernel, src, out, streaming, copy_one),
        2 => copy_fields::<4, 2>(nest, kernel, src, out, streaming, copy_one),
        1 => copy_fields::<8, 1>(nest, kernel, src, out, streaming, copy_one),
        _ => unreachable!("field kernels are for 1, 2 and 4 bits"),
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec::Vec;
    use core::cell::Cell;

    use layout_core::ArrayLayout;

    use super::copy;
    use crate::packed::bits::{read_field, write_field};
    use crate::relayout::packed_fields;
    use crate::relayout::tests::nest;

    /// Rows of an odd number of slots (every other one, or each, starting
    /// mid-byte in the row-major layout) into `(k,1)` sub-tiles go by
    /// blocks, realigned as they are read, and back, shifted as they are
    /// written: only the last `x % k` slots of each row go one at a time,
    /// and the bytes are a slot-by-slot copy's, the slots around each
    /// row kept.
    #[test]
    fn odd_rows_pack_and_unpack_by_blocks() {
        // Tile rows of a few bytes; of 2 KiB, planes of three blocks of
        // which the stage (8 KiB) holds two; of 6 KiB, rows that do not
        // fit it, in pieces of 4 and 2 KiB.
        let cases = [
            ("s4", "T(8,128)(2,1)E(4)", "E(4)", [48, 263]),
            ("u2", "T(16,64)(4,1)E(2)", "E(2)", [48, 263]),
            ("pred", "T(16,128)(8,1)E(1)", "E(1)", [48, 263]),
            ("s4", "T(6,4096)(2,1)E(4)", "E(4)", [12, 4099]),
            ("s4", "T(4,12288)(2,1)E(4)", "E(4)", [8, 12291]),
            ("u2", "T(8,12288)(4,1)E(2)", "E(2)", [8, 12291]),
        ];
        for (ty, tiled, rows, [y, x]) in cases {
            let [rows, tiled] = [rows, tiled].map(|l| format!("{ty}[{y},{x}]{{1,0:{l}}}"));
            for (a, b) in [(&rows, &tiled), (&tiled, &rows)] {
                let (la, lb): (ArrayLayout, ArrayLayout) = (a.parse().unwrap(), b.parse().unwrap());
                let n = la.element_size_in_bits() as u32;
                let nest = nest(a, b);
                let kernel = packed_fields(&nest, [n as usize; 2], n as usize)
                    .unwrap_or_else(|| panic!("{a} -> {b}: no field kernel"));
                let src: Vec<u8> = (0..la.physical_byte_size())
                    .map(|i| (i * 73 + i / 7) as u8)
                    .collect();
                let fill = |len: usize| (0..len).map(|i| (i * 29 + 5) as u8).collect::<Vec<u8>>();
                let mut expected = fill(lb.physical_byte_size());
                nest.for_each_run(|[s, d], len| {
                    let [si, di] = nest.inner_strides();
                    for i in 0..len {
                        let field = read_field(&src, s + i * si, n);
                        write_field(&mut expected, d + i * di, n, field);
                    }
                });
                let slots = Cell::new(0);
                let copy_one = |out: &mut [u8], s: usize, d: usize| {
                    slots.set(slots.get() + 1);
                    write_field(out, d, n, read_field(&src, s, n));
                };
                let mut got = fill(lb.physical_byte_size());
                copy(&nest, kernel, n, &src, &mut got, &copy_one);
                assert_eq!(got, expected, "{a} -> {b}");
                let k = 8 / n as usize;
                assert!(
                    slots.get() <= y * (x % k),
                    "{a} -> {b}: {} slots",
                    slots.get()
                );
            }
        }
    }
}
