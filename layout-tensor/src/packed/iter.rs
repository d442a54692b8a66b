//! [`PackedIter`]: a packed tensor's elements in logical order.

use core::marker::PhantomData;

use layout_core::AnyLayout;

#[cfg(doc)]
use super::PackedBase;
use super::bits::read_field;
use super::sub_byte::SubByte;
use crate::runs::{Position, Run};

/// The elements of a packed tensor in logical (row-major index) order
/// ([`PackedBase::iter`]). Its state is a few words (as
/// [`Iter`](crate::Iter)'s): an offset is computed once per run of the
/// last dimension, and each element is a shift and a mask.
///
/// ```
/// use tessera::{Packed, layout};
/// type W = layout!(s4[2,3]{0,1:E(4)}); // column-major: [0,0] [1,0] in byte 0
/// let w = Packed::<W, { W::PHYSICAL_BYTE_SIZE }>::from_bytes([0x14, 0x25, 0x3F]);
/// let it = w.iter();
/// assert_eq!(it.len(), 6);
/// assert_eq!(it.collect::<Vec<i8>>(), [1, 2, 3, 4, 5, -1]); // row-major order
/// ```
pub struct PackedIter<'a, E, L> {
    pub(super) bytes: &'a [u8],
    pub(super) layout: &'a L,
    pub(super) at: Position,
    pub(super) elem: PhantomData<fn() -> E>,
}

impl<E, L> Clone for PackedIter<'_, E, L> {
    fn clone(&self) -> Self {
        PackedIter {
            bytes: self.bytes,
            layout: self.layout,
            at: self.at,
            elem: PhantomData,
        }
    }
}

impl<E: SubByte, L: AnyLayout> Iterator for PackedIter<'_, E, L> {
    type Item = E::Value;

    #[inline]
    fn next(&mut self) -> Option<E::Value> {
        let offset = self.at.next_offset(self.layout)?;
        let bits = self.layout.element_size_in_bits() as u32;
        Some(E::from_bits(read_field(self.bytes, offset, bits)))
    }

    #[inline]
    fn fold<B, F: FnMut(B, E::Value) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        let (bytes, bits) = (self.bytes, self.layout.element_size_in_bits() as u32);
        while let Some(Run {
            offset,
            stride,
            len,
        }) = self.at.take_run(self.layout)
        {
            let mut o = offset;
            for _ in 0..len {
                acc = f(acc, E::from_bits(read_field(bytes, o, bits)));
                o = o.wrapping_add(stride);
            }
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.at.remaining(), Some(self.at.remaining()))
    }
}

impl<E: SubByte, L: AnyLayout> ExactSizeIterator for PackedIter<'_, E, L> {}
impl<E: SubByte, L: AnyLayout> core::iter::FusedIterator for PackedIter<'_, E, L> {}
