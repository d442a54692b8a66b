//! Packed relayouts: into another packed layout of the same array (the
//! same or another `E(n)`), and to and from unpacked tensors of the
//! element type's values.

#[cfg(doc)]
use layout_core::ErrorKind;
use layout_core::walk::LoopNest;
use layout_core::{AnyLayout, ArrayLayout, Error, SameShape};

use crate::element::Element;
use crate::relayout::{
    copy_along, packed_bytes, packed_fields, packed_joined_runs, packed_squares,
};
use crate::runs::for_each_run_pair;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;

use super::bits::{
    ByteSpan, low_mask, pack_contiguous, read_field, straddled_bytes, unpack_contiguous,
    write_field,
};
use super::sub_byte::SubByte;
use super::tensor::PackedBase;

/// Checks at compile time that two layout types fixed at compile time
/// hold the same logical array.
const fn check_static(src: Option<ArrayLayout>, dst: Option<ArrayLayout>) {
    if let (Some(a), Some(b)) = (src, dst)
        && let Err(e) = LoopNest::relayout(&a, &b)
    {
        e.panic();
    }
}

impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// Copies every element into `dst`, which holds the same logical array
    /// (element type and dims) in its own layout, with the same or another
    /// `E(n)` (`s4` under `E(4)` into `s4` one per byte, say). Padding bits
    /// of `dst` are left as they are; so are the bits of other slots that
    /// share a byte with a written one.
    ///
    /// The kernel is chosen from the engine's relayout nest
    /// ([`LoopNest::relayout`]) by its structure
    /// ([`RelayoutKernel::for_layouts`](crate::RelayoutKernel::for_layouts)
    /// names it), when both slots are the value's width:
    /// - when every byte holds the same elements in both layouts (a
    ///   transpose into `{0,1:T(8,128)(2,1)E(4)}` from `{1,0:E(4)}`: each
    ///   byte two consecutive `x`), the relayout is one of bytes, with the
    ///   kernels of byte tensors: runs, transposes;
    /// - when `k = 8 / n` rows are interleaved into `(k,1)` sub-tiles
    ///   (`{1,0:E(4)}` into `{1,0:T(8,128)(2,1)E(4)}`) or back, the byte
    ///   row interleave kernels with a square transpose of each group's
    ///   fields. `BENCHMARKS.md` has the `s4` figures: pack and unpack
    ///   0.9–1.8× `memcpy`'s time, the transpose+tile 2.3–5.7×, where
    ///   slot by slot took 60–170×. When a row-major row holds an odd
    ///   number of `s4` (each next row then starts mid-byte, its fields
    ///   a nibble off), the rows go through a stage, realigned as they
    ///   are read or shifted as they are written (5–6× for `s4`); the
    ///   slots of a partial sub-tile go slot by slot;
    /// - when the nest is a transpose whose bytes hold `k` slots along one
    ///   level in the source and along the other in the destination
    ///   (`{1,0:E(4)}` into `{0,1:E(4)}` or `{0,1:T(8,128)E(4)}`: bytes of
    ///   two `x` into bytes of two `y`), squares of `k` bytes with their
    ///   fields transposed, 16 or 32 rows of 16 bytes at a time in
    ///   vectors, tiles of a few rows side by side: the `s4` transpose
    ///   takes 3.2–6.1× `memcpy`'s time, into and out of `T(8,128)E(4)`
    ///   tiles 4.6–6.7× (`BENCHMARKS.md`). Source rows that start mid-byte
    ///   (an odd number of `s4` per row) are realigned a tile at a time
    ///   as they are read (about 7×), and destination rows that do are
    ///   shifted as they are written (about 7×); on targets other than
    ///   x86-64, blocks of such destination rows go slot by slot;
    /// - otherwise runs contiguous in both buffers are copied a byte at a
    ///   time: whole when they start at the same bit of a byte, each
    ///   destination byte from the two source bytes it straddles when not
    ///   (rows of an odd number of `s4` into tile rows), and unpacked and
    ///   packed again when their slots differ in width (`E(4)` into one
    ///   `s4` per byte); other elements go one at a time along the nest,
    ///   or in logical order when there is none. Each written slot gets
    ///   the value's bits with its upper bits zero.
    ///
    /// For two static layouts a shape mismatch is a compile error.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout};
    /// use tessera::packed::S4;
    /// let packed = PreparedLayout::parse("s4[2,3]{1,0:E(4)}").unwrap();
    /// let wide = PreparedLayout::parse("s4[2,3]{0,1}").unwrap(); // column-major, a byte each
    /// let src = PackedBuf::<_, S4>::from_values(packed, [1, 2, 3, -1, -2, -3]).unwrap();
    /// let mut dst = PackedBuf::<_, S4>::zeroed(wide).unwrap();
    /// src.relayout_into(&mut dst).unwrap();
    /// assert_eq!(dst.as_bytes(), &[1, 0x0F, 2, 0x0E, 3, 0x0D]);
    /// ```
    ///
    /// # Errors
    /// The layouts differ in rank or a dimension's size.
    pub fn relayout_into<S2, L2>(&self, dst: &mut PackedBase<S2, L2, E>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = u8>,
        L2: SameShape<L>,
    {
        const { check_static(L::FIXED_LAYOUT, L2::FIXED_LAYOUT) };
        let nest = LoopNest::relayout_between(self.layout(), dst.layout())?;
        // Only the element-by-element copy reads the layouts (taken here,
        // before `dst` is borrowed for writing).
        let elementwise = nest
            .is_none()
            .then(|| [self.to_array_layout(), dst.to_array_layout()]);
        let (na, nb) = (self.bits_per_slot(), dst.bits_per_slot());
        let value_mask = low_mask(E::TYPE.bit_width());
        let src = self.as_bytes();
        let out = dst.as_bytes_mut();
        let copy_one = |out: &mut [u8], s: usize, d: usize| {
            write_field(out, d, nb, read_field(src, s, na) & value_mask);
        };
        match nest {
            Some(nest) => {
                let [si, di] = nest.inner_strides();
                // Whole bytes can be copied when a slot is exactly the
                // value's width (no upper bits to clear).
                let bytewise = si == 1 && di == 1 && na == nb && na == E::TYPE.bit_width();
                // When every byte holds the same elements in both
                // buffers, the relayout is one of bytes: the planner's
                // kernels along the nest in bytes.
                let width = E::TYPE.bit_width() as usize;
                let bits = [na as usize, nb as usize];
                if let Some(bytes) = packed_bytes(&nest, bits, width) {
                    copy_along(&bytes, src, out);
                    return Ok(());
                }
                // Rows of fields interleaved into sub-tiles, or back: the
                // byte row interleave kernels, with the fields transposed.
                if let Some(kernel) = packed_fields(&nest, bits, width) {
                    super::fields::copy(&nest, kernel, na, src, out, &copy_one);
                    return Ok(());
                }
                // Any other transpose whose bytes hold slots along one level in
                // the source and the other in the destination: squares of
                // bytes, their fields transposed.
                if let Some((squares, k)) = packed_squares(&nest, bits, width) {
                    super::squares::copy(&squares, k, src, out, &copy_one);
                    return Ok(());
                }
                // Runs that continue each other in the destination, one
                // after the other: joined in a stage ([`JoinedRun`]).
                if bytewise && let Some(joined) = packed_joined_runs(&nest, bits, width) {
                    // The width as the constant in each call, so that the
                    // divisions by the slots per byte are shifts.
                    let [outer, _] = joined.block_strides();
                    let mut run = JoinedRun::new();
                    joined.for_each_block(|start, rows, len| {
                        let block = [start, outer, [rows, len]];
                        run.push_block(src, out, block, E::TYPE.bit_width());
                    });
                    run.flush(src, out, E::TYPE.bit_width());
                    return Ok(());
                }
                nest.for_each_run(|[s, d], len| {
                    if bytewise {
                        // `na` is the value's width here: passed as the
                        // constant, so that the divisions by the slots per
                        // byte (a power of two) are shifts.
                        copy_run(src, out, s, d, len, E::TYPE.bit_width(), &copy_one);
                    } else if si == 1 && di == 1 {
                        // Contiguous in both, in slots of other widths
                        // (into one `s4` per byte): unpacked and packed
                        // back a byte at a time.
                        convert_run::<E>(src, out, [s, d], len, [na, nb], &copy_one);
                    } else {
                        for i in 0..len {
                            copy_one(out, s + i * si, d + i * di);
                        }
                    }
                });
            }
            None => {
                // No common digits (a `*` merge, or cuts that do not
                // divide each other): element by element.
                if let Some([a, b]) = elementwise {
                    let (mut from, mut to) = (a.elements(), b.elements());
                    while let (Some(s), Some(d)) = (from.next_offset(), to.next_offset()) {
                        copy_one(out, s, d);
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies every element into an unpacked tensor of `E`'s value type
    /// (`i8` for `s4`, layout `s8[..]`; `u8`; `bool`) with the same dims.
    /// Padding slots of `dst` are left as they are.
    ///
    /// The two layouts' logical walks go in step, in pieces that are one
    /// run in each: a piece contiguous in both is unpacked a byte at a
    /// time into a slice (`s4[256,1024]{1,0:E(4)}` into
    /// `s8[256,1024]{1,0}`: 1.0× the hand-written loop that sign-extends
    /// each byte's two nibbles, `BENCHMARKS.md`), any other element by
    /// element.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout, TensorBuf};
    /// use tessera::packed::S4;
    /// let packed = PreparedLayout::parse("s4[2,3]{1,0:E(4)}").unwrap();
    /// let src = PackedBuf::<_, S4>::from_values(packed, [1, 2, 3, -1, -2, -3]).unwrap();
    /// let wide = PreparedLayout::parse("s8[2,3]{0,1}").unwrap();
    /// let mut dst = TensorBuf::<_, i8>::zeroed(wide).unwrap();
    /// src.unpack_into(&mut dst).unwrap();
    /// assert_eq!(dst.as_slice(), &[1, -1, 2, -2, 3, -3]);
    /// ```
    ///
    /// # Errors
    /// The layouts differ in rank or a dimension's size.
    pub fn unpack_into<S2, L2>(&self, dst: &mut TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = E::Value>,
        L2: AnyLayout,
        E::Value: Element,
    {
        layout_core::walk::check_same_dims(&self.to_array_layout(), &dst.to_array_layout())?;
        let n = self.bits_per_slot();
        let src = self.as_bytes();
        let (layout, out) = dst.layout_and_slice_mut();
        // Both logical walks in pieces that are one run in each: a piece
        // contiguous in both is unpacked a byte at a time into a slice.
        for_each_run_pair(&self.layout, layout, |a, b, len| {
            if a.stride == 1 && b.stride == 1 {
                unpack_contiguous::<E>(src, a.offset, n, &mut out[b.offset..b.offset + len]);
            } else {
                for i in 0..len {
                    out[b.offset + i * b.stride] =
                        E::from_bits(read_field(src, a.offset + i * a.stride, n));
                }
            }
        });
        Ok(())
    }

    /// A new unpacked tensor of `E`'s value type holding the same array in
    /// `layout` (an `s8[..]`, `u8[..]` or `pred[..]` layout of the same
    /// dims), padding slots zero.
    ///
    /// # Errors
    /// `layout`'s element type is not that of `E::Value`, the dims
    /// differ, or the buffer cannot be allocated
    /// ([`ErrorKind::AllocationFailed`]).
    #[cfg(feature = "alloc")]
    pub fn to_tensor<L2: crate::layout::Stores<E::Value>>(
        &self,
        layout: L2,
    ) -> Result<crate::TensorBuf<L2, E::Value>, Error>
    where
        E::Value: Element,
    {
        let mut out = crate::TensorBuf::zeroed(layout)?;
        self.unpack_into(&mut out)?;
        Ok(out)
    }
}

impl<S: StorageMut<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// Writes every element from an unpacked tensor of `E`'s value type
    /// (`i8`, `u8` or `bool`) with the same dims. Padding bits are left as
    /// they are.
    ///
    /// As [`PackedBase::unpack_into`], the other way: a piece of the two
    /// logical walks contiguous in both is range-checked and packed a byte
    /// at a time (`s8[256,1024]{1,0}` into `s4[256,1024]{1,0:E(4)}`: 0.88×
    /// the hand-written check and pack, `BENCHMARKS.md`).
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout, TensorBuf};
    /// use tessera::packed::S4;
    /// let wide = PreparedLayout::parse("s8[2,3]{1,0}").unwrap();
    /// let src = TensorBuf::<_, i8>::from_fn(wide, |i| i[1] as i8 - i[0] as i8).unwrap();
    /// let packed = PreparedLayout::parse("s4[2,3]{1,0:E(4)}").unwrap();
    /// let mut dst = PackedBuf::<_, S4>::zeroed(packed).unwrap();
    /// dst.pack_from(&src).unwrap();
    /// assert_eq!(dst.as_bytes(), &[0x01, 0x2F, 0x01]); // 0 1 | 2 -1 | 0 1
    /// ```
    ///
    /// # Errors
    /// The dims differ, or a value does not fit the element type (the
    /// elements before it in logical order are written).
    pub fn pack_from<S2, L2>(&mut self, src: &TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: Storage<Elem = E::Value>,
        L2: AnyLayout,
        E::Value: Element,
    {
        layout_core::walk::check_same_dims(&src.to_array_layout(), &self.to_array_layout())?;
        let n = self.bits_per_slot();
        let values = src.as_slice();
        let out = self.storage.as_mut_slice();
        let mut result = Ok(());
        // As `unpack_into`, the other way: both logical walks in step, a
        // piece contiguous in both packed a byte at a time.
        for_each_run_pair(src.layout(), &self.layout, |a, b, len| {
            if result.is_err() {
                return;
            }
            result = match a.stride == 1 && b.stride == 1 {
                true => pack_contiguous::<E>(out, b.offset, n, &values[a.offset..a.offset + len]),
                false => (0..len).try_for_each(|i| {
                    let bits = E::to_bits(values[a.offset + i * a.stride])?;
                    write_field(out, b.offset + i * b.stride, n, bits);
                    Ok(())
                }),
            };
        });
        result
    }
}

/// Copies the run of `len` slots from `s` in `src`, `na` bits each, to
/// the one from `d` in `out`, `nb` bits each, both contiguous: the
/// values unpacked and packed again a byte at a time
/// ([`unpack_contiguous`], [`pack_contiguous`]), 256 at a time, each slot
/// written with the value's bits and its upper bits zero.
fn convert_run<E: SubByte>(
    src: &[u8],
    out: &mut [u8],
    [s, d]: [usize; 2],
    len: usize,
    [na, nb]: [u32; 2],
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    let mut values = [E::ZERO; 256];
    for k in (0..len).step_by(values.len()) {
        let piece = &mut values[..(len - k).min(256)];
        unpack_contiguous::<E>(src, s + k, na, piece);
        // Values read from fields fit them; were one not to, its slots
        // go one at a time.
        if pack_contiguous::<E>(out, d + k, nb, piece).is_err() {
            for i in k..k + piece.len() {
                copy_one(out, s + i, d + i);
            }
        }
    }
}

/// Copies the run of `len` slots starting at `s` in `src` to the one at
/// `d` in `out`, both contiguous with `n` bits per slot: a byte at a time
/// when both start at the same bit within a byte; when they start at
/// different bits (the rows of `s4[R,999]{1,0:E(4)}` that begin mid-byte,
/// into the tile rows of `{1,0:T(8,128)E(4)}`), each whole destination
/// byte from the two source bytes it straddles, shifted, and the partial
/// bytes at its ends merged ([`copy_shifted_run`]); runs of fewer than
/// two bytes, and the ragged ends of equally aligned ones, slot by slot.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_run(
    src: &[u8],
    out: &mut [u8],
    s: usize,
    d: usize,
    len: usize,
    n: u32,
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    let per_byte = (8 / n) as usize;
    if len < 2 * per_byte {
        for i in 0..len {
            copy_one(out, s + i, d + i);
        }
        return;
    }
    if s % per_byte != d % per_byte {
        copy_shifted_run(src, out, [s, d], len, n);
        return;
    }
    // Both start at the same place in a byte, so their spans match.
    let (from, to) = (
        ByteSpan::of(s, len, per_byte),
        ByteSpan::of(d, len, per_byte),
    );
    for i in 0..from.head {
        copy_one(out, s + i, d + i);
    }
    let (sb, db, whole) = (from.first_byte, to.first_byte, from.whole);
    out[db..db + whole].copy_from_slice(&src[sb..sb + whole]);
    for i in from.tail - s..len {
        copy_one(out, s + i, d + i);
    }
}

/// Runs of a packed relayout that continue each other in the destination
/// ([`packed_joined_runs`]: the tile rows of `{1,0:T(8,128)E(2)}` side by
/// side, which continue the rows of `u2[R,1021]{1,0:E(2)}`), joined: where
/// a run starts on a byte in the source and mid-byte in the destination,
/// it and the runs after it that continue it in the destination and start
/// on a byte in the source (all but the last whole bytes) are copied into
/// a stage, and the joined run is shifted from there to the destination
/// once ([`copy_run`]). A run into a destination byte it fills in part
/// merges its ends with what the byte holds: the tile rows of `u2`, 32
/// bytes, each shifted alone, paid more per run than per byte. In a
/// scratch harness (run-time layouts, in turns with run-by-run copies),
/// `u2[4096,1021]` out of `T(8,128)E(2)` went from 21 times `memcpy`'s
/// time to 10.8, `s4[2048,1023]` out of `T(8,128)E(4)` from 9.9 to 6.4,
/// `pred[1024,1001]` out of `T(8,128)E(1)` from 81 to 32. Other runs are
/// copied alone, and so is a joined run of one piece.
struct JoinedRun {
    stage: [u8; Self::STAGE_BYTES],
    /// The first piece's slot in the source.
    first: usize,
    /// The joined run's slot in the destination.
    at: usize,
    /// Its slots, and the pieces they came in.
    slots: usize,
    pieces: usize,
}

impl JoinedRun {
    /// Bytes of the stage.
    const STAGE_BYTES: usize = 4096;

    fn new() -> Self {
        JoinedRun {
            stage: [0; Self::STAGE_BYTES],
            first: 0,
            at: 0,
            slots: 0,
            pieces: 0,
        }
    }

    /// The block of `rows` runs of `len` slots of `n` bits, run `r` at
    /// `start + r * outer` in `src` and `out`: each run joined to the
    /// staged run where it continues it, or staged anew, or copied.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn push_block(
        &mut self,
        src: &[u8],
        out: &mut [u8],
        [start, outer, [rows, len]]: [[usize; 2]; 3],
        n: u32,
    ) {
        let per_byte = (8 / n) as usize;
        let bytes = len.div_ceil(per_byte);
        let at = |r: usize| [0, 1].map(|b| start[b] + r * outer[b]);
        // Every run starts on a byte in the source, and each continues the
        // one before in the destination, whole bytes: or a run alone,
        // whose last byte the source may hold only in part.
        let in_pieces = start[0].is_multiple_of(per_byte)
            && bytes <= Self::STAGE_BYTES
            && (rows == 1
                || (outer[1] == len
                    && len.is_multiple_of(per_byte)
                    && outer[0].is_multiple_of(per_byte)));
        if !in_pieces {
            self.flush(src, out, n);
            for r in 0..rows {
                copy_slots(src, out, at(r), len, n);
            }
            return;
        }
        let mut r = 0;
        while r < rows {
            let [s, d] = at(r);
            let staged = self.slots.div_ceil(per_byte);
            let continues = self.pieces > 0
                && d == self.at + self.slots
                && self.slots.is_multiple_of(per_byte)
                && staged + bytes <= Self::STAGE_BYTES;
            if !continues {
                self.flush(src, out, n);
                if d.is_multiple_of(per_byte) {
                    // On a byte in both: copied as it is.
                    copy_slots(src, out, [s, d], len, n);
                    r += 1;
                    continue;
                }
                (self.first, self.at, self.slots) = (s, d, 0);
            }
            let staged = self.slots.div_ceil(per_byte);
            let take = ((Self::STAGE_BYTES - staged) / bytes).min(rows - r);
            let piece = |k: usize| ((s + k * outer[0]) / per_byte, staged + k * bytes);
            // Tile rows of 128 slots as copies of a constant length (a
            // call to `memcpy` each took a tenth of the `u2` unpack).
            match bytes {
                16 => (0..take).for_each(|k| self.stage_piece::<16>(src, piece(k))),
                32 => (0..take).for_each(|k| self.stage_piece::<32>(src, piece(k))),
                64 => (0..take).for_each(|k| self.stage_piece::<64>(src, piece(k))),
                _ => {
                    for (from, to) in (0..take).map(piece) {
                        self.stage[to..to + bytes].copy_from_slice(&src[from..from + bytes]);
                    }
                }
            }
            self.slots += take * len;
            self.pieces += take;
            r += take;
        }
    }

    /// `B` bytes of `src` from `from` on into the stage at `to`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn stage_piece<const B: usize>(&mut self, src: &[u8], (from, to): (usize, usize)) {
        let piece: &[u8; B] = src[from..from + B].try_into().expect("B bytes");
        self.stage[to..to + B].copy_from_slice(piece);
    }

    /// Copies the staged run to the destination, and empties the stage:
    /// one piece from the source as it is.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn flush(&mut self, src: &[u8], out: &mut [u8], n: u32) {
        match self.pieces {
            0 => return,
            1 => copy_slots(src, out, [self.first, self.at], self.slots, n),
            _ => {
                let stage = &self.stage[..self.slots.div_ceil((8 / n) as usize)];
                copy_slots(stage, out, [0, self.at], self.slots, n);
            }
        }
        self.pieces = 0;
    }
}

/// [`copy_run`] of slots of the value's width `n`, each read from `src`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn copy_slots(src: &[u8], out: &mut [u8], [s, d]: [usize; 2], len: usize, n: u32) {
    copy_run(src, out, s, d, len, n, &|out: &mut [u8], s, d| {
        write_field(out, d, n, read_field(src, s, n));
    });
}

/// [`copy_run`] of runs that start at different bits within a byte, at
/// least two bytes of slots long, a destination byte at a time: each
/// from the two source bytes it straddles (slots are first in the high
/// bits, so the source is a stream of bits from the most significant on,
/// and a destination byte is its 8 bits from `shift` bits into a source
/// byte); the first and last destination bytes, which the run may fill
/// only in part, merged into what they hold. A run of one byte of slots
/// or more will do where `src` holds the byte after the one the run
/// starts in (the rows staged by the packed transposes' vector blocks,
/// `relayout::simd::squares`, for destination rows that start
/// mid-byte).
///
/// # Panics
/// If the run reaches past `out`, or past `src` but for the byte after
/// its last, which is read only if it exists.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn copy_shifted_run(src: &[u8], out: &mut [u8], [s, d]: [usize; 2], len: usize, n: u32) {
    let per_byte = (8 / n) as usize;
    let to = ByteSpan::of(d, len, per_byte);
    if to.head > 0 {
        // The destination's slots `p..per_byte` of its first byte, from
        // the source's slots from `q` of source byte `sb` on, which reach
        // into byte `sb + 1` at most (a run of two bytes or more has it).
        let (p, q, sb) = (d % per_byte, s % per_byte, s / per_byte);
        let word = u16::from_be_bytes([src[sb], src[sb + 1]]);
        let placed = match q >= p {
            true => word << ((q - p) as u32 * n),
            false => word >> ((p - q) as u32 * n),
        };
        merge_byte(
            &mut out[d / per_byte],
            (placed >> 8) as u8,
            0xFF >> (p as u32 * n),
        );
    }
    // The source slot of the destination's first whole byte: not on a
    // byte (the runs start at different bits), so `0 < shift < 8`.
    let first = s + to.head;
    let (sb, shift) = (first / per_byte, (first % per_byte) as u32 * n);
    debug_assert!(shift > 0 && shift < 8);
    // `len >= 2 * per_byte` leaves at least one whole destination byte,
    // whose last slot lies in source byte `sb + 1`: the source bytes
    // `sb..=sb + whole` hold slots of the run.
    let whole = to.whole;
    let (high, low) = (&src[sb..sb + whole], &src[sb + 1..sb + 1 + whole]);
    let dst = &mut out[to.first_byte..to.first_byte + whole];
    straddled_bytes(dst, high, low, shift);
    let done = to.tail - d;
    if done < len {
        // The last `len - done` slots, into the first slots of the
        // destination's last byte; the source byte after `sb` only if
        // they reach it (past the buffer's end, its bits are not used).
        let (last, rest) = (s + done, (len - done) as u32);
        let (sb, q) = (last / per_byte, last % per_byte);
        let next = src.get(sb + 1).copied().unwrap_or(0);
        let placed = u16::from_be_bytes([src[sb], next]) << (q as u32 * n);
        merge_byte(
            &mut out[to.tail / per_byte],
            (placed >> 8) as u8,
            !(0xFF >> (rest * n)),
        );
    }
}

/// `byte`'s bits under `mask` set to `bits`', the others kept.
#[cfg_attr(not(debug_assertions), inline(always))]
fn merge_byte(byte: &mut u8, bits: u8, mask: u8) {
    *byte = (*byte & !mask) | (bits & mask);
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use core::cell::Cell;

    use super::copy_run;
    use crate::packed::bits::{read_field, write_field};

    /// Runs of every length up to 22 bytes of slots, from and to every
    /// slot of a byte, for 1-, 2- and 4-bit slots: the destination holds
    /// the source's slots and nothing else changed, and runs of two bytes
    /// or more go a byte at a time: at the same bit, at most a byte's
    /// slots at each end one at a time; at another, none.
    #[test]
    fn runs_copy_bytewise_at_any_bit() {
        let src: [u8; 24] = core::array::from_fn(|k| (k as u8).wrapping_mul(0x9D) ^ 0x5A);
        for n in [1, 2, 4] {
            let per_byte = (8 / n) as usize;
            for len in 0..=22 * per_byte {
                for s in 0..per_byte {
                    for d in 0..per_byte {
                        // Bits of both values around the run, to keep.
                        let mut out: [u8; 24] = core::array::from_fn(|k| 0xC5 ^ (k as u8) << 3);
                        let mut expected = out;
                        for i in 0..len {
                            write_field(&mut expected, d + i, n, read_field(&src, s + i, n));
                        }
                        let slots = Cell::new(0);
                        let copy_one = |out: &mut [u8], s: usize, d: usize| {
                            slots.set(slots.get() + 1);
                            write_field(out, d, n, read_field(&src, s, n));
                        };
                        copy_run(&src, &mut out, s, d, len, n, &copy_one);
                        let what = format!("n {n}, {len} slots, {s} -> {d}");
                        assert_eq!(out, expected, "{what}");
                        // Equally aligned: whole bytes, the ragged ends
                        // one slot at a time; else bytes only.
                        match (len >= 2 * per_byte, s == d) {
                            (true, true) => assert!(slots.get() < 2 * per_byte, "{what}"),
                            (true, false) => assert_eq!(slots.get(), 0, "{what}"),
                            (false, _) => {}
                        }
                    }
                }
            }
        }
    }
}
