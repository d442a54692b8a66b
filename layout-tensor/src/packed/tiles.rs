//! Tile views of packed tensors: the first-level tiles of a packed
//! layout, each a packed tensor over the tile's own bytes in the layout
//! of a tile's inside, with where the tile sits in the parent.
//!
//! The tiles are the engine's ([`TileGrid`]) and are walked by the same
//! code as the tiles of unpacked tensors ([`crate::TileBase`]). A tile is
//! `tile_len` slots of `n` bits each (the layout's `E(n)`, or 8); tile
//! views are offered when a tile is a whole number of bytes
//! (`tile_len * n % 8 == 0`), because then tile `k` is exactly bytes
//! `k * tile_bytes .. (k + 1) * tile_bytes` and mutable tile views are
//! disjoint byte slices. Otherwise neighbouring tiles share a byte and
//! there is no tile view: [`PackedBase::try_tiles`] returns
//! [`ErrorKind::TileViewUnsupported`] for run-time layouts, and for a
//! static layout asking for tiles is a compile error (the method cannot
//! be called: the layout does not meet its bound).

use core::borrow::Borrow;

#[cfg(doc)]
use layout_core::ErrorKind;
use layout_core::{AnyLayout, ArrayLayout, Error, ErrorKind as Kind, Locus, TileGrid, TiledLayout};

use crate::storage::{Storage, StorageMut};
use crate::tiles::{Blocks, TileBase, tile_at};

use super::sub_byte::SubByte;
use super::tensor::PackedBase;

/// One first-level tile of a packed tensor: a packed tensor over the
/// tile's bytes in the layout of a tile's inside (for a static parent a
/// [`TileOf`](layout_core::TileOf), so indexing folds to constants), with
/// where the tile sits in the parent. It dereferences to that packed
/// tensor: read and write values with tile-local indices
/// (`tile.get([y, x])`, `tile.set([y, x], v)`), take its bytes with
/// `as_bytes()` / `as_bytes_mut()`.
///
/// It is a [`TileBase`] (the tile views of unpacked tensors) holding a
/// [`PackedBase`]: [`grid_index`](TileBase::grid_index),
/// [`origin`](TileBase::origin) and [`extent`](TileBase::extent) as
/// there; slots past the extent hold the parent's padding (edge tiles).
///
/// ```
/// use tessera::{PackedBuf, layout};
/// // int4 weights in TPU tiles: each 8×128 tile is 512 bytes, cut again
/// // into 2×1 pairs (the XLA layout of packed int4 on TPU).
/// type W = layout!(s4[20,300]{1,0:T(8,128)(2,1)E(4)});
/// let mut w = PackedBuf::zeroed(W::NEW)?;
/// for mut tile in w.tiles_mut() {
///     let [ty, tx] = [tile.grid_index()[0], tile.grid_index()[1]];
///     let ext = tile.extent();
///     for y in 0..ext[0] {
///         for x in 0..ext[1] {
///             tile.set([y, x], (ty * 3 + tx) as i8 - 4)?;
///         }
///     }
///     assert_eq!(tile.as_bytes().len(), 512);
/// }
/// assert_eq!(w.get([19, 299]), Some(4)); // tile (2, 2), 4 rows by 44 columns
/// let tile = w.tile(&[1, 0]).unwrap();
/// assert_eq!(tile.origin().as_slice(), &[8, 0]);
/// assert_eq!(tile.get([0, 0]), Some(-1));
/// # Ok::<(), tessera::Error>(())
/// ```
pub type PackedTile<S, P, E> = TileBase<S, P, PackedBase<S, <P as TiledLayout>::Tile, E>>;

/// The tile at `place` over `bytes`, exactly its bytes.
#[inline]
fn packed_tile<S, P: TiledLayout, E>(
    place: P::Place,
    layout: P::Tile,
    bytes: S,
) -> PackedTile<S, P, E> {
    TileBase::from_body(place, PackedBase::from_parts(layout, bytes))
}

/// A packed tile view borrowing its bytes, of a tensor in layout `L`.
///
/// ```
/// use tessera::packed::U2;
/// use tessera::{PackedBuf, PackedTileView, layout};
/// type M = layout!(u2[4,4]{1,0:T(2,2)E(2)}); // a tile of four 2-bit values is a byte
/// let m = PackedBuf::from_fn(M::NEW, |i| (i[0] + i[1]) as u8 % 4)?;
/// let tile: PackedTileView<'_, M, U2> = m.tile(&[1, 1]).unwrap();
/// assert_eq!(tile.origin().as_slice(), &[2, 2]);
/// assert_eq!(tile.get([1, 1]), Some(2)); // the parent's [3, 3]: 6 % 4
/// assert_eq!(tile.as_bytes(), &[0b00_01_01_10]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type PackedTileView<'a, L, E> = PackedTile<&'a [u8], L, E>;

/// A packed tile view borrowing its bytes mutably, of a tensor in layout
/// `L`.
///
/// ```
/// use tessera::packed::Pred;
/// use tessera::{PackedBuf, PackedTileViewMut, layout};
/// type M = layout!(pred[4,16]{1,0:T(2,8)E(1)}); // a tile of 2x8 bits is two bytes
/// let mut m = PackedBuf::zeroed(M::NEW)?;
/// let mut tile: PackedTileViewMut<'_, M, Pred> = m.tile_mut(&[1, 0]).unwrap();
/// tile.as_bytes_mut().fill(0xFF); // rows 2..4, columns 0..8 of the parent
/// assert_eq!(m.get([3, 7]), Some(true));
/// assert_eq!(m.iter().filter(|&b| b).count(), 16);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type PackedTileViewMut<'a, L, E> = PackedTile<&'a mut [u8], L, E>;

/// The tiles of a packed tensor in memory order ([`PackedBase::tiles`]).
///
/// ```
/// use tessera::{PackedBuf, layout};
/// type M = layout!(u2[4,4]{1,0:T(2,2)E(2)}); // a tile of four 2-bit values is a byte
/// let m = PackedBuf::from_fn(M::NEW, |i| i[1] as u8)?;
/// let bytes: Vec<u8> = m.tiles().map(|tile| tile.as_bytes()[0]).collect();
/// assert_eq!(bytes, [0b00_01_00_01, 0b10_11_10_11, 0b00_01_00_01, 0b10_11_10_11]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct PackedTiles<'a, L: TiledLayout, E> {
    blocks: Blocks<L, core::slice::ChunksExact<'a, u8>>,
    elem: core::marker::PhantomData<fn() -> E>,
}

impl<'a, L: TiledLayout, E: SubByte> Iterator for PackedTiles<'a, L, E> {
    type Item = PackedTileView<'a, L, E>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (place, layout, bytes) = self.blocks.next()?;
        Some(packed_tile(place, layout, bytes))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.blocks.size_hint()
    }
}

impl<L: TiledLayout, E: SubByte> ExactSizeIterator for PackedTiles<'_, L, E> {}

/// The tiles of a packed tensor in memory order, writable
/// ([`PackedBase::tiles_mut`]). Each tile is its own byte range of the
/// buffer, so the views are disjoint and may be held at once.
///
/// ```
/// use tessera::{PackedBuf, layout};
/// type W = layout!(s4[4,4]{1,0:T(2,2)E(4)}); // a tile of four int4 is two bytes
/// let mut w = PackedBuf::zeroed(W::NEW)?;
/// for mut tile in w.tiles_mut() {
///     let v = tile.number() as i8 - 2;
///     tile.fill(v)?;
/// }
/// assert_eq!((w.get([0, 0]), w.get([3, 3])), (Some(-2), Some(1))); // tiles 0 and 3
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct PackedTilesMut<'a, L: TiledLayout, E> {
    blocks: Blocks<L, core::slice::ChunksExactMut<'a, u8>>,
    elem: core::marker::PhantomData<fn() -> E>,
}

impl<'a, L: TiledLayout, E: SubByte> Iterator for PackedTilesMut<'a, L, E> {
    type Item = PackedTileViewMut<'a, L, E>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (place, layout, bytes) = self.blocks.next()?;
        Some(packed_tile(place, layout, bytes))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.blocks.size_hint()
    }
}

impl<L: TiledLayout, E: SubByte> ExactSizeIterator for PackedTilesMut<'_, L, E> {}

/// The bytes of one tile of `tile_len` slots of `bits` each, or why
/// such tiles are not byte ranges.
const fn tile_bytes(tile_len: usize, bits: usize) -> Result<usize, Error> {
    match tile_len.checked_mul(bits) {
        Some(tile_bits) if tile_bits % 8 == 0 => Ok(tile_bits / 8),
        _ => Err(Error::at(
            Kind::TileViewUnsupported {
                reason: "a packed tile is not a whole number of bytes (neighbouring tiles share a byte)",
            },
            Locus::Attribute("E"),
        )),
    }
}

/// For a layout fixed at compile time, the checks of
/// [`PackedBase::try_tiles`] at compile time.
const fn check_static(layout: Option<ArrayLayout>) {
    if let Some(layout) = layout {
        let checked = match layout.tile_grid() {
            Ok(grid) => tile_bytes(grid.tile_len(), layout.element_size_in_bits()),
            Err(e) => Err(e),
        };
        if let Err(e) = checked {
            e.panic();
        }
    }
}

/// The grid, a tile's inside layout and its byte size, of `layout` with
/// `bits` per slot.
fn packed_tiling<L: TiledLayout>(
    layout: &L,
    bits: u32,
) -> Result<(L::Grid, L::Tile, usize), Error> {
    let (grid, tile) = layout.tiling()?;
    let bytes = tile_bytes(grid.borrow().tile_len(), bits as usize)?;
    Ok((grid, tile, bytes))
}

impl<S: Storage<Elem = u8>, L: TiledLayout, E: SubByte> PackedBase<S, L, E> {
    /// The tile grid of this tensor's layout: tile counts, a tile's dims
    /// and inside layout ([`TileGrid`]).
    ///
    /// # Errors
    /// As [`TiledLayout::tiling`] (the layout has no tiles, or its tiles
    /// are not blocks a view can describe).
    pub fn tile_grid(&self) -> Result<TileGrid, Error> {
        self.layout().tiling().map(|(grid, _)| *grid.borrow())
    }

    /// The first-level tiles in memory order, each a [`PackedTileView`]
    /// over its own bytes.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout};
    /// use tessera::packed::U2;
    /// // 2-bit values, 4 per byte: a 2×2 tile is one byte.
    /// let l = PreparedLayout::parse("u2[3,4]{1,0:T(2,2)E(2)}")?;
    /// let t = PackedBuf::<_, U2>::from_fn(l, |i| (i[0] + i[1]) as u8 % 4)?;
    /// let bytes: Vec<Vec<u8>> = t.try_tiles()?.map(|tile| tile.as_bytes().to_vec()).collect();
    /// assert_eq!(bytes, [[0b00_01_01_10], [0b10_11_11_00], [0b10_11_00_00], [0b00_01_00_00]]);
    /// // 2-bit values in 1×3 tiles (6 bits): tiles share bytes, no tile views.
    /// let odd = PreparedLayout::parse("u2[3,6]{1,0:T(1,3)E(2)}")?;
    /// let t = PackedBuf::<_, U2>::zeroed(odd)?;
    /// assert!(t.try_tiles().is_err());
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`PackedBase::tile_grid`], and
    /// [`ErrorKind::TileViewUnsupported`] when a tile is not a whole
    /// number of bytes. For a static layout these are compile errors
    /// instead.
    pub fn try_tiles(&self) -> Result<PackedTiles<'_, L, E>, Error> {
        const { check_static(L::FIXED_LAYOUT) };
        let (grid, tile, bytes) = packed_tiling(self.layout(), self.bits_per_slot())?;
        let len = grid.borrow().tile_count() * bytes;
        let chunks = self.as_bytes()[..len].chunks_exact(bytes);
        Ok(PackedTiles {
            blocks: Blocks::new(grid, tile, chunks),
            elem: core::marker::PhantomData,
        })
    }

    /// The first-level tiles in memory order (see
    /// [`PackedBase::try_tiles`]). For a static layout without tiles, or
    /// whose tiles are not whole bytes, this is a compile error:
    ///
    /// ```compile_fail
    /// use tessera::{PackedBuf, layout};
    /// type Odd = layout!(u2[3,6]{1,0:T(1,3)E(2)}); // 6-bit tiles
    /// let t = PackedBuf::zeroed(Odd::NEW).unwrap();
    /// for tile in t.tiles() {}
    /// ```
    ///
    /// # Panics
    /// For a run-time or mixed layout, when [`PackedBase::try_tiles`]
    /// returns an error, with its message.
    #[track_caller]
    pub fn tiles(&self) -> PackedTiles<'_, L, E> {
        match self.try_tiles() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// The tile at `grid_index`, or `None` when the index is out of the
    /// grid (or the layout has no packed tile views, see
    /// [`PackedBase::try_tiles`]).
    pub fn tile(&self, grid_index: &[usize]) -> Option<PackedTileView<'_, L, E>> {
        const { check_static(L::FIXED_LAYOUT) };
        let (place, tile, number) = tile_at(self.layout(), grid_index)?;
        let bytes = tile_bytes(tile.buffer_len(), tile.element_size_in_bits()).ok()?;
        let block = &self.as_bytes()[number * bytes..][..bytes];
        Some(packed_tile(place, tile, block))
    }
}

impl<S: StorageMut<Elem = u8>, L: TiledLayout, E: SubByte> PackedBase<S, L, E> {
    /// The first-level tiles in memory order, writable; every byte of the
    /// tiles is in exactly one view.
    ///
    /// # Errors
    /// As [`PackedBase::try_tiles`].
    pub fn try_tiles_mut(&mut self) -> Result<PackedTilesMut<'_, L, E>, Error> {
        const { check_static(L::FIXED_LAYOUT) };
        let (grid, tile, bytes) = packed_tiling(self.layout(), self.bits_per_slot())?;
        let len = grid.borrow().tile_count() * bytes;
        let chunks = self.as_bytes_mut()[..len].chunks_exact_mut(bytes);
        Ok(PackedTilesMut {
            blocks: Blocks::new(grid, tile, chunks),
            elem: core::marker::PhantomData,
        })
    }

    /// The first-level tiles in memory order, writable (see
    /// [`PackedBase::tiles`]).
    ///
    /// # Panics
    /// As [`PackedBase::tiles`].
    #[track_caller]
    pub fn tiles_mut(&mut self) -> PackedTilesMut<'_, L, E> {
        match self.try_tiles_mut() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// The tile at `grid_index`, writable, or `None` as
    /// [`PackedBase::tile`].
    pub fn tile_mut(&mut self, grid_index: &[usize]) -> Option<PackedTileViewMut<'_, L, E>> {
        const { check_static(L::FIXED_LAYOUT) };
        let (place, tile, number) = tile_at(self.layout(), grid_index)?;
        let bytes = tile_bytes(tile.buffer_len(), tile.element_size_in_bits()).ok()?;
        let block = &mut self.as_bytes_mut()[number * bytes..][..bytes];
        Some(packed_tile(place, tile, block))
    }
}

#[cfg(feature = "rayon")]
impl<S: StorageMut<Elem = u8>, L: TiledLayout, E: SubByte> PackedBase<S, L, E>
where
    L::Grid: Send + Sync,
    L::Tile: Send + Sync,
{
    /// The first-level tiles as a rayon parallel iterator (feature
    /// `rayon`): the tiles [`tiles_mut`](PackedBase::tiles_mut) hands out,
    /// each its own byte range, so the views are disjoint.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use tessera::{PackedBuf, layout};
    /// type W = layout!(s4[20,300]{1,0:T(8,128)(2,1)E(4)});
    /// let mut w = PackedBuf::zeroed(W::NEW)?;
    /// w.try_par_tiles_mut()?.try_for_each(|mut tile| {
    ///     let ext = tile.extent();
    ///     let v = tile.number() as i8 - 4;
    ///     for y in 0..ext[0] {
    ///         for x in 0..ext[1] {
    ///             tile.set([y, x], v)?;
    ///         }
    ///     }
    ///     Ok::<(), tessera::Error>(())
    /// })?;
    /// assert_eq!(w.get([19, 299]), Some(4)); // the last of 9 tiles
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`PackedBase::try_tiles`].
    pub fn try_par_tiles_mut(
        &mut self,
    ) -> Result<impl rayon::iter::IndexedParallelIterator<Item = PackedTileViewMut<'_, L, E>>, Error>
    {
        use rayon::prelude::*;
        const { check_static(L::FIXED_LAYOUT) };
        let (grid, tile, bytes) = packed_tiling(self.layout(), self.bits_per_slot())?;
        let len = grid.borrow().tile_count() * bytes;
        let blocks = self.as_bytes_mut()[..len].par_chunks_exact_mut(bytes);
        Ok(blocks
            .enumerate()
            .map(move |(number, block)| packed_tile(L::place(&grid, number), tile.clone(), block)))
    }

    /// [`try_par_tiles_mut`](PackedBase::try_par_tiles_mut) for layouts
    /// known to have tile views over bytes; a static layout without them
    /// does not compile.
    ///
    /// # Panics
    /// As [`PackedBase::tiles`].
    #[track_caller]
    pub fn par_tiles_mut(
        &mut self,
    ) -> impl rayon::iter::IndexedParallelIterator<Item = PackedTileViewMut<'_, L, E>> {
        match self.try_par_tiles_mut() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }
}
