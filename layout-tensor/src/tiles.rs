//! Tile views: the first-level tiles of a tiled tensor, each a tensor over
//! its own block of the buffer in the layout of a tile's inside
//! ([`TiledLayout`]). A first-level tile is a contiguous block, so mutable
//! tile views are disjoint slices (split with `chunks_exact_mut`).

use core::ops::{Deref, DerefMut};

use layout_core::{DimVec, Error, MAX_RANK, TileGrid, TiledLayout};

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
    place: Place,
    tensor: TensorBase<S, L>,
}

impl<S, L> TileBase<S, L> {
    /// The tile's index in the tile grid (one entry per dimension).
    pub fn grid_index(&self) -> DimVec {
        DimVec::from_slice(&self.place.grid_index[..self.place.rank])
    }

    /// The tile's number in memory order (its block is slots
    /// `number * len .. (number + 1) * len` of the parent).
    pub fn number(&self) -> usize {
        self.place.number
    }

    /// The parent's logical index of the tile's first element.
    pub fn origin(&self) -> DimVec {
        DimVec::from_slice(&self.place.origin[..self.place.rank])
    }

    /// How many of the parent's elements the tile holds along each
    /// dimension; less than the tile's dims at the array's far edges.
    pub fn extent(&self) -> DimVec {
        DimVec::from_slice(&self.place.extent[..self.place.rank])
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

/// Where the current tile sits, stepped through the grid in memory order
/// like an odometer (no divisions per tile).
#[derive(Clone, Copy)]
struct Cursor {
    rank: usize,
    /// Logical dims, major to minor in memory.
    order: [usize; MAX_RANK],
    counts: [usize; MAX_RANK],
    tile_dims: [usize; MAX_RANK],
    sizes: [usize; MAX_RANK],
    number: usize,
    grid_index: [usize; MAX_RANK],
    origin: [usize; MAX_RANK],
    extent: [usize; MAX_RANK],
}

impl Cursor {
    fn new(grid: &TileGrid, sizes: &[usize]) -> Cursor {
        let rank = grid.rank();
        let mut c = Cursor {
            rank,
            order: [0; MAX_RANK],
            counts: [0; MAX_RANK],
            tile_dims: [0; MAX_RANK],
            sizes: [0; MAX_RANK],
            number: 0,
            grid_index: [0; MAX_RANK],
            origin: [0; MAX_RANK],
            extent: [0; MAX_RANK],
        };
        c.order[..rank].copy_from_slice(grid.major_to_minor());
        c.counts[..rank].copy_from_slice(&grid.counts());
        c.tile_dims[..rank].copy_from_slice(&grid.tile_dims());
        c.sizes[..rank].copy_from_slice(sizes);
        c.extent[..rank].copy_from_slice(&grid.extent(&c.grid_index[..rank]));
        c
    }

    /// The current tile's place, then a step to the next tile.
    #[inline]
    fn next(&mut self) -> Place {
        let place = Place {
            rank: self.rank,
            number: self.number,
            grid_index: self.grid_index,
            origin: self.origin,
            extent: self.extent,
        };
        self.number += 1;
        let mut i = self.rank;
        while i > 0 {
            i -= 1;
            let d = self.order[i];
            self.grid_index[d] += 1;
            if self.grid_index[d] < self.counts[d] || i == 0 {
                self.origin[d] += self.tile_dims[d];
                self.extent[d] =
                    self.tile_dims[d].min(self.sizes[d].saturating_sub(self.origin[d]));
                break;
            }
            self.grid_index[d] = 0;
            self.origin[d] = 0;
            self.extent[d] = self.tile_dims[d].min(self.sizes[d]);
        }
        place
    }
}

/// Where one tile sits in its parent.
#[derive(Clone, Copy)]
struct Place {
    rank: usize,
    number: usize,
    grid_index: [usize; MAX_RANK],
    origin: [usize; MAX_RANK],
    extent: [usize; MAX_RANK],
}

impl Place {
    fn of(grid: &TileGrid, number: usize) -> Place {
        let rank = grid.rank();
        let mut p = Place {
            rank,
            number,
            grid_index: [0; MAX_RANK],
            origin: [0; MAX_RANK],
            extent: [0; MAX_RANK],
        };
        let g = grid.grid_index(number);
        p.grid_index[..rank].copy_from_slice(&g);
        p.origin[..rank].copy_from_slice(&grid.origin(&g));
        p.extent[..rank].copy_from_slice(&grid.extent(&g));
        p
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
        Some(TileBase {
            place: self.cursor.next(),
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
        Some(TileBase {
            place: self.cursor.next(),
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
            cursor: Cursor::new(&grid, &self.layout().sizes()),
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
    TileBase {
        place: Place::of(grid, number),
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
        let cursor = Cursor::new(&grid, &self.layout().sizes());
        let data = &mut self.as_mut_slice()[..tiled_len(&grid)];
        Ok(TilesMut {
            cursor,
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
