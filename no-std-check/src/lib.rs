//! Builds `layout!` types and their consts in a `#![no_std]` crate with no
//! allocator: `cargo build -p no-std-check --target thumbv7em-none-eabihf`.
//!
//! It is also the hygiene proof for a renamed dependency: the facade is
//! reachable only as `tessera_renamed` and no prelude is in scope, so any
//! path in `layout!`'s expansion not under `$crate` would fail to build.
#![no_std]
#![no_implicit_prelude]

/// A tiled layout.
pub type Tiled = ::tessera_renamed::layout!(f32[3,5]{1,0:T(2,2)});

/// BF16 packing in TPU tiles.
pub type Packed = ::tessera_renamed::layout!(bf16[16,256]{1,0:T(8,128)(2,1)});

/// Every kind of attribute, so each `__private` name is used.
pub type AllAttributes =
    ::tessera_renamed::layout!(f32[8,<=4]{0,1:T(2,2)L(2)S(1)SC(0:2)M(4)pad(8,4:zero)});

/// An offset evaluated by rustc.
pub const OFFSET: usize = Tiled::offset([2, 3]);

/// The buffer a tiled array needs.
pub const LEN: usize = Tiled::BUFFER_LEN;

const _: () = ::core::assert!(OFFSET == 17 && LEN == 24);
const _: () = ::core::assert!(Packed::PHYSICAL_BYTE_SIZE == 16 * 256 * 2);
const _: () =
    ::core::assert!(AllAttributes::RANK == 2 && AllAttributes::BUFFER_LEN.is_multiple_of(2));

/// Rows known only at run time, tile math folded to constants.
pub type Rows = ::tessera_renamed::layout!(bf16[?,1024]{1,0:T(8,128)(2,1)});

/// An offset through a mixed layout (compiled for the target).
pub fn rows_offset(rows: usize, i: usize, j: usize) -> ::core::option::Option<usize> {
    match Rows::new([rows, 1024]) {
        ::core::result::Result::Ok(l) => l.try_offset([i, j]).ok(),
        ::core::result::Result::Err(_) => ::core::option::Option::None,
    }
}

/// A run-time offset through the static type (kept so it is compiled for
/// the target).
pub fn packed_offset(i: usize, j: usize) -> usize {
    Packed::offset([i, j])
}

/// Weights in flash: a static tensor in a tiled layout, built in `const`.
pub static WEIGHTS: ::tessera_renamed::Tensor<Tiled, f32, { Tiled::BUFFER_LEN }> =
    ::tessera_renamed::Tensor::filled(0.5);

/// Reads an element (compiled for the target).
pub fn weight(y: usize, x: usize) -> ::core::option::Option<f32> {
    WEIGHTS.get([y, x]).copied()
}

/// Copies the tiled weights into a row-major stack buffer (relayout
/// without an allocator).
pub fn unpack() -> [f32; 15] {
    type RowMajor = ::tessera_renamed::layout!(f32[3,5]);
    let mut out = ::tessera_renamed::Tensor::<RowMajor, f32, 15>::zeroed();
    if WEIGHTS.relayout_into(&mut out).is_err() {
        return [0.0; 15];
    }
    out.into_slots()
}
