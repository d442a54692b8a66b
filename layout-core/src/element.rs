//! XLA's element types (`PrimitiveType`): names, bit widths and byte widths.

/// An XLA primitive type: the element type of an array, or one of the
/// non-array types `token` and `opaque`.
///
/// The discriminants are XLA's `PrimitiveType` enum values from
/// `xla_data.proto`, so [`PrimitiveType::xla_enum_value`] is a plain cast.
/// Tuples and buffers are structural in tessera (see
/// [`parse_shape_tree`](crate::text::parse_shape_tree)), not element types.
///
/// ```
/// use tessera::PrimitiveType;
/// let t = PrimitiveType::from_name("bf16").unwrap();
/// assert_eq!(t, PrimitiveType::Bf16);
/// assert_eq!((t.bit_width(), t.byte_width()), (16, 2));
/// assert_eq!(PrimitiveType::S4.byte_width(), 1); // sub-byte types take a byte unless packed by E(n)
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[non_exhaustive]
pub enum PrimitiveType {
    /// `pred`: boolean, 1 bit wide, stored in a byte unless packed by `E(1)`.
    Pred = 1,
    /// `s1`: 1-bit signed integer.
    S1 = 30,
    /// `s2`: 2-bit signed integer.
    S2 = 26,
    /// `s4`: 4-bit signed integer (int4).
    S4 = 21,
    /// `s8`: 8-bit signed integer.
    S8 = 2,
    /// `s16`: 16-bit signed integer.
    S16 = 3,
    /// `s32`: 32-bit signed integer.
    S32 = 4,
    /// `s64`: 64-bit signed integer.
    S64 = 5,
    /// `u1`: 1-bit unsigned integer.
    U1 = 31,
    /// `u2`: 2-bit unsigned integer.
    U2 = 27,
    /// `u4`: 4-bit unsigned integer.
    U4 = 22,
    /// `u8`: 8-bit unsigned integer.
    U8 = 6,
    /// `u16`: 16-bit unsigned integer.
    U16 = 7,
    /// `u32`: 32-bit unsigned integer.
    U32 = 8,
    /// `u64`: 64-bit unsigned integer.
    U64 = 9,
    /// `f16`: IEEE half precision.
    F16 = 10,
    /// `f32`: IEEE single precision.
    F32 = 11,
    /// `bf16`: bfloat16.
    Bf16 = 16,
    /// `f64`: IEEE double precision.
    F64 = 12,
    /// `f8e5m2`: 8-bit float, 5 exponent and 2 mantissa bits.
    F8e5m2 = 19,
    /// `f8e4m3`: 8-bit float, 4 exponent and 3 mantissa bits (IEEE-like).
    F8e4m3 = 28,
    /// `f8e4m3fn`: 8-bit float, finite only.
    F8e4m3fn = 20,
    /// `f8e4m3b11fnuz`: 8-bit float, exponent bias 11, finite, unsigned zero.
    F8e4m3b11fnuz = 23,
    /// `f8e3m4`: 8-bit float, 3 exponent and 4 mantissa bits.
    F8e3m4 = 29,
    /// `f8e5m2fnuz`: 8-bit float, finite, unsigned zero.
    F8e5m2fnuz = 24,
    /// `f8e4m3fnuz`: 8-bit float, finite, unsigned zero.
    F8e4m3fnuz = 25,
    /// `f4e2m1fn`: 4-bit float (MX FP4).
    F4e2m1fn = 32,
    /// `f8e8m0fnu`: 8-bit exponent-only scale (MX scale).
    F8e8m0fnu = 33,
    /// `c64`: complex of two `f32`.
    C64 = 15,
    /// `c128`: complex of two `f64`.
    C128 = 18,
    /// `token`: an ordering token; not an array type.
    Token = 17,
    /// `opaque`: an opaque handle; not an array type.
    Opaque = 14,
}

/// Bytes that `slots` elements of `element_type` take, packed `E(bits)`
/// to a slot (`ceil(slots × bits / 8)`), or at the type's byte width when
/// `bits` is 0; `None` above XLA's `int64` ([`MAX_DIM_SIZE`](crate::limits::MAX_DIM_SIZE),
/// no more than `usize`). The bit count is taken in 128 bits, so packed
/// sizes near the limit do not overflow early.
pub(crate) const fn bytes_of_slots(
    element_type: PrimitiveType,
    bits: u32,
    slots: usize,
) -> Option<usize> {
    let bits = match bits {
        0 => element_type.byte_width() as u128 * 8,
        b => b as u128,
    };
    let bytes = (slots as u128 * bits).div_ceil(8);
    if bytes > crate::limits::MAX_DIM_SIZE as u128 {
        None
    } else {
        Some(bytes as usize)
    }
}

impl PrimitiveType {
    /// Every primitive type, array types first, in XLA's documentation order.
    pub const ALL: [PrimitiveType; 32] = [
        Self::Pred,
        Self::S1,
        Self::S2,
        Self::S4,
        Self::S8,
        Self::S16,
        Self::S32,
        Self::S64,
        Self::U1,
        Self::U2,
        Self::U4,
        Self::U8,
        Self::U16,
        Self::U32,
        Self::U64,
        Self::F16,
        Self::F32,
        Self::Bf16,
        Self::F64,
        Self::F8e5m2,
        Self::F8e4m3,
        Self::F8e4m3fn,
        Self::F8e4m3b11fnuz,
        Self::F8e3m4,
        Self::F8e5m2fnuz,
        Self::F8e4m3fnuz,
        Self::F4e2m1fn,
        Self::F8e8m0fnu,
        Self::C64,
        Self::C128,
        Self::Token,
        Self::Opaque,
    ];

    /// The lower-case name XLA prints (`f32`, `bf16`, `s4`, `token`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Pred => "pred",
            Self::S1 => "s1",
            Self::S2 => "s2",
            Self::S4 => "s4",
            Self::S8 => "s8",
            Self::S16 => "s16",
            Self::S32 => "s32",
            Self::S64 => "s64",
            Self::U1 => "u1",
            Self::U2 => "u2",
            Self::U4 => "u4",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::F16 => "f16",
            Self::F32 => "f32",
            Self::Bf16 => "bf16",
            Self::F64 => "f64",
            Self::F8e5m2 => "f8e5m2",
            Self::F8e4m3 => "f8e4m3",
            Self::F8e4m3fn => "f8e4m3fn",
            Self::F8e4m3b11fnuz => "f8e4m3b11fnuz",
            Self::F8e3m4 => "f8e3m4",
            Self::F8e5m2fnuz => "f8e5m2fnuz",
            Self::F8e4m3fnuz => "f8e4m3fnuz",
            Self::F4e2m1fn => "f4e2m1fn",
            Self::F8e8m0fnu => "f8e8m0fnu",
            Self::C64 => "c64",
            Self::C128 => "c128",
            Self::Token => "token",
            Self::Opaque => "opaque",
        }
    }

    /// Looks a type up by its XLA name. `opaque_type` is accepted for
    /// `opaque`, as XLA's parser does.
    pub const fn from_name(name: &str) -> Option<Self> {
        if bytes_eq(name.as_bytes(), b"opaque_type") {
            return Some(Self::Opaque);
        }
        let mut i = 0;
        while i < Self::ALL.len() {
            if bytes_eq(name.as_bytes(), Self::ALL[i].name().as_bytes()) {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// XLA's `PrimitiveType` enum value (`F32` is 11).
    pub const fn xla_enum_value(self) -> u32 {
        self as u8 as u32
    }

    /// The type with XLA enum value `value`, if tessera knows it.
    pub const fn from_xla_enum_value(value: u32) -> Option<Self> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if Self::ALL[i].xla_enum_value() == value {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// Whether values of this type can be array elements (everything but
    /// `token` and `opaque`).
    pub const fn is_array(self) -> bool {
        !matches!(self, Self::Token | Self::Opaque)
    }

    /// Bits per element (`primitive_util::BitWidth`); 0 for `token` and
    /// `opaque`.
    pub const fn bit_width(self) -> u32 {
        match self {
            Self::Pred | Self::S1 | Self::U1 => 1,
            Self::S2 | Self::U2 => 2,
            Self::S4 | Self::U4 | Self::F4e2m1fn => 4,
            Self::S8
            | Self::U8
            | Self::F8e5m2
            | Self::F8e4m3
            | Self::F8e4m3fn
            | Self::F8e4m3b11fnuz
            | Self::F8e3m4
            | Self::F8e5m2fnuz
            | Self::F8e4m3fnuz
            | Self::F8e8m0fnu => 8,
            Self::S16 | Self::U16 | Self::F16 | Self::Bf16 => 16,
            Self::S32 | Self::U32 | Self::F32 => 32,
            Self::S64 | Self::U64 | Self::F64 | Self::C64 => 64,
            Self::C128 => 128,
            Self::Token | Self::Opaque => 0,
        }
    }

    /// Bytes per unpacked element: `ceil(bit_width / 8)`, so every sub-byte
    /// type takes one byte unless a layout packs it with `E(n)`. 0 for
    /// `token` and `opaque`.
    pub const fn byte_width(self) -> usize {
        self.bit_width().div_ceil(8) as usize
    }

    /// Whether the type is narrower than a byte (`pred`, `s1`..`s4`,
    /// `u1`..`u4`, `f4e2m1fn`).
    pub const fn is_sub_byte(self) -> bool {
        self.is_array() && self.bit_width() < 8
    }

    /// Whether the type is a signed or unsigned integer (not `pred`).
    pub const fn is_integral(self) -> bool {
        self.is_signed_integral() || self.is_unsigned_integral()
    }

    /// Whether the type is a signed integer (`s1`..`s64`).
    pub const fn is_signed_integral(self) -> bool {
        matches!(
            self,
            Self::S1 | Self::S2 | Self::S4 | Self::S8 | Self::S16 | Self::S32 | Self::S64
        )
    }

    /// Whether the type is an unsigned integer (`u1`..`u64`).
    pub const fn is_unsigned_integral(self) -> bool {
        matches!(
            self,
            Self::U1 | Self::U2 | Self::U4 | Self::U8 | Self::U16 | Self::U32 | Self::U64
        )
    }

    /// Whether the type is a real floating-point type (including `bf16`,
    /// the `f8` family and `f4e2m1fn`).
    pub const fn is_floating_point(self) -> bool {
        matches!(
            self,
            Self::F16
                | Self::F32
                | Self::Bf16
                | Self::F64
                | Self::F8e5m2
                | Self::F8e4m3
                | Self::F8e4m3fn
                | Self::F8e4m3b11fnuz
                | Self::F8e3m4
                | Self::F8e5m2fnuz
                | Self::F8e4m3fnuz
                | Self::F4e2m1fn
                | Self::F8e8m0fnu
        )
    }

    /// Whether the type is complex (`c64`, `c128`).
    pub const fn is_complex(self) -> bool {
        matches!(self, Self::C64 | Self::C128)
    }
}

impl core::fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// `a == b` for byte strings, usable in `const fn`.
pub(crate) const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for t in PrimitiveType::ALL {
            assert_eq!(PrimitiveType::from_name(t.name()), Some(t));
            assert_eq!(
                PrimitiveType::from_xla_enum_value(t.xla_enum_value()),
                Some(t)
            );
        }
        assert_eq!(
            PrimitiveType::from_name("opaque_type"),
            Some(PrimitiveType::Opaque)
        );
        assert_eq!(PrimitiveType::from_name("g32"), None);
        assert_eq!(PrimitiveType::from_name("tuple"), None);
        assert_eq!(PrimitiveType::from_name("F32"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(PrimitiveType::Pred.bit_width(), 1);
        assert_eq!(PrimitiveType::Pred.byte_width(), 1);
        assert_eq!(PrimitiveType::C128.byte_width(), 16);
        assert_eq!(PrimitiveType::F4e2m1fn.bit_width(), 4);
        assert!(PrimitiveType::F4e2m1fn.is_sub_byte());
        assert!(!PrimitiveType::S8.is_sub_byte());
        assert!(!PrimitiveType::Token.is_array());
        assert_eq!(PrimitiveType::Token.byte_width(), 0);
    }
}
