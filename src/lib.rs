#![doc = include_str!("../README.md")]
#![no_std]

// The layouts and the traits every one of them implements.
pub use layout_core::{
    AnyLayout, ArrayLayout, HasRank, KnownLayout, LayoutIndex, MixedLayout, PreparedLayout,
    RowMajorDense, SameElementCount, SameShape, StaticGrid, StaticLayout, StaticTilePlace,
    TileGrid, TileOf, TilePlace, TilePlacement, TiledLayout,
};
// What a layout is made of, and what its queries return.
pub use layout_core::{
    DigitSource, Dim, DimVec, Layout, LayoutEquality, LayoutParts, Padding, PaddingValue,
    PhysicalDim, PhysicalDims, PhysicalShape, PrimitiveType, Shape, Slot, SlotOf,
    SparsePhysicalShape, SplitConfig, Tile, TileDim,
};
// Errors, with the text they point at.
pub use layout_core::{ByteSpan, Error, ErrorKind, Locus, Message, Report, Snippet};
// Limits of the fixed-size engine.
pub use layout_core::{
    MAX_DIM_SIZE, MAX_PHYSICAL_RANK, MAX_RANK, MAX_SPLIT_CONFIGS, MAX_SPLIT_INDICES,
    MAX_TILE_LEVELS, MAX_TUPLE_DEPTH,
};
// The engine's modules, for tools that go beyond the types above: loop
// nests, the text form, the shapes of HLO modules, offset formulas, and
// the mirrors of XLA's utility classes.
// Flat names, kept stable while layout-core's own modules are grouped by
// layer (`layout_core::model::shape`, `layout_core::xla::layout_util`, ...).
pub use layout_core::array::terms;
pub use layout_core::error::message;
pub use layout_core::layouts::{mixed_layout, static_layout, tiling, traits, typelevel};
pub use layout_core::model::{shape, tile};
pub use layout_core::xla::{index_util, layout_util, shape_util};
pub use layout_core::{element, error, hlo, text, validate, walk};

/// Type-level numbers for the bounds of [`SameElementCount`] and
/// [`traits::ElementCountOf`] (the `typenum` crate).
#[doc(no_inline)]
pub use layout_core::typenum;

// Tensors: buffers placed by a layout.
/// The Rust element types tensors hold.
pub use layout_tensor::element as tensor_element;
/// Sub-byte element types and their packed tensors (`s4`, `u2`, `pred`
/// under `E(1)`, ...).
pub use layout_tensor::packed;
pub use layout_tensor::{CoveredTile, CoveredTiles, CoveredTilesMut, TileRange, TileRangeIter};
pub use layout_tensor::{
    Element, Indexed, Iter, IterMut, Packed, PackedBase, PackedIter, PackedSlots, PackedTile,
    PackedTileView, PackedTileViewMut, PackedTiles, PackedTilesMut, PackedView, PackedViewMut,
    RelayoutKernel, Slots, SlotsMut, Storage, StorageMut, StoredAs, Stores, StoresPacked, SubByte,
    SubByteLayout, Tensor, TensorBase, TensorView, TensorViewMut, TileBase, TileView, TileViewMut,
    Tiles, TilesMut, Window, WindowIter, WindowView, WindowViewMut,
};
#[cfg(feature = "alloc")]
pub use layout_tensor::{PackedBuf, TensorBuf};

/// A layout known at compile time, as a zero-sized type, from XLA's text:
/// `layout!(f32[3,5]{1,0:T(2,2)})`, or with `<...>` around the layout.
///
/// The text is parsed and checked by the engine while the macro expands;
/// an invalid layout is one compile error on the offending token, with the
/// engine's message. The type is written from the engine's canonical
/// parse, so equal layouts are the same type however they are written.
/// See [`StaticLayout`] for its consts and `const fn`s.
///
/// ```
/// use tessera::layout;
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// type B = layout!(f32[3,5]<1,0:T(2,2)>);
/// const OFF: usize = A::offset([2, 3]);
/// assert_eq!(OFF, 17);
/// assert_eq!(A::BUFFER_LEN, 24);
/// assert_eq!(core::any::TypeId::of::<A>(), core::any::TypeId::of::<B>());
/// ```
#[macro_export]
macro_rules! layout {
    ($($shape:tt)*) => {
        $crate::__private::layout_macro!($crate; $($shape)*)
    };
}

/// What `layout!`'s expansion names. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use layout_core::layouts::mixed_layout::MixedLayout;
    pub use layout_core::layouts::static_layout::{Invalid, StaticLayout};
    // The numbers, attributes and element markers (`F32`, ...).
    pub use layout_core::layouts::typelevel::*;
    pub use layout_macros::__layout as layout_macro;
}
