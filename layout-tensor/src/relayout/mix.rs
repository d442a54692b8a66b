//! What the row interleave kernels ([`super::simd`]) do to a group of
//! rows besides moving them: nothing ([`Whole`], elements move whole), or
//! a square transpose of their sub-byte fields ([`Fields`], the packed
//! `(2,1)` sub-tiles of `E(4)` and `(4,1)` of `E(2)`).
//!
//! Under `E(n)` a byte holds `k = 8 / n` slots, the first in the most
//! significant bits (XLA's `PackIntN`). A row-major byte holds `k`
//! consecutive `x` of one row; a byte of a `(k,1)` sub-tile holds one `x`
//! of `k` rows. So `k` bytes, one of each of `k` rows at the same place,
//! become the `k` sub-tile bytes of their `k` `x` by a transpose of the
//! `k × k` matrix of fields, and back by the same transpose. It takes
//! `log2(k)` rounds: round `s` (`k/2`, ..., 1) swaps, between each row
//! `r` with bit `s` clear and row `r + s`, the fields `s` places apart
//! (a masked exclusive or, two shifts). The bytes then interleave as any
//! byte rows do.
#![allow(unsafe_code)]

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use core::arch::x86_64::{__m128i, __m256i};

/// A transform of a group of `F` rows (or of `F` vectors of rows) that an
/// interleave applies before interleaving them and a deinterleave after
/// splitting them. Its own inverse.
pub(crate) trait Mix<T>: Copy {
    /// The transform is none ([`Whole`]): kernels keep their plain code.
    const WHOLE: bool = false;
    /// The transform of `F` elements, one of each row.
    fn elements<const F: usize>(v: [T; F]) -> [T; F];
    /// The transform of `F` vectors, one of each row, byte by byte as
    /// [`Mix::elements`].
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn vectors<const F: usize>(v: [__m128i; F]) -> [__m128i; F];
    /// [`Mix::vectors`] in AVX2's 32-byte vectors.
    ///
    /// # Safety
    /// The CPU has AVX2 (the caller is compiled for it, and this inlines
    /// into it).
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    unsafe fn wide_vectors<const F: usize>(v: [__m256i; F]) -> [__m256i; F];
}

/// Rows that move whole: no transform.
#[derive(Clone, Copy)]
pub(crate) struct Whole;

impl<T> Mix<T> for Whole {
    const WHOLE: bool = true;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn elements<const F: usize>(v: [T; F]) -> [T; F] {
        v
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn vectors<const F: usize>(v: [__m128i; F]) -> [__m128i; F] {
        v
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn wide_vectors<const F: usize>(v: [__m256i; F]) -> [__m256i; F] {
        v
    }
}

/// Bytes of `N`-bit fields (`N` 1, 2 or 4) in groups of `8 / N` rows: the
/// square transpose of their fields (see the [module docs](self)).
#[derive(Clone, Copy)]
pub(crate) struct Fields<const N: u32>;

/// The bits of the fields whose place in a byte (counted from the least
/// significant, in fields of `n` bits) has bit `s` clear: those that
/// round `s` moves from the lower row of a pair.
const fn round_mask(n: u32, s: usize) -> u8 {
    let mut mask = 0u8;
    let mut place = 0;
    while place < (8 / n) as usize {
        if place & s == 0 {
            mask |= (((1u16 << n) - 1) as u8) << (place as u32 * n);
        }
        place += 1;
    }
    mask
}

impl<const N: u32> Mix<u8> for Fields<N> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn elements<const F: usize>(mut v: [u8; F]) -> [u8; F] {
        debug_assert_eq!(F as u32 * N, 8, "a group of 8 / N rows");
        let mut s = F / 2;
        while s > 0 {
            let (shift, mask) = (s as u32 * N, round_mask(N, s));
            for r in (0..F).filter(|r| r & s == 0) {
                let t = (v[r] ^ (v[r + s] >> shift)) & mask;
                v[r] ^= t;
                v[r + s] ^= t << shift;
            }
            s /= 2;
        }
        v
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn vectors<const F: usize>(mut v: [__m128i; F]) -> [__m128i; F] {
        use core::arch::x86_64::*;
        let mut s = F / 2;
        while s > 0 {
            // SAFETY: SSE2 is enabled (the `cfg` above); these read and
            // write no memory. The shifts are of 16-bit lanes: the bits a
            // right shift brings into a byte from the next one are masked
            // off, and a left shift moves only masked bits, which stay in
            // their byte (`mask << shift` fits in eight bits).
            unsafe {
                let shift = _mm_cvtsi32_si128((s as u32 * N) as i32);
                let mask = _mm_set1_epi8(round_mask(N, s) as i8);
                for r in (0..F).filter(|r| r & s == 0) {
                    let t =
                        _mm_and_si128(_mm_xor_si128(v[r], _mm_srl_epi16(v[r + s], shift)), mask);
                    v[r] = _mm_xor_si128(v[r], t);
                    v[r + s] = _mm_xor_si128(v[r + s], _mm_sll_epi16(t, shift));
                }
            }
            s /= 2;
        }
        v
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn wide_vectors<const F: usize>(mut v: [__m256i; F]) -> [__m256i; F] {
        use core::arch::x86_64::*;
        let mut s = F / 2;
        while s > 0 {
            // SAFETY: the caller's CPU has AVX2; as in `vectors`, in
            // 32-byte vectors.
            unsafe {
                let shift = _mm_cvtsi32_si128((s as u32 * N) as i32);
                let mask = _mm256_set1_epi8(round_mask(N, s) as i8);
                for r in (0..F).filter(|r| r & s == 0) {
                    let t = _mm256_and_si256(
                        _mm256_xor_si256(v[r], _mm256_srl_epi16(v[r + s], shift)),
                        mask,
                    );
                    v[r] = _mm256_xor_si256(v[r], t);
                    v[r + s] = _mm256_xor_si256(v[r + s], _mm256_sll_epi16(t, shift));
                }
            }
            s /= 2;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::{Fields, Mix, round_mask};

    /// Field `b` of byte `a`, the first field in the most significant
    /// bits.
    fn field(byte: u8, n: u32, b: usize) -> u8 {
        (byte >> (8 - n - b as u32 * n)) & (((1u16 << n) - 1) as u8)
    }

    /// Field `a` of output byte `b` is field `b` of input byte `a`, for
    /// every byte value in every place (one round's masks and shifts at
    /// a time would show), through bytes and through vectors.
    fn check<const F: usize, const N: u32>() {
        // Under Miri, which runs this about a thousand times slower
        // (two minutes for all 256), a few.
        let seeds = if cfg!(miri) { 4 } else { 256 };
        for seed in 0..seeds {
            let v: [u8; F] = core::array::from_fn(|a| {
                (seed as u8)
                    .wrapping_mul(37)
                    .wrapping_add((a as u8).wrapping_mul(101))
            });
            let w = Fields::<N>::elements(v);
            for (a, &in_byte) in v.iter().enumerate() {
                for (b, &out_byte) in w.iter().enumerate() {
                    assert_eq!(
                        field(out_byte, N, a),
                        field(in_byte, N, b),
                        "{v:?}: ({a}, {b})"
                    );
                }
            }
            assert_eq!(Fields::<N>::elements(w), v, "its own inverse");
            #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
            {
                use core::arch::x86_64::*;
                // Sixteen groups side by side, each byte lane its own.
                let lanes: [[u8; 16]; F] = core::array::from_fn(|r| {
                    core::array::from_fn(|l| v[r].wrapping_add(l as u8 * 17))
                });
                // SAFETY: SSE2 is enabled; unaligned loads and stores of
                // 16-byte arrays.
                let out: [[u8; 16]; F] = unsafe {
                    let vs: [_; F] =
                        core::array::from_fn(|r| _mm_loadu_si128(lanes[r].as_ptr().cast()));
                    let ws = Fields::<N>::vectors(vs);
                    core::array::from_fn(|r| {
                        let mut o = [0u8; 16];
                        _mm_storeu_si128(o.as_mut_ptr().cast(), ws[r]);
                        o
                    })
                };
                for l in 0..16 {
                    let group: [u8; F] = core::array::from_fn(|r| lanes[r][l]);
                    let expected = Fields::<N>::elements(group);
                    for r in 0..F {
                        assert_eq!(out[r][l], expected[r], "lane {l}");
                    }
                }
                // And 32 groups side by side in AVX2's vectors, where the
                // CPU has it.
                if crate::relayout::isa::has_avx2() {
                    let lanes: [[u8; 32]; F] = core::array::from_fn(|r| {
                        core::array::from_fn(|l| v[r].wrapping_add((l as u8).wrapping_mul(29)))
                    });
                    // SAFETY: the CPU has AVX2 (asked above).
                    let ws = unsafe { Fields::<N>::wide_vectors(lanes.map(bytemuck::cast)) };
                    for l in 0..32 {
                        let group: [u8; F] = core::array::from_fn(|r| lanes[r][l]);
                        let expected = Fields::<N>::elements(group);
                        for r in 0..F {
                            let out: [u8; 32] = bytemuck::cast(ws[r]);
                            assert_eq!(out[l], expected[r], "wide lane {l}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fields_transpose_as_a_square() {
        assert_eq!(round_mask(4, 1), 0x0F);
        assert_eq!([round_mask(2, 2), round_mask(2, 1)], [0x0F, 0x33]);
        assert_eq!(round_mask(1, 1), 0x55);
        // Two bytes of nibbles, the first slot in the high one: (x0, x1)
        // of rows a and b become (a, b) of x0 and of x1.
        assert_eq!(Fields::<4>::elements([0x12, 0x34]), [0x13, 0x24]);
        check::<2, 4>();
        check::<4, 2>();
        check::<8, 1>();
    }
}
