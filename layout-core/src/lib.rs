#![cfg_attr(not(test), no_std)]
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

// The layers, lowest first: a module uses only itself and the layers
// declared before it (`.ci/layering.sh` reads this order and checks it).

// The capacities of the fixed-size engine (`MAX_RANK`, ...).
pub mod limits;
// XLA's element types and their widths.
pub mod element;
// Errors and the fixed-capacity text of their messages.
pub mod error;
// The data model: tiles, layouts, shapes.
pub mod model;
// The index math: strides, buffer length, offsets.
mod index;
// Every rule relating a layout to a shape; the checked constructors.
pub mod validate;
// XLA's shape text: lexer, parser, printer.
pub mod text;
// `ArrayLayout`, the run-time layout, and its offset terms.
pub mod array;
// The layout types (static, mixed, prepared) and their traits.
pub mod layouts;
// Loop nests over a layout.
pub mod walk;
// Mirrors of XLA's IndexUtil, LayoutUtil and ShapeUtil.
pub mod xla;
// Shapes read from HLO module text.
pub mod hlo;

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
    AnyLayout, HasRank, KnownLayout, LayoutIndex, RowMajorDense, SameElementCount, SameShape,
};
pub use limits::{
    MAX_DIM_SIZE, MAX_PHYSICAL_RANK, MAX_RANK, MAX_SPLIT_CONFIGS, MAX_SPLIT_INDICES,
    MAX_TILE_LEVELS, MAX_TUPLE_DEPTH,
};
pub use model::layout::{
    Layout, LayoutEquality, LayoutParts, Padding, PaddingValue, SparsePhysicalShape, SplitConfig,
};
pub use model::shape::{Dim, Shape};
pub use model::tile::{Tile, TileDim};
/// typenum, for bounds on [`SameElementCount`] and [`layouts::traits::ElementCountOf`].
pub use typenum;
