//! [`SubByte`]: the sub-byte element types' markers, the Rust type of
//! their values, and how a value maps to its bits.

use core::fmt;

use layout_core::layouts::typelevel::{ElementSpec, F4e2m1fn, Pred, S1, S2, S4, U1, U2, U4};
use layout_core::{Error, ErrorKind, Locus, PrimitiveType};

use super::bits::low_mask;

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
///
/// ```
/// use tessera::packed::{S4, U2};
/// use tessera::{Error, SubByte};
/// /// A value to its bits and back, as packed storage writes and reads it.
/// fn round_trip<E: SubByte>(v: E::Value) -> Result<E::Value, Error> {
///     Ok(E::from_bits(E::to_bits(v)?))
/// }
/// assert_eq!(S4::to_bits(-1)?, 0b1111); // the low 4 bits
/// assert_eq!(round_trip::<S4>(-8)?, -8); // sign-extended back
/// assert_eq!(round_trip::<U2>(3)?, 3);
/// assert!(round_trip::<S4>(8).is_err()); // `s4` is -8..=7
/// # Ok::<(), tessera::Error>(())
/// ```
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
