//! [`Element`]: the Rust types that hold XLA element types.
//!
//! | XLA type | Rust type | feature |
//! | --- | --- | --- |
//! | `pred` | `bool` | |
//! | `s8` `s16` `s32` `s64` | `i8` `i16` `i32` `i64` | |
//! | `u8` `u16` `u32` `u64` | `u8` `u16` `u32` `u64` | |
//! | `f32` `f64` | `f32` `f64` | |
//! | `f16` `bf16` | `half::f16` `half::bf16` | `half` |
//! | `c64` `c128` | `num_complex::Complex<f32>`, `Complex<f64>` | `num-complex` |
//!
//! Sub-byte types (`s4`, `u4`, `s2`, `u2`, `s1`, `u1`, `f4e2m1fn`, and
//! `pred` under `E(1)`) are stored packed: see [`packed`](crate::packed).
//! The 8-bit float formats (`f8e4m3fn`, ...) have no Rust type here yet;
//! read their buffers as `u8` through the packed API's raw bytes.

use layout_core::PrimitiveType;
use layout_core::layouts::typelevel::{self, ElementSpec};

use crate::layout::StoredAs;

/// A Rust type that holds elements of one XLA element type, byte for byte
/// (`bytemuck::NoUninit`, so a buffer can be viewed as bytes).
///
/// The values named here fill buffers: [`Element::ZERO`] for zeroed
/// storage, and the others for the padding values `pad(..:one)`,
/// `lowest` and `highest`. XLA's lowest and highest floats are the
/// infinities.
///
/// ```
/// use tessera::Element;
/// /// The XLA name and byte width of a Rust element type.
/// fn describe<T: Element>() -> (&'static str, usize) {
///     (T::TYPE.name(), T::TYPE.byte_width())
/// }
/// assert_eq!(describe::<i32>(), ("s32", 4));
/// assert_eq!(describe::<bool>(), ("pred", 1));
/// assert_eq!(f32::LOWEST, Some(f32::NEG_INFINITY)); // `pad(..:lowest)`
/// ```
pub trait Element: Copy + bytemuck::NoUninit + Send + Sync + 'static {
    /// The XLA element type.
    const TYPE: PrimitiveType;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The lowest value (`-inf` for floats), if the type is ordered.
    const LOWEST: Option<Self>;
    /// The highest value (`+inf` for floats), if the type is ordered.
    const HIGHEST: Option<Self>;
}

/// The one table of Rust types and XLA element types: each row makes
/// the Rust type an [`Element`] of the element type its marker
/// ([`typelevel`]) names, and the marker [`StoredAs`] the Rust type, so
/// that run-time and static layouts agree on it.
macro_rules! elements {
    ($($(#[$cfg:meta])* $t:ty => $xla:ident, $zero:expr, $one:expr, $lo:expr, $hi:expr;)*) => {$(
        $(#[$cfg])*
        impl Element for $t {
            const TYPE: PrimitiveType = <typelevel::$xla as ElementSpec>::TYPE;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const LOWEST: Option<Self> = $lo;
            const HIGHEST: Option<Self> = $hi;
        }

        $(#[$cfg])*
        impl StoredAs<$t> for typelevel::$xla {}
    )*};
}

// Complex numbers are not ordered: no lowest or highest value.
elements! {
    bool => Pred, false, true, Some(false), Some(true);
    i8 => S8, 0, 1, Some(i8::MIN), Some(i8::MAX);
    i16 => S16, 0, 1, Some(i16::MIN), Some(i16::MAX);
    i32 => S32, 0, 1, Some(i32::MIN), Some(i32::MAX);
    i64 => S64, 0, 1, Some(i64::MIN), Some(i64::MAX);
    u8 => U8, 0, 1, Some(u8::MIN), Some(u8::MAX);
    u16 => U16, 0, 1, Some(u16::MIN), Some(u16::MAX);
    u32 => U32, 0, 1, Some(u32::MIN), Some(u32::MAX);
    u64 => U64, 0, 1, Some(u64::MIN), Some(u64::MAX);
    f32 => F32, 0.0, 1.0, Some(f32::NEG_INFINITY), Some(f32::INFINITY);
    f64 => F64, 0.0, 1.0, Some(f64::NEG_INFINITY), Some(f64::INFINITY);
    #[cfg(feature = "half")]
    half::f16 => F16, half::f16::ZERO, half::f16::ONE,
        Some(half::f16::NEG_INFINITY), Some(half::f16::INFINITY);
    #[cfg(feature = "half")]
    half::bf16 => Bf16, half::bf16::ZERO, half::bf16::ONE,
        Some(half::bf16::NEG_INFINITY), Some(half::bf16::INFINITY);
    #[cfg(feature = "num-complex")]
    num_complex::Complex<f32> => C64, num_complex::Complex::new(0.0, 0.0),
        num_complex::Complex::new(1.0, 0.0), None, None;
    #[cfg(feature = "num-complex")]
    num_complex::Complex<f64> => C128, num_complex::Complex::new(0.0, 0.0),
        num_complex::Complex::new(1.0, 0.0), None, None;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<T: Element>() {
        // The Rust type is exactly as wide as XLA's element.
        assert_eq!(
            core::mem::size_of::<T>(),
            T::TYPE.byte_width(),
            "{}",
            T::TYPE.name()
        );
    }

    #[test]
    fn widths_match_xla() {
        check::<bool>();
        check::<i8>();
        check::<i16>();
        check::<i32>();
        check::<i64>();
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
        check::<f32>();
        check::<f64>();
        #[cfg(feature = "half")]
        {
            check::<half::f16>();
            check::<half::bf16>();
        }
        #[cfg(feature = "num-complex")]
        {
            check::<num_complex::Complex<f32>>();
            check::<num_complex::Complex<f64>>();
        }
    }
}
