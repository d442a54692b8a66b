//! The first-level tiles a window of a tiled tensor covers: their
//! tile-grid indices ([`TileRange`]) and views of them, each with the part
//! of the tile that lies in the window ([`CoveredTile`]). Built on the
//! parent's [`TileGrid`] and tile views ([`TiledLayout`]), in memory order
//! (tile numbers increase), so writable views are disjoint slices split
//! off one after another.

use core::borrow::Borrow;
use core::ops::{Deref, DerefMut, Range};

use layout_core::{DimVec, Error, MAX_RANK, TileGrid, TiledLayout};

use super::Window;
use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tiles::TileBase;

/// The tile-grid indices of the first-level tiles a window covers: a box
/// `start[d]..end[d]` along each dimension ([`Window::tile_range`]).
/// Empty when the window is.
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[20,300]{1,0:T(8,128)});
/// let t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// let r = t.window([6..10, 126..300]).tile_range()?;
/// assert_eq!(r.range(0), 0..2); // rows 6..10 touch tile rows 0 and 1
/// assert_eq!(r.range(1), 0..3); // columns 126..300 touch all three
/// assert_eq!(r.len(), 6);
/// assert_eq!(r.iter().next().unwrap().as_slice(), &[0, 0]);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRange {
    rank: usize,
    start: [usize; MAX_RANK],
    end: [usize; MAX_RANK],
    /// The grid's dimensions, major to minor in memory.
    major_to_minor: [usize; MAX_RANK],
}

impl TileRange {
    /// The tiles of `grid` that hold elements `origin..origin + extent`.
    fn new(grid: &TileGrid, origin: &[usize], extent: &[usize]) -> TileRange {
        let rank = grid.rank();
        let (mut start, mut end) = ([0; MAX_RANK], [0; MAX_RANK]);
        let empty = extent.contains(&0);
        let dims = grid.tile_dims();
        for d in 0..rank {
            start[d] = origin[d] / dims[d];
            end[d] = if empty {
                start[d]
            } else {
                (origin[d] + extent[d]).div_ceil(dims[d])
            };
        }
        let mut major_to_minor = [0; MAX_RANK];
        major_to_minor[..rank].copy_from_slice(grid.major_to_minor());
        TileRange {
            rank,
            start,
            end,
            major_to_minor,
        }
    }

    /// The first tile-grid index along each dimension.
    pub fn start(&self) -> DimVec {
        DimVec::from_slice(&self.start[..self.rank])
    }

    /// One past the last tile-grid index along each dimension.
    pub fn end(&self) -> DimVec {
        DimVec::from_slice(&self.end[..self.rank])
    }

    /// The tile-grid indices covered along dimension `dim`.
    ///
    /// # Panics
    /// If `dim` is not below the rank.
    #[track_caller]
    pub fn range(&self, dim: usize) -> Range<usize> {
        assert!(
            dim < self.rank,
            "dimension {dim} of a rank-{} range",
            self.rank
        );
        self.start[dim]..self.end[dim]
    }

    /// How many tiles the window covers.
    pub fn len(&self) -> usize {
        (0..self.rank)
            .map(|d| self.end[d] - self.start[d])
            .product()
    }

    /// Whether the window covers no tile (it has no elements).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the tile at `grid_index` is one the window covers.
    pub fn contains(&self, grid_index: &[usize]) -> bool {
        grid_index.len() == self.rank
            && (0..self.rank).all(|d| (self.start[d]..self.end[d]).contains(&grid_index[d]))
    }

    /// The covered tile-grid indices in memory order (the parent's tile
    /// numbers increase).
    pub fn iter(&self) -> TileRangeIter {
        TileRangeIter {
            range: *self,
            next: (!self.is_empty()).then_some(self.start),
        }
    }
}

impl IntoIterator for &TileRange {
    type Item = DimVec;
    type IntoIter = TileRangeIter;
    fn into_iter(self) -> TileRangeIter {
        self.iter()
    }
}

/// The tile-grid indices of a [`TileRange`], in memory order.
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[3,5]{0,1:T(2,2)}); // column-major tiles
/// let t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// let r = t.window([0..3, 1..3]).tile_range()?;
/// let order: Vec<Vec<usize>> = r.iter().map(|i| i.as_slice().to_vec()).collect();
/// assert_eq!(order, [[0, 0], [1, 0], [0, 1], [1, 1]]); // y fastest, as in memory
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TileRangeIter {
    range: TileRange,
    next: Option<[usize; MAX_RANK]>,
}

impl TileRangeIter {
    /// The next grid index, as an array (entries past the rank zero).
    fn next_array(&mut self) -> Option<[usize; MAX_RANK]> {
        let current = self.next?;
        let r = &self.range;
        let mut index = current;
        // An odometer whose fastest digit is the grid's most minor dim.
        self.next = None;
        for &d in r.major_to_minor[..r.rank].iter().rev() {
            index[d] += 1;
            if index[d] < r.end[d] {
                self.next = Some(index);
                break;
            }
            index[d] = r.start[d];
        }
        Some(current)
    }
}

impl Iterator for TileRangeIter {
    type Item = DimVec;
    fn next(&mut self) -> Option<DimVec> {
        let rank = self.range.rank;
        self.next_array().map(|i| DimVec::from_slice(&i[..rank]))
    }
}

/// A first-level tile that a window covers: the tile view (it
/// dereferences to [`TileBase`]: index it with tile-local coordinates),
/// and which part of it lies in the window.
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[20,300]{1,0:T(8,128)});
/// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// let mut w = t.window_mut([6..10, 126..130]);
/// for mut tile in w.covered_tiles_mut()? {
///     // Fill the window's part of each tile, with tile-local indices.
///     let (o, e) = (tile.part_origin(), tile.part_extent());
///     for y in o[0]..o[0] + e[0] {
///         for x in o[1]..o[1] + e[1] {
///             tile[[y, x]] = 1.0;
///         }
///     }
/// }
/// assert_eq!(t.iter().sum::<f32>(), 16.0);
/// assert_eq!(t[[6, 126]] + t[[9, 129]], 2.0);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct CoveredTile<S, L: TiledLayout> {
    tile: TileBase<S, L>,
    part_origin: DimVec,
    part_extent: DimVec,
    window_origin: DimVec,
}

impl<S, L: TiledLayout> CoveredTile<S, L> {
    /// The tile view.
    pub fn tile(&self) -> &TileBase<S, L> {
        &self.tile
    }

    /// The tile view, by value.
    pub fn into_tile(self) -> TileBase<S, L> {
        self.tile
    }

    /// The tile-local index of the first element of the window's part of
    /// this tile.
    pub fn part_origin(&self) -> DimVec {
        self.part_origin
    }

    /// The size of the window's part of this tile along each dimension
    /// (within the tile's [`extent`](TileBase::extent): never padding).
    pub fn part_extent(&self) -> DimVec {
        self.part_extent
    }

    /// The window index of the first element of the window's part of
    /// this tile.
    pub fn window_origin(&self) -> DimVec {
        self.window_origin
    }
}

impl<S, L: TiledLayout> Deref for CoveredTile<S, L> {
    type Target = TileBase<S, L>;
    fn deref(&self) -> &TileBase<S, L> {
        &self.tile
    }
}

impl<S, L: TiledLayout> DerefMut for CoveredTile<S, L> {
    fn deref_mut(&mut self) -> &mut TileBase<S, L> {
        &mut self.tile
    }
}

/// What the covered-tile iterators share: the parent's grid, a tile's
/// inside layout, the window and the grid indices still to visit.
struct Cover<L: TiledLayout> {
    grid: L::Grid,
    tile_layout: L::Tile,
    rank: usize,
    origin: [usize; MAX_RANK],
    extent: [usize; MAX_RANK],
    indices: TileRangeIter,
}

impl<L: TiledLayout> Cover<L> {
    fn new<S>(window: &Window<S, L>) -> Result<Cover<L>, Error> {
        let (grid, tile_layout) = window.layout.tiling()?;
        let (origin, extent) = (&window.origin[..window.rank], &window.extent[..window.rank]);
        let indices = TileRange::new(grid.borrow(), origin, extent).iter();
        Ok(Cover {
            grid,
            tile_layout,
            rank: window.rank,
            origin: window.origin,
            extent: window.extent,
            indices,
        })
    }

    /// The next covered tile: its number, slot range and the window's
    /// part of it, with `block` giving the slots for the range.
    fn next_tile<S>(&mut self, block: impl FnOnce(Range<usize>) -> S) -> Option<CoveredTile<S, L>> {
        let index = self.indices.next_array()?;
        let grid: &TileGrid = self.grid.borrow();
        let rank = self.rank;
        let number = grid
            .tile_number(&index[..rank])
            .expect("a covered tile is in the grid");
        let (tile_origin, tile_extent) = (grid.origin(&index[..rank]), grid.extent(&index[..rank]));
        let (mut part_origin, mut part_extent, mut window_origin) =
            ([0; MAX_RANK], [0; MAX_RANK], [0; MAX_RANK]);
        for d in 0..rank {
            // The window's elements in this tile, in parent indices.
            let from = tile_origin[d].max(self.origin[d]);
            let to = (tile_origin[d] + tile_extent[d]).min(self.origin[d] + self.extent[d]);
            part_origin[d] = from - tile_origin[d];
            part_extent[d] = to - from;
            window_origin[d] = from - self.origin[d];
        }
        let len = grid.tile_len();
        let slots = block(number * len..(number + 1) * len);
        Some(CoveredTile {
            tile: TileBase::new(
                L::place(&self.grid, number),
                self.tile_layout.clone(),
                slots,
            ),
            part_origin: DimVec::from_slice(&part_origin[..rank]),
            part_extent: DimVec::from_slice(&part_extent[..rank]),
            window_origin: DimVec::from_slice(&window_origin[..rank]),
        })
    }
}

/// The tiles a window covers, as read-only views ([`Window::covered_tiles`]).
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 5 + i[1]) as f32)?;
/// let w = t.window([1..3, 1..3]); // one element in each of four tiles
/// let tiles: Vec<_> = w.covered_tiles()?.collect();
/// assert_eq!(tiles.len(), 4);
/// assert_eq!(tiles[0].part_origin().as_slice(), &[1, 1]); // the parent's [1, 1]
/// assert_eq!(tiles[3].grid_index().as_slice(), &[1, 1]);
/// assert_eq!(tiles[3][[0, 0]], 12.0); // the parent's [2, 2]
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct CoveredTiles<'a, T, L: TiledLayout> {
    cover: Cover<L>,
    data: &'a [T],
}

impl<'a, T: Element, L: TiledLayout> Iterator for CoveredTiles<'a, T, L> {
    type Item = CoveredTile<&'a [T], L>;
    fn next(&mut self) -> Option<Self::Item> {
        let data = self.data;
        self.cover.next_tile(|slots| &data[slots])
    }
}

/// The tiles a window covers, as writable views
/// ([`Window::covered_tiles_mut`]); each slot is in at most one view.
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// let mut w = t.window_mut([1..3, 1..3]); // touches four tiles
/// for mut tile in w.covered_tiles_mut()? {
///     tile.fill(1.0); // the whole tile, not only the window's part
/// }
/// assert_eq!(t.iter().sum::<f32>(), 12.0); // 4 + 4 + 2 + 2 elements
/// assert_eq!(t[[0, 4]], 0.0); // tile (0, 2) is not covered
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct CoveredTilesMut<'a, T, L: TiledLayout> {
    cover: Cover<L>,
    /// The slots from `rest_start` on, not yet handed out.
    rest: &'a mut [T],
    rest_start: usize,
}

impl<'a, T: Element, L: TiledLayout> Iterator for CoveredTilesMut<'a, T, L> {
    type Item = CoveredTile<&'a mut [T], L>;
    fn next(&mut self) -> Option<Self::Item> {
        let (rest, rest_start) = (&mut self.rest, &mut self.rest_start);
        self.cover.next_tile(|slots| {
            // Tile numbers increase, so the block is ahead of `rest_start`.
            let rest_now = core::mem::take(rest);
            let (_, from_block) = rest_now.split_at_mut(slots.start - *rest_start);
            let (block, after) = from_block.split_at_mut(slots.len());
            *rest = after;
            *rest_start = slots.end;
            block
        })
    }
}

impl<S: Storage, L: TiledLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// The tile-grid indices of the parent's first-level tiles that hold
    /// elements of this window.
    ///
    /// # Errors
    /// As [`TensorBase::try_tiles`](crate::TensorBase::try_tiles): the
    /// parent has no tiles, or none a view can describe.
    pub fn tile_range(&self) -> Result<TileRange, Error> {
        let (grid, _) = self.layout.tiling()?;
        Ok(TileRange::new(
            grid.borrow(),
            &self.origin[..self.rank],
            &self.extent[..self.rank],
        ))
    }

    /// Views of the parent's first-level tiles that hold elements of this
    /// window, in memory order, each with the window's part of it.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[10,10]{1,0:T(4,4)});
    /// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 10 + i[1]) as f32)?;
    /// let w = t.window([3..9, 8..10]); // the right edge: tiles of 2 columns
    /// let tiles: Vec<_> = w.covered_tiles()?.collect();
    /// assert_eq!(tiles.len(), 3);
    /// assert_eq!(tiles[0].grid_index().as_slice(), &[0, 2]);
    /// assert_eq!(tiles[0].part_origin().as_slice(), &[3, 0]);
    /// assert_eq!(tiles[0].part_extent().as_slice(), &[1, 2]);
    /// assert_eq!(tiles[2].extent().as_slice(), &[2, 2]); // rows 8..10 of a 4-row tile
    /// assert_eq!(tiles[2][[1, 1]], 99.0);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Window::tile_range`].
    pub fn covered_tiles(&self) -> Result<CoveredTiles<'_, S::Elem, L>, Error> {
        Ok(CoveredTiles {
            cover: Cover::new(self)?,
            data: self.storage.as_slice(),
        })
    }
}

impl<S: StorageMut, L: TiledLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// Writable views of the parent's first-level tiles that hold elements
    /// of this window, in memory order (see [`Window::covered_tiles`]).
    /// The whole tile is writable, including its slots outside the window.
    ///
    /// # Errors
    /// As [`Window::tile_range`].
    pub fn covered_tiles_mut(&mut self) -> Result<CoveredTilesMut<'_, S::Elem, L>, Error> {
        Ok(CoveredTilesMut {
            cover: Cover::new(self)?,
            rest: self.storage.as_mut_slice(),
            rest_start: 0,
        })
    }
}
