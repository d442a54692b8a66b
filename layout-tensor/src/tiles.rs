//! Tile views: the first-level tiles of a tiled tensor, each a tensor over
//! its own block of the buffer in the layout of a tile's inside
//! ([`TiledLayout`]). A first-level tile is a contiguous block, so mutable
//! tile views are disjoint slices (split with `chunks_exact_mut`).
//!
//! A static parent's grid and tile places are zero-sized readers of
//! constants ([`TiledLayout::Grid`], [`TiledLayout::Place`]): handing out a
//! tile is a counter step and a slice split, and a tile's grid index,
//! origin and extent are computed from the tile number with constant
//! divisors when asked for.

use core::borrow::Borrow;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use layout_core::{AnyLayout, DimVec, Error, TileGrid, TilePlacement, TiledLayout};

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
///
/// `B` is what the tile holds: a [`TensorBase`] over its slots, or for the
/// tiles of a packed tensor a [`PackedBase`](crate::PackedBase) over its
/// bytes ([`PackedTile`](crate::PackedTile)).
pub struct TileBase<S, P: TiledLayout, B = TensorBase<S, <P as TiledLayout>::Tile>> {
    place: P::Place,
    tensor: B,
    storage: PhantomData<fn() -> S>,
}

impl<S, P: TiledLayout> TileBase<S, P> {
    /// The tile at `place` over `block`, which holds its slots.
    #[inline]
    pub(crate) fn new(place: P::Place, layout: P::Tile, block: S) -> Self {
        TileBase::from_body(place, TensorBase::from_parts(layout, block))
    }
}

impl<S, P: TiledLayout, B> TileBase<S, P, B> {
    /// The tile at `place` holding `tensor`, exactly the tile's block.
    #[inline]
    pub(crate) fn from_body(place: P::Place, tensor: B) -> Self {
        TileBase {
            place,
            tensor,
            storage: PhantomData,
        }
    }

    /// The tile's index in the tile grid (one entry per dimension).
    #[inline]
    pub fn grid_index(&self) -> DimVec {
        self.place.grid_index()
    }

    /// The tile's number in memory order (its block is slots
    /// `number * len .. (number + 1) * len` of the parent; bytes for a
    /// packed parent).
    #[inline]
    pub fn number(&self) -> usize {
        self.place.number()
    }

    /// The parent's logical index of the tile's first element.
    #[inline]
    pub fn origin(&self) -> DimVec {
        self.place.origin()
    }

    /// How many of the parent's elements the tile holds along each
    /// dimension; less than the tile's dims at the array's far edges.
    #[inline]
    pub fn extent(&self) -> DimVec {
        self.place.extent()
    }

    /// The tile as a tensor (a packed tensor for packed tiles; also
    /// reached through `Deref`).
    pub fn tensor(&self) -> &B {
        &self.tensor
    }

    /// The tile as a tensor, by value.
    pub fn into_tensor(self) -> B {
        self.tensor
    }
}

impl<S, P: TiledLayout, B> Deref for TileBase<S, P, B> {
    type Target = B;
    #[inline]
    fn deref(&self) -> &B {
        &self.tensor
    }
}

impl<S, P: TiledLayout, B> DerefMut for TileBase<S, P, B> {
    #[inline]
    fn deref_mut(&mut self) -> &mut B {
        &mut self.tensor
    }
}

/// A tile view borrowing its slots, of a tensor in layout `L`.
///
/// ```
/// use tessera::{TensorBuf, TileView, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 5 + i[1]) as f32)?;
/// let tile: TileView<'_, A, f32> = t.tile(&[1, 2]).unwrap();
/// assert_eq!(tile.origin().as_slice(), &[2, 4]);
/// assert_eq!(tile.extent().as_slice(), &[1, 1]); // the corner: one element
/// assert_eq!(tile[[0, 0]], 14.0); // tile-local index
/// assert_eq!(tile.as_slice().len(), 4); // and three padding slots
/// # Ok::<(), tessera::Error>(())
/// ```
pub type TileView<'a, L, T> = TileBase<&'a [T], L>;

/// A tile view borrowing its slots mutably, of a tensor in layout `L`.
///
/// ```
/// use tessera::{TensorBuf, TileViewMut, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// let mut tile: TileViewMut<'_, A, f32> = t.tile_mut(&[0, 1]).unwrap();
/// tile.fill(1.0); // rows 0..2, columns 2..4 of the parent
/// assert_eq!(t.iter().sum::<f32>(), 4.0);
/// assert_eq!(t[[1, 3]], 1.0);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type TileViewMut<'a, L, T> = TileBase<&'a mut [T], L>;

/// The first-level tiles of a layout in memory order, as the engine
/// places them, each paired with its block of a buffer cut into tile-sized
/// chunks (`C`: slots of a tensor, or bytes of a packed tensor). The one
/// tile walk behind every tile iterator.
pub(crate) struct Blocks<L: TiledLayout, C> {
    grid: L::Grid,
    /// The number of the next tile.
    number: usize,
    layout: L::Tile,
    chunks: C,
}

impl<L: TiledLayout, C> Blocks<L, C> {
    /// The tiles of `grid`, their blocks the items of `chunks` in order.
    #[inline]
    pub(crate) fn new(grid: L::Grid, layout: L::Tile, chunks: C) -> Self {
        Blocks {
            grid,
            number: 0,
            layout,
            chunks,
        }
    }
}

impl<L: TiledLayout, C: Iterator> Iterator for Blocks<L, C> {
    type Item = (L::Place, L::Tile, C::Item);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let block = self.chunks.next()?;
        self.number += 1;
        Some((
            L::place(&self.grid, self.number - 1),
            self.layout.clone(),
            block,
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

/// The place and inside layout of the tile at `grid_index` of `layout`,
/// and its number in memory order; `None` when the index is out of the
/// grid or the layout has no tile views.
pub(crate) fn tile_at<L: TiledLayout>(
    layout: &L,
    grid_index: &[usize],
) -> Option<(L::Place, L::Tile, usize)> {
    let (grid, tile) = layout.tiling().ok()?;
    let number = grid.borrow().tile_number(grid_index)?;
    Some((L::place(&grid, number), tile, number))
}

/// The tiles of a tensor in memory order ([`TensorBase::tiles`]).
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)}); // 2 by 3 tiles
/// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 5 + i[1]) as f32)?;
/// assert_eq!(t.tiles().len(), 6);
/// let firsts: Vec<f32> = t.tiles().map(|tile| tile[[0, 0]]).collect();
/// assert_eq!(firsts, [0.0, 2.0, 4.0, 10.0, 12.0, 14.0]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct Tiles<'a, T, L: TiledLayout> {
    blocks: Blocks<L, core::slice::ChunksExact<'a, T>>,
}

impl<'a, T: Element, L: TiledLayout> Iterator for Tiles<'a, T, L> {
    type Item = TileView<'a, L, T>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (place, layout, block) = self.blocks.next()?;
        Some(TileBase::new(place, layout, block))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.blocks.size_hint()
    }
}

impl<T: Element, L: TiledLayout> ExactSizeIterator for Tiles<'_, T, L> {}

/// The tiles of a tensor in memory order, writable
/// ([`TensorBase::tiles_mut`]). Each tile is its own block of the buffer,
/// so the views are disjoint and may be held at once.
///
/// ```
/// use tessera::{TensorBuf, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)}); // 2 by 3 tiles
/// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
/// for mut tile in t.tiles_mut() {
///     let n = tile.number() as f32;
///     tile.fill(n);
/// }
/// assert_eq!(t[[1, 2]], 1.0); // tile (0, 1)
/// assert_eq!(t[[2, 4]], 5.0); // tile (1, 2), the last
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct TilesMut<'a, T, L: TiledLayout> {
    blocks: Blocks<L, core::slice::ChunksExactMut<'a, T>>,
}

impl<'a, T: Element, L: TiledLayout> Iterator for TilesMut<'a, T, L> {
    type Item = TileViewMut<'a, L, T>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (place, layout, block) = self.blocks.next()?;
        Some(TileBase::new(place, layout, block))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.blocks.size_hint()
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
        self.layout().tiling().map(|(grid, _)| *grid.borrow())
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
        let (len, tile_len) = (tiled_len(grid.borrow()), grid.borrow().tile_len());
        let chunks = self.as_slice()[..len].chunks_exact(tile_len);
        Ok(Tiles {
            blocks: Blocks::new(grid, layout, chunks),
        })
    }

    /// The first-level tiles in memory order, each a [`TileView`]. For a
    /// static layout without tiles this is a compile error: the method
    /// cannot be called, as the layout's empty tile list (`()`) is not
    /// `HasTiles` (its `TiledLayout` bound).
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
        let (place, layout, number) = tile_at(self.layout(), grid_index)?;
        let len = layout.buffer_len();
        let block = &self.as_slice()[number * len..][..len];
        Some(TileBase::new(place, layout, block))
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
        let (len, tile_len) = (tiled_len(grid.borrow()), grid.borrow().tile_len());
        let chunks = self.as_mut_slice()[..len].chunks_exact_mut(tile_len);
        Ok(TilesMut {
            blocks: Blocks::new(grid, layout, chunks),
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
        let (place, layout, number) = tile_at(self.layout(), grid_index)?;
        let len = layout.buffer_len();
        let block = &mut self.as_mut_slice()[number * len..][..len];
        Some(TileBase::new(place, layout, block))
    }
}
