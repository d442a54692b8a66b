#![cfg_attr(not(test), no_std)]
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

pub mod element;
pub mod error;
pub mod hlo;
mod index;
pub mod index_util;
pub mod layout;
pub mod layout_util;
pub mod message;
pub mod mixed_layout;
mod prepared;
pub mod runtime;
pub mod shape;
pub mod shape_util;
pub mod static_layout;
pub mod terms;
pub mod text;
pub mod tile;
pub mod tiling;
pub mod traits;
pub mod typelevel;
pub mod validate;
pub mod walk;

pub use element::PrimitiveType;
pub use error::{ByteSpan, Error, ErrorKind, Locus, Report};
pub use layout::{
    Layout, LayoutEquality, LayoutParts, Padding, PaddingValue, SparsePhysicalShape, SplitConfig,
};
pub use message::{Message, Snippet};
pub use mixed_layout::MixedLayout;
pub use prepared::PreparedLayout;
pub use runtime::{
    ArrayLayout, DigitSource, DimVec, PhysicalDim, PhysicalDims, PhysicalShape, Slot,
};
pub use shape::{Dim, Shape};
pub use static_layout::{SlotOf, StaticLayout};
pub use tile::{Tile, TileDim};
pub use tiling::{
    HasTiles, StaticGrid, StaticTilePlace, TileGrid, TileOf, TilePlace, TilePlacement, TiledLayout,
};
pub use traits::{AnyLayout, HasRank, KnownLayout, RowMajorDense, SameElementCount, SameShape};
/// typenum, for bounds on [`SameElementCount`] and [`traits::ElementCountOf`].
pub use typenum;

/// Most dimensions a shape may have. XLA has no fixed limit; 12 covers
/// every shape in XLA's tests (which reach rank 10) while keeping every
/// type a small fixed-size value.
pub const MAX_RANK: usize = 12;

/// Most tile levels in one layout (`T(8,128)(2,1)` has 2).
pub const MAX_TILE_LEVELS: usize = 4;

/// Most dimensions of a physical (tiled) shape: each tile level can add
/// as many dims as it has entries.
pub const MAX_PHYSICAL_RANK: usize = MAX_RANK * (MAX_TILE_LEVELS + 1);

/// Most `SC(..)` split configs in one layout.
pub const MAX_SPLIT_CONFIGS: usize = 4;

/// Most split indices in one split config.
pub const MAX_SPLIT_INDICES: usize = 8;

/// Deepest nesting of tuples the text parser accepts.
pub const MAX_TUPLE_DEPTH: usize = 64;

/// Largest dimension size: XLA's `int64` limit, or `usize::MAX` on
/// targets where that is smaller.
pub const MAX_DIM_SIZE: usize = if usize::MAX as u64 > i64::MAX as u64 {
    i64::MAX as usize
} else {
    usize::MAX
};
