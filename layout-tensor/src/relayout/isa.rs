//! The vector registers the relayout kernels move data in: SSE2's
//! 16-byte `__m128i` (every x86-64 target), AVX2's 32-byte `__m256i`,
//! taken when the CPU running the code has AVX2, and AVX-512's 64-byte
//! `__m512i`, taken by the transposes of 4- and 8-byte elements (and of
//! 1- and 2-byte ones above the streaming threshold) when it has AVX-512
//! (F and BW) ([`Isa::best`], detected once at run time, or
//! enabled at build time with `-C target-feature=+avx2` or
//! `+avx512f,+avx512bw`).
//!
//! AVX2 halves the instructions per byte. On the machine of
//! `BENCHMARKS.md`, timed in turns with the SSE2 kernel, a 1 MiB plain
//! transpose took 0.67–0.75 of its time for `f32`, 0.61–0.73 for `bf16`
//! and 0.66–0.69 for `u8`; the staged copy of larger arrays, bound by
//! memory, keeps 16-byte squares ([`super::transpose`]). The row
//! interleaves take 32 bytes of each row at a time ([`super::simd`]).
//! AVX-512's square of 16 `f32` is 16 cache lines in and 16 out, whole
//! lines each, so the transposes of large arrays stream its rows straight
//! to the destination rather than staging them ([`super::transpose`]).
//!
//! One of the relayout kernels' modules with `unsafe` code: `cpuid`, and
//! the vectors' loads and stores; `.ci/run` runs the kernels' tests under
//! Miri in the default build and with AVX-512 enabled (which implies
//! AVX2).
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm_loadu_si128, _mm_storel_epi64, _mm_storeu_si128,
    _mm_unpackhi_epi8, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64,
    _mm_unpacklo_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_loadu2_m128i,
    _mm256_permute2x128_si256, _mm256_storeu_si256, _mm256_unpackhi_epi8, _mm256_unpackhi_epi16,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi8, _mm256_unpacklo_epi16,
    _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm512_castsi256_si512, _mm512_castsi512_si256,
    _mm512_extracti64x4_epi64, _mm512_inserti64x4, _mm512_loadu_si512, _mm512_permutex2var_epi64,
    _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_unpackhi_epi8, _mm512_unpackhi_epi16,
    _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpacklo_epi8, _mm512_unpacklo_epi16,
    _mm512_unpacklo_epi32, _mm512_unpacklo_epi64,
};
use core::sync::atomic::{AtomicU8, Ordering};

/// The instruction set a transpose runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// 16-byte vectors, on every x86-64 target.
    Sse2,
    /// 32-byte vectors, when the CPU has AVX2.
    Avx2,
    /// 64-byte vectors, when the CPU has AVX-512 F and BW (AVX2's
    /// 32-byte vectors where a kernel has no 64-byte one).
    Avx512,
}

impl Isa {
    /// AVX-512 when the CPU has it, else AVX2 when it has that, else SSE2.
    #[inline]
    pub(crate) fn best() -> Isa {
        match (has_avx512(), has_avx2()) {
            (true, _) => Isa::Avx512,
            (_, true) => Isa::Avx2,
            _ => Isa::Sse2,
        }
    }

    /// Whether the CPU runs this instruction set's vectors.
    #[inline]
    pub(crate) fn runs(self) -> bool {
        match self {
            Isa::Sse2 => true,
            Isa::Avx2 => has_avx2(),
            Isa::Avx512 => has_avx512(),
        }
    }

    /// Every instruction set this CPU runs (for tests that try each).
    #[cfg(test)]
    pub(crate) fn available() -> &'static [Isa] {
        match (has_avx512(), has_avx2()) {
            (true, _) => &[Isa::Sse2, Isa::Avx2, Isa::Avx512],
            (_, true) => &[Isa::Sse2, Isa::Avx2],
            _ => &[Isa::Sse2],
        }
    }
}

/// Calls `f` from a function compiled for AVX2 when the CPU has it, else
/// as it is: the loops of a closure inlined into it (`#[inline(always)]`,
/// in optimised builds) then move 32 bytes per load and store (the
/// compiler's own vectorisation, with the wider registers).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn with_best<R>(f: impl FnOnce() -> R) -> R {
    if has_avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2(f) };
    }
    f()
}

/// `f()`, in a function compiled for AVX2 ([`with_best`]).
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Whether the CPU has AVX2 and the OS saves its registers: `true` when
/// the build enables it; otherwise asked of `cpuid` once and remembered
/// (the `std` detection macro is not in `core`). Miri cannot run `cpuid`:
/// there, only the build's features count.
#[inline]
pub(crate) fn has_avx2() -> bool {
    cfg!(target_feature = "avx2") || features() & AVX2 != 0
}

/// Whether the CPU has AVX-512 F and BW and the OS saves their registers,
/// as [`has_avx2`] asks.
#[inline]
pub(crate) fn has_avx512() -> bool {
    cfg!(all(target_feature = "avx512f", target_feature = "avx512bw")) || features() & AVX512 != 0
}

/// [`features`]' bit for AVX2.
const AVX2: u8 = 1;
/// [`features`]' bit for AVX-512 F and BW.
const AVX512: u8 = 2;
/// [`features`]' bit saying the answer is known.
const ASKED: u8 = 4;

/// The CPU's [`AVX2`] and [`AVX512`] bits, asked of `cpuid` once and
/// remembered; none under Miri, which cannot run `cpuid`.
#[inline]
fn features() -> u8 {
    static ANSWER: AtomicU8 = AtomicU8::new(0);
    if cfg!(miri) {
        return 0;
    }
    match ANSWER.load(Ordering::Relaxed) {
        0 => {
            let answer = ask_cpuid();
            ANSWER.store(answer | ASKED, Ordering::Relaxed);
            answer
        }
        answer => answer,
    }
}

/// AVX2 and AVX-512 from `cpuid` and `xgetbv`, as Intel's manual says to
/// detect them: the CPU has AVX (leaf 1, ECX bit 28) and the OS saves the
/// vector registers (OSXSAVE, ECX bit 27, and XCR0 bits 1 and 2; for
/// AVX-512 also bits 5 to 7, the mask and upper `zmm` registers), and the
/// CPU has AVX2 (leaf 7, EBX bit 5), AVX-512 F (bit 16) and BW (bit 30).
#[cfg(not(miri))]
fn ask_cpuid() -> u8 {
    use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    #[allow(unused_unsafe)]
    // SAFETY: `cpuid` runs on every x86-64 CPU; `xgetbv` runs when
    // OSXSAVE is set, checked before it.
    unsafe {
        let leaf1 = __cpuid(1);
        let (osxsave, avx) = (leaf1.ecx & (1 << 27) != 0, leaf1.ecx & (1 << 28) != 0);
        if !osxsave || !avx || __cpuid(0).eax < 7 {
            return 0;
        }
        let xcr0 = _xgetbv(0);
        if xcr0 & 0b110 != 0b110 {
            return 0;
        }
        let ebx = __cpuid_count(7, 0).ebx;
        let avx2 = ebx & (1 << 5) != 0;
        let f_and_bw = (1 << 16) | (1 << 30);
        let zmm_state = 0b1110_0000;
        let avx512 = avx2 && xcr0 & zmm_state == zmm_state && ebx & f_and_bw == f_and_bw;
        (u8::from(avx2) * AVX2) | (u8::from(avx512) * AVX512)
    }
}

/// Under Miri: never asked ([`features`]).
#[cfg(miri)]
fn ask_cpuid() -> u8 {
    0
}

/// A vector register of the transpose kernel.
///
/// Every method is `unsafe`: the CPU running it has the vector's
/// instructions (SSE2 always; AVX2 when [`has_avx2`] says so, and the
/// calling function is compiled with `#[target_feature(enable =
/// "avx2")]`, into which these inline; AVX-512 likewise, [`has_avx512`]
/// and `avx512f,avx512bw`).
pub(crate) trait Vector: Copy {
    /// Bytes per vector.
    const BYTES: usize;

    /// The vector of half as many bytes (16-byte vectors: themselves),
    /// which the CPU runs wherever it runs this one.
    type Half: Vector;

    /// All bits zero.
    const ZERO: Self;

    /// Loads `BYTES` bytes from `p`.
    ///
    /// # Safety
    /// `p` is valid for `BYTES` bytes of reads; the CPU has the vector's
    /// instructions.
    unsafe fn load(p: *const u8) -> Self;

    /// Stores `v` at `p`.
    ///
    /// # Safety
    /// `p` is valid for `BYTES` bytes of writes; the CPU has the
    /// vector's instructions.
    unsafe fn store(p: *mut u8, v: Self);

    /// Stores `v` at `p` with a streaming store, which bypasses the
    /// caches (a normal store under Miri, which cannot run the
    /// instruction).
    ///
    /// # Safety
    /// `p` is valid for `BYTES` bytes of writes and `BYTES`-aligned; the
    /// CPU has the vector's instructions.
    unsafe fn stream(p: *mut u8, v: Self);

    /// The low (`high == false`) or high halves of `a` and `b`
    /// interleaved, in lanes of `lane` bytes (1 to `BYTES / 2`). Below 16
    /// bytes, within each 16 bytes of the vector (as the instructions
    /// do); a lane of 16 bytes takes the 16-byte halves whole.
    ///
    /// # Safety
    /// The CPU has the vector's instructions.
    unsafe fn unpack(lane: usize, high: bool, a: Self, b: Self) -> Self;

    /// Stores the low half of `v` at `lo` and the high half at `hi`.
    ///
    /// # Safety
    /// `lo` and `hi` are each valid for `BYTES / 2` bytes of writes; the
    /// CPU has the vector's instructions.
    unsafe fn store_halves(lo: *mut u8, hi: *mut u8, v: Self);

    /// Loads its 16-byte lanes from `lane_stride` bytes apart: lane `k`
    /// from `p + k * lane_stride`.
    ///
    /// # Safety
    /// Each `p + k * lane_stride`, `k < BYTES / 16`, is valid for 16 bytes
    /// of reads; the CPU has the vector's instructions.
    unsafe fn load_lanes(p: *const u8, lane_stride: usize) -> Self;
}

impl Vector for __m128i {
    const BYTES: usize = 16;
    type Half = __m128i;
    // SAFETY: `__m128i` is 16 bytes of plain integers; any bits are a
    // valid value.
    const ZERO: __m128i = unsafe { core::mem::transmute::<u128, __m128i>(0) };

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn load(p: *const u8) -> __m128i {
        // SAFETY: the caller's contract.
        unsafe { _mm_loadu_si128(p.cast()) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn store(p: *mut u8, v: __m128i) {
        // SAFETY: the caller's contract.
        unsafe { _mm_storeu_si128(p.cast(), v) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn stream(p: *mut u8, v: __m128i) {
        // SAFETY: the caller's contract.
        unsafe { super::stream::stream_store(p.cast(), v) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn unpack(lane: usize, high: bool, a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: register-only instructions of SSE2, which every x86-64
        // target has.
        unsafe {
            match (lane, high) {
                (1, false) => _mm_unpacklo_epi8(a, b),
                (1, true) => _mm_unpackhi_epi8(a, b),
                (2, false) => _mm_unpacklo_epi16(a, b),
                (2, true) => _mm_unpackhi_epi16(a, b),
                (4, false) => _mm_unpacklo_epi32(a, b),
                (4, true) => _mm_unpackhi_epi32(a, b),
                (_, false) => _mm_unpacklo_epi64(a, b),
                (_, true) => _mm_unpackhi_epi64(a, b),
            }
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn store_halves(lo: *mut u8, hi: *mut u8, v: __m128i) {
        // SAFETY: the caller's contract: 8 bytes at each of `lo` and
        // `hi`; SSE2's moves.
        unsafe {
            _mm_storel_epi64(lo.cast(), v);
            _mm_storel_epi64(hi.cast(), _mm_unpackhi_epi64(v, v));
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn load_lanes(p: *const u8, _: usize) -> __m128i {
        // SAFETY: the caller's contract: 16 bytes at `p`.
        unsafe { Self::load(p) }
    }
}

impl Vector for __m256i {
    const BYTES: usize = 32;
    type Half = __m128i;
    // SAFETY: `__m256i` is 32 bytes of plain integers; any bits are a
    // valid value.
    const ZERO: __m256i = unsafe { core::mem::transmute::<[u128; 2], __m256i>([0, 0]) };

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn load(p: *const u8) -> __m256i {
        // SAFETY: the caller's contract (AVX, which AVX2 implies).
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn store(p: *mut u8, v: __m256i) {
        // SAFETY: the caller's contract.
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn stream(p: *mut u8, v: __m256i) {
        // SAFETY: the caller's contract.
        #[cfg(not(miri))]
        unsafe {
            core::arch::x86_64::_mm256_stream_si256(p.cast(), v)
        };
        // SAFETY: the caller's contract.
        #[cfg(miri)]
        unsafe {
            p.cast::<__m256i>().write(v)
        };
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn unpack(lane: usize, high: bool, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: register-only instructions of AVX2, which the caller's
        // contract says the CPU has.
        unsafe {
            match (lane, high) {
                (1, false) => _mm256_unpacklo_epi8(a, b),
                (1, true) => _mm256_unpackhi_epi8(a, b),
                (2, false) => _mm256_unpacklo_epi16(a, b),
                (2, true) => _mm256_unpackhi_epi16(a, b),
                (4, false) => _mm256_unpacklo_epi32(a, b),
                (4, true) => _mm256_unpackhi_epi32(a, b),
                (8, false) => _mm256_unpacklo_epi64(a, b),
                (8, true) => _mm256_unpackhi_epi64(a, b),
                (_, false) => _mm256_permute2x128_si256::<0x20>(a, b),
                (_, true) => _mm256_permute2x128_si256::<0x31>(a, b),
            }
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn store_halves(lo: *mut u8, hi: *mut u8, v: __m256i) {
        // SAFETY: the caller's contract: 16 bytes at each of `lo` and
        // `hi`, and AVX2.
        unsafe {
            _mm_storeu_si128(lo.cast(), _mm256_castsi256_si128(v));
            _mm_storeu_si128(hi.cast(), _mm256_extracti128_si256::<1>(v));
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn load_lanes(p: *const u8, lane_stride: usize) -> __m256i {
        // SAFETY: the caller's contract: 16 bytes at `p` and at `p +
        // lane_stride`, and AVX (which AVX2 implies).
        unsafe { _mm256_loadu2_m128i(p.add(lane_stride).cast(), p.cast()) }
    }
}

impl Vector for __m512i {
    const BYTES: usize = 64;
    type Half = __m256i;
    // SAFETY: `__m512i` is 64 bytes of plain integers; any bits are a
    // valid value.
    const ZERO: __m512i = unsafe { core::mem::transmute::<[u128; 4], __m512i>([0; 4]) };

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn load(p: *const u8) -> __m512i {
        // SAFETY: the caller's contract (AVX-512 F).
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn store(p: *mut u8, v: __m512i) {
        // SAFETY: the caller's contract.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn stream(p: *mut u8, v: __m512i) {
        // SAFETY: the caller's contract.
        #[cfg(not(miri))]
        unsafe {
            core::arch::x86_64::_mm512_stream_si512(p.cast(), v)
        };
        // SAFETY: the caller's contract.
        #[cfg(miri)]
        unsafe {
            p.cast::<__m512i>().write(v)
        };
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn unpack(lane: usize, high: bool, a: __m512i, b: __m512i) -> __m512i {
        // The 8-byte words of `a` (0 to 7) and `b` (8 to 15) that the
        // 16-byte lanes of the low and high halves interleave take.
        const LOW_LANES: [i64; 8] = [0, 1, 8, 9, 2, 3, 10, 11];
        const HIGH_LANES: [i64; 8] = [4, 5, 12, 13, 6, 7, 14, 15];
        // SAFETY: register-only instructions of AVX-512 F and BW, which
        // the caller's contract says the CPU has; the word indices are
        // plain integers.
        unsafe {
            let words = |w: [i64; 8]| core::mem::transmute::<[i64; 8], __m512i>(w);
            match (lane, high) {
                (1, false) => _mm512_unpacklo_epi8(a, b),
                (1, true) => _mm512_unpackhi_epi8(a, b),
                (2, false) => _mm512_unpacklo_epi16(a, b),
                (2, true) => _mm512_unpackhi_epi16(a, b),
                (4, false) => _mm512_unpacklo_epi32(a, b),
                (4, true) => _mm512_unpackhi_epi32(a, b),
                (8, false) => _mm512_unpacklo_epi64(a, b),
                (8, true) => _mm512_unpackhi_epi64(a, b),
                (16, false) => _mm512_permutex2var_epi64(a, words(LOW_LANES), b),
                (16, true) => _mm512_permutex2var_epi64(a, words(HIGH_LANES), b),
                (_, false) => _mm512_shuffle_i64x2::<0b01_00_01_00>(a, b),
                (_, true) => _mm512_shuffle_i64x2::<0b11_10_11_10>(a, b),
            }
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn store_halves(lo: *mut u8, hi: *mut u8, v: __m512i) {
        // SAFETY: the caller's contract: 32 bytes at each of `lo` and
        // `hi`, and AVX-512 F.
        unsafe {
            _mm256_storeu_si256(lo.cast(), _mm512_castsi512_si256(v));
            _mm256_storeu_si256(hi.cast(), _mm512_extracti64x4_epi64::<1>(v));
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn load_lanes(p: *const u8, lane_stride: usize) -> __m512i {
        // SAFETY: the caller's contract: 16 bytes at each `p + k *
        // lane_stride`, `k < 4`, and AVX-512 F.
        unsafe {
            let low = <__m256i as Vector>::load_lanes(p, lane_stride);
            let high = <__m256i as Vector>::load_lanes(p.add(2 * lane_stride), lane_stride);
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high)
        }
    }
}

#[cfg(test)]
mod tests {
    use core::arch::x86_64::{__m128i, __m256i, __m512i};

    use super::{Vector, has_avx2, has_avx512, with_best};

    /// `with_best` calls its closure once and hands back what it returns,
    /// through the AVX2 function where the CPU has it (under Miri, where
    /// the build enables AVX2).
    #[test]
    fn with_best_calls_once() {
        let mut calls = 0;
        let sum = with_best(|| {
            calls += 1;
            (1..=100u32).sum::<u32>()
        });
        assert_eq!((sum, calls), (5050, 1));
    }

    /// `store_halves` of `X`: the low half at `lo`, the high half at
    /// `hi`, the bytes between them untouched.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_store_halves<X: Vector>() {
        let half = X::BYTES / 2;
        let bytes: [u8; 64] = core::array::from_fn(|k| k as u8 + 1);
        let mut out = [0u8; 128];
        // SAFETY: `bytes` holds `BYTES <= 64` bytes, and `out` `half`
        // bytes at 0 and at `2 * half`; the caller checked the CPU.
        unsafe {
            let v = X::load(bytes.as_ptr());
            let at = out.as_mut_ptr();
            X::store_halves(at, at.add(2 * half), v);
        }
        assert_eq!(out[..half], bytes[..half]);
        assert!(out[half..2 * half].iter().all(|&b| b == 0));
        assert_eq!(out[2 * half..3 * half], bytes[half..2 * half]);
        assert!(out[3 * half..].iter().all(|&b| b == 0));
    }

    /// Every vector's (SSE2's and AVX-512's are there for the trait: the
    /// half squares take AVX2's only).
    #[test]
    fn stores_each_half_where_asked() {
        check_store_halves::<__m128i>();
        if has_avx2() {
            check_store_halves::<__m256i>();
        }
        if has_avx512() {
            // SAFETY: the CPU has AVX-512.
            unsafe { avx512_store_halves() };
        }
    }

    /// [`check_store_halves`] of AVX-512's vector, compiled for it.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn avx512_store_halves() {
        check_store_halves::<__m512i>();
    }
}
