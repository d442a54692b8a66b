//! Windows: a rectangular part of a tensor, indexed from its own corner
//! and iterated in logical order, over the parent's buffer and layout. Each
//! access costs the parent's offset of the shifted index (constants for a
//! static parent). Rows and columns are the common special cases.
//! Windows relayout in and out of tensors and other windows (`copy`), a
//! window of a tiled parent names and hands out the first-level tiles it
//! covers (`covered`), and a window whose elements are consecutive slots
//! of a strided parent is a plain slice (`slice`: a row of a row-major
//! matrix, [`Window::as_slice`]).

use core::ops::Range;

use layout_core::{AnyLayout, DimVec, Error, ErrorKind, HasRank, Locus, MAX_RANK};

use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;

mod copy;
mod covered;
mod slice;

pub use covered::{CoveredTile, CoveredTiles, CoveredTilesMut, TileRange, TileRangeIter};

/// A rectangular window of a tensor: the elements at `origin + i` for
/// every `i` below `extent`, over the parent's slots and layout.
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[20,300]{1,0:T(8,128)});
/// let mut t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 1000 + i[1]) as f32)?;
/// let w = t.window([6..10, 126..130]); // crosses four tiles
/// assert_eq!(w[[0, 0]], 6126.0);
/// assert_eq!(w.iter().copied().sum::<f32>(), (6..10).flat_map(|y| (126..130).map(move |x| (y * 1000 + x) as f32)).sum());
/// let mut row = t.row_mut(19);
/// row.for_each_mut(|i, v| *v = i[1] as f32);
/// assert_eq!(t[[19, 299]], 299.0);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct Window<S, L> {
    layout: L,
    storage: S,
    rank: usize,
    origin: [usize; MAX_RANK],
    extent: [usize; MAX_RANK],
}

/// A window borrowing its parent's slots.
///
/// ```
/// use tessera::{TensorBuf, WindowView, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 5 + i[1]) as f32)?;
/// let w: WindowView<'_, A, f32> = t.window([1..3, 2..4]);
/// assert_eq!(w[[0, 0]], 7.0); // the parent's [1, 2]
/// assert_eq!(w.iter().copied().collect::<Vec<_>>(), [7.0, 8.0, 12.0, 13.0]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type WindowView<'a, L, T> = Window<&'a [T], L>;

/// A window borrowing its parent's slots mutably.
///
/// ```
/// use tessera::{TensorBuf, WindowViewMut, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// let mut w: WindowViewMut<'_, A, f32> = t.window_mut([1..3, 2..4]);
/// w.fill(1.0);
/// w[[1, 1]] = 5.0; // the parent's [2, 3]
/// assert_eq!(t[[2, 3]], 5.0);
/// assert_eq!(t.iter().sum::<f32>(), 8.0);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type WindowViewMut<'a, L, T> = Window<&'a mut [T], L>;

/// Checks `ranges` against `sizes` and returns origin and extent.
fn bounds(
    sizes: &[usize],
    ranges: &[Range<usize>],
) -> Result<([usize; MAX_RANK], [usize; MAX_RANK]), Error> {
    if ranges.len() != sizes.len() {
        return Err(Error::new(ErrorKind::IndexRankMismatch {
            expected: sizes.len(),
            found: ranges.len(),
        }));
    }
    let (mut origin, mut extent) = ([0; MAX_RANK], [0; MAX_RANK]);
    for (d, (r, &size)) in ranges.iter().zip(sizes).enumerate() {
        if r.start > r.end || r.end > size {
            return Err(Error::at(
                ErrorKind::WindowOutOfBounds {
                    dim: d,
                    start: r.start,
                    end: r.end,
                    size,
                },
                Locus::Dim(d),
            ));
        }
        origin[d] = r.start;
        extent[d] = r.end - r.start;
    }
    Ok((origin, extent))
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The window `ranges` (one per dimension), or why there is none.
    ///
    /// # Errors
    /// A range reversed or past its dimension's end
    /// ([`ErrorKind::WindowOutOfBounds`]), or a number of ranges other
    /// than the rank (for a run-time layout).
    pub fn try_window<const R: usize>(
        &self,
        ranges: [Range<usize>; R],
    ) -> Result<WindowView<'_, L, S::Elem>, Error>
    where
        L: HasRank<R>,
    {
        let (origin, extent) = bounds(&self.layout().sizes(), &ranges)?;
        Ok(Window {
            layout: self.layout().clone(),
            storage: self.as_slice(),
            rank: R,
            origin,
            extent,
        })
    }

    /// The window `ranges` (one per dimension).
    ///
    /// # Panics
    /// When [`TensorBase::try_window`] returns an error, with its message.
    #[track_caller]
    pub fn window<const R: usize>(&self, ranges: [Range<usize>; R]) -> WindowView<'_, L, S::Elem>
    where
        L: HasRank<R>,
    {
        self.try_window(ranges).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Row `y` of a matrix, as a window of one row.
    ///
    /// # Panics
    /// If `y` is out of bounds.
    #[track_caller]
    pub fn row(&self, y: usize) -> WindowView<'_, L, S::Elem>
    where
        L: HasRank<2>,
    {
        self.window([y..y.saturating_add(1), 0..self.layout().size(1)])
    }

    /// Column `x` of a matrix, as a window of one column.
    ///
    /// # Panics
    /// If `x` is out of bounds.
    #[track_caller]
    pub fn column(&self, x: usize) -> WindowView<'_, L, S::Elem>
    where
        L: HasRank<2>,
    {
        self.window([0..self.layout().size(0), x..x.saturating_add(1)])
    }
}

impl<S: StorageMut, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The window `ranges`, writable, or why there is none.
    ///
    /// # Errors
    /// As [`TensorBase::try_window`].
    pub fn try_window_mut<const R: usize>(
        &mut self,
        ranges: [Range<usize>; R],
    ) -> Result<WindowViewMut<'_, L, S::Elem>, Error>
    where
        L: HasRank<R>,
    {
        let (origin, extent) = bounds(&self.layout().sizes(), &ranges)?;
        let layout = self.layout().clone();
        Ok(Window {
            layout,
            storage: self.as_mut_slice(),
            rank: R,
            origin,
            extent,
        })
    }

    /// The window `ranges`, writable.
    ///
    /// # Panics
    /// As [`TensorBase::window`].
    #[track_caller]
    pub fn window_mut<const R: usize>(
        &mut self,
        ranges: [Range<usize>; R],
    ) -> WindowViewMut<'_, L, S::Elem>
    where
        L: HasRank<R>,
    {
        self.try_window_mut(ranges)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Row `y` of a matrix, writable.
    ///
    /// # Panics
    /// If `y` is out of bounds.
    #[track_caller]
    pub fn row_mut(&mut self, y: usize) -> WindowViewMut<'_, L, S::Elem>
    where
        L: HasRank<2>,
    {
        let cols = self.layout().size(1);
        self.window_mut([y..y.saturating_add(1), 0..cols])
    }

    /// Column `x` of a matrix, writable.
    ///
    /// # Panics
    /// If `x` is out of bounds.
    #[track_caller]
    pub fn column_mut(&mut self, x: usize) -> WindowViewMut<'_, L, S::Elem>
    where
        L: HasRank<2>,
    {
        let rows = self.layout().size(0);
        self.window_mut([0..rows, x..x.saturating_add(1)])
    }
}

impl<S: Storage, L: AnyLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// The parent's index of the window's first element.
    pub fn origin(&self) -> DimVec {
        DimVec::from_slice(&self.origin[..self.rank])
    }

    /// The window's size along each dimension.
    pub fn extent(&self) -> DimVec {
        DimVec::from_slice(&self.extent[..self.rank])
    }

    /// The parent's layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The parent's offset of window index `index`, or `None` when it is
    /// outside the window.
    #[inline]
    fn offset_of(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.rank {
            return None;
        }
        if index.iter().zip(&self.extent).any(|(i, e)| i >= e) {
            return None;
        }
        Some(shifted_offset(
            &self.layout,
            &self.origin[..self.rank],
            index,
        ))
    }

    /// The element at window index `index`, or `None` outside the window.
    #[inline]
    pub fn get_dyn(&self, index: &[usize]) -> Option<&S::Elem> {
        self.offset_of(index)
            .and_then(|o| self.storage.as_slice().get(o))
    }

    /// The parent's offset of window index `index` of a rank known at
    /// compile time, or `None` when it is outside the window. The shifted
    /// index is an array of that rank, so for a static parent the offset
    /// folds to its constant strides as the parent's own indexing does.
    #[inline(always)]
    fn offset_of_array<const R: usize>(&self, index: &[usize; R]) -> Option<usize> {
        if R != self.rank || R > MAX_RANK {
            return None;
        }
        let mut parent = [0usize; R];
        for d in 0..R {
            if index[d] >= self.extent[d] {
                return None;
            }
            parent[d] = self.origin[d] + index[d];
        }
        Some(self.layout.offset_in_bounds(&parent))
    }

    /// The element at window index `index`, or `None` outside the window.
    #[inline]
    pub fn get<const R: usize>(&self, index: [usize; R]) -> Option<&S::Elem>
    where
        L: HasRank<R>,
    {
        self.offset_of_array(&index)
            .and_then(|o| self.storage.as_slice().get(o))
    }

    /// Calls `f(index, &element)` for every element in logical (row-major
    /// window index) order; `index` counts from the window's corner.
    pub fn for_each(&self, mut f: impl FnMut(&[usize], &S::Elem)) {
        let data = self.storage.as_slice();
        walk(
            &self.layout,
            &self.origin[..self.rank],
            &self.extent[..self.rank],
            |index, offset| f(index, &data[offset]),
        );
    }

    /// The elements in logical (row-major window index) order.
    pub fn iter(&self) -> WindowIter<'_, S::Elem, L> {
        WindowIter {
            data: self.storage.as_slice(),
            layout: &self.layout,
            rank: self.rank,
            origin: self.origin,
            extent: self.extent,
            index: [0; MAX_RANK],
            done: self.extent[..self.rank].contains(&0),
        }
    }

    /// A window of this window (`ranges` counted from its corner).
    ///
    /// # Errors
    /// As [`TensorBase::try_window`], against this window's extent.
    pub fn try_window<const R: usize>(
        &self,
        ranges: [Range<usize>; R],
    ) -> Result<WindowView<'_, L, S::Elem>, Error>
    where
        L: HasRank<R>,
    {
        let (mut origin, extent) = bounds(&self.extent[..self.rank], &ranges)?;
        for (o, base) in origin.iter_mut().zip(&self.origin[..self.rank]) {
            *o += base;
        }
        Ok(Window {
            layout: self.layout.clone(),
            storage: self.storage.as_slice(),
            rank: self.rank,
            origin,
            extent,
        })
    }

    /// A window of this window (`ranges` counted from its corner).
    ///
    /// # Panics
    /// When [`Window::try_window`] returns an error, with its message.
    #[track_caller]
    pub fn window<const R: usize>(&self, ranges: [Range<usize>; R]) -> WindowView<'_, L, S::Elem>
    where
        L: HasRank<R>,
    {
        self.try_window(ranges).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<S: StorageMut, L: AnyLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// The element at window index `index`, writable, or `None` outside
    /// the window.
    #[inline]
    pub fn get_dyn_mut(&mut self, index: &[usize]) -> Option<&mut S::Elem> {
        let o = self.offset_of(index)?;
        self.storage.as_mut_slice().get_mut(o)
    }

    /// The element at window index `index`, writable, or `None` outside
    /// the window.
    #[inline]
    pub fn get_mut<const R: usize>(&mut self, index: [usize; R]) -> Option<&mut S::Elem>
    where
        L: HasRank<R>,
    {
        let o = self.offset_of_array(&index)?;
        self.storage.as_mut_slice().get_mut(o)
    }

    /// Calls `f(index, &mut element)` for every element in logical order.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&[usize], &mut S::Elem)) {
        let data = self.storage.as_mut_slice();
        walk(
            &self.layout,
            &self.origin[..self.rank],
            &self.extent[..self.rank],
            |index, offset| f(index, &mut data[offset]),
        );
    }

    /// Sets every element of the window to `value`.
    pub fn fill(&mut self, value: S::Elem) {
        self.for_each_mut(|_, v| *v = value);
    }
}

/// The parent's offset of window index `index` (inside the window) of the
/// window at `origin`: the engine's offset of `origin + index`.
#[inline(always)]
fn shifted_offset<L: AnyLayout>(layout: &L, origin: &[usize], index: &[usize]) -> usize {
    let mut parent = [0usize; MAX_RANK];
    for (p, (o, i)) in parent.iter_mut().zip(origin.iter().zip(index)) {
        *p = o + i;
    }
    layout.offset_in_bounds(&parent[..origin.len()])
}

/// Calls `f(window index, parent offset)` for every index of the window at
/// `origin` of size `extent`, in logical order (last dimension fastest).
fn walk<L: AnyLayout>(
    layout: &L,
    origin: &[usize],
    extent: &[usize],
    mut f: impl FnMut(&[usize], usize),
) {
    let rank = origin.len();
    if extent.contains(&0) {
        return;
    }
    let mut index = [0usize; MAX_RANK];
    let mut parent = [0usize; MAX_RANK];
    parent[..rank].copy_from_slice(origin);
    loop {
        f(&index[..rank], layout.offset_in_bounds(&parent[..rank]));
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            parent[d] += 1;
            if index[d] < extent[d] {
                break;
            }
            index[d] = 0;
            parent[d] = origin[d];
        }
    }
}

/// The elements of a window in logical order ([`Window::iter`]).
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[3,5]{0,1}); // column-major
/// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 5 + i[1]) as f32)?;
/// // Row-major window order (x fastest), whatever the parent's memory order.
/// let v: Vec<f32> = t.window([0..2, 3..5]).iter().copied().collect();
/// assert_eq!(v, [3.0, 4.0, 8.0, 9.0]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct WindowIter<'a, T, L> {
    data: &'a [T],
    layout: &'a L,
    rank: usize,
    origin: [usize; MAX_RANK],
    extent: [usize; MAX_RANK],
    index: [usize; MAX_RANK],
    done: bool,
}

impl<'a, T, L: AnyLayout> Iterator for WindowIter<'a, T, L> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        if self.done {
            return None;
        }
        let rank = self.rank;
        let mut parent = [0usize; MAX_RANK];
        for (p, (o, i)) in parent
            .iter_mut()
            .zip(self.origin.iter().zip(&self.index))
            .take(rank)
        {
            *p = o + i;
        }
        let item = &self.data[self.layout.offset_in_bounds(&parent[..rank])];
        let mut d = rank;
        loop {
            if d == 0 {
                self.done = true;
                break;
            }
            d -= 1;
            self.index[d] += 1;
            if self.index[d] < self.extent[d] {
                break;
            }
            self.index[d] = 0;
        }
        Some(item)
    }
}

impl<S: Storage, L: HasRank<R>, const R: usize> core::ops::Index<[usize; R]> for Window<S, L>
where
    S::Elem: Element,
{
    type Output = S::Elem;

    /// # Panics
    /// If `index` is outside the window, naming the dimension.
    #[inline]
    #[track_caller]
    fn index(&self, index: [usize; R]) -> &S::Elem {
        match self.get(index) {
            Some(v) => v,
            // A copy made on the panic path only, so that the hot path
            // keeps the index in registers.
            None => outside(
                &self.extent[..self.rank],
                core::array::from_fn::<_, R, _>(|d| index[d]),
            ),
        }
    }
}

impl<S: StorageMut, L: HasRank<R>, const R: usize> core::ops::IndexMut<[usize; R]> for Window<S, L>
where
    S::Elem: Element,
{
    /// # Panics
    /// If `index` is outside the window, naming the dimension.
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: [usize; R]) -> &mut S::Elem {
        let extent = self.extent;
        let rank = self.rank;
        match self.get_mut(index) {
            Some(v) => v,
            None => outside(
                &extent[..rank],
                core::array::from_fn::<_, R, _>(|d| index[d]),
            ),
        }
    }
}

/// Panics with the engine's bounds message for `index` against `extent`.
#[cold]
#[inline(never)]
#[track_caller]
fn outside<const R: usize>(extent: &[usize], index: [usize; R]) -> ! {
    panic!(
        "{}",
        layout_core::layouts::traits::bounds_error(&DimVec::from_slice(extent), &index)
    )
}
