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

/// A Rust type that holds elements of one XLA element type, byte for byte
/// (`bytemuck::NoUninit`, so a buffer can be viewed as bytes).
///
/// The values named here fill buffers: [`Element::ZERO`] for zeroed
/// storage, and the others for the padding values `pad(..:one)`,
/// `lowest` and `highest`. XLA's lowest and highest floats are the
/// infinities.
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

macro_rules! element {
    ($($t:ty => $xla:ident, $zero:expr, $one:expr, $lo:expr, $hi:expr;)*) => {$(
        impl Element for $t {
            const TYPE: PrimitiveType = PrimitiveType::$xla;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const LOWEST: Option<Self> = Some($lo);
            const HIGHEST: Option<Self> = Some($hi);
        }
    )*};
}

element! {
    bool => Pred, false, true, false, true;
    i8 => S8, 0, 1, i8::MIN, i8::MAX;
    i16 => S16, 0, 1, i16::MIN, i16::MAX;
    i32 => S32, 0, 1, i32::MIN, i32::MAX;
    i64 => S64, 0, 1, i64::MIN, i64::MAX;
    u8 => U8, 0, 1, u8::MIN, u8::MAX;
    u16 => U16, 0, 1, u16::MIN, u16::MAX;
    u32 => U32, 0, 1, u32::MIN, u32::MAX;
    u64 => U64, 0, 1, u64::MIN, u64::MAX;
    f32 => F32, 0.0, 1.0, f32::NEG_INFINITY, f32::INFINITY;
    f64 => F64, 0.0, 1.0, f64::NEG_INFINITY, f64::INFINITY;
}

#[cfg(feature = "half")]
element! {
    half::f16 => F16, half::f16::ZERO, half::f16::ONE, half::f16::NEG_INFINITY, half::f16::INFINITY;
    half::bf16 => Bf16, half::bf16::ZERO, half::bf16::ONE, half::bf16::NEG_INFINITY, half::bf16::INFINITY;
}

#[cfg(feature = "num-complex")]
macro_rules! complex {
    ($($t:ty => $xla:ident;)*) => {$(
        impl Element for num_complex::Complex<$t> {
            const TYPE: PrimitiveType = PrimitiveType::$xla;
            const ZERO: Self = num_complex::Complex::new(0.0, 0.0);
            const ONE: Self = num_complex::Complex::new(1.0, 0.0);
            /// Complex numbers are not ordered.
            const LOWEST: Option<Self> = None;
            /// Complex numbers are not ordered.
            const HIGHEST: Option<Self> = None;
        }
    )*};
}

#[cfg(feature = "num-complex")]
complex! {
    f32 => C64;
    f64 => C128;
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
