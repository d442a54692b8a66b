//! Packed storage for sub-byte element types: [`PackedBase`] and its
//! aliases [`Packed`] (inline, `const`-constructible), [`PackedView`],
//! [`PackedViewMut`] and `PackedBuf` (with `alloc`).
//!
//! # Which layouts
//!
//! Every element type narrower than a byte
//! ([`PrimitiveType::is_sub_byte`]): `s4`, `u4`, `s2`, `u2`, `s1`, `u1`,
//! `f4e2m1fn` and `pred`. Each slot of the layout (element or padding)
//! takes [`ArrayLayout::element_size_in_bits`] bits: `n` = the layout's
//! `E(n)`, or 8 when it has none (one element per byte). `n` is 1, 2, 4
//! or 8; a layout with a wider `E(n)` (`s4` under `E(16)`) is rejected
//! with [`ErrorKind::ElementWidthMismatch`], a layout of another element
//! type with [`ErrorKind::ElementTypeMismatch`]. The buffer is the
//! layout's [`physical_byte_size`](ArrayLayout::physical_byte_size)
//! bytes.
//!
//! # Where the bits go
//!
//! This module follows XLA's `PackIntN` (`xla/util.h`), which packs
//! literals for `E(n)` layouts: within each byte, the slot with the lower
//! offset occupies the **more** significant bits. The slot at offset `o`
//! (from the layout's offset function, padding slots included) lives in
//! byte `(o * n) / 8`, shifted left by `8 - n - (o * n) % 8`:
//!
//! ```text
//! s4[2,3]{1,0:E(4)}: offsets 0..6, two per byte
//!
//!   bit     7 6 5 4   3 2 1 0
//!   byte 0  [0,0]     [0,1]
//!   byte 1  [0,2]     [1,0]
//!   byte 2  [1,1]     [1,2]
//! ```
//!
//! A slot's `n` bits hold the value's own `w` bits (`w` =
//! [`PrimitiveType::bit_width`]: 4 for `s4`) in their low part, upper
//! bits zero, as `PackIntN` writes them (`input & LsbMask(n)` of a value
//! that ml_dtypes keeps in the low `w` bits of its byte). Reads use the low
//! `w` bits and ignore the rest, as ml_dtypes does; signed types are
//! sign-extended from bit `w - 1`.
//!
//! # Values
//!
//! Each element type has a marker type implementing [`SubByte`], which
//! names the Rust type of its values:
//!
//! | XLA type | marker | value | range |
//! | --- | --- | --- | --- |
//! | `s4` `s2` `s1` | [`S4`] [`S2`] [`S1`] | `i8` | `-8..=7`, `-2..=1`, `-1..=0` |
//! | `u4` `u2` `u1` | [`U4`] [`U2`] [`U1`] | `u8` | `0..=15`, `0..=3`, `0..=1` |
//! | `f4e2m1fn` | [`F4e2m1fn`] | `u8` (raw bits) | `0..=15`; [`F4e2m1fn::to_f32`] decodes |
//! | `pred` | [`Pred`] | `bool` | |
//!
//! Writing a value outside the range is an error
//! ([`ErrorKind::ValueOutOfRange`]); nothing wraps silently.
//!
//! For a static layout (`tessera::layout!`) the marker follows from the
//! layout type ([`SubByteLayout`]), so `Packed<W, N>` needs no third
//! argument; with a [`PreparedLayout`], name it:
//! `PackedView<'_, PreparedLayout, S4>`.
//!
//! Element access goes through the layout's own offset function
//! ([`AnyLayout::offset_in_bounds`]) and iteration through the engine's
//! loop nests ([`layout_core::walk`]); this module only adds the bit
//! arithmetic of the table above.
//!
//! Whole-tensor walks work a byte at a time where they can:
//! [`PackedBase::fill`] and [`PackedBase::fill_padding`] write the
//! stretches of elements (or padding) as whole bytes of the value's bits,
//! and [`PackedBase::for_each_mut`] reads each byte once, hands out its
//! `8 / n` values and packs them back, at the speed of a hand-written byte
//! loop (`BENCHMARKS.md`). [`PackedBase::slots`] walks every slot with the
//! index it holds; [`PackedBase::iter`] and [`PackedBase::for_each`] read
//! elements in logical order.

mod bits;
mod fields;
mod iter;
mod relayout;
mod squares;
mod stores;
mod sub_byte;
mod tensor;
mod tiles;
mod walk;

#[cfg(doc)]
use layout_core::{AnyLayout, ArrayLayout, ErrorKind, PreparedLayout, PrimitiveType};

/// The sub-byte element markers: the engine's
/// ([`layout_core::layouts::typelevel`]), so that `S4` names one type everywhere.
pub use layout_core::layouts::typelevel::{F4e2m1fn, Pred, S1, S2, S4, U1, U2, U4};

pub use iter::PackedIter;
pub use stores::{StoresPacked, SubByteLayout};
pub use sub_byte::SubByte;
#[cfg(feature = "alloc")]
pub use tensor::PackedBuf;
pub use tensor::{Packed, PackedBase, PackedView, PackedViewMut};
pub use tiles::{PackedTile, PackedTileView, PackedTileViewMut, PackedTiles, PackedTilesMut};
pub use walk::PackedSlots;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) use relayout::copy_shifted_run;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(crate) use squares::{BlockRows, realign};
