//! tessera: XLA array shapes and memory layouts.
#![no_std]

pub use layout_core::*;
