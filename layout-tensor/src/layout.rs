//! [`Stores`]: which Rust element types a layout's tensors hold. The
//! other layout traits ([`AnyLayout`], [`HasRank`](layout_core::HasRank),
//! [`SameShape`](layout_core::SameShape), [`KnownLayout`](layout_core::KnownLayout))
//! come from the engine; tensors accept every layout that implements them.

use layout_core::typelevel::{AttrSpec, DimList, NumList, TileList};
use layout_core::{
    AnyLayout, ArrayLayout, MixedLayout, PreparedLayout, PrimitiveType, StaticLayout,
};

use crate::element::Element;

/// A layout whose elements a Rust type `E` can hold: any [`Element`] for
/// a run-time layout (checked when a tensor is built), only its own
/// element type for a static layout, so a mismatch is a compile error.
#[diagnostic::on_unimplemented(
    message = "the layout `{Self}` is not known to hold the tensor's element type",
    label = "a tensor of `T` needs a layout bound on `Stores<T>`",
    note = "a generic kernel states the element type with the bound `Stores<T>`; a layout from `layout!` names its element type first (`f32[..]`)"
)]
pub trait Stores<E: Element>: AnyLayout {}

impl<E: Element> Stores<E> for ArrayLayout {}
impl<E: Element> Stores<E> for PreparedLayout {}

macro_rules! stores {
    ($($(#[$cfg:meta])* $t:ty => $xla:ident;)*) => {$(
        $(#[$cfg])*
        impl<const R: usize, const RMD: bool, D, M, Ti, A> Stores<$t>
            for StaticLayout<R, { PrimitiveType::$xla as u32 }, RMD, D, M, Ti, A>
        where
            D: DimList,
            M: NumList,
            Ti: TileList,
            A: AttrSpec,
        {
        }

        $(#[$cfg])*
        impl<const R: usize, const K: usize, D, M, Ti, A> Stores<$t>
            for MixedLayout<R, K, { PrimitiveType::$xla as u32 }, D, M, Ti, A>
        where
            D: DimList,
            M: NumList,
            Ti: TileList,
            A: AttrSpec,
        {
        }
    )*};
}

// The Rust type of each element type (see `Element`), for static and
// mixed layouts alike.
stores! {
    bool => Pred;
    i8 => S8;
    i16 => S16;
    i32 => S32;
    i64 => S64;
    u8 => U8;
    u16 => U16;
    u32 => U32;
    u64 => U64;
    f32 => F32;
    f64 => F64;
    #[cfg(feature = "half")] half::f16 => F16;
    #[cfg(feature = "half")] half::bf16 => Bf16;
    #[cfg(feature = "num-complex")] num_complex::Complex<f32> => C64;
    #[cfg(feature = "num-complex")] num_complex::Complex<f64> => C128;
}
