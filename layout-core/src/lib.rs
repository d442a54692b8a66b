#![cfg_attr(not(test), no_std)]
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

// The layers, lowest first: each module uses only the ones above it in
// this list (`.ci/layering.sh` checks it; DESIGN.md has the tree).
pub mod array;
pub mod element;
pub mod error;
pub mod hlo;
mod index;
pub mod layouts;
pub mod limits;
pub mod model;
pub mod text;
pub mod validate;
pub mod walk;
pub mod xla;

pub use array::{ArrayLayout, DigitSource, DimVec, PhysicalDim, PhysicalDims, PhysicalShape, Slot};
pub use element::PrimitiveType;
pub use error::message::{Message, Snippet};
pub use error::{ByteSpan, Error, ErrorKind, Locus, Report};
pub use layouts::mixed_layout::MixedLayout;
pub use layouts::prepared::PreparedLayout;
pub use layouts::static_layout::{SlotOf, StaticLayout};
pub use layouts::tiling::{
    HasTiles, StaticGrid, StaticTilePlace, TileGrid, TileOf, TilePlace, TilePlacement, TiledLayout,
};
pub use layouts::traits::{
    AnyLayout, HasRank, KnownLayout, RowMajorDense, SameElementCount, SameShape,
};
pub use limits::{
    MAX_DIM_SIZE, MAX_PHYSICAL_RANK, MAX_RANK, MAX_SPLIT_CONFIGS, MAX_SPLIT_INDICES,
    MAX_TILE_LEVELS, MAX_TUPLE_DEPTH,
};
pub use model::layout::{
    Layout, LayoutEquality, Padding, PaddingValue, SparsePhysicalShape, SplitConfig,
};
pub use model::shape::{Dim, Shape};
pub use model::tile::{Tile, TileDim};
/// typenum, for bounds on [`SameElementCount`] and [`layouts::traits::ElementCountOf`].
pub use typenum;
