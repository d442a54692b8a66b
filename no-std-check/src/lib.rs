//! Builds `layout!` types and their consts in a `#![no_std]` crate with no
//! allocator, for `thumbv7em-none-eabihf`:
//! `cargo build -p no-std-check --target thumbv7em-none-eabihf`.
#![no_std]

use tessera::layout;

/// A tiled layout.
pub type Tiled = layout!(f32[3,5]{1,0:T(2,2)});

/// BF16 packing in TPU tiles.
pub type Packed = layout!(bf16[16,256]{1,0:T(8,128)(2,1)});

/// Offsets evaluated by rustc.
pub const OFFSET: usize = Tiled::offset([2, 3]);

/// The buffer a tiled array needs.
pub const LEN: usize = Tiled::BUFFER_LEN;

const _: () = assert!(OFFSET == 17 && LEN == 24);
const _: () = assert!(Packed::PHYSICAL_BYTE_SIZE == 16 * 256 * 2);

/// A run-time offset through the static type (kept so it is compiled).
pub fn packed_offset(i: usize, j: usize) -> usize {
    Packed::offset([i, j])
}
