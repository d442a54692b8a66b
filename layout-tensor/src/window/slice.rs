//! Windows as plain slices: a window of a strided parent whose elements,
//! in logical order, are consecutive slots of the parent's buffer (a row
//! of a row-major matrix, a band of whole rows, any window of one
//! element) is handed out as `&[T]` / `&mut [T]`.
//!
//! Whether it is follows from the parent's strides
//! ([`AnyLayout::strides`], the engine's): the last dimension the window
//! spans (extent above 1) has stride 1, and each dimension before it
//! that the window spans has the stride of the dimensions after it times
//! their extents. A tiled parent whose tiles reorder elements has no
//! strides, so its windows are never slices (use its tiles instead:
//! [`TensorBase::tiles`](crate::TensorBase::tiles)).

use core::ops::Range;

use layout_core::{AnyLayout, DimVec};

use super::Window;
use crate::element::Element;
use crate::storage::{Storage, StorageMut};

impl<S, L: AnyLayout> Window<S, L> {
    /// The parent's slots holding the window, in logical order, when they
    /// are one run of consecutive slots; `None` otherwise. An empty
    /// window is the empty range.
    fn contiguous_slots(&self) -> Option<Range<usize>> {
        contiguous(
            &self.layout,
            &self.origin[..self.rank],
            &self.extent[..self.rank],
        )
    }
}

/// [`Window::contiguous_slots`] of the window at `origin` of size
/// `extent` of a parent in `layout`.
fn contiguous<L: AnyLayout>(
    layout: &L,
    origin: &[usize],
    extent: &[usize],
) -> Option<Range<usize>> {
    if extent.contains(&0) {
        return Some(0..0);
    }
    let strides = layout.strides()?;
    // Slots per step of the dimension being checked, if contiguous.
    let mut run = 1usize;
    for (&stride, &e) in strides.iter().zip(extent).rev() {
        if e == 1 {
            continue;
        }
        if stride != run {
            return None;
        }
        // At most the window's element count, which fits in the buffer.
        run *= e;
    }
    let start = layout.offset_in_bounds(origin);
    Some(start..start + run)
}

impl<S: Storage, L: AnyLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// The parent's element strides, which are the window's (window index
    /// `i` is `strides · i` slots past the window's first element), when
    /// the parent is strided ([`AnyLayout::strides`]). For a static
    /// parent they are constants, and so is every stride multiplication
    /// of indexing the window.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[4,6]{0,1});
    /// let t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
    /// assert_eq!(t.window([1..3, 2..5]).strides().unwrap().as_slice(), &[1, 4]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn strides(&self) -> Option<DimVec> {
        self.layout.strides()
    }

    /// The window's elements as one slice, in logical (row-major window
    /// index) order, when they are consecutive slots of the parent: a row
    /// of a row-major matrix, whole rows, a column of a column-major one.
    /// An empty window is the empty slice. `None` otherwise (a column of a
    /// row-major matrix, part of several rows, any non-empty window of a
    /// parent whose tiles reorder elements).
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[3,4]);
    /// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 10 + i[1]) as f32)?;
    /// assert_eq!(t.row(1).as_slice(), Some(&[10.0, 11.0, 12.0, 13.0][..]));
    /// assert_eq!(t.window([1..3, 0..4]).as_slice().map(<[f32]>::len), Some(8));
    /// assert_eq!(t.window([1..2, 1..3]).as_slice(), Some(&[11.0, 12.0][..]));
    /// assert_eq!(t.column(2).as_slice(), None); // stride 4
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn as_slice(&self) -> Option<&[S::Elem]> {
        let slots = self.contiguous_slots()?;
        self.storage.as_slice().get(slots)
    }
}

impl<'a, T: Element, L: AnyLayout> Window<&'a [T], L> {
    /// The window as a slice borrowing the parent (not the window), when
    /// its elements are consecutive slots (see [`Window::as_slice`]), so
    /// that `t.row(y).into_slice()` outlives the window.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(u8[2,3]);
    /// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 3 + i[1]) as u8)?;
    /// let row: &[u8] = t.row(1).into_slice().unwrap();
    /// assert_eq!(row, &[3, 4, 5]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn into_slice(self) -> Option<&'a [T]> {
        let slots = self.contiguous_slots()?;
        self.storage.get(slots)
    }
}

impl<S: StorageMut, L: AnyLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// The window's elements as one writable slice, when they are
    /// consecutive slots of the parent (see [`Window::as_slice`]).
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[3,4]);
    /// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
    /// t.row_mut(2).as_mut_slice().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(t[[2, 3]], 4.0);
    /// assert!(t.column_mut(0).as_mut_slice().is_none());
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> Option<&mut [S::Elem]> {
        let slots = self.contiguous_slots()?;
        self.storage.as_mut_slice().get_mut(slots)
    }
}

impl<'a, T: Element, L: AnyLayout> Window<&'a mut [T], L> {
    /// The window as a writable slice borrowing the parent, when its
    /// elements are consecutive slots (see [`Window::as_slice`]).
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(u8[2,3]);
    /// let mut t = TensorBuf::<A, u8>::zeroed(A::NEW)?;
    /// let row: &mut [u8] = t.row_mut(0).into_mut_slice().unwrap();
    /// row.fill(7);
    /// assert_eq!(t.as_slice(), &[7, 7, 7, 0, 0, 0]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub fn into_mut_slice(self) -> Option<&'a mut [T]> {
        let slots = self.contiguous_slots()?;
        self.storage.get_mut(slots)
    }
}
