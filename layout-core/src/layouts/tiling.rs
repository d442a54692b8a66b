//! First-level tiles as blocks of the buffer: [`TileGrid`] says how many
//! tiles a layout's first `T(..)` level cuts each dimension into, which
//! block of the buffer each tile is, and the layout of a tile's inside
//! (the later tile levels); [`TileOf`] is that inside layout as a type for
//! a static parent, with every number computed at compile time.
//!
//! Everything is read from the engine: the tile counts are the physical
//! shape of the layout cut by its first level alone
//! ([`ArrayLayout::physical_shape`]), a tile's inside is an
//! [`ArrayLayout`] whose offsets the engine computes, and the buffer is
//! checked to be exactly `tile_count` blocks of `tile_len` slots.
//!
//! ```
//! use tessera::ArrayLayout;
//! let a: ArrayLayout = "bf16[20,300]{1,0:T(8,128)(2,1)}".parse()?;
//! let grid = a.tile_grid()?;
//! assert_eq!(grid.counts().as_slice(), &[3, 3]); // 3 tile rows, 3 tile columns
//! assert_eq!(grid.tile_len(), 1024);
//! assert_eq!(grid.inner().to_string(), "bf16[8,128]{1,0:T(2,1)}");
//! // Tile 4 in memory order is tile-grid index (1, 1); it starts at (8, 128)
//! // and holds 8 rows by 128 columns; tile (2, 2) holds 4 rows by 44 columns.
//! assert_eq!(grid.grid_index(4).as_slice(), &[1, 1]);
//! assert_eq!(grid.origin(&[1, 1]).as_slice(), &[8, 128]);
//! assert_eq!(grid.extent(&[2, 2]).as_slice(), &[4, 44]);
//! // An element's offset is its tile's block plus its offset inside.
//! assert_eq!(a.offset(&[9, 130]), 4 * 1024 + grid.inner().offset(&[1, 2]));
//! # Ok::<(), tessera::Error>(())
//! ```

use core::borrow::Borrow;
use core::marker::PhantomData;

use crate::array::terms::OffsetTerms;
use crate::array::{ArrayLayout, DimVec, Slot};
use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind, Locus};
use crate::layouts::prepared::PreparedLayout;
use crate::layouts::static_layout::StaticLayout;
use crate::layouts::traits::{AnyLayout, HasRank, KnownLayout};
use crate::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList};
use crate::limits::MAX_RANK;
use crate::model::layout::Layout;
use crate::model::shape::{Dim, Shape};

/// The first-level tiles of a tiled layout: how many along each logical
/// dimension, their memory order, the block of the buffer each one is, and
/// the layout of one tile's inside. Made by [`ArrayLayout::tile_grid`].
///
/// Tiles are numbered in memory order: tile `n` is slots
/// `n * tile_len() .. (n + 1) * tile_len()`. Indices into the grid
/// ("tile-grid indices") have one entry per logical dimension.
///
/// ```
/// use tessera::{ArrayLayout, TileGrid};
/// let a: ArrayLayout = "f32[20,300]{1,0:T(8,128)}".parse()?;
/// let grid: TileGrid = a.tile_grid()?;
/// assert_eq!(grid.counts().as_slice(), &[3, 3]); // tile rows (y), tile columns (x)
/// assert_eq!(grid.tile_len(), 8 * 128);
/// // Tile 4 is slots 4096..5120 and starts at (y, x) = (8, 128).
/// assert_eq!(grid.origin(grid.grid_index(4).as_slice()).as_slice(), &[8, 128]);
/// assert_eq!(a.offset(&[8, 128]), 4 * 1024);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileGrid {
    rank: usize,
    /// Tiles along each logical dimension.
    counts: [usize; MAX_RANK],
    /// A tile's extent along each logical dimension (1 where untiled).
    tile_dims: [usize; MAX_RANK],
    /// Elements along each logical dimension.
    sizes: [usize; MAX_RANK],
    /// Logical dimensions, major to minor in memory.
    major_to_minor: [usize; MAX_RANK],
    tile_len: usize,
    tile_count: usize,
    inner: ArrayLayout,
}

const fn unsupported(reason: &'static str) -> Error {
    Error::at(ErrorKind::TileViewUnsupported { reason }, Locus::Tile(0))
}

impl ArrayLayout {
    /// The first-level tiles of this layout ([`TileGrid`]).
    ///
    /// # Errors
    /// [`ErrorKind::NotTiled`] for a layout without tiles;
    /// [`ErrorKind::CombinedDimUnsupported`] when the first tile has `*`
    /// entries; [`ErrorKind::TileViewUnsupported`] when the first tile has
    /// more entries than the array has dimensions, or a later tile level
    /// reaches past the first level's tile (its tiles are then not blocks
    /// of the buffer).
    pub const fn tile_grid(&self) -> Result<TileGrid, Error> {
        let layout = self.layout();
        let tiles = layout.tiles();
        if tiles.is_empty() {
            return Err(Error::new(ErrorKind::NotTiled));
        }
        let first = tiles[0];
        if first.has_combined_dims() {
            return Err(Error::at(
                ErrorKind::CombinedDimUnsupported {
                    operation: "tile views",
                },
                Locus::Tile(0),
            ));
        }
        let n = self.rank();
        let k = first.rank();
        if k > n {
            return Err(unsupported(
                "the first tile has more entries than the array has dimensions",
            ));
        }
        // Later levels must cut only the dims inside the first tile.
        let mut inside = k;
        let mut level = 1;
        while level < tiles.len() {
            let t = tiles[level].raw();
            if t.len() > inside {
                return Err(unsupported(
                    "a later tile level has more entries than the dims inside the first tile",
                ));
            }
            let mut cut = 0;
            let mut j = 0;
            while j < t.len() {
                if t[j] != 0 {
                    cut += 1;
                }
                j += 1;
            }
            inside = inside - t.len() + 2 * cut;
            level += 1;
        }
        // The engine's physical shape of the first level alone:
        // [untiled dims (n - k), tile counts (k), tile dims (k)].
        let first_only = match layout.with_tiles(tiles.split_at(1).0) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let first_only = match self.shape().with_layout(first_only) {
            Ok(s) => match ArrayLayout::new(s) {
                Ok(a) => a,
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        };
        let physical = first_only.physical_shape();
        let physical = physical.dims();
        if physical.len() != n + k {
            return Err(unsupported(
                "the first level's physical shape is not [counts, tile]",
            ));
        }
        let m2m = layout.minor_to_major();
        let mut counts = [1usize; MAX_RANK];
        let mut tile_dims = [1usize; MAX_RANK];
        let mut sizes = [0usize; MAX_RANK];
        let mut major_to_minor = [0usize; MAX_RANK];
        let mut inner_dims = [Dim::Static(1); MAX_RANK];
        let mut i = 0;
        while i < n {
            // Physical position i holds logical dim m2m[n - 1 - i].
            let d = m2m[n - 1 - i] as usize;
            major_to_minor[i] = d;
            sizes[d] = self.size(d);
            counts[d] = physical[i];
            if i >= n - k {
                tile_dims[d] = physical[i + k];
            }
            inner_dims[d] = Dim::Static(tile_dims[d]);
            i += 1;
        }
        // A tile's inside: the tile's dims in the same order, cut by the
        // later levels, in the same element width.
        let mut inner_m2m = [0usize; MAX_RANK];
        let mut i = 0;
        while i < n {
            inner_m2m[i] = m2m[i] as usize;
            i += 1;
        }
        let inner_layout = match Layout::new(inner_m2m.split_at(n).0) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let inner_layout = match inner_layout.with_tiles(tiles.split_at(1).1) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        let inner_layout = inner_layout.with_element_size_in_bits(layout.element_size_in_bits());
        let inner = match Shape::with_dims(self.element_type(), inner_dims.split_at(n).0) {
            Ok(s) => match s.with_layout(inner_layout) {
                Ok(s) => match ArrayLayout::new(s) {
                    Ok(a) => a,
                    Err(e) => return Err(e),
                },
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        };
        // Products of dims, 0 when any is 0 (the others may multiply past
        // `usize` then: `f32[4611686018427387904,5,0]`). The whole
        // physical shape must be exactly the tiles, one after another.
        let tile_len = inner.buffer_len();
        let all = self.physical_shape();
        let tile_count = match (product(counts.split_at(n).0), product(all.dims())) {
            (Some(count), Some(slots)) => match count.checked_mul(tile_len) {
                Some(covered) if covered == slots => Some(count),
                _ => None,
            },
            _ => None,
        };
        let Some(tile_count) = tile_count else {
            return Err(unsupported(
                "the tiles are not contiguous blocks of the buffer",
            ));
        };
        Ok(TileGrid {
            rank: n,
            counts,
            tile_dims,
            sizes,
            major_to_minor,
            tile_len,
            tile_count,
            inner,
        })
    }
}

/// The product of `dims`: 0 when one of them is 0, whatever the others;
/// `None` when it does not fit `usize`.
const fn product(dims: &[usize]) -> Option<usize> {
    let mut i = 0;
    while i < dims.len() {
        if dims[i] == 0 {
            return Some(0);
        }
        i += 1;
    }
    let mut p = 1usize;
    let mut i = 0;
    while i < dims.len() {
        p = match p.checked_mul(dims[i]) {
            Some(p) => p,
            None => return None,
        };
        i += 1;
    }
    Some(p)
}

impl TileGrid {
    /// Number of logical dimensions.
    #[inline]
    pub const fn rank(&self) -> usize {
        self.rank
    }

    /// Tiles along each logical dimension.
    #[inline]
    pub const fn counts(&self) -> DimVec {
        DimVec::from_array(self.rank, self.counts)
    }

    /// A tile's extent along each logical dimension (1 for dimensions the
    /// tile does not cut), padding included.
    #[inline]
    pub const fn tile_dims(&self) -> DimVec {
        DimVec::from_array(self.rank, self.tile_dims)
    }

    /// Slots in one tile: the inside layout's buffer length.
    #[inline]
    pub const fn tile_len(&self) -> usize {
        self.tile_len
    }

    /// Number of tiles.
    #[inline]
    pub const fn tile_count(&self) -> usize {
        self.tile_count
    }

    /// The layout of one tile's inside: the tile's dims in the parent's
    /// dimension order, cut by the parent's later tile levels
    /// (`bf16[8,128]{1,0:T(2,1)}` for `bf16[..]{1,0:T(8,128)(2,1)}`).
    #[inline]
    pub const fn inner(&self) -> &ArrayLayout {
        &self.inner
    }

    /// The logical dimensions from major to minor in memory: the order in
    /// which tile numbers count through the grid.
    #[inline]
    pub const fn major_to_minor(&self) -> &[usize] {
        self.major_to_minor.split_at(self.rank).0
    }

    /// The tile-grid index of tile `number` (memory order).
    ///
    /// # Panics
    /// If `number >= tile_count()`.
    #[inline]
    #[track_caller]
    pub const fn grid_index(&self, number: usize) -> DimVec {
        assert!(number < self.tile_count, "tile number out of range");
        let mut out = [0usize; MAX_RANK];
        let mut rest = number;
        let mut i = self.rank;
        while i > 0 {
            i -= 1;
            let d = self.major_to_minor[i];
            out[d] = rest % self.counts[d];
            rest /= self.counts[d];
        }
        DimVec::from_array(self.rank, out)
    }

    /// The memory-order number of the tile at `grid_index`, or `None` when
    /// it has the wrong number of entries or one is out of range.
    #[inline]
    pub const fn tile_number(&self, grid_index: &[usize]) -> Option<usize> {
        if grid_index.len() != self.rank {
            return None;
        }
        let mut number = 0usize;
        let mut i = 0;
        while i < self.rank {
            let d = self.major_to_minor[i];
            if grid_index[d] >= self.counts[d] {
                return None;
            }
            number = number * self.counts[d] + grid_index[d];
            i += 1;
        }
        Some(number)
    }

    /// The logical index of the first element of the tile at `grid_index`
    /// (`grid_index * tile_dims`; past the array's end in a dimension
    /// whose tiles there are all padding, as `pad(..)` can make).
    #[inline]
    pub const fn origin(&self, grid_index: &[usize]) -> DimVec {
        let mut out = [0usize; MAX_RANK];
        let mut d = 0;
        while d < self.rank && d < grid_index.len() {
            out[d] = grid_index[d].saturating_mul(self.tile_dims[d]);
            d += 1;
        }
        DimVec::from_array(self.rank, out)
    }

    /// How many elements the tile at `grid_index` holds along each
    /// dimension: the tile's dims, less at the array's far edges (the rest
    /// of an edge tile is padding).
    #[inline]
    pub const fn extent(&self, grid_index: &[usize]) -> DimVec {
        let mut out = [0usize; MAX_RANK];
        let mut d = 0;
        while d < self.rank && d < grid_index.len() {
            let start = grid_index[d].saturating_mul(self.tile_dims[d]);
            let left = self.sizes[d].saturating_sub(start);
            out[d] = if left < self.tile_dims[d] {
                left
            } else {
                self.tile_dims[d]
            };
            d += 1;
        }
        DimVec::from_array(self.rank, out)
    }
}

/// The layout of one first-level tile of the static layout `P`, as a
/// zero-sized type: [`TileOf::LAYOUT`] is
/// [`TileGrid::inner`] of `P`, computed at compile time, and offsets read
/// its formula from constants, so indexing inside a tile folds to
/// constant shifts and masks. Naming it for an untiled `P` is a compile
/// error with the engine's message.
///
/// ```
/// use tessera::{AnyLayout, TileOf, layout};
/// type P = layout!(bf16[64,1024]{1,0:T(8,128)(2,1)});
/// assert_eq!(TileOf::<P>::LAYOUT, <layout!(bf16[8,128]{1,0:T(2,1)})>::LAYOUT);
/// assert_eq!(TileOf::<P>::NEW.offset(&[3, 5]), 1 * 256 + 5 * 2 + 1);
/// ```
pub struct TileOf<P>(PhantomData<fn() -> P>);

impl<P: KnownLayout> TileOf<P> {
    /// The parent's tile grid.
    pub const GRID: TileGrid = match P::LAYOUT.tile_grid() {
        Ok(g) => g,
        Err(e) => e.panic(),
    };
    /// The layout of a tile's inside.
    pub const LAYOUT: ArrayLayout = Self::GRID.inner;
    /// Slots in one tile.
    pub const BUFFER_LEN: usize = Self::GRID.tile_len;
    /// The value of this zero-sized type.
    pub const NEW: Self = TileOf(PhantomData);
    /// The offset formula, computed once at compile time (`None` when
    /// the engine has none for the inside layout).
    const TERMS: Option<OffsetTerms> = OffsetTerms::new(&Self::LAYOUT);
    const SIZES: DimVec = Self::LAYOUT.sizes();
}

impl<P> Clone for TileOf<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for TileOf<P> {}
impl<P> Default for TileOf<P> {
    fn default() -> Self {
        TileOf(PhantomData)
    }
}
impl<P> core::fmt::Debug for TileOf<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("TileOf")
    }
}

impl<P: KnownLayout> crate::layouts::traits::sealed::Layout for TileOf<P> {}

impl<P: KnownLayout> AnyLayout for TileOf<P> {
    const FIXED_RANK: Option<usize> = Some(P::RANK);
    const FIXED_LAYOUT: Option<ArrayLayout> = Some(Self::LAYOUT);
    const TEMPLATE: Option<Shape> = Some(*Self::LAYOUT.shape());
    type Index = DimVec;

    #[inline(always)]
    fn to_array_layout(&self) -> ArrayLayout {
        Self::LAYOUT
    }
    #[inline(always)]
    fn rank(&self) -> usize {
        P::RANK
    }
    #[inline(always)]
    #[track_caller]
    fn size(&self, dim: usize) -> usize {
        Self::SIZES.as_slice()[dim]
    }
    #[inline(always)]
    fn sizes(&self) -> DimVec {
        Self::SIZES
    }
    #[inline(always)]
    fn element_type(&self) -> PrimitiveType {
        Self::LAYOUT.element_type()
    }
    #[inline(always)]
    fn element_size_in_bits(&self) -> usize {
        Self::LAYOUT.element_size_in_bits()
    }
    #[inline(always)]
    fn element_count(&self) -> usize {
        const { Self::LAYOUT.element_count() }
    }
    #[inline(always)]
    fn buffer_len(&self) -> usize {
        Self::BUFFER_LEN
    }
    #[inline(always)]
    fn strides(&self) -> Option<DimVec> {
        const { Self::LAYOUT.strides() }
    }
    #[inline(always)]
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        crate::index::in_bounds(Self::SIZES.as_slice(), index)
    }
    #[inline(always)]
    fn offset_in_bounds(&self, index: &[usize]) -> usize {
        // The terms are a promoted constant: once inlined, every shift,
        // mask and stride is an immediate (a `PreparedLayout` constant
        // was not inlined, and each access was a call).
        match const { &Self::TERMS } {
            Some(terms) => terms.offset_inlined(index),
            None => const { &Self::LAYOUT }.offset_in_bounds(index),
        }
    }
    #[inline]
    fn try_slot(&self, offset: usize) -> Result<Slot, Error> {
        Self::LAYOUT.try_slot(offset)
    }
}

impl<const R: usize, P: KnownLayout + HasRank<R>> HasRank<R> for TileOf<P> {}

/// A layout whose first-level tiles can be handed out as views: every
/// layout, with the tile layout a [`TileOf`] for static parents (all
/// constants) and a [`PreparedLayout`] for mixed and run-time ones.
/// Run-time layouts without tiles fail with [`ErrorKind::NotTiled`]; a
/// static layout without tiles does not implement this trait
/// ([`HasTiles`]), so asking it for tiles does not compile.
///
/// The grid and each tile's place are associated types so that a static
/// parent's are zero-sized readers of compile-time constants: handing out
/// a tile then costs a counter step, and a tile's grid index, origin and
/// extent are arithmetic on constants.
///
/// ```
/// use tessera::{AnyLayout, ArrayLayout, TilePlacement, TiledLayout, layout};
/// /// Rows (y) in one tile, for any tiled layout.
/// fn tile_rows<L: TiledLayout>(l: &L) -> usize {
///     l.tiling().map_or(0, |(_grid, tile)| tile.size(0))
/// }
/// let rt: ArrayLayout = "f32[20,300]{1,0:T(8,128)}".parse()?;
/// assert_eq!(tile_rows(&rt), 8);
/// assert_eq!(tile_rows(&<layout!(f32[20,300]{1,0:T(8,128)})>::NEW), 8);
/// let (grid, _) = rt.tiling()?;
/// assert_eq!(ArrayLayout::place(&grid, 8).extent().as_slice(), &[4, 44]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub trait TiledLayout: AnyLayout {
    /// The layout of one tile's inside.
    type Tile: AnyLayout;
    /// The tile grid as a tile iterator keeps it: [`StaticGrid`] (zero
    /// sized, reading [`TileOf::GRID`]) for static parents, the
    /// [`TileGrid`] itself otherwise.
    type Grid: Borrow<TileGrid> + Clone;
    /// Where one tile sits, as a tile view keeps it: [`StaticTilePlace`]
    /// (the tile number; the rest computed from constants on demand) for
    /// static parents, a [`TilePlace`] computed once per tile otherwise.
    type Place: TilePlacement;

    /// The tile grid and the layout of a tile's inside.
    ///
    /// # Errors
    /// As [`ArrayLayout::tile_grid`].
    fn tiling(&self) -> Result<(Self::Grid, Self::Tile), Error>;

    /// The place of tile `number` (memory order) of `grid`.
    ///
    /// # Panics
    /// If `number` is not below the grid's tile count.
    fn place(grid: &Self::Grid, number: usize) -> Self::Place;
}

/// Where a tile sits in its parent: what a tile view reports
/// ([`TilePlace`] and [`StaticTilePlace`] implement it).
///
/// ```
/// use tessera::{ArrayLayout, TilePlacement};
/// /// The elements a tile holds (fewer than its slots at the far edges).
/// fn held<P: TilePlacement>(p: &P) -> usize {
///     p.extent().iter().product()
/// }
/// let grid = "f32[20,300]{1,0:T(8,128)}".parse::<ArrayLayout>()?.tile_grid()?;
/// assert_eq!(held(&grid.place(0)), 8 * 128);
/// assert_eq!(held(&grid.place(8)), 4 * 44); // y in 16..20, x in 256..300
/// assert_eq!(grid.place(8).origin().as_slice(), &[16, 256]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub trait TilePlacement: Copy + Send + Sync {
    /// The tile's number in memory order.
    fn number(&self) -> usize;
    /// The tile's index in the tile grid ([`TileGrid::grid_index`]).
    fn grid_index(&self) -> DimVec;
    /// The parent's logical index of the tile's first element
    /// ([`TileGrid::origin`]).
    fn origin(&self) -> DimVec;
    /// The parent's elements the tile holds along each dimension
    /// ([`TileGrid::extent`]).
    fn extent(&self) -> DimVec;
}

/// The tile grid of the static layout `P` as a zero-sized value: borrows
/// [`TileOf::GRID`], a constant.
///
/// ```
/// use core::borrow::Borrow;
/// use tessera::{StaticGrid, TileGrid, layout};
/// type P = layout!(f32[16,256]{1,0:T(8,128)});
/// let grid: &TileGrid = StaticGrid::<P>::NEW.borrow();
/// assert_eq!(grid.tile_count(), 4);
/// assert_eq!(core::mem::size_of::<StaticGrid<P>>(), 0);
/// ```
pub struct StaticGrid<P>(PhantomData<fn() -> P>);

impl<P> StaticGrid<P> {
    /// The value of this zero-sized type.
    pub const NEW: Self = StaticGrid(PhantomData);
}

impl<P> Clone for StaticGrid<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for StaticGrid<P> {}
impl<P> core::fmt::Debug for StaticGrid<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("StaticGrid")
    }
}

impl<P: KnownLayout> Borrow<TileGrid> for StaticGrid<P> {
    #[inline(always)]
    fn borrow(&self) -> &TileGrid {
        const { &TileOf::<P>::GRID }
    }
}

/// Where a tile of a static layout `P` sits: its number; grid index,
/// origin and extent are computed on demand from [`TileOf::GRID`], so
/// with constant divisors (shifts and masks for powers of two).
///
/// ```
/// use tessera::{StaticTilePlace, TilePlacement, TiledLayout, layout};
/// type P = layout!(f32[20,300]{1,0:T(8,128)});
/// let place: StaticTilePlace<P> = P::place(&tessera::StaticGrid::NEW, 8);
/// assert_eq!(place.grid_index().as_slice(), &[2, 2]);
/// assert_eq!(place.origin().as_slice(), &[16, 256]);
/// assert_eq!(place.extent().as_slice(), &[4, 44]);
/// ```
pub struct StaticTilePlace<P> {
    number: usize,
    parent: PhantomData<fn() -> P>,
}

impl<P> Clone for StaticTilePlace<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for StaticTilePlace<P> {}
impl<P> core::fmt::Debug for StaticTilePlace<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaticTilePlace")
            .field("number", &self.number)
            .finish()
    }
}

impl<P: KnownLayout> TilePlacement for StaticTilePlace<P> {
    #[inline(always)]
    fn number(&self) -> usize {
        self.number
    }
    #[inline(always)]
    fn grid_index(&self) -> DimVec {
        const { &TileOf::<P>::GRID }.grid_index(self.number)
    }
    #[inline(always)]
    fn origin(&self) -> DimVec {
        let grid = const { &TileOf::<P>::GRID };
        grid.origin(grid.grid_index(self.number).as_slice())
    }
    #[inline(always)]
    fn extent(&self) -> DimVec {
        let grid = const { &TileOf::<P>::GRID };
        grid.extent(grid.grid_index(self.number).as_slice())
    }
}

/// Where a tile of a run-time or mixed layout sits, computed once when
/// the tile is handed out ([`TileGrid::place`]).
///
/// ```
/// use tessera::{ArrayLayout, TilePlacement};
/// let a: ArrayLayout = "f32[20,300]{1,0:T(8,128)}".parse()?;
/// let place = a.tile_grid()?.place(8);
/// assert_eq!(place.grid_index().as_slice(), &[2, 2]);
/// assert_eq!(place.extent().as_slice(), &[4, 44]);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TilePlace {
    number: usize,
    grid_index: DimVec,
    origin: DimVec,
    extent: DimVec,
}

impl TileGrid {
    /// The place of tile `number` (memory order): its grid index, origin
    /// and extent.
    ///
    /// # Panics
    /// If `number >= tile_count()`.
    #[track_caller]
    pub const fn place(&self, number: usize) -> TilePlace {
        let grid_index = self.grid_index(number);
        TilePlace {
            number,
            origin: self.origin(grid_index.as_slice()),
            extent: self.extent(grid_index.as_slice()),
            grid_index,
        }
    }
}

impl TilePlacement for TilePlace {
    #[inline]
    fn number(&self) -> usize {
        self.number
    }
    #[inline]
    fn grid_index(&self) -> DimVec {
        self.grid_index
    }
    #[inline]
    fn origin(&self) -> DimVec {
        self.origin
    }
    #[inline]
    fn extent(&self) -> DimVec {
        self.extent
    }
}

/// A [`TileList`] with at least one level: the static layouts with tile
/// views, so that asking an untiled static layout for tiles is an error
/// of the type checker, not a panic.
///
/// ```
/// use static_assertions::{assert_impl_all, assert_not_impl_any};
/// use tessera::tiling::HasTiles;
/// use tessera::typelevel::N;
/// use tessera::{TiledLayout, layout};
/// assert_impl_all!(((N<8>, N<128>),): HasTiles);
/// assert_not_impl_any!((): HasTiles);
/// // So a static layout without `T(..)` has no tile views.
/// assert_not_impl_any!(layout!(f32[16,256]): TiledLayout);
/// ```
#[diagnostic::on_unimplemented(
    message = "the layout has no tiles: tile views need a `T(..)` level",
    label = "this static layout has no `T(..)` tiles",
    note = "index, iterate or take a window of an untiled tensor instead; relayout to a tiled layout for tile views"
)]
pub trait HasTiles: TileList {}

impl<T0: NumList> HasTiles for (T0,) {}
impl<T0: NumList, T1: NumList> HasTiles for (T0, T1) {}
impl<T0: NumList, T1: NumList, T2: NumList> HasTiles for (T0, T1, T2) {}
impl<T0: NumList, T1: NumList, T2: NumList, T3: NumList> HasTiles for (T0, T1, T2, T3) {}

impl<const R: usize, T, const RMD: bool, D, M, Ti, A> TiledLayout
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: HasTiles,
    A: AttrSpec,
{
    type Tile = TileOf<Self>;
    type Grid = StaticGrid<Self>;
    type Place = StaticTilePlace<Self>;
    #[inline(always)]
    fn tiling(&self) -> Result<(StaticGrid<Self>, TileOf<Self>), Error> {
        Ok((StaticGrid::NEW, TileOf::NEW))
    }
    #[inline(always)]
    #[track_caller]
    fn place(_: &StaticGrid<Self>, number: usize) -> StaticTilePlace<Self> {
        assert!(
            number < TileOf::<Self>::GRID.tile_count,
            "tile number out of range"
        );
        StaticTilePlace {
            number,
            parent: PhantomData,
        }
    }
}

impl TiledLayout for ArrayLayout {
    type Tile = PreparedLayout;
    type Grid = TileGrid;
    type Place = TilePlace;
    fn tiling(&self) -> Result<(TileGrid, PreparedLayout), Error> {
        let grid = self.tile_grid()?;
        Ok((grid, grid.inner.prepare()))
    }
    #[inline]
    fn place(grid: &TileGrid, number: usize) -> TilePlace {
        grid.place(number)
    }
}

impl TiledLayout for PreparedLayout {
    type Tile = PreparedLayout;
    type Grid = TileGrid;
    type Place = TilePlace;
    fn tiling(&self) -> Result<(TileGrid, PreparedLayout), Error> {
        self.array_layout().tiling()
    }
    #[inline]
    fn place(grid: &TileGrid, number: usize) -> TilePlace {
        grid.place(number)
    }
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> TiledLayout
    for crate::layouts::mixed_layout::MixedLayout<R, K, T, D, M, Ti, A>
where
    Self: AnyLayout,
{
    type Tile = PreparedLayout;
    type Grid = TileGrid;
    type Place = TilePlace;
    fn tiling(&self) -> Result<(TileGrid, PreparedLayout), Error> {
        self.to_array_layout().tiling()
    }
    #[inline]
    fn place(grid: &TileGrid, number: usize) -> TilePlace {
        grid.place(number)
    }
}
