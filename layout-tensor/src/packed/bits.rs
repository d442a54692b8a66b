//! The bit arithmetic of packed slots: the `n`-bit field of a slot, read
//! and written in place, and runs of slots unpacked a byte at a time
//! (where the bits go: the [module docs](crate::packed)).

use layout_core::Error;

use super::sub_byte::SubByte;

/// The mask of the low `bits` bits of a byte (`bits <= 8`).
pub(super) const fn low_mask(bits: u32) -> u8 {
    if bits >= 8 { 0xFF } else { (1u8 << bits) - 1 }
}

/// Each byte of `dst` the 8 bits that start `shift` bits (1 to 7) into
/// the same byte of `high`, the rest from the start of `low`'s: slots
/// that start mid-byte, shifted to start a byte (`low` is `high` a byte
/// on).
///
/// A loop per shift, by a constant: shifted by a variable, the bytes
/// went through a select of shifts by 4, 2 and 1, and `u2` rows of an
/// odd length out of `(4,1)` sub-tiles took 1.15 times as long, out of
/// `T(8,128)E(2)` tiles 1.07 (timed in turns in a scratch harness).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn straddled_bytes(dst: &mut [u8], high: &[u8], low: &[u8], shift: u32) {
    match shift {
        1 => shifted_bytes::<1>(dst, high, low),
        2 => shifted_bytes::<2>(dst, high, low),
        3 => shifted_bytes::<3>(dst, high, low),
        4 => shifted_bytes::<4>(dst, high, low),
        5 => shifted_bytes::<5>(dst, high, low),
        6 => shifted_bytes::<6>(dst, high, low),
        _ => shifted_bytes::<7>(dst, high, low),
    }
}

/// [`straddled_bytes`] by `S` bits.
#[cfg_attr(not(debug_assertions), inline(always))]
fn shifted_bytes<const S: u32>(dst: &mut [u8], high: &[u8], low: &[u8]) {
    for ((o, &h), &l) in dst.iter_mut().zip(high).zip(low) {
        *o = (h << S) | (l >> (8 - S));
    }
}

/// The `n`-bit field of slot `offset` (`n` is 1, 2, 4 or 8).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn read_field(bytes: &[u8], offset: usize, n: u32) -> u8 {
    // Callers pass offsets inside the buffer; `get` instead of indexing
    // keeps the panic path (and with it `core::fmt`) out of every access,
    // which matters on microcontrollers.
    if n == 8 {
        return bytes.get(offset).copied().unwrap_or(0);
    }
    let bit = offset.wrapping_mul(n as usize);
    let shift = 8 - n - (bit % 8) as u32;
    (bytes.get(bit / 8).copied().unwrap_or(0) >> shift) & low_mask(n)
}

/// How a run of consecutive slots lies on bytes, `per_byte` slots to a
/// byte: `head` slots before the first whole byte, `whole` whole bytes
/// from byte `first_byte`, then the rest of the run, from slot `tail`.
#[derive(Clone, Copy)]
pub(super) struct ByteSpan {
    pub(super) head: usize,
    pub(super) first_byte: usize,
    pub(super) whole: usize,
    pub(super) tail: usize,
}

impl ByteSpan {
    /// The span of the `len` slots from slot `offset`.
    ///
    /// A run that starts on a byte (the common case: a tile row) has
    /// `len / per_byte` whole bytes, a constant when `len` is one (a
    /// static layout's box), so that short fills compile to plain stores.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn of(offset: usize, len: usize, per_byte: usize) -> ByteSpan {
        let head = ((per_byte - offset % per_byte) % per_byte).min(len);
        let (first_byte, rest) = match head {
            0 => (offset / per_byte, len),
            _ => ((offset + head) / per_byte, len - head),
        };
        let whole = rest / per_byte;
        ByteSpan {
            head,
            first_byte,
            whole,
            tail: offset + head + whole * per_byte,
        }
    }
}

/// Unpacks `out.len()` consecutive slots from `offset` on: the slots
/// before the first whole byte one at a time, then whole bytes (`8 / n`
/// values each, first in the high bits), then the rest.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn unpack_contiguous<E: SubByte>(
    bytes: &[u8],
    offset: usize,
    n: u32,
    out: &mut [E::Value],
) {
    let per_byte = (8 / n) as usize;
    let span = ByteSpan::of(offset, out.len(), per_byte);
    let (head_out, rest) = out.split_at_mut(span.head);
    for (i, v) in head_out.iter_mut().enumerate() {
        *v = E::from_bits(read_field(bytes, offset + i, n));
    }
    let (body, tail) = rest.split_at_mut(span.whole * per_byte);
    match bytes.get(span.first_byte..span.first_byte + span.whole) {
        // The slots per byte a constant, so that the loop over the bytes
        // is one the compiler vectorises.
        Some(src) => match per_byte {
            2 => unpack_bytes::<E, 2>(src, body),
            4 => unpack_bytes::<E, 4>(src, body),
            8 => unpack_bytes::<E, 8>(src, body),
            _ => unpack_bytes::<E, 1>(src, body),
        },
        None => {
            for (i, v) in body.iter_mut().enumerate() {
                *v = E::from_bits(read_field(bytes, offset + span.head + i, n));
            }
        }
    }
    for (i, v) in tail.iter_mut().enumerate() {
        *v = E::from_bits(read_field(bytes, span.tail + i, n));
    }
}

/// The values of `PER` slots per byte of each byte of `src`, in order,
/// into `out` (`PER` values per byte; the first in the high bits).
#[cfg_attr(not(debug_assertions), inline(always))]
fn unpack_bytes<E: SubByte, const PER: usize>(src: &[u8], out: &mut [E::Value]) {
    let n = (8 / PER) as u32;
    let (chunks, _) = out.as_chunks_mut::<PER>();
    for (&b, chunk) in src.iter().zip(chunks) {
        for (j, v) in chunk.iter_mut().enumerate() {
            // Slot `j` of the byte sits in the high bits first.
            *v = E::from_bits(b >> (8 - n * (j as u32 + 1)));
        }
    }
}

/// Packs `values` into the consecutive slots from `offset` on, `n` bits
/// each (the inverse of [`unpack_contiguous`]): the slots before the
/// first whole byte one at a time, then whole bytes (`8 / n` values each,
/// the first in the high bits), then the rest. The other bits of the end
/// bytes are left as they are.
///
/// # Errors
/// A value does not fit the element type ([`SubByte::to_bits`]): the
/// values before it are written.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn pack_contiguous<E: SubByte>(
    bytes: &mut [u8],
    offset: usize,
    n: u32,
    values: &[E::Value],
) -> Result<(), Error> {
    // Values out of range are the exception: the whole piece is checked
    // first (a loop the compiler vectorises), and a piece with one goes a
    // value at a time, which stops there.
    if !values.iter().all(|&v| E::to_bits(v).is_ok()) {
        for (i, &v) in values.iter().enumerate() {
            write_field(bytes, offset + i, n, E::to_bits(v)?);
        }
        return Ok(());
    }
    let bits = |v: E::Value| E::to_bits(v).unwrap_or(0);
    let per_byte = (8 / n) as usize;
    let span = ByteSpan::of(offset, values.len(), per_byte);
    let (head_values, rest) = values.split_at(span.head);
    for (i, &v) in head_values.iter().enumerate() {
        write_field(bytes, offset + i, n, bits(v));
    }
    let (body, tail) = rest.split_at(span.whole * per_byte);
    match bytes.get_mut(span.first_byte..span.first_byte + span.whole) {
        Some(out) => match per_byte {
            2 => pack_bytes::<E, 2>(body, out),
            4 => pack_bytes::<E, 4>(body, out),
            8 => pack_bytes::<E, 8>(body, out),
            _ => pack_bytes::<E, 1>(body, out),
        },
        None => {
            for (i, &v) in body.iter().enumerate() {
                write_field(bytes, offset + span.head + i, n, bits(v));
            }
        }
    }
    for (i, &v) in tail.iter().enumerate() {
        write_field(bytes, span.tail + i, n, bits(v));
    }
    Ok(())
}

/// Each byte of `out` from `PER` values of `values` in order (the first
/// in the high bits), every value already known to fit.
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack_bytes<E: SubByte, const PER: usize>(values: &[E::Value], out: &mut [u8]) {
    let n = (8 / PER) as u32;
    let (chunks, _) = values.as_chunks::<PER>();
    for (byte, chunk) in out.iter_mut().zip(chunks) {
        let mut b = 0u8;
        for (j, &v) in chunk.iter().enumerate() {
            let field = E::to_bits(v).unwrap_or(0) & low_mask(n);
            b |= field << (8 - n * (j as u32 + 1));
        }
        *byte = b;
    }
}

/// Writes the `n`-bit field of slot `offset`, leaving the byte's other
/// bits as they are.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn write_field(bytes: &mut [u8], offset: usize, n: u32, field: u8) {
    // As in `read_field`: no panic path in an access.
    if n == 8 {
        if let Some(byte) = bytes.get_mut(offset) {
            *byte = field;
        }
        return;
    }
    if n == 4 {
        // Nibbles, the common case, as a kernel author writes them: a
        // fixed shift per half of the byte. The general form below shifts
        // a mask by a variable amount in a byte register, and x86 merges
        // such byte writes into the register's old value, which chains
        // one element's write to the next (`set` loops 1.7x slower).
        if let Some(byte) = bytes.get_mut(offset / 2) {
            *byte = match offset % 2 {
                0 => (*byte & 0x0F) | (field << 4),
                _ => (*byte & 0xF0) | (field & 0x0F),
            };
        }
        return;
    }
    let bit = offset.wrapping_mul(n as usize);
    let shift = 8 - n - (bit % 8) as u32;
    let mask = low_mask(n) << shift;
    if let Some(byte) = bytes.get_mut(bit / 8) {
        *byte = (*byte & !mask) | ((field << shift) & mask);
    }
}
