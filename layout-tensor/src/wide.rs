//! Code compiled for 32-byte vector moves (AVX) where the running CPU has
//! them, found at run time.
//!
//! The crate is built for the base x86-64 instruction set, whose vectors
//! are 16 bytes. A relayout into rows that are not 16-byte aligned
//! (`f32[M,947]`) then splits one in four of its stores across two cache
//! lines; with AVX's 32-byte moves the same copy measured 1.13× faster
//! (BENCHMARKS.md), and that case came within 1.2× of an aligned shape.
//! AVX-512's 64-byte moves measured no faster than AVX's, and slow down
//! some Intel parts, so AVX it is.
//!
//! One of the crate's three modules with `unsafe` code (with `simd` and
//! `stream`): calling a function compiled for a feature the CPU lacks is
//! undefined behaviour, so the call waits for the run-time check.
//! `.ci/run` runs the relayout tests under Miri with AVX enabled, so that
//! they take this path.
#![allow(unsafe_code)]

/// Runs `f`, compiled with AVX enabled when the CPU running it has AVX
/// (`std`'s run-time detection; without the `std` feature, when the build
/// targets AVX), else as it is. `f` should be `#[inline(always)]`, so that
/// its body is compiled into the AVX function.
#[inline(always)]
pub(crate) fn with_wide_moves<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if has_avx() {
        // SAFETY: the CPU has AVX, the only feature `avx` is compiled for.
        return unsafe { avx(f) };
    }
    f()
}

/// Whether the CPU running this has AVX.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx() -> bool {
    #[cfg(feature = "std")]
    {
        extern crate std;
        std::is_x86_feature_detected!("avx")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "avx")
    }
}

/// `f()`, compiled with AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn avx<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::format;
    use std::vec::Vec;

    use crate::{RuntimeLayout, TensorBase, TensorView, TensorViewMut};

    /// Relayouts whose runs are contiguous in both buffers (the copies
    /// `with_wide_moves` runs), between row-major rows of every alignment
    /// and `T(2,32)` tiles, both ways: every element lands where the
    /// layouts' offsets say, and padding slots keep their sentinel.
    #[test]
    fn contiguous_relayouts_at_every_row_alignment() {
        for cols in 37..=40 {
            let rows = RuntimeLayout::parse(&format!("f32[3,{cols}]{{1,0}}")).unwrap();
            let tiles = RuntimeLayout::parse(&format!("f32[3,{cols}]{{1,0:T(2,32)}}")).unwrap();
            let value = |i: &[usize]| (i[0] * 100 + i[1]) as f32;
            let mut start = Vec::new();
            let mut row_major = Vec::new();
            for i in 0..3 {
                for j in 0..cols {
                    start.push(value(&[i, j]));
                    row_major.push(-1.0);
                }
            }
            let mut tiled = std::vec![-1.0f32; tiles.array_layout().buffer_len()];
            let src = TensorView::new(rows, &start).unwrap();
            src.relayout_into(&mut TensorViewMut::new(tiles, &mut tiled).unwrap())
                .unwrap();
            check(&TensorView::new(tiles, &tiled).unwrap(), value);
            let back = TensorView::new(tiles, &tiled).unwrap();
            back.relayout_into(&mut TensorViewMut::new(rows, &mut row_major).unwrap())
                .unwrap();
            assert_eq!(row_major, start, "{cols} columns");
        }
    }

    /// A build that targets AVX (as `.ci/run`'s Miri step does) finds it,
    /// so the tests above take the AVX path there.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    fn a_targeted_avx_is_found() {
        assert!(super::has_avx());
    }

    /// Every element of `t` is `value(index)`, every padding slot `-1`.
    fn check(t: &TensorBase<&[f32], RuntimeLayout>, value: impl Fn(&[usize]) -> f32) {
        let mut slots = std::vec![-1.0f32; t.as_slice().len()];
        let mut elements = t.iter();
        while let Some(&x) = elements.next() {
            let index = elements.index();
            assert_eq!(x, value(index), "at {index:?}");
            slots[t.offset(index).unwrap()] = x;
        }
        assert_eq!(slots, t.as_slice());
    }
}
