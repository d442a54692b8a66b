//! Walks over a packed tensor's slots: [`PackedBase::for_each_mut`],
//! [`PackedBase::fill`], [`PackedBase::fill_padding`] and
//! [`PackedSlots`]. Stretches of slots are written a byte at a time
//! where they cover whole bytes.

use core::marker::PhantomData;

use layout_core::{AnyLayout, Error, ErrorKind, Locus, PaddingValue, PrimitiveType};

use super::bits::{ByteSpan, low_mask, read_field, write_field};
use super::sub_byte::SubByte;
use super::tensor::PackedBase;
use crate::runs::{self, Order};
use crate::slots::SlotCursor;
use crate::storage::{Storage, StorageMut};

impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// Every slot of the buffer in memory order: the index it holds
    /// (`None` for padding) and its value (padding slots read as the
    /// type's value of their bits). Costs as
    /// [`Slots`](crate::Slots), plus a field read per slot.
    ///
    /// ```
    /// use tessera::{Packed, layout};
    /// type A = layout!(s4[3]{0:T(2)E(4)});
    /// let mut t = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::zeroed();
    /// t.set([2], -3)?;
    /// let slots: Vec<(Option<[usize; 1]>, i8)> = t.slots().collect();
    /// assert_eq!(slots, [(Some([0]), 0), (Some([1]), 0), (Some([2]), -3), (None, 0)]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    #[inline]
    pub fn slots(&self) -> PackedSlots<'_, E, L> {
        PackedSlots {
            bytes: self.storage.as_slice(),
            at: SlotCursor::new(&self.layout),
            elem: PhantomData,
        }
    }
}

impl<S: StorageMut<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// Calls `f(index, &mut value)` for every element once, in the
    /// buffer's memory order (as
    /// [`TensorBase::for_each_mut`](crate::TensorBase::for_each_mut)),
    /// and writes back what `f` left
    /// in `value`: each element is read and written on its own, the
    /// index counted by additions.
    ///
    /// # Errors
    /// A value `f` leaves does not fit the element type
    /// ([`ErrorKind::ValueOutOfRange`]); the elements before it are
    /// written, the rest are not visited.
    ///
    /// ```
    /// use tessera::{Packed, layout};
    /// type A = layout!(u4[2,3]{1,0:E(4)});
    /// let mut t = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::zeroed();
    /// t.for_each_mut(|i, v| *v = (i[0] * 3 + i[1]) as u8)?;
    /// assert_eq!(t.get([1, 2]), Some(5));
    /// assert!(t.for_each_mut(|_, v| *v = 16).is_err()); // u4 holds 0..=15
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn for_each_mut(
        &mut self,
        mut f: impl FnMut(&[usize], &mut E::Value),
    ) -> Result<(), Error> {
        let n = self.bits_per_slot();
        let bytes = self.storage.as_mut_slice();
        let rank = self.layout.rank();
        let mut result = Ok(());
        runs::for_each_indexed_run_in(
            &self.layout,
            Order::Memory,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |index, run| {
                if result.is_err() {
                    return;
                }
                let start = index[run.dim];
                // Element `k` of the run: its index, then `f` on its value.
                let mut update = |k: usize, value: &mut E::Value| {
                    index[run.dim] = start + k * run.div;
                    f(&index[..rank], value);
                };
                result = if run.stride == 1 {
                    update_stretch::<E>(bytes, run.offset, run.len, n, &mut update)
                } else {
                    let mut offset = run.offset;
                    let mut done = Ok(());
                    for k in 0..run.len {
                        if let Err(e) = update_field::<E>(bytes, offset, n, |v| update(k, v)) {
                            done = Err(e);
                            break;
                        }
                        offset = offset.wrapping_add(run.stride);
                    }
                    done
                };
                index[run.dim] = start;
            },
        );
        result
    }

    /// Sets every element (not the padding) to `value`: the stretches of
    /// elements are written a whole byte at a time where they cover
    /// whole bytes (`8 / n` copies of the value's bits), field by field
    /// at their ends.
    ///
    /// # Errors
    /// `value` does not fit the element type
    /// ([`ErrorKind::ValueOutOfRange`]); nothing is written.
    ///
    /// ```
    /// use tessera::{Packed, layout};
    /// type A = layout!(s4[3,5]{1,0:T(2,2)E(4)});
    /// let mut t = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::zeroed();
    /// t.fill(-2)?;
    /// assert!(t.iter().all(|v| v == -2));
    /// assert_eq!(t.slots().filter(|(i, v)| i.is_none() && *v == 0).count(), A::BUFFER_LEN - 15);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn fill(&mut self, value: E::Value) -> Result<(), Error> {
        let bits = E::to_bits(value)?;
        self.fill_slots(false, bits);
        Ok(())
    }

    /// Writes the layout's padding value (`pad(..)`, zero when it names
    /// none) into every padding slot, a whole byte at a time where the
    /// padding covers whole bytes.
    ///
    /// # Errors
    /// The padding value does not exist for the element type (`one` of
    /// `s1`, whose values are -1 and 0).
    ///
    /// ```
    /// use tessera::{Packed, layout};
    /// type A = layout!(u2[3]{0:T(4)E(2)});
    /// let mut t = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::from_bytes([0xFF]);
    /// t.fill_padding()?;
    /// assert_eq!(t.as_bytes(), [0b1111_1100]); // slot 3 (low bits) is padding
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn fill_padding(&mut self) -> Result<(), Error> {
        let a = self.layout.to_array_layout();
        let value = match a.layout().padding() {
            Some(p) => p.value(),
            None => PaddingValue::Unspecified,
        };
        let Some(bits) = padding_bits(a.element_type(), value) else {
            return Err(Error::at(
                ErrorKind::PaddingValueUndefined {
                    value: value.name(),
                    element_type: a.element_type(),
                },
                Locus::Attribute("pad"),
            ));
        };
        if self.layout.element_count() < self.layout.buffer_len() {
            self.fill_slots(true, bits);
        }
        Ok(())
    }

    /// Writes `bits` into every padding slot (`padding`) or element slot.
    fn fill_slots(&mut self, padding: bool, bits: u8) {
        let n = self.bits_per_slot();
        let bytes = self.storage.as_mut_slice();
        let pattern = byte_of(bits, n);
        if runs::for_each_slot_box_span(
            &self.layout,
            padding,
            #[cfg_attr(not(debug_assertions), inline(always))]
            |start, len| fill_stretch(bytes, start, len, n, bits, pattern),
        ) {
            return;
        }
        // Slots that are not boxes: the stretches of elements along the
        // memory-order nest, or of the padding between them.
        let walked = runs::for_each_slot_stretch(&self.layout, |start, len, elements| {
            if elements.is_some() != padding {
                fill_stretch(bytes, start, len, n, bits, pattern);
            }
        });
        if !walked {
            // No nest in increasing order: slot by slot.
            let mut slots = SlotCursor::new(&self.layout);
            while let Some((index, offset)) = slots.next(self.layout.buffer_len()) {
                if index.is_none() == padding {
                    write_field(bytes, offset, n, bits);
                }
            }
        }
    }
}

/// A byte of `8 / n` copies of the `n`-bit `bits`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn byte_of(bits: u8, n: u32) -> u8 {
    let mut pattern = 0u8;
    for j in 0..8 / n {
        pattern |= (bits & low_mask(n)) << (8 - n * (j + 1));
    }
    pattern
}

/// Writes the `n`-bit `bits` into slots `start..start + len`: field by
/// field up to the first whole byte, whole bytes (`pattern`, from
/// [`byte_of`]), field by field after the last.
#[cfg_attr(not(debug_assertions), inline(always))]
fn fill_stretch(bytes: &mut [u8], start: usize, len: usize, n: u32, bits: u8, pattern: u8) {
    let span = ByteSpan::of(start, len, (8 / n) as usize);
    for offset in start..start + span.head {
        write_field(bytes, offset, n, bits);
    }
    if let Some(body) = bytes.get_mut(span.first_byte..span.first_byte + span.whole) {
        body.fill(pattern);
    }
    for offset in span.tail..start + len {
        write_field(bytes, offset, n, bits);
    }
}

/// Reads slot `offset`'s value, lets `f` change it and writes it back.
#[cfg_attr(not(debug_assertions), inline(always))]
fn update_field<E: SubByte>(
    bytes: &mut [u8],
    offset: usize,
    n: u32,
    f: impl FnOnce(&mut E::Value),
) -> Result<(), Error> {
    let mut value = E::from_bits(read_field(bytes, offset, n));
    f(&mut value);
    write_field(bytes, offset, n, E::to_bits(value)?);
    Ok(())
}

/// [`update_field`] for slots `start..start + len`, `f(k, value)` for the
/// `k`-th: field by field up to the first whole byte, then a byte at a
/// time (each of its `8 / n` values read from and packed back into a
/// register, one store per byte), then field by field. On an error the
/// values before the failing one are written.
#[cfg_attr(not(debug_assertions), inline(always))]
fn update_stretch<E: SubByte>(
    bytes: &mut [u8],
    start: usize,
    len: usize,
    n: u32,
    f: &mut impl FnMut(usize, &mut E::Value),
) -> Result<(), Error> {
    let per_byte = (8 / n) as usize;
    let end = start + len;
    let head_end = start.next_multiple_of(per_byte).min(end);
    for offset in start..head_end {
        update_field::<E>(bytes, offset, n, |v| f(offset - start, v))?;
    }
    let whole = (end - head_end) / per_byte;
    let first = head_end / per_byte;
    let mask = low_mask(n);
    if let Some(body) = bytes.get_mut(first..first + whole) {
        for (i, byte) in body.iter_mut().enumerate() {
            let old = *byte;
            let mut new = 0u8;
            for j in 0..per_byte as u32 {
                let shift = 8 - n * (j + 1);
                let mut value = E::from_bits((old >> shift) & mask);
                f(head_end - start + i * per_byte + j as usize, &mut value);
                match E::to_bits(value) {
                    Ok(bits) => new |= (bits & mask) << shift,
                    Err(e) => {
                        // The fields from this one on keep their bits.
                        let kept = low_mask(shift + n);
                        *byte = new | (old & kept);
                        return Err(e);
                    }
                }
            }
            *byte = new;
        }
    }
    for offset in head_end + whole * per_byte..end {
        update_field::<E>(bytes, offset, n, |v| f(offset - start, v))?;
    }
    Ok(())
}

/// The bits of padding `value` for sub-byte element type `t`, or `None`
/// when `t` has no such value.
const fn padding_bits(t: PrimitiveType, value: PaddingValue) -> Option<u8> {
    let w = t.bit_width();
    let signed = matches!(t, PrimitiveType::S1 | PrimitiveType::S2 | PrimitiveType::S4);
    match value {
        PaddingValue::Unspecified | PaddingValue::Zero => Some(0),
        // f4e2m1fn: 1.0 is 0b0010; its lowest and highest are ±6.0.
        PaddingValue::One if matches!(t, PrimitiveType::F4e2m1fn) => Some(0b0010),
        PaddingValue::Lowest if matches!(t, PrimitiveType::F4e2m1fn) => Some(0b1111),
        PaddingValue::Highest if matches!(t, PrimitiveType::F4e2m1fn) => Some(0b0111),
        // 1 does not fit `s1` (-1 and 0).
        PaddingValue::One if signed && w == 1 => None,
        PaddingValue::One => Some(1),
        PaddingValue::Lowest if signed => Some(1 << (w - 1)),
        PaddingValue::Lowest => Some(0),
        PaddingValue::Highest if signed => Some(low_mask(w - 1)),
        PaddingValue::Highest => Some(low_mask(w)),
    }
}

/// Every slot of a packed tensor's buffer in memory order, with the index
/// it holds (`None` for padding) and its value
/// ([`PackedBase::slots`]).
///
/// ```
/// use tessera::{Packed, layout};
/// type M = layout!(u2[3]{0:T(4)E(2)}); // three elements and a padding slot
/// let m = Packed::<M, { M::PHYSICAL_BYTE_SIZE }>::from_bytes([0b01_10_11_00]);
/// let slots: Vec<(Option<[usize; 1]>, u8)> = m.slots().collect();
/// assert_eq!(slots, [(Some([0]), 1), (Some([1]), 2), (Some([2]), 3), (None, 0)]);
/// ```
pub struct PackedSlots<'a, E, L: AnyLayout> {
    bytes: &'a [u8],
    at: SlotCursor<'a, L>,
    elem: PhantomData<fn() -> E>,
}

impl<E, L: AnyLayout> Clone for PackedSlots<'_, E, L> {
    fn clone(&self) -> Self {
        PackedSlots {
            bytes: self.bytes,
            at: self.at.clone(),
            elem: PhantomData,
        }
    }
}

impl<E: SubByte, L: AnyLayout> Iterator for PackedSlots<'_, E, L> {
    type Item = (Option<L::Index>, E::Value);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let layout = self.at.layout;
        let (index, offset) = self.at.next(layout.buffer_len())?;
        let n = layout.element_size_in_bits() as u32;
        Some((index, E::from_bits(read_field(self.bytes, offset, n))))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.at.layout.buffer_len() - self.at.offset;
        (n, Some(n))
    }
}

impl<E: SubByte, L: AnyLayout> ExactSizeIterator for PackedSlots<'_, E, L> {}
impl<E: SubByte, L: AnyLayout> core::iter::FusedIterator for PackedSlots<'_, E, L> {}
