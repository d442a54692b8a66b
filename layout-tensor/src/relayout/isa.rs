//! The vector registers the relayout kernels move data in: SSE2's
//! 16-byte `__m128i` (every x86-64 target) and AVX2's 32-byte `__m256i`,
//! taken when the CPU running the code has AVX2 ([`Isa::best`], detected
//! once at run time, or enabled at build time with `-C
//! target-feature=+avx2`).
//!
//! AVX2 halves the instructions per byte. On the machine of
//! `BENCHMARKS.md`, timed in turns with the SSE2 kernel, a 1 MiB plain
//! transpose took 0.67–0.75 of its time for `f32`, 0.61–0.73 for `bf16`
//! and 0.66–0.69 for `u8`; the staged copy of larger arrays, bound by
//! memory, keeps 16-byte squares ([`super::transpose`]). The row
//! interleaves take 32 bytes of each row at a time ([`super::simd`]).
//!
//! One of the relayout kernels' modules with `unsafe` code: `cpuid`, and
//! the vectors' loads and stores; `.ci/run` runs the kernels' tests under
//! Miri with AVX2 enabled.
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm_storel_epi64, _mm_storeu_si128, _mm_unpackhi_epi8,
    _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpacklo_epi8,
    _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_permute2x128_si256, _mm256_storeu_si256,
    _mm256_unpackhi_epi8, _mm256_unpackhi_epi16, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi8, _mm256_unpacklo_epi16, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
};
use core::sync::atomic::{AtomicU8, Ordering};

/// The instruction set a transpose runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// 16-byte vectors, on every x86-64 target.
    Sse2,
    /// 32-byte vectors, when the CPU has AVX2.
    Avx2,
}

impl Isa {
    /// AVX2 when the CPU has it, else SSE2.
    #[inline]
    pub(crate) fn best() -> Isa {
        match has_avx2() {
            true => Isa::Avx2,
            false => Isa::Sse2,
        }
    }

    /// Every instruction set this CPU runs (for tests that try each).
    #[cfg(test)]
    pub(crate) fn available() -> &'static [Isa] {
        match has_avx2() {
            true => &[Isa::Sse2, Isa::Avx2],
            false => &[Isa::Sse2],
        }
    }
}

/// Calls `f` from a function compiled for AVX2 when the CPU has it, else
/// as it is: the loops of an `#[inline(always)]` closure then move 32
/// bytes per load and store (the compiler's own vectorisation, with the
/// wider registers).
#[inline(always)]
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
    /// 0 not asked yet, 1 no, 2 yes.
    static ANSWER: AtomicU8 = AtomicU8::new(0);
    if cfg!(target_feature = "avx2") {
        return true;
    }
    if cfg!(miri) {
        return false;
    }
    match ANSWER.load(Ordering::Relaxed) {
        0 => {
            let yes = ask_cpuid();
            ANSWER.store(1 + u8::from(yes), Ordering::Relaxed);
            yes
        }
        answer => answer == 2,
    }
}

/// AVX2 from `cpuid` and `xgetbv`, as Intel's manual says to detect it:
/// the CPU has AVX (leaf 1, ECX bit 28) and the OS saves the vector
/// registers (OSXSAVE, ECX bit 27, and XCR0 bits 1 and 2), and the CPU has
/// AVX2 (leaf 7, EBX bit 5).
#[cfg(not(miri))]
fn ask_cpuid() -> bool {
    use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    #[allow(unused_unsafe)]
    // SAFETY: `cpuid` runs on every x86-64 CPU; `xgetbv` runs when
    // OSXSAVE is set, checked before it.
    unsafe {
        let leaf1 = __cpuid(1);
        let (osxsave, avx) = (leaf1.ecx & (1 << 27) != 0, leaf1.ecx & (1 << 28) != 0);
        if !osxsave || !avx || _xgetbv(0) & 0b110 != 0b110 || __cpuid(0).eax < 7 {
            return false;
        }
        __cpuid_count(7, 0).ebx & (1 << 5) != 0
    }
}

/// Under Miri: never asked ([`has_avx2`]).
#[cfg(miri)]
fn ask_cpuid() -> bool {
    false
}

/// A vector register of the transpose kernel.
///
/// Every method is `unsafe`: the CPU running it has the vector's
/// instructions (SSE2 always; AVX2 when [`has_avx2`] says so, and the
/// calling function is compiled with `#[target_feature(enable =
/// "avx2")]`, into which these inline).
pub(crate) trait Vector: Copy {
    /// Bytes per vector.
    const BYTES: usize;

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
}

impl Vector for __m128i {
    const BYTES: usize = 16;
    // SAFETY: `__m128i` is 16 bytes of plain integers; any bits are a
    // valid value.
    const ZERO: __m128i = unsafe { core::mem::transmute::<u128, __m128i>(0) };

    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m128i {
        // SAFETY: the caller's contract.
        unsafe { _mm_loadu_si128(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(p: *mut u8, v: __m128i) {
        // SAFETY: the caller's contract.
        unsafe { _mm_storeu_si128(p.cast(), v) }
    }

    #[inline(always)]
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

    #[inline(always)]
    unsafe fn store_halves(lo: *mut u8, hi: *mut u8, v: __m128i) {
        // SAFETY: the caller's contract: 8 bytes at each of `lo` and
        // `hi`; SSE2's moves.
        unsafe {
            _mm_storel_epi64(lo.cast(), v);
            _mm_storel_epi64(hi.cast(), _mm_unpackhi_epi64(v, v));
        }
    }
}

impl Vector for __m256i {
    const BYTES: usize = 32;
    // SAFETY: `__m256i` is 32 bytes of plain integers; any bits are a
    // valid value.
    const ZERO: __m256i = unsafe { core::mem::transmute::<[u128; 2], __m256i>([0, 0]) };

    #[inline(always)]
    unsafe fn load(p: *const u8) -> __m256i {
        // SAFETY: the caller's contract (AVX, which AVX2 implies).
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    #[inline(always)]
    unsafe fn store(p: *mut u8, v: __m256i) {
        // SAFETY: the caller's contract.
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }

    #[inline(always)]
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

    #[inline(always)]
    unsafe fn store_halves(lo: *mut u8, hi: *mut u8, v: __m256i) {
        // SAFETY: the caller's contract: 16 bytes at each of `lo` and
        // `hi`, and AVX2.
        unsafe {
            _mm_storeu_si128(lo.cast(), _mm256_castsi256_si128(v));
            _mm_storeu_si128(hi.cast(), _mm256_extracti128_si256::<1>(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use core::arch::x86_64::{__m128i, __m256i};

    use super::{Vector, has_avx2, with_best};

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
    fn check_store_halves<X: Vector>() {
        let half = X::BYTES / 2;
        let bytes: [u8; 32] = core::array::from_fn(|k| k as u8 + 1);
        let mut out = [0u8; 64];
        // SAFETY: `bytes` holds `BYTES <= 32` bytes, and `out` `half`
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

    /// Both vectors' (SSE2's is there for the trait: the half squares
    /// take AVX2's only).
    #[test]
    fn stores_each_half_where_asked() {
        check_store_halves::<__m128i>();
        if has_avx2() {
            check_store_halves::<__m256i>();
        }
    }
}
