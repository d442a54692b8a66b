//! The proc macro behind `tessera::layout!`. Use `tessera::layout!`, which
//! passes `$crate` in; this crate is not meant to be used on its own.

mod diagnostic;
mod expand;
mod source;

/// `__layout!($crate; tokens)`: the expansion of `tessera::layout!`.
#[doc(hidden)]
#[proc_macro]
pub fn __layout(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    expand::layout(input.into()).unwrap_or_else(|e| e).into()
}
