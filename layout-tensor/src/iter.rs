//! Iterators over a tensor: [`Iter`] (elements in logical order) and
//! [`Slots`] (every slot in memory order). Both count the layout's digits
//! incrementally ([`layout_core::walk`]); neither recomputes an offset per
//! element.

use layout_core::walk;
use layout_core::{ArrayLayout, DimVec, Slot};

/// The elements of a tensor in logical (row-major index) order
/// ([`TensorBase::iter`](crate::TensorBase::iter)).
#[derive(Clone)]
pub struct Iter<'a, T> {
    data: &'a [T],
    elements: walk::Elements,
}

impl<'a, T> Iter<'a, T> {
    pub(crate) fn new(data: &'a [T], layout: &ArrayLayout) -> Self {
        Iter {
            data,
            elements: layout.elements(),
        }
    }

    /// The logical index of the element last returned.
    pub fn index(&self) -> &[usize] {
        self.elements.index()
    }

    /// Pairs each element with its logical index.
    pub fn indexed(self) -> Indexed<'a, T> {
        Indexed { inner: self }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        let offset = self.elements.next_offset()?;
        Some(&self.data[offset])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.elements.size_hint()
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}
impl<T> core::iter::FusedIterator for Iter<'_, T> {}

/// The elements of a tensor in logical order, each with its index
/// ([`Iter::indexed`]).
#[derive(Clone)]
pub struct Indexed<'a, T> {
    inner: Iter<'a, T>,
}

impl<'a, T> Iterator for Indexed<'a, T> {
    type Item = (DimVec, &'a T);

    #[inline]
    fn next(&mut self) -> Option<(DimVec, &'a T)> {
        let value = self.inner.next()?;
        Some((DimVec::from_slice(self.inner.index()), value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for Indexed<'_, T> {}
impl<T> core::iter::FusedIterator for Indexed<'_, T> {}

/// Every slot of a tensor's buffer in memory order, with the logical index
/// it holds (`None` for padding) ([`TensorBase::slots`](crate::TensorBase::slots)).
#[derive(Clone)]
pub struct Slots<'a, T> {
    data: core::slice::Iter<'a, T>,
    slots: walk::Slots,
}

impl<'a, T> Slots<'a, T> {
    pub(crate) fn new(data: &'a [T], layout: &ArrayLayout) -> Self {
        Slots {
            data: data.iter(),
            slots: layout.slots(),
        }
    }
}

impl<'a, T> Iterator for Slots<'a, T> {
    type Item = (Option<DimVec>, &'a T);

    #[inline]
    fn next(&mut self) -> Option<(Option<DimVec>, &'a T)> {
        let slot = self.slots.next()?;
        let value = self.data.next()?;
        let index = match slot {
            Slot::Element(i) => Some(i),
            Slot::Padding => None,
        };
        Some((index, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.slots.size_hint()
    }
}

impl<T> ExactSizeIterator for Slots<'_, T> {}
impl<T> core::iter::FusedIterator for Slots<'_, T> {}
