//! [`Stores`]: which Rust element types a layout's tensors hold. The
//! other layout traits ([`AnyLayout`], [`HasRank`](layout_core::HasRank),
//! [`SameShape`](layout_core::SameShape), [`KnownLayout`])
//! come from the engine; tensors accept every layout that implements them.

use layout_core::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList};
use layout_core::{
    AnyLayout, ArrayLayout, KnownLayout, MixedLayout, PreparedLayout, StaticLayout, TileOf,
};

use crate::element::Element;

/// A layout whose elements a Rust type `E` can hold: any [`Element`] for
/// a run-time layout (checked when a tensor is built), only its own
/// element type for a static layout, so a mismatch is a compile error.
///
/// ```
/// use tessera::{Error, PreparedLayout, Stores, TensorBuf, layout};
/// /// A tensor of `y + x` in any layout that holds `f32`.
/// fn ramp<L: Stores<f32>>(layout: L) -> Result<TensorBuf<L, f32>, Error> {
///     TensorBuf::from_fn(layout, |i| (i[0] + i[1]) as f32)
/// }
/// type A = layout!(f32[2,3]{0,1});
/// assert_eq!(ramp(A::NEW)?[[1, 2]], 3.0); // `ramp(<s32 layout>)` would not compile
/// assert_eq!(ramp(PreparedLayout::parse("f32[2,3]{1,0:T(2,2)}")?)?[[1, 2]], 3.0);
/// assert!(ramp(PreparedLayout::parse("s32[2,3]{1,0}")?).is_err()); // checked at run time
/// # Ok::<(), tessera::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "the layout `{Self}` is not known to hold the tensor's element type",
    label = "a tensor of `T` needs a layout bound on `Stores<T>`",
    note = "a generic kernel states the element type with the bound `Stores<T>`; a layout from `layout!` names its element type first (`f32[..]`)"
)]
pub trait Stores<E: Element>: AnyLayout {}

impl<E: Element> Stores<E> for ArrayLayout {}
impl<E: Element> Stores<E> for PreparedLayout {}

/// A tile of a static layout holds what its parent holds.
impl<E: Element, P: KnownLayout + Stores<E>> Stores<E> for TileOf<P> {}

/// A static or mixed layout holds `E` when its element marker is stored
/// as `E` ([`StoredAs`]): a mismatch is reported by that bound, naming
/// both types.
impl<E: Element, const R: usize, T, const RMD: bool, D, M, Ti, A> Stores<E>
    for StaticLayout<R, T, RMD, D, M, Ti, A>
where
    T: StoredAs<E>,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

impl<E: Element, const R: usize, const K: usize, T, D, M, Ti, A> Stores<E>
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    T: StoredAs<E>,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
}

/// An XLA element type (its marker, [`typelevel::F32`](layout_core::layouts::typelevel::F32), ...) whose
/// elements a tensor holds as the Rust type `E`: `F32` as `f32`, `S32`
/// as `i32`, `Pred` as `bool` (the table in
/// [`element`](crate::element)). The bound behind [`Stores`] for static
/// and mixed layouts, so that a mismatch names both types.
///
/// ```
/// use tessera::typelevel::{ElementSpec, S32};
/// use tessera::{Element, PrimitiveType, StoredAs};
/// /// The element type behind a marker and its Rust type, which agree.
/// fn element_type<M: StoredAs<E>, E: Element>() -> PrimitiveType {
///     assert_eq!(M::TYPE, E::TYPE);
///     E::TYPE
/// }
/// assert_eq!(element_type::<S32, i32>(), PrimitiveType::S32);
/// // `element_type::<S32, f32>()` does not compile: "a layout of `S32`
/// // elements does not hold `f32`".
/// ```
#[diagnostic::on_unimplemented(
    message = "a layout of `{Self}` elements does not hold `{E}`",
    label = "this layout's element type is `{Self}`; `{E}` is not its Rust type",
    note = "each XLA element type has one Rust type: `f32[..]` holds `f32`, `s32[..]` holds `i32`, `bf16[..]` holds `half::bf16` (the table in `tessera::tensor_element`)"
)]
pub trait StoredAs<E: Element>: ElementSpec {}
