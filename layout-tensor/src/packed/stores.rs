//! Which layouts hold packed elements: [`StoresPacked`], and for static
//! layouts [`SubByteLayout`], which names the element marker.

use layout_core::layouts::typelevel::{
    AttrSpec, DimList, F4e2m1fn, NumList, Pred, S1, S2, S4, TileList, U1, U2, U4,
};
use layout_core::{AnyLayout, ArrayLayout, KnownLayout, PreparedLayout, StaticLayout};

#[cfg(doc)]
use super::Packed;
use super::sub_byte::SubByte;

/// A layout whose elements packed storage of `E` can hold: every
/// [`PreparedLayout`] (the element type is checked when a tensor is built),
/// and a static layout only for its own element type, so a mismatch is a
/// compile error.
///
/// ```
/// use tessera::packed::S4;
/// use tessera::{Error, PackedBuf, PreparedLayout, StoresPacked, layout};
/// /// `values` in logical order, packed in any layout of `s4` elements.
/// fn int4<L: StoresPacked<S4>>(layout: L, values: &[i8]) -> Result<PackedBuf<L, S4>, Error> {
///     PackedBuf::from_values(layout, values.iter().copied())
/// }
/// type W = layout!(s4[4]{0:E(4)});
/// assert_eq!(int4(W::NEW, &[1, 2, -1, 0])?.as_bytes(), &[0x12, 0xF0]);
/// let byte_each = PreparedLayout::parse("s4[4]{0}")?; // no `E(4)`: a byte each
/// assert_eq!(int4(byte_each, &[1, 2, -1, 0])?.as_bytes(), &[1, 2, 0x0F, 0]);
/// let u4 = PreparedLayout::parse("u4[4]{0}")?;
/// assert!(int4(u4, &[1, 2, 3, 4]).is_err()); // checked at run time
/// # Ok::<(), tessera::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not hold packed `{E}` elements",
    label = "the layout's element type is not `{E}`'s"
)]
pub trait StoresPacked<E: SubByte>: AnyLayout {}

impl<E: SubByte> StoresPacked<E> for PreparedLayout {}
impl<E: SubByte> StoresPacked<E> for ArrayLayout {}

/// A static layout type (`tessera::layout!`) of a sub-byte element type:
/// names its [`SubByte`] marker, so that [`Packed<W, N>`](Packed) and the
/// other aliases need no element argument.
///
/// ```
/// use tessera::{PackedView, SubByte, SubByteLayout, layout};
/// /// The first element of `bytes` in the static layout `L`, as `L`'s value type.
/// fn first<L: SubByteLayout>(bytes: &[u8]) -> Option<<L::Elem as SubByte>::Value> {
///     let view: PackedView<'_, L> = PackedView::new(L::VALUE, bytes).ok()?;
///     view.iter().next()
/// }
/// assert_eq!(first::<layout!(s4[2]{0:E(4)})>(&[0xF0]), Some(-1)); // an `i8`
/// assert_eq!(first::<layout!(u4[2]{0:E(4)})>(&[0xF0]), Some(15)); // a `u8`
/// assert_eq!(first::<layout!(pred[8]{0:E(1)})>(&[0x80]), Some(true));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static layout of a sub-byte element type",
    label = "packed storage needs `s4`, `u4`, `s2`, `u2`, `s1`, `u1`, `f4e2m1fn` or `pred`",
    note = "for a `PreparedLayout`, name the element type: `PackedView<'_, PreparedLayout, S4>`"
)]
pub trait SubByteLayout: KnownLayout + StoresPacked<Self::Elem> {
    /// The element type's marker.
    type Elem: SubByte;
}

macro_rules! sub_byte_layout {
    ($($marker:ident),*) => {$(
        impl<const R: usize, const RMD: bool, D, M, Ti, A> StoresPacked<$marker>
            for StaticLayout<R, $marker, RMD, D, M, Ti, A>
        where
            D: DimList,
            M: NumList,
            Ti: TileList,
            A: AttrSpec,
        {
        }

        impl<const R: usize, const RMD: bool, D, M, Ti, A> SubByteLayout
            for StaticLayout<R, $marker, RMD, D, M, Ti, A>
        where
            D: DimList,
            M: NumList,
            Ti: TileList,
            A: AttrSpec,
        {
            type Elem = $marker;
        }
    )*};
}

sub_byte_layout!(S4, S2, S1, U4, U2, U1, F4e2m1fn, Pred);
