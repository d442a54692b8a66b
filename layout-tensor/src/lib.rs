#![no_std]
// The exceptions are `iter` (element iterators), and the relayout
// kernels' `relayout::stream` (streaming stores), `relayout::simd` and
// `relayout::transpose` (vector kernels), all tested under Miri.
#![deny(unsafe_code)]
//! Typed tensor buffers over tessera layouts.
//!
//! A tensor is a buffer of slots and a layout that says which slot holds
//! which element. [`TensorBase`] is written once over any [`Storage`] and
//! any layout ([`AnyLayout`](layout_core::AnyLayout): static, mixed or
//! run-time); the aliases name the combinations:
//!
//! | type | storage | layout | for |
//! | --- | --- | --- | --- |
//! | [`Tensor<L, T, N>`](Tensor) | `[T; N]` inline | static | `static`s on a microcontroller, stack buffers |
//! | [`TensorView<L, T>`](TensorView) | `&[T]` | any | a caller's buffer |
//! | [`TensorViewMut<L, T>`](TensorViewMut) | `&mut [T]` | any | a caller's buffer, writable |
//! | `TensorBuf<L, T>` | `Vec<T>` (feature `alloc`) | any | run-time shapes |
//!
//! Sub-byte element types are stored packed ([`packed`]).
//!
//! ```text
//! f32[3,5]{1,0:T(2,2)}: logical          buffer (24 slots, . = padding)
//!   y\x  0  1  2  3  4                     tile (0,0)  tile (0,1)  tile (0,2)
//!   0    a  b  c  d  e                     a b f g     c d h i     e . j .
//!   1    f  g  h  i  j                     tile (1,0)  tile (1,1)  tile (1,2)
//!   2    k  l  m  n  o                     k l . .     m n . .     o . . .
//! ```
//!
//! Element access (`t[[y, x]]`, [`TensorBase::get`]) costs what the
//! layout's offset costs: constants folded for static layouts, a few
//! multiplications for run-time ones prepared once
//! ([`PreparedLayout`](layout_core::PreparedLayout)). Iteration and
//! relayout count offsets incrementally with the engine's loop nests.

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod element;
mod iter;
mod layout;
#[cfg(feature = "ndarray")]
mod ndarray_view;
pub mod packed;
#[cfg(feature = "rayon")]
mod parallel;
mod relayout;
mod runs;
mod slots;
mod storage;
mod tensor;
mod tiles;
mod window;

pub use element::Element;
pub use iter::{Indexed, Iter, IterMut};
pub use layout::{StoredAs, Stores};
#[cfg(feature = "alloc")]
pub use packed::PackedBuf;
pub use packed::{
    Packed, PackedBase, PackedIter, PackedSlots, PackedTile, PackedTileView, PackedTileViewMut,
    PackedTiles, PackedTilesMut, PackedView, PackedViewMut, StoresPacked, SubByte, SubByteLayout,
};
pub use relayout::RelayoutKernel;
pub use slots::{Slots, SlotsMut};
pub use storage::{Storage, StorageMut};
#[cfg(feature = "alloc")]
pub use tensor::TensorBuf;
pub use tensor::{Tensor, TensorBase, TensorView, TensorViewMut};
pub use tiles::{TileBase, TileView, TileViewMut, Tiles, TilesMut};
pub use window::{
    CoveredTile, CoveredTiles, CoveredTilesMut, TileRange, TileRangeIter, Window, WindowIter,
    WindowView, WindowViewMut,
};
