//! Compile-fail tests of `layout!` and the kernel bounds: `tests/compile_fail.rs`
//! runs every `ui/*.rs`, each of which must fail with exactly the error in
//! its `.stderr`. This library has no code.
#![no_std]
