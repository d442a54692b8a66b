//! Packed relayouts that interleave rows of sub-byte fields: the pack
//! into `(2,1)` sub-tiles of `E(4)` (`(4,1)` of `E(2)`, `(8,1)` of
//! `E(1)`) and its unpack, a byte at a time.
//!
//! Under `E(n)` a byte holds `k = 8 / n` slots. When a layout's sub-tile
//! gathers `k` rows (`T(8,128)(2,1)E(4)`), each of its bytes holds one
//! `x` of `k` rows, where a row-major byte holds `k` consecutive `x` of
//! one row: `k` bytes of `k` source rows become `k` destination bytes by
//! a square transpose of their `n`-bit fields ([`transpose_fields`]), and
//! the unpack is the same transpose back. The planner sees the structure
//! in the nest ([`packed_fields`](crate::relayout::packed_fields)); blocks
//! that are not whole bytes (a partial sub-tile, a row of an odd number
//! of `s4`) go slot by slot.

use layout_core::walk::LoopNest;

use crate::relayout::RelayoutKernel;

/// The `k × k` transpose of `n`-bit fields, `k = 8 / n` (`K`, `N`): field
/// `a` of byte `b` of the result is field `b` of byte `a` of `v`, fields
/// counted from the most significant bits as slots are (XLA's
/// `PackIntN`: slot `o` is shifted left by `8 - n - o * n % 8`).
#[inline(always)]
fn transpose_fields<const K: usize, const N: u32>(v: [u8; K]) -> [u8; K] {
    core::array::from_fn(|b| field_row::<K, N>(&v, b))
}

/// Packs one block: `K` source rows of `bytes` bytes each, row `r` from
/// byte `row_starts[r]`, into `K * bytes` consecutive destination bytes
/// from `dst_start` (each one `x` of the `K` rows).
#[inline(always)]
fn pack_block<const K: usize, const N: u32>(
    src: &[u8],
    row_starts: [usize; K],
    bytes: usize,
    out: &mut [u8],
    dst_start: usize,
) {
    let rows: [&[u8]; K] = core::array::from_fn(|r| &src[row_starts[r]..][..bytes]);
    let (groups, _) = out[dst_start..][..K * bytes].as_chunks_mut::<K>();
    for (j, group) in groups.iter_mut().enumerate().take(bytes) {
        let v: [u8; K] = core::array::from_fn(|r| rows[r][j]);
        *group = transpose_fields::<K, N>(v);
    }
}

/// Unpacks one block: `K * bytes` consecutive source bytes from
/// `src_start` into `K` destination rows of `bytes` bytes each, row `r`
/// from byte `row_starts[r]`.
#[inline(always)]
fn unpack_block<const K: usize, const N: u32>(
    src: &[u8],
    src_start: usize,
    bytes: usize,
    out: &mut [u8],
    row_starts: [usize; K],
) {
    let (groups, _) = src[src_start..][..K * bytes].as_chunks::<K>();
    let mut rows: [usize; K] = row_starts;
    for group in groups {
        let w = transpose_fields::<K, N>(*group);
        for (r, at) in rows.iter_mut().enumerate() {
            out[*at] = w[r];
            *at += 1;
        }
    }
}

/// Byte `b` of [`transpose_fields`] of `v`: field `b` of each byte of
/// `v` in turn.
#[inline(always)]
fn field_row<const K: usize, const N: u32>(v: &[u8; K], b: usize) -> u8 {
    let mask = ((1u16 << N) - 1) as u8;
    let shift = |field: usize| 8 - N - field as u32 * N;
    let mut out = 0u8;
    for (a, byte) in v.iter().enumerate() {
        out |= ((byte >> shift(b)) & mask) << shift(a);
    }
    out
}

/// Copies along `nest` (in slots of `K` per byte) with `kernel`, an
/// [`RelayoutKernel::Interleave`] or [`RelayoutKernel::Deinterleave`] of
/// `K` rows: whole blocks a byte at a time, others slot by slot through
/// `copy_one(out, source_slot, destination_slot)`.
fn copy_fields<const K: usize, const N: u32>(
    nest: &LoopNest,
    kernel: RelayoutKernel,
    src: &[u8],
    out: &mut [u8],
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    let [outer, step, row, run] = nest.volume_strides();
    let whole = |slots: usize| slots.is_multiple_of(K);
    match kernel {
        RelayoutKernel::Interleave { .. } => {
            // A block: `len` (K when whole) rows `run[0]` apart in the
            // source, `rows` consecutive `x` each; consecutive in the
            // destination.
            nest.for_each_volume(|start, [outers, steps, rows, len]| {
                for o in 0..outers {
                    for t in 0..steps {
                        let s = start[0] + o * outer[0] + t * step[0];
                        let d = start[1] + o * outer[1] + t * step[1];
                        if len == K && whole(s) && whole(d) && whole(run[0]) && whole(rows) {
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
        }
        RelayoutKernel::Deinterleave { .. } => {
            // A block: `steps` (K when whole) destination rows
            // `step[1]` apart, `len` consecutive `x` each; consecutive in
            // the source.
            nest.for_each_volume(|start, [outers, steps, rows, len]| {
                for o in 0..outers {
                    for q in 0..rows {
                        let s = start[0] + o * outer[0] + q * row[0];
                        let d = start[1] + o * outer[1] + q * row[1];
                        if steps == K && whole(s) && whole(d) && whole(step[1]) && whole(len) {
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
    match n {
        4 => copy_fields::<2, 4>(nest, kernel, src, out, copy_one),
        2 => copy_fields::<4, 2>(nest, kernel, src, out, copy_one),
        1 => copy_fields::<8, 1>(nest, kernel, src, out, copy_one),
        _ => unreachable!("field kernels are for 1, 2 and 4 bits"),
    }
}

#[cfg(test)]
mod tests {
    use super::transpose_fields;

    #[test]
    fn fields_transpose_as_a_square() {
        // Two bytes of nibbles, the first slot in the high one: (x0, x1)
        // of rows a and b become (a, b) of x0 and of x1.
        assert_eq!(transpose_fields::<2, 4>([0x12, 0x34]), [0x13, 0x24]);
        // Eight rows of bits, slot 0 the most significant: a bit matrix
        // transpose.
        let rows = [0b1000_0000, 0b1100_0000, 0, 0, 0, 0, 0, 0b0000_0001];
        let cols = transpose_fields::<8, 1>(rows);
        assert_eq!(cols, [0b1100_0000, 0b0100_0000, 0, 0, 0, 0, 0, 0b0000_0001]);
        // An involution, for 2-bit fields too.
        let v = [0x1b, 0xe4, 0x39, 0xc6];
        assert_ne!(transpose_fields::<4, 2>(v), v);
        assert_eq!(transpose_fields::<4, 2>(transpose_fields::<4, 2>(v)), v);
    }
}
