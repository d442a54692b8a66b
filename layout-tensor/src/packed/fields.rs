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
//! ([`packed_fields`](crate::relayout::packed_fields)); blocks that are
//! not whole bytes (a partial sub-tile, a row of an odd number of `s4`)
//! go slot by slot.

use layout_core::walk::LoopNest;

use crate::relayout::RelayoutKernel;
use crate::relayout::mix::{Fields, Mix};
use crate::relayout::simd::{self, BlockGrid};
use crate::relayout::stream::{STREAM_FROM_BYTES, StreamWriter};

/// Packs one block of `K` source rows of `bytes` bytes each, row `r` from
/// byte `row_starts[r]`, into `K * bytes` consecutive destination bytes
/// from `dst_start` (each one `x` of the `K` rows): the block loop of 8
/// rows of bits, which the vector kernels (2 and 4 rows) do not take.
#[inline(always)]
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
#[inline(always)]
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

/// Whether slot `offset` starts a byte, `K` slots to a byte.
fn on_byte<const K: usize>(offset: usize) -> bool {
    offset.is_multiple_of(K)
}

/// Whether every one of `count` steps of `stride` slots starts on a byte
/// when the first does.
fn steps_on_bytes<const K: usize>(count: usize, stride: [usize; 2]) -> bool {
    count <= 1 || stride.iter().all(|&s| on_byte::<K>(s))
}

/// Copies along `nest` (in slots of `K` per byte) with `kernel`, an
/// [`RelayoutKernel::Interleave`] or [`RelayoutKernel::Deinterleave`] of
/// `K` rows: each volume of whole bytes of whole blocks as a grid of the
/// row interleave kernels with the field transpose ([`Fields`]) for 2 and
/// 4 rows (SSE2 on x86-64, streaming into destinations of
/// [`STREAM_FROM_BYTES`] or more, as byte relayouts), block by block for
/// 8; other blocks slot by slot through `copy_one(out, source_slot,
/// destination_slot)`.
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
            nest.for_each_volume(|start, [outers, steps, rows, len]| {
                let whole = len == K
                    && start.iter().all(|&o| on_byte::<K>(o))
                    && steps_on_bytes::<K>(outers, outer)
                    && steps_on_bytes::<K>(steps, step)
                    && on_byte::<K>(run[0])
                    && on_byte::<K>(rows);
                if whole && K <= 4 {
                    let grid = BlockGrid {
                        start: bytes(start),
                        counts: [outers, steps],
                        strides: [bytes(outer), bytes(step)],
                        bands: 1,
                        band_stride: [0, 0],
                        factor: K,
                        row_stride: run[0] / K,
                        rows: rows / K,
                    };
                    if let Some(grid) = bands.push(grid) {
                        simd::interleave_fields_grid(src, out, &grid, streaming);
                    }
                    return;
                }
                for o in 0..outers {
                    for t in 0..steps {
                        let s = start[0] + o * outer[0] + t * step[0];
                        let d = start[1] + o * outer[1] + t * step[1];
                        if whole {
                            let starts = core::array::from_fn(|r| (s + r * run[0]) / K);
                            pack_block::<K, N>(src, starts, rows / K, out, d / K);
                            continue;
                        }
                        for x in 0..rows {
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
            nest.for_each_volume_any_order(|start, [outers, steps, rows, len]| {
                let whole = steps == K
                    && start.iter().all(|&o| on_byte::<K>(o))
                    && steps_on_bytes::<K>(outers, outer)
                    && steps_on_bytes::<K>(rows, row)
                    && on_byte::<K>(step[1])
                    && on_byte::<K>(len);
                if whole && K <= 4 {
                    let grid = BlockGrid {
                        start: bytes(start),
                        counts: [outers, rows],
                        strides: [bytes(outer), bytes(row)],
                        bands: 1,
                        band_stride: [0, 0],
                        factor: K,
                        row_stride: step[1] / K,
                        rows: len / K,
                    };
                    if let Some(grid) = bands.push(grid) {
                        simd::deinterleave_fields_grid(src, out, &grid, streaming);
                    }
                    return;
                }
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
                            for i in 0..len {
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
