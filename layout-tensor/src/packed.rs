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

use core::fmt;
use core::marker::PhantomData;

use layout_core::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList};
/// The sub-byte element markers: the engine's
/// ([`layout_core::layouts::typelevel`]), so that `S4` names one type everywhere.
pub use layout_core::layouts::typelevel::{F4e2m1fn, Pred, S1, S2, S4, U1, U2, U4};
use layout_core::walk::LoopNest;
use layout_core::{ArrayLayout, Error, ErrorKind, Locus, PrimitiveType, StaticLayout};

use crate::element::Element;
use layout_core::{AnyLayout, HasRank, KnownLayout, PreparedLayout, SameShape};

use crate::runs::{self, Position, Run};
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;

// ---------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------

mod sealed {
    /// Only the sub-byte markers implement [`SubByte`](super::SubByte).
    #[allow(unreachable_pub)] // named by a public trait's bound, on purpose
    pub trait Sealed {}
}

/// A sub-byte XLA element type, as a marker type ([`S4`], [`U2`],
/// [`Pred`], ...), with the Rust type of its values and how a value maps
/// to its bits. Implemented by the sub-byte markers only.
///
/// The element type is the marker's [`ElementSpec::TYPE`].
pub trait SubByte: sealed::Sealed + ElementSpec {
    /// The Rust type values are read and written as: `i8` for signed
    /// integers, `u8` for unsigned ones and the raw bits of `f4e2m1fn`,
    /// `bool` for `pred`.
    type Value: Copy + PartialEq + fmt::Debug + Send + Sync + 'static;

    /// The value whose bits are all zero.
    const ZERO: Self::Value;

    /// The value's `w` bits (`w` = [`PrimitiveType::bit_width`]), in the
    /// low bits of the byte.
    ///
    /// # Errors
    /// [`ErrorKind::ValueOutOfRange`] when the value does not fit in `w`
    /// bits of this type (9 for `s4`).
    fn to_bits(value: Self::Value) -> Result<u8, Error>;

    /// The value of the low `w` bits of `bits` (the rest are ignored;
    /// signed types are sign-extended).
    fn from_bits(bits: u8) -> Self::Value;
}

/// The mask of the low `bits` bits of a byte (`bits <= 8`).
const fn low_mask(bits: u32) -> u8 {
    if bits >= 8 { 0xFF } else { (1u8 << bits) - 1 }
}

/// The error for a value that does not fit `element_type`.
const fn out_of_range(value: i64, element_type: PrimitiveType) -> Error {
    Error::at(
        ErrorKind::ValueOutOfRange {
            value,
            element_type,
        },
        Locus::ElementType,
    )
}

macro_rules! signed {
    ($($marker:ident),*) => {$(
        impl sealed::Sealed for $marker {}

        impl SubByte for $marker {
            type Value = i8;
            const ZERO: i8 = 0;

            #[inline]
            fn to_bits(value: i8) -> Result<u8, Error> {
                let w = Self::TYPE.bit_width();
                let max = (1i8 << (w - 1)) - 1;
                let min = -max - 1;
                if value < min || value > max {
                    return Err(out_of_range(value as i64, Self::TYPE));
                }
                Ok(value as u8 & low_mask(w))
            }

            #[inline]
            fn from_bits(bits: u8) -> i8 {
                let shift = 8 - Self::TYPE.bit_width();
                ((bits << shift) as i8) >> shift
            }
        }
    )*};
}

macro_rules! unsigned {
    ($($marker:ident),*) => {$(
        impl sealed::Sealed for $marker {}

        impl SubByte for $marker {
            type Value = u8;
            const ZERO: u8 = 0;

            #[inline]
            fn to_bits(value: u8) -> Result<u8, Error> {
                if value > low_mask(Self::TYPE.bit_width()) {
                    return Err(out_of_range(value as i64, Self::TYPE));
                }
                Ok(value)
            }

            #[inline]
            fn from_bits(bits: u8) -> u8 {
                bits & low_mask(Self::TYPE.bit_width())
            }
        }
    )*};
}

// The markers are the engine's element markers (`typelevel`), the same
// types a static layout of these element types names: `s4` integers,
// `-8..=7`, as `i8`; `u4`, `0..=15`, as `u8`; and so on.
signed!(S4, S2, S1);
// `f4e2m1fn` is read and written as its raw bits `0..=15`;
// `F4e2m1fn::to_f32` and `F4e2m1fn::from_f32` convert.
unsigned!(U4, U2, U1, F4e2m1fn);

impl sealed::Sealed for Pred {}

/// `pred` packed (under `E(1)`, `E(2)`, `E(4)`, or one per byte without
/// `E`), as `bool`.
impl SubByte for Pred {
    type Value = bool;
    const ZERO: bool = false;

    #[inline]
    fn to_bits(value: bool) -> Result<u8, Error> {
        Ok(value as u8)
    }

    #[inline]
    fn from_bits(bits: u8) -> bool {
        bits & 1 != 0
    }
}

/// A layout whose elements packed storage of `E` can hold: every
/// [`PreparedLayout`] (the element type is checked when a tensor is built),
/// and a static layout only for its own element type, so a mismatch is a
/// compile error.
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

// ---------------------------------------------------------------------
// The tensor type
// ---------------------------------------------------------------------

/// Sub-byte elements of type `E` packed into bytes, placed by layout `L`
/// (see the [module docs](self) for where the bits go).
///
/// Every packed tensor type is this struct with some byte storage `S`;
/// all methods are written once here. The storage is always exactly the
/// layout's `physical_byte_size` bytes. Padding slots are part of it and
/// are reached only through [`PackedBase::as_bytes`] and
/// [`PackedBase::slot_bits`].
///
/// An int4 weight matrix in a `static`, as a quantizer wrote its bytes
/// (two elements per byte, the first in the high nibble), read back by
/// logical index:
///
/// ```
/// use tessera::Packed;
///
/// type W = tessera::layout!(s4[4,8]{1,0:E(4)});
///
/// static WEIGHTS: Packed<W, { W::PHYSICAL_BYTE_SIZE }> = Packed::from_bytes([
///     0x01, 0x23, 0x45, 0x67, // row 0:  0  1  2  3  4  5  6  7
///     0xFE, 0xDC, 0xBA, 0x98, // row 1: -1 -2 -3 -4 -5 -6 -7 -8
///     0x70, 0x70, 0x70, 0x70, // row 2:  7  0  7  0  7  0  7  0
///     0x00, 0x00, 0x00, 0x0F, // row 3:  0  0  0  0  0  0  0 -1
/// ]);
///
/// assert_eq!(W::PHYSICAL_BYTE_SIZE, 16);
/// assert_eq!(WEIGHTS.get([0, 5]), Some(5));
/// assert_eq!(WEIGHTS.get([1, 2]), Some(-3)); // an i8, sign-extended
/// assert_eq!(WEIGHTS.get([2, 0]), Some(7));
/// assert_eq!(WEIGHTS.get([3, 7]), Some(-1));
/// assert_eq!(WEIGHTS.get([4, 0]), None); // out of bounds
/// let row_sum: i32 = WEIGHTS.iter().skip(8).take(8).map(i32::from).sum();
/// assert_eq!(row_sum, -36);
/// ```
pub struct PackedBase<S, L, E> {
    layout: L,
    storage: S,
    elem: PhantomData<fn() -> E>,
}

/// A packed tensor with inline storage of exactly `N` bytes, for a static
/// layout (`N` is the layout's `PHYSICAL_BYTE_SIZE`, checked at compile
/// time). Its constructors are `const fn`, so it can sit in a `static`
/// (see [`PackedBase`]).
///
/// A wrong byte count does not compile:
///
/// ```compile_fail
/// use tessera::Packed;
/// type W = tessera::layout!(s4[4,8]{1,0:E(4)});
/// static BAD: Packed<W, 32> = Packed::zeroed(); // 16 bytes, not 32
/// ```
///
/// nor does a layout of another element type:
///
/// ```compile_fail
/// use tessera::Packed;
/// type F = tessera::layout!(f32[4]);
/// static BAD: Packed<F, 16> = Packed::zeroed();
/// ```
pub type Packed<L, const N: usize, E = <L as SubByteLayout>::Elem> = PackedBase<[u8; N], L, E>;

/// A packed tensor borrowing its bytes.
pub type PackedView<'a, L, E = <L as SubByteLayout>::Elem> = PackedBase<&'a [u8], L, E>;

/// A packed tensor borrowing its bytes mutably.
pub type PackedViewMut<'a, L, E = <L as SubByteLayout>::Elem> = PackedBase<&'a mut [u8], L, E>;

/// A packed tensor owning its bytes in a `Vec`.
#[cfg(feature = "alloc")]
pub type PackedBuf<L, E = <L as SubByteLayout>::Elem> = PackedBase<alloc::vec::Vec<u8>, L, E>;

/// Checks that `layout` holds `element_type` elements in a width packed
/// storage can hold (1, 2, 4 or 8 bits per slot).
const fn check_packed(element_type: PrimitiveType, layout: &ArrayLayout) -> Result<(), Error> {
    if layout.element_type() as u32 != element_type as u32 {
        return Err(Error::at(
            ErrorKind::ElementTypeMismatch {
                expected: layout.element_type(),
                found: element_type,
            },
            Locus::ElementType,
        ));
    }
    let bits = layout.element_size_in_bits();
    if !matches!(bits, 1 | 2 | 4 | 8) {
        return Err(Error::at(
            ErrorKind::ElementWidthMismatch {
                layout_bits: bits,
                storage_bits: 8,
            },
            Locus::Attribute("E"),
        ));
    }
    Ok(())
}

/// `layout`'s byte size, after checking the element type and that `len`
/// bytes are enough.
fn checked_len(
    element_type: PrimitiveType,
    layout: &ArrayLayout,
    len: usize,
) -> Result<usize, Error> {
    check_packed(element_type, layout)?;
    let needed = layout.physical_byte_size();
    if len < needed {
        return Err(Error::new(ErrorKind::BufferTooShort { needed, found: len }));
    }
    Ok(needed)
}

/// The `n`-bit field of slot `offset` (`n` is 1, 2, 4 or 8).
#[inline(always)]
fn read_field(bytes: &[u8], offset: usize, n: u32) -> u8 {
    // Callers pass offsets inside the buffer; `get` instead of indexing
    // keeps the panic path (and with it `core::fmt`) out of every access,
    // which matters on microcontrollers.
    if n == 8 {
        return bytes.get(offset).copied().unwrap_or(0);
    }
    let bit = offset.wrapping_mul(n as usize);
    let shift = 8 - n - (bit % 8) as u32;
    (bytes.get(bit / 8).copied().unwrap_or(0) >> shift) & low_mask(n)
}

/// Unpacks `out.len()` consecutive slots from `offset` on: the slots
/// before the first whole byte one at a time, then whole bytes (`8 / n`
/// values each, first in the high bits), then the rest.
#[inline(always)]
fn unpack_contiguous<E: SubByte>(bytes: &[u8], offset: usize, n: u32, out: &mut [E::Value]) {
    let per_byte = (8 / n) as usize;
    let head = ((per_byte - offset % per_byte) % per_byte).min(out.len());
    let (head_out, rest) = out.split_at_mut(head);
    for (i, v) in head_out.iter_mut().enumerate() {
        *v = E::from_bits(read_field(bytes, offset + i, n));
    }
    let first_byte = (offset + head) / per_byte;
    let whole = rest.len() / per_byte;
    let (body, tail) = rest.split_at_mut(whole * per_byte);
    match bytes.get(first_byte..first_byte + whole) {
        Some(src) => {
            for (&b, chunk) in src.iter().zip(body.chunks_exact_mut(per_byte)) {
                for (j, v) in chunk.iter_mut().enumerate() {
                    // Slot `j` of the byte sits in the high bits first.
                    *v = E::from_bits(b >> (8 - n * (j as u32 + 1)));
                }
            }
        }
        None => {
            for (i, v) in body.iter_mut().enumerate() {
                *v = E::from_bits(read_field(bytes, offset + head + i, n));
            }
        }
    }
    let tail_start = offset + head + whole * per_byte;
    for (i, v) in tail.iter_mut().enumerate() {
        *v = E::from_bits(read_field(bytes, tail_start + i, n));
    }
}

/// Writes the `n`-bit field of slot `offset`, leaving the byte's other
/// bits as they are.
#[inline(always)]
fn write_field(bytes: &mut [u8], offset: usize, n: u32, field: u8) {
    // As in `read_field`: no panic path in an access.
    if n == 8 {
        if let Some(byte) = bytes.get_mut(offset) {
            *byte = field;
        }
        return;
    }
    let bit = offset.wrapping_mul(n as usize);
    let shift = 8 - n - (bit % 8) as u32;
    let mask = low_mask(n) << shift;
    if let Some(byte) = bytes.get_mut(bit / 8) {
        *byte = (*byte & !mask) | ((field << shift) & mask);
    }
}

/// Checks at compile time that two layout types fixed at compile time
/// hold the same logical array.
const fn check_static(src: Option<ArrayLayout>, dst: Option<ArrayLayout>) {
    if let (Some(a), Some(b)) = (src, dst)
        && let Err(e) = LoopNest::relayout(&a, &b)
    {
        e.panic();
    }
}

impl<L: KnownLayout + StoresPacked<E>, E: SubByte, const N: usize> PackedBase<[u8; N], L, E> {
    /// Compile-time checks of a static packed type.
    const CHECK: () = {
        if let Err(e) = check_packed(E::TYPE, &L::LAYOUT) {
            e.panic();
        }
        assert!(
            N == L::LAYOUT.physical_byte_size(),
            "the array length N must be the layout's PHYSICAL_BYTE_SIZE"
        );
    };

    /// Every bit zero (every element is zero, `false` or `+0.0`).
    /// `const`, so the tensor can be a `static`.
    ///
    /// ```
    /// use tessera::Packed;
    /// type M = tessera::layout!(pred[3,5]{1,0:T(2,4)E(1)});
    /// static MASK: Packed<M, { M::PHYSICAL_BYTE_SIZE }> = Packed::zeroed();
    /// assert_eq!(MASK.get([2, 4]), Some(false));
    /// assert_eq!(MASK.as_bytes().len(), 4); // 2×2 tiles of 8 one-bit slots
    /// ```
    pub const fn zeroed() -> Self {
        Self::from_bytes([0; N])
    }

    /// A tensor over `bytes`, laid out as the [module docs](self) say (as
    /// produced by XLA, or by [`PackedBase::as_bytes`]).
    pub const fn from_bytes(bytes: [u8; N]) -> Self {
        let () = Self::CHECK;
        PackedBase {
            layout: L::VALUE,
            storage: bytes,
            elem: PhantomData,
        }
    }

    /// The bytes, by value.
    pub const fn into_bytes(self) -> [u8; N] {
        let PackedBase {
            layout: _,
            storage,
            elem: _,
        } = self;
        storage
    }
}

impl<'a, L: StoresPacked<E>, E: SubByte> PackedBase<&'a [u8], L, E> {
    /// A view of `bytes` in `layout`.
    ///
    /// # Errors
    /// The layout's element type is not `E`'s, its `E(n)` is wider than a
    /// byte, or `bytes` is shorter than the layout's byte size. Extra
    /// bytes are ignored.
    pub fn new(layout: L, bytes: &'a [u8]) -> Result<Self, Error> {
        let n = checked_len(E::TYPE, &layout.to_array_layout(), bytes.len())?;
        Ok(PackedBase {
            layout,
            storage: &bytes[..n],
            elem: PhantomData,
        })
    }
}

impl<'a, L: StoresPacked<E>, E: SubByte> PackedBase<&'a mut [u8], L, E> {
    /// A mutable view of `bytes` in `layout`.
    ///
    /// # Errors
    /// As [`PackedView::new`].
    pub fn new(layout: L, bytes: &'a mut [u8]) -> Result<Self, Error> {
        let n = checked_len(E::TYPE, &layout.to_array_layout(), bytes.len())?;
        Ok(PackedBase {
            layout,
            storage: &mut bytes[..n],
            elem: PhantomData,
        })
    }
}

#[cfg(feature = "alloc")]
impl<L: StoresPacked<E>, E: SubByte> PackedBase<alloc::vec::Vec<u8>, L, E> {
    /// A tensor with every bit zero.
    ///
    /// # Errors
    /// The layout's element type is not `E`'s, its `E(n)` is wider than a
    /// byte, or the buffer cannot be allocated
    /// ([`ErrorKind::AllocationFailed`], naming its bytes).
    pub fn zeroed(layout: L) -> Result<Self, Error> {
        check_packed(E::TYPE, &layout.to_array_layout())?;
        let n = layout.to_array_layout().physical_byte_size();
        Ok(PackedBase {
            layout,
            storage: crate::storage::try_filled_vec(n, 0)?,
            elem: PhantomData,
        })
    }

    /// A tensor over `bytes` (see [`PackedBase::from_bytes`]).
    ///
    /// # Errors
    /// As [`PackedView::new`]; extra bytes are dropped.
    pub fn from_vec(layout: L, mut bytes: alloc::vec::Vec<u8>) -> Result<Self, Error> {
        let n = checked_len(E::TYPE, &layout.to_array_layout(), bytes.len())?;
        bytes.truncate(n);
        Ok(PackedBase {
            layout,
            storage: bytes,
            elem: PhantomData,
        })
    }

    /// A tensor holding `values` in logical (row-major index) order;
    /// padding bits zero.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout};
    /// use tessera::packed::U2;
    /// let l = PreparedLayout::parse("u2[2,3]{0,1:E(2)}").unwrap();
    /// let t = PackedBuf::<_, U2>::from_values(l, [0, 1, 2, 3, 0, 1]).unwrap();
    /// assert_eq!(t.get([1, 0]), Some(3));
    /// // Column-major: [0,0] [1,0] [0,1] [1,1] in byte 0, high bits first.
    /// assert_eq!(t.as_bytes(), &[0b00_11_01_00, 0b10_01_0000]);
    /// ```
    ///
    /// # Errors
    /// As [`PackedBuf::zeroed`], and as [`PackedBase::write_values`] (a
    /// value out of range, too few or too many values).
    pub fn from_values(
        layout: L,
        values: impl IntoIterator<Item = E::Value>,
    ) -> Result<Self, Error> {
        let mut t = Self::zeroed(layout)?;
        t.write_values(values)?;
        Ok(t)
    }

    /// A tensor whose element at each logical index is `f(index)`;
    /// padding bits zero.
    ///
    /// # Errors
    /// As [`PackedBuf::zeroed`], or a value out of range.
    pub fn from_fn(layout: L, mut f: impl FnMut(&[usize]) -> E::Value) -> Result<Self, Error> {
        let mut t = Self::zeroed(layout)?;
        let n = t.bits_per_slot();
        let mut elements = t.to_array_layout().elements();
        while let Some(offset) = elements.next_offset() {
            let bits = E::to_bits(f(elements.index()))?;
            write_field(&mut t.storage, offset, n, bits);
        }
        Ok(t)
    }

    /// The same elements packed in `layout` (which has the same dims and
    /// `E`'s element type), from an unpacked tensor of `i8`, `u8` or
    /// `bool` (the value type of `E`; layout `s8[..]`, `u8[..]` or
    /// `pred[..]`). Padding bits zero.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout, TensorBuf};
    /// use tessera::packed::S4;
    /// let bytes = PreparedLayout::parse("s8[2,4]{1,0}").unwrap();
    /// let unpacked = TensorBuf::from_fn(bytes, |i| i[1] as i8 - 2).unwrap();
    /// let packed_layout = PreparedLayout::parse("s4[2,4]{1,0:E(4)}").unwrap();
    /// let packed = PackedBuf::<_, S4>::from_tensor(packed_layout, &unpacked).unwrap();
    /// assert_eq!(packed.as_bytes(), &[0xEF, 0x01, 0xEF, 0x01]);
    /// ```
    ///
    /// # Errors
    /// As [`PackedBuf::zeroed`] and [`PackedBase::pack_from`].
    pub fn from_tensor<S2, L2>(layout: L, src: &TensorBase<S2, L2>) -> Result<Self, Error>
    where
        S2: Storage<Elem = E::Value>,
        L2: AnyLayout,
        E::Value: Element,
    {
        let mut t = Self::zeroed(layout)?;
        t.pack_from(src)?;
        Ok(t)
    }

    /// The bytes, by value.
    pub fn into_vec(self) -> alloc::vec::Vec<u8> {
        self.storage
    }
}

impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// The layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The layout as the engine's value.
    pub fn to_array_layout(&self) -> ArrayLayout {
        self.layout.to_array_layout()
    }

    /// Bits per slot: the layout's `E(n)`, or 8 without one.
    #[inline(always)]
    pub fn bits_per_slot(&self) -> u32 {
        self.layout.element_size_in_bits() as u32
    }

    /// All bytes, padding included.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.as_slice()
    }

    /// A view of the same bytes.
    pub fn view(&self) -> PackedView<'_, L, E> {
        PackedBase {
            layout: self.layout.clone(),
            storage: self.storage.as_slice(),
            elem: PhantomData,
        }
    }

    /// The element at `index`, or `None` when it is out of bounds. For a
    /// static layout an index of the wrong length is a compile error.
    ///
    /// Costs what a hand-written per-element nibble read costs (a shift
    /// and a mask after the offset; no copy of the layout, no panic path).
    /// A loop over a whole row is faster through [`PackedBase::read_row`],
    /// which unpacks a byte at a time.
    #[inline]
    pub fn get<const R: usize>(&self, index: [usize; R]) -> Option<E::Value>
    where
        L: HasRank<R>,
    {
        self.get_dyn(&index)
    }

    /// The element at `index` given as a slice (for ranks known only at
    /// run time), or `None` when it is out of bounds or has the wrong
    /// number of entries.
    #[inline]
    pub fn get_dyn(&self, index: &[usize]) -> Option<E::Value> {
        if !self.layout.is_in_bounds(index) {
            return None;
        }
        let offset = self.layout.offset_in_bounds(index);
        let field = read_field(self.storage.as_slice(), offset, self.bits_per_slot());
        Some(E::from_bits(field))
    }

    /// The raw `n`-bit field of the slot at `offset` (element or padding;
    /// `n` = [`PackedBase::bits_per_slot`]), in the low bits, or `None`
    /// past the buffer.
    pub fn slot_bits(&self, offset: usize) -> Option<u8> {
        if offset >= self.layout.buffer_len() {
            return None;
        }
        Some(read_field(
            self.storage.as_slice(),
            offset,
            self.bits_per_slot(),
        ))
    }

    /// The offset (slot number) of `index`, or why there is none.
    ///
    /// # Errors
    /// Wrong number of entries, or an entry out of bounds (the engine's
    /// message, naming the dimension, the index and the bound).
    #[inline]
    pub fn try_offset(&self, index: &[usize]) -> Result<usize, Error> {
        self.layout.try_offset(index)
    }

    /// Unpacks one row, the elements whose index starts with `row` (every
    /// entry but the last), into `out`, in order of the last index. A
    /// stretch of the row that is contiguous in the buffer is unpacked a
    /// byte at a time (two `s4` values per byte, with no offset arithmetic
    /// per element), so a kernel that unpacks a row and then works on
    /// plain values runs at the speed of hand-written nibble code.
    ///
    /// ```
    /// use tessera::{Packed, layout};
    /// type W = layout!(s4[2,8]{1,0:E(4)});
    /// static Q: Packed<W, { W::PHYSICAL_BYTE_SIZE }> =
    ///     Packed::from_bytes([0x01, 0x23, 0x45, 0x67, 0xFE, 0xDC, 0xBA, 0x98]);
    /// let mut row = [0i8; 8];
    /// Q.read_row(&[1], &mut row)?;
    /// assert_eq!(row, [-1, -2, -3, -4, -5, -6, -7, -8]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// `row` does not have one entry fewer than the rank, an entry is out
    /// of bounds, or `out` is not as long as the last dimension.
    #[inline]
    pub fn read_row(&self, row: &[usize], out: &mut [E::Value]) -> Result<(), Error> {
        let layout = &self.layout;
        let rank = layout.rank();
        let width = match rank {
            0 => 1,
            _ => layout.size(rank - 1),
        };
        // The row's number, checking each entry as the index would be.
        let mut number = 0usize;
        let mut d = 0;
        while d < row.len() && d + 1 < rank {
            if row[d] >= layout.size(d) {
                let mut index = [0usize; layout_core::MAX_RANK];
                index[..row.len()].copy_from_slice(row);
                return Err(layout_core::layouts::traits::bounds_error(
                    &layout.sizes(),
                    &index[..rank],
                ));
            }
            number = number * layout.size(d) + row[d];
            d += 1;
        }
        if row.len() + 1 != rank.max(1) {
            return Err(Error::new(ErrorKind::IndexRankMismatch {
                expected: rank.saturating_sub(1),
                found: row.len(),
            }));
        }
        if out.len() != width {
            return Err(Error::new(ErrorKind::BufferTooShort {
                needed: width,
                found: out.len(),
            }));
        }
        let (bytes, bits) = (self.storage.as_slice(), self.bits_per_slot());
        let mut cursor = runs::RunCursor::at_row(layout, number);
        let mut index = [0usize; layout_core::MAX_RANK];
        let mut done = 0;
        while done < width {
            let run = cursor.next_run(layout, &mut index);
            let out = &mut out[done..done + run.len];
            if run.stride == 1 {
                unpack_contiguous::<E>(bytes, run.offset, bits, out);
            } else {
                let mut o = run.offset;
                for v in out.iter_mut() {
                    *v = E::from_bits(read_field(bytes, o, bits));
                    o = o.wrapping_add(run.stride);
                }
            }
            done += run.len;
        }
        Ok(())
    }

    /// The elements in logical (row-major index) order, an offset computed
    /// once per run of the last dimension (see [`PackedIter`]). Each
    /// element is read on its own (about 4× the time of a hand-written
    /// loop that unpacks whole bytes, `BENCHMARKS.md`); kernels that work
    /// row by row unpack with [`PackedBase::read_row`] instead.
    #[inline]
    pub fn iter(&self) -> PackedIter<'_, E, L> {
        PackedIter {
            bytes: self.storage.as_slice(),
            layout: &self.layout,
            at: Position::new(&self.layout),
            elem: PhantomData,
        }
    }

    /// Calls `f(index, value)` for every element in logical (row-major
    /// index) order, the index counted incrementally.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(&[usize], E::Value)) {
        let (bytes, bits) = (self.storage.as_slice(), self.bits_per_slot());
        runs::for_each_offset(&self.layout, |index, offset| {
            f(index, E::from_bits(read_field(bytes, offset, bits)));
        });
    }

    /// Copies every element into `dst`, which holds the same logical array
    /// (element type and dims) in its own layout, with the same or another
    /// `E(n)` (`s4` under `E(4)` into `s4` one per byte, say). Padding bits
    /// of `dst` are left as they are; so are the bits of other slots that
    /// share a byte with a written one.
    ///
    /// Runs that are contiguous in both buffers and equally aligned are
    /// copied a byte at a time; other elements one at a time, along the
    /// engine's relayout nest ([`LoopNest::relayout`]), or in logical
    /// order when there is none. Each written slot gets the value's bits
    /// with its upper bits zero.
    ///
    /// For two static layouts a shape mismatch is a compile error.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout};
    /// use tessera::packed::S4;
    /// let packed = PreparedLayout::parse("s4[2,3]{1,0:E(4)}").unwrap();
    /// let wide = PreparedLayout::parse("s4[2,3]{0,1}").unwrap(); // column-major, a byte each
    /// let src = PackedBuf::<_, S4>::from_values(packed, [1, 2, 3, -1, -2, -3]).unwrap();
    /// let mut dst = PackedBuf::<_, S4>::zeroed(wide).unwrap();
    /// src.relayout_into(&mut dst).unwrap();
    /// assert_eq!(dst.as_bytes(), &[1, 0x0F, 2, 0x0E, 3, 0x0D]);
    /// ```
    ///
    /// # Errors
    /// The layouts differ in rank or a dimension's size.
    pub fn relayout_into<S2, L2>(&self, dst: &mut PackedBase<S2, L2, E>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = u8>,
        L2: SameShape<L>,
    {
        const { check_static(L::FIXED_LAYOUT, L2::FIXED_LAYOUT) };
        let (a, b) = (self.to_array_layout(), dst.to_array_layout());
        let nest = LoopNest::relayout(&a, &b)?;
        let (na, nb) = (self.bits_per_slot(), dst.bits_per_slot());
        let value_mask = low_mask(E::TYPE.bit_width());
        let src = self.storage.as_slice();
        let out = dst.storage.as_mut_slice();
        let copy_one = |out: &mut [u8], s: usize, d: usize| {
            write_field(out, d, nb, read_field(src, s, na) & value_mask);
        };
        match nest {
            Some(nest) => {
                let [si, di] = nest.inner_strides();
                // Whole bytes can be copied when a slot is exactly the
                // value's width (no upper bits to clear).
                let bytewise = si == 1 && di == 1 && na == nb && na == E::TYPE.bit_width();
                nest.for_each_run(|[s, d], len| {
                    if bytewise {
                        copy_run(src, out, s, d, len, na, &copy_one);
                    } else {
                        for i in 0..len {
                            copy_one(out, s + i * si, d + i * di);
                        }
                    }
                });
            }
            None => {
                // No common digits (a `*` merge, or cuts that do not
                // divide each other): element by element.
                let mut from = a.elements();
                let mut to = b.elements();
                while let (Some(s), Some(d)) = (from.next_offset(), to.next_offset()) {
                    copy_one(out, s, d);
                }
            }
        }
        Ok(())
    }

    /// Copies every element into an unpacked tensor of `E`'s value type
    /// (`i8` for `s4`, layout `s8[..]`; `u8`; `bool`) with the same dims.
    /// Padding slots of `dst` are left as they are.
    ///
    /// # Errors
    /// The layouts differ in rank or a dimension's size.
    pub fn unpack_into<S2, L2>(&self, dst: &mut TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = E::Value>,
        L2: AnyLayout,
        E::Value: Element,
    {
        let b = dst.to_array_layout();
        layout_core::walk::check_same_dims(&self.to_array_layout(), &b)?;
        let out = dst.as_mut_slice();
        let mut from = self.iter();
        let mut to = b.elements();
        while let (Some(v), Some(d)) = (from.next(), to.next_offset()) {
            out[d] = v;
        }
        Ok(())
    }

    /// A new unpacked tensor of `E`'s value type holding the same array in
    /// `layout` (an `s8[..]`, `u8[..]` or `pred[..]` layout of the same
    /// dims), padding slots zero.
    ///
    /// # Errors
    /// `layout`'s element type is not that of `E::Value`, the dims
    /// differ, or the buffer cannot be allocated
    /// ([`ErrorKind::AllocationFailed`]).
    #[cfg(feature = "alloc")]
    pub fn to_tensor<L2: crate::layout::Stores<E::Value>>(
        &self,
        layout: L2,
    ) -> Result<crate::TensorBuf<L2, E::Value>, Error>
    where
        E::Value: Element,
    {
        let mut out = crate::TensorBuf::zeroed(layout)?;
        self.unpack_into(&mut out)?;
        Ok(out)
    }
}

impl<S: StorageMut<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// All bytes, padding included, writable.
    #[inline]
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        self.storage.as_mut_slice()
    }

    /// A mutable view of the same bytes.
    pub fn view_mut(&mut self) -> PackedViewMut<'_, L, E> {
        PackedBase {
            layout: self.layout.clone(),
            storage: self.storage.as_mut_slice(),
            elem: PhantomData,
        }
    }

    /// Writes `value` at `index`; the other bits of its byte are left as
    /// they are.
    ///
    /// ```
    /// use tessera::Packed;
    /// type W = tessera::layout!(s4[2,2]{1,0:E(4)});
    /// let mut w = Packed::<W, { W::PHYSICAL_BYTE_SIZE }>::zeroed();
    /// w.set([0, 1], -2).unwrap();
    /// assert_eq!(w.as_bytes(), &[0x0E, 0x00]);
    /// let err = w.set([0, 0], 9).unwrap_err();
    /// assert_eq!(err.to_string(), "value 9 does not fit element type `s4`");
    /// ```
    ///
    /// # Errors
    /// `index` is out of bounds or has the wrong number of entries, or
    /// `value` does not fit the element type (nothing is written then).
    #[inline]
    pub fn set<const R: usize>(&mut self, index: [usize; R], value: E::Value) -> Result<(), Error>
    where
        L: HasRank<R>,
    {
        self.set_dyn(&index, value)
    }

    /// [`PackedBase::set`] with the index given as a slice.
    ///
    /// # Errors
    /// As [`PackedBase::set`].
    #[inline]
    pub fn set_dyn(&mut self, index: &[usize], value: E::Value) -> Result<(), Error> {
        let offset = self.try_offset(index)?;
        let bits = E::to_bits(value)?;
        let n = self.bits_per_slot();
        write_field(self.storage.as_mut_slice(), offset, n, bits);
        Ok(())
    }

    /// Writes `values` to the elements in logical (row-major index) order.
    /// Padding bits are left as they are.
    ///
    /// # Errors
    /// A value does not fit the element type
    /// ([`ErrorKind::ValueOutOfRange`]), `values` has fewer items than the
    /// layout has elements ([`ErrorKind::BufferTooShort`], counting values),
    /// or more ([`ErrorKind::Overflow`]). The elements before the failing
    /// one are written.
    pub fn write_values(
        &mut self,
        values: impl IntoIterator<Item = E::Value>,
    ) -> Result<(), Error> {
        let n = self.bits_per_slot();
        let mut elements = self.layout.to_array_layout().elements();
        let needed = elements.len();
        let out = self.storage.as_mut_slice();
        let mut values = values.into_iter();
        let mut written = 0;
        while let Some(offset) = elements.next_offset() {
            let Some(value) = values.next() else {
                return Err(Error::new(ErrorKind::BufferTooShort {
                    needed,
                    found: written,
                }));
            };
            write_field(out, offset, n, E::to_bits(value)?);
            written += 1;
        }
        if values.next().is_some() {
            return Err(Error::new(ErrorKind::Overflow {
                what: "the number of values (more than the layout has elements)",
            }));
        }
        Ok(())
    }

    /// Writes every element from an unpacked tensor of `E`'s value type
    /// (`i8`, `u8` or `bool`) with the same dims. Padding bits are left as
    /// they are.
    ///
    /// # Errors
    /// The dims differ, or a value does not fit the element type (the
    /// elements before it in logical order are written).
    pub fn pack_from<S2, L2>(&mut self, src: &TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: Storage<Elem = E::Value>,
        L2: AnyLayout,
        E::Value: Element,
    {
        layout_core::walk::check_same_dims(&src.to_array_layout(), &self.to_array_layout())?;
        self.write_values(src.iter().copied())
    }
}

impl<S: Storage<Elem = u8>, L: AnyLayout> PackedBase<S, L, F4e2m1fn> {
    /// The `f4e2m1fn` element at `index` as `f32`, or `None` when it is
    /// out of bounds.
    ///
    /// ```
    /// use tessera::Packed;
    /// type A = tessera::layout!(f4e2m1fn[4]{0:E(4)});
    /// let a = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::from_bytes([0x7F, 0x1A]);
    /// assert_eq!(a.get_f32([0]), Some(6.0));
    /// assert_eq!(a.get_f32([1]), Some(-6.0));
    /// assert_eq!(a.get_f32([3]), Some(-1.0));
    /// ```
    #[inline]
    pub fn get_f32<const R: usize>(&self, index: [usize; R]) -> Option<f32>
    where
        L: HasRank<R>,
    {
        self.get(index).map(F4e2m1fn::to_f32)
    }
}

/// Copies the run of `len` slots starting at `s` in `src` to the one at
/// `d` in `out`, both contiguous with `n` bits per slot: a byte at a time
/// when both start at the same bit within a byte, the ragged ends (and
/// runs of another alignment) slot by slot.
#[inline]
fn copy_run(
    src: &[u8],
    out: &mut [u8],
    s: usize,
    d: usize,
    len: usize,
    n: u32,
    copy_one: &impl Fn(&mut [u8], usize, usize),
) {
    let per_byte = (8 / n) as usize;
    if s % per_byte != d % per_byte || len < 2 * per_byte {
        for i in 0..len {
            copy_one(out, s + i, d + i);
        }
        return;
    }
    // Slots before the first whole byte.
    let head = (per_byte - s % per_byte) % per_byte;
    for i in 0..head {
        copy_one(out, s + i, d + i);
    }
    let whole = (len - head) / per_byte;
    let (sb, db) = ((s + head) / per_byte, (d + head) / per_byte);
    out[db..db + whole].copy_from_slice(&src[sb..sb + whole]);
    for i in head + whole * per_byte..len {
        copy_one(out, s + i, d + i);
    }
}

/// The elements of a packed tensor in logical (row-major index) order
/// ([`PackedBase::iter`]). Its state is a few words (as
/// [`Iter`](crate::Iter)'s): an offset is computed once per run of the
/// last dimension, and each element is a shift and a mask.
pub struct PackedIter<'a, E, L> {
    bytes: &'a [u8],
    layout: &'a L,
    at: Position,
    elem: PhantomData<fn() -> E>,
}

impl<E, L> Clone for PackedIter<'_, E, L> {
    fn clone(&self) -> Self {
        PackedIter {
            bytes: self.bytes,
            layout: self.layout,
            at: self.at,
            elem: PhantomData,
        }
    }
}

impl<E: SubByte, L: AnyLayout> Iterator for PackedIter<'_, E, L> {
    type Item = E::Value;

    #[inline]
    fn next(&mut self) -> Option<E::Value> {
        let offset = self.at.next_offset(self.layout)?;
        let bits = self.layout.element_size_in_bits() as u32;
        Some(E::from_bits(read_field(self.bytes, offset, bits)))
    }

    #[inline]
    fn fold<B, F: FnMut(B, E::Value) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        let (bytes, bits) = (self.bytes, self.layout.element_size_in_bits() as u32);
        while let Some(Run {
            offset,
            stride,
            len,
        }) = self.at.take_run(self.layout)
        {
            let mut o = offset;
            for _ in 0..len {
                acc = f(acc, E::from_bits(read_field(bytes, o, bits)));
                o = o.wrapping_add(stride);
            }
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.at.remaining, Some(self.at.remaining))
    }
}

impl<E: SubByte, L: AnyLayout> ExactSizeIterator for PackedIter<'_, E, L> {}
impl<E: SubByte, L: AnyLayout> core::iter::FusedIterator for PackedIter<'_, E, L> {}

impl<S: Storage<Elem = u8> + Clone, L: AnyLayout, E> Clone for PackedBase<S, L, E> {
    fn clone(&self) -> Self {
        PackedBase {
            layout: self.layout.clone(),
            storage: self.storage.clone(),
            elem: PhantomData,
        }
    }
}

impl<S: Storage<Elem = u8> + Copy, L: AnyLayout + Copy, E> Copy for PackedBase<S, L, E> {}

impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> fmt::Debug for PackedBase<S, L, E> {
    /// The layout and the elements in logical order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct DebugElements<'a, S, L, E>(&'a PackedBase<S, L, E>);
        impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> fmt::Debug for DebugElements<'_, S, L, E> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.iter()).finish()
            }
        }
        f.debug_struct("Packed")
            .field("layout", &format_args!("{}", self.to_array_layout()))
            .field("elements", &DebugElements(self))
            .finish()
    }
}

impl<S, S2, L, L2, E> PartialEq<PackedBase<S2, L2, E>> for PackedBase<S, L, E>
where
    S: Storage<Elem = u8>,
    S2: Storage<Elem = u8>,
    L: AnyLayout,
    L2: AnyLayout,
    E: SubByte,
{
    /// Same dims and the same elements at every index (layouts, `E(n)`
    /// and padding may differ).
    fn eq(&self, other: &PackedBase<S2, L2, E>) -> bool {
        let (a, b) = (self.to_array_layout(), other.to_array_layout());
        a.sizes().as_slice() == b.sizes().as_slice() && self.iter().eq(other.iter())
    }
}
