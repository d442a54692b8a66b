#![doc = include_str!("../README.md")]
#![no_std]

pub use layout_core::*;

/// Typed tensor buffers, iteration and relayout (the `layout-tensor`
/// crate).
pub use layout_tensor as tensor;
#[cfg(feature = "alloc")]
pub use layout_tensor::TensorBuf;
pub use layout_tensor::{
    ConstTensorLayout, Element, IndexRank, RelayoutFrom, RuntimeLayout, Stores, Tensor, TensorBase,
    TensorLayout, TensorView, TensorViewMut,
};

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
    pub use layout_core::mixed_layout::MixedLayout;
    pub use layout_core::static_layout::{Invalid, StaticLayout};
    pub use layout_core::typelevel::{AtMost, Attrs, Dyn, N, NoPad, Pad, Split};
    pub use layout_macros::__layout as layout_macro;
}
