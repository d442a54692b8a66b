//! Tile views: the first-level tiles of a tiled tensor, each a tensor over
//! its own block of the buffer in the layout of a tile's inside
//! ([`TiledLayout`]). A first-level tile is a contiguous block, so mutable
//! tile views are disjoint slices (split with `chunks_exact_mut`).

use core::ops::{Deref, DerefMut};

use layout_core::{DimVec, Error, TileGrid, TiledLayout};

use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;

/// One first-level tile of a tensor: a tensor over the tile's block of
/// slots in the layout of a tile's inside (for a static parent a
/// [`TileOf`](layout_core::TileOf), so indexing folds to constants), with
/// where the tile sits in the parent. It dereferences to that tensor:
/// index it with local coordinates (`tile[[y, x]]`), iterate it, fill it.
///
/// Slots past [`TileBase::extent`] hold the parent's padding (edge tiles).
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[20,300]{1,0:T(8,128)});
/// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// for mut tile in t.tiles_mut() {
///     let [ty, tx] = [tile.grid_index()[0], tile.grid_index()[1]];
///     let ext = tile.extent();
///     for y in 0..ext[0] {
///         for x in 0..ext[1] {
///             tile[[y, x]] = (ty * 10 + tx) as f32;
///         }
///     }
/// }
/// assert_eq!(t[[19, 299]], 22.0); // tile (2, 2), 4 rows by 44 columns
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct TileBase<S, L> {
    grid_index: DimVec,
    origin: DimVec,
    extent: DimVec,
    number: usize,
    tensor: TensorBase<S, L>,
}

impl<S, L> TileBase<S, L> {
    /// The tile's index in the tile grid (one entry per dimension).
    pub fn grid_index(&self) -> DimVec {
        self.grid_index
    }

    /// The tile's number in memory order (its block is slots
    /// `number * len .. (number + 1) * len` of the parent).
    pub fn number(&self) -> usize {
        self.number
    }

    /// The parent's logical index of the tile's first element.
    pub fn origin(&self) -> DimVec {
        self.origin
    }

    /// How many of the parent's elements the tile holds along each
    /// dimension; less than the tile's dims at the array's far edges.
    pub fn extent(&self) -> DimVec {
        self.extent
    }

    /// The tile as a tensor (also reached through `Deref`).
    pub fn tensor(&self) -> &TensorBase<S, L> {
        &self.tensor
    }

    /// The tile as a tensor, by value.
    pub fn into_tensor(self) -> TensorBase<S, L> {
        self.tensor
    }
}

impl<S, L> Deref for TileBase<S, L> {
    type Target = TensorBase<S, L>;
    fn deref(&self) -> &TensorBase<S, L> {
        &self.tensor
    }
}

impl<S, L> DerefMut for TileBase<S, L> {
    fn deref_mut(&mut self) -> &mut TensorBase<S, L> {
        &mut self.tensor
    }
}

/// A tile view borrowing its slots.
pub type TileView<'a, L, T> = TileBase<&'a [T], <L as TiledLayout>::Tile>;

/// A tile view borrowing its slots mutably.
pub type TileViewMut<'a, L, T> = TileBase<&'a mut [T], <L as TiledLayout>::Tile>;

/// Where tile `number` sits: counted incrementally in memory order.
#[derive(Clone, Copy)]
struct Cursor {
    grid: TileGrid,
    number: usize,
    grid_index: DimVec,
}

impl Cursor {
    fn new(grid: TileGrid) -> Cursor {
        let zero = [0usize; layout_core::MAX_RANK];
        Cursor {
            grid_index: DimVec::from_slice(&zero[..grid.rank()]),
            grid,
            number: 0,
        }
    }

    /// The place of the current tile, then a step to the next one.
    #[inline]
    fn next(&mut self) -> (usize, DimVec, DimVec, DimVec) {
        let here = self.grid_index;
        let place = (
            self.number,
            here,
            self.grid.origin(here.as_slice()),
            self.grid.extent(here.as_slice()),
        );
        self.number += 1;
        self.grid_index = if self.number < self.grid.tile_count() {
            self.grid.grid_index(self.number)
        } else {
            here
        };
        place
    }
}

/// The tiles of a tensor in memory order ([`TensorBase::tiles`]).
pub struct Tiles<'a, T, L: TiledLayout> {
    cursor: Cursor,
    layout: L::Tile,
    chunks: core::slice::ChunksExact<'a, T>,
}

impl<'a, T: Element, L: TiledLayout> Iterator for Tiles<'a, T, L> {
    type Item = TileView<'a, L, T>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let block = self.chunks.next()?;
        let (number, grid_index, origin, extent) = self.cursor.next();
        Some(TileBase {
            grid_index,
            origin,
            extent,
            number,
            tensor: TensorBase::from_parts(self.layout.clone(), block),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: Element, L: TiledLayout> ExactSizeIterator for Tiles<'_, T, L> {}

/// The tiles of a tensor in memory order, writable
/// ([`TensorBase::tiles_mut`]). Each tile is its own block of the buffer,
/// so the views are disjoint and may be held at once.
pub struct TilesMut<'a, T, L: TiledLayout> {
    cursor: Cursor,
    layout: L::Tile,
    chunks: core::slice::ChunksExactMut<'a, T>,
}

impl<'a, T: Element, L: TiledLayout> Iterator for TilesMut<'a, T, L> {
    type Item = TileViewMut<'a, L, T>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let block = self.chunks.next()?;
        let (number, grid_index, origin, extent) = self.cursor.next();
        Some(TileBase {
            grid_index,
            origin,
            extent,
            number,
            tensor: TensorBase::from_parts(self.layout.clone(), block),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: Element, L: TiledLayout> ExactSizeIterator for TilesMut<'_, T, L> {}

/// The slots of all tiles: the buffer up to the tail padding (`L(n)`).
fn tiled_len(grid: &TileGrid) -> usize {
    grid.tile_count() * grid.tile_len()
}

impl<S: Storage, L: TiledLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The tile grid of this tensor's layout: tile counts, a tile's dims
    /// and inside layout ([`TileGrid`]).
    ///
    /// # Errors
    /// As [`try_tiles`](TensorBase::try_tiles).
    pub fn tile_grid(&self) -> Result<TileGrid, Error> {
        self.layout().tiling().map(|(grid, _)| grid)
    }

    /// The first-level tiles in memory order, each a [`TileView`].
    ///
    /// # Errors
    /// The layout has no tiles ([`ErrorKind::NotTiled`](layout_core::ErrorKind::NotTiled)),
    /// or its tiles are not blocks a view can describe (`*` entries in
    /// the first tile, a first tile with more entries than the array has
    /// dimensions, a later level reaching past the first tile). For a
    /// static layout these are compile errors instead.
    pub fn try_tiles(&self) -> Result<Tiles<'_, S::Elem, L>, Error> {
        let (grid, layout) = self.layout().tiling()?;
        let data = &self.as_slice()[..tiled_len(&grid)];
        Ok(Tiles {
            cursor: Cursor::new(grid),
            layout,
            chunks: data.chunks_exact(grid.tile_len()),
        })
    }

    /// The first-level tiles in memory order, each a [`TileView`]. For a
    /// static layout without tiles this is a compile error (`the layout has
    /// no tiles`).
    ///
    /// # Panics
    /// For a run-time or mixed layout, when [`try_tiles`](TensorBase::try_tiles)
    /// returns an error, with its message.
    #[track_caller]
    pub fn tiles(&self) -> Tiles<'_, S::Elem, L> {
        match self.try_tiles() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// The tile at `grid_index`, or `None` when the index is out of the
    /// grid (or the layout has no tile views, see [`TensorBase::try_tiles`]).
    pub fn tile(&self, grid_index: &[usize]) -> Option<TileView<'_, L, S::Elem>> {
        let (grid, layout) = self.layout().tiling().ok()?;
        let number = grid.tile_number(grid_index)?;
        let len = grid.tile_len();
        let block = &self.as_slice()[number * len..(number + 1) * len];
        Some(tile_at(&grid, number, layout, block))
    }
}

fn tile_at<S, L>(grid: &TileGrid, number: usize, layout: L, block: S) -> TileBase<S, L>
where
    L: layout_core::AnyLayout,
    S: Storage,
    S::Elem: Element,
{
    let grid_index = grid.grid_index(number);
    TileBase {
        origin: grid.origin(grid_index.as_slice()),
        extent: grid.extent(grid_index.as_slice()),
        grid_index,
        number,
        tensor: TensorBase::from_parts(layout, block),
    }
}

impl<S: StorageMut, L: TiledLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The first-level tiles in memory order, writable; every slot of the
    /// tiles is in exactly one view.
    ///
    /// # Errors
    /// As [`TensorBase::try_tiles`].
    pub fn try_tiles_mut(&mut self) -> Result<TilesMut<'_, S::Elem, L>, Error> {
        let (grid, layout) = self.layout().tiling()?;
        let data = &mut self.as_mut_slice()[..tiled_len(&grid)];
        Ok(TilesMut {
            cursor: Cursor::new(grid),
            layout,
            chunks: data.chunks_exact_mut(grid.tile_len()),
        })
    }

    /// The first-level tiles in memory order, writable (see
    /// [`TensorBase::tiles`]).
    ///
    /// # Panics
    /// As [`TensorBase::tiles`].
    #[track_caller]
    pub fn tiles_mut(&mut self) -> TilesMut<'_, S::Elem, L> {
        match self.try_tiles_mut() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// The tile at `grid_index`, writable, or `None` as
    /// [`TensorBase::tile`].
    pub fn tile_mut(&mut self, grid_index: &[usize]) -> Option<TileViewMut<'_, L, S::Elem>> {
        let (grid, layout) = self.layout().tiling().ok()?;
        let number = grid.tile_number(grid_index)?;
        let len = grid.tile_len();
        let block = &mut self.as_mut_slice()[number * len..(number + 1) * len];
        Some(tile_at(&grid, number, layout, block))
    }
}
