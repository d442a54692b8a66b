//! Stack budget: every relayout kernel runs on a thread whose stack is
//! [`BUDGET`] bytes, in the build the tests are run in (`cargo test`'s
//! unoptimised one included), a small part of the 2 MiB a spawned thread
//! gets by default. A kernel that needs more overflows the thread, and the
//! test process aborts.
//!
//! The kernels' `#[inline(always)]` apply to optimised builds only
//! (DESIGN.md, "Inlining in unoptimised builds"): an unoptimised build
//! has no stack colouring, so a function that inlines the whole kernel
//! tree keeps every callee's locals at once, and `relayout_into`'s frame
//! alone was 1.1 MiB.

use tessera::packed::S4;
use tessera::{
    ArrayLayout, Element, PackedBuf, PreparedLayout, RelayoutKernel, Slot, TensorBuf, layout,
};

/// Bytes of stack each relayout below runs in.
const BUDGET: usize = 384 * 1024;

/// A tensor in `src`'s layout whose element at each index is `value` of
/// the index, relayout into `dst` (which `kernel` serves) through both
/// kinds of run-time layout; every element checked.
fn relayout<T: Element + PartialEq + core::fmt::Debug>(
    src: &str,
    dst: &str,
    kernel: RelayoutKernel,
    value: fn(&[usize]) -> T,
) {
    let (a, b): (ArrayLayout, ArrayLayout) = (src.parse().unwrap(), dst.parse().unwrap());
    assert_eq!(
        RelayoutKernel::for_layouts(&a, &b).unwrap(),
        kernel,
        "{src} -> {dst}"
    );
    // Through the run-time layout that plans from its offset terms, and
    // through the one that works out its digits per call.
    let from = TensorBuf::from_fn(PreparedLayout::new(a), value).unwrap();
    let mut to = TensorBuf::<_, T>::zeroed(PreparedLayout::new(b)).unwrap();
    from.relayout_into(&mut to).unwrap();
    let from = TensorBuf::from_fn(a, value).unwrap();
    let mut again = TensorBuf::<_, T>::zeroed(b).unwrap();
    from.relayout_into(&mut again).unwrap();
    assert!(again.as_slice() == to.as_slice(), "{src} -> {dst}");
    for (slot, v) in b.slots().zip(to.as_slice()) {
        if let Slot::Element(index) = slot {
            assert_eq!(*v, value(&index), "{src} -> {dst} at {index:?}");
        }
    }
}

fn f32_code(i: &[usize]) -> f32 {
    i.iter().fold(0.0, |acc, &d| acc * 4099.0 + d as f32)
}
fn u16_code(i: &[usize]) -> u16 {
    i.iter()
        .fold(0u16, |acc, &d| acc.wrapping_mul(31).wrapping_add(d as u16))
}
fn u8_code(i: &[usize]) -> u8 {
    u16_code(i) as u8 ^ (u16_code(i) >> 8) as u8
}
fn f64_code(i: &[usize]) -> f64 {
    f32_code(i) as f64
}

fn every_kernel() {
    use RelayoutKernel::*;
    // Runs contiguous in both: aligned, and at destination addresses off
    // 16 bytes (through `memcpy`).
    relayout(
        "f32[64,256]{1,0}",
        "f32[64,256]{1,0:T(8,128)}",
        ContiguousRuns,
        f32_code,
    );
    relayout(
        "f32[33,70]{1,0}",
        "f32[33,70]{1,0:T(2,128)}",
        ContiguousRuns,
        f32_code,
    );
    // Interleaves and their unpacks.
    relayout(
        "u16[64,256]{1,0}",
        "u16[64,256]{1,0:T(8,128)(2,1)}",
        Interleave { factor: 2 },
        u16_code,
    );
    relayout(
        "u16[64,256]{1,0:T(8,128)(2,1)}",
        "u16[64,256]{1,0}",
        Deinterleave { factor: 2 },
        u16_code,
    );
    relayout(
        "u8[64,256]{1,0}",
        "u8[64,256]{1,0:T(32,128)(4,1)}",
        Interleave { factor: 4 },
        u8_code,
    );
    relayout(
        "u8[64,256]{1,0:T(8,128)(4,1)}",
        "u8[64,256]{1,0}",
        Deinterleave { factor: 4 },
        u8_code,
    );
    // Transposes: plain, into tiles, out of tiles, with destination rows
    // that crowd the cache's sets (the squares' stage), of 1-, 2-, 4- and
    // 8-byte elements.
    relayout(
        "f32[512,512]{1,0}",
        "f32[512,512]{0,1}",
        Transpose,
        f32_code,
    );
    relayout(
        "f32[300,300]{0,1:T(8,128)}",
        "f32[300,300]{1,0:T(8,128)}",
        Transpose,
        f32_code,
    );
    relayout("u8[2048,512]{1,0}", "u8[2048,512]{0,1}", Transpose, u8_code);
    relayout(
        "u16[1024,256]{1,0}",
        "u16[1024,256]{0,1}",
        Transpose,
        u16_code,
    );
    relayout(
        "f64[5,7,9]{2,1,0}",
        "f64[5,7,9]{1,2,0}",
        Transpose,
        f64_code,
    );
    relayout(
        "u8[31,17]{0,1}",
        "u8[31,17]{1,0:T(4,8)}",
        Transpose,
        u8_code,
    );
    // Transposes of units, aligned and through the unit stage.
    relayout(
        "u16[64,257]{1,0}",
        "u16[64,257]{0,1:T(8,128)(2,1)}",
        StagedUnitTranspose { unit: 2 },
        u16_code,
    );
    relayout(
        "u16[5,6,8]{2,1,0}",
        "u16[5,6,8]{2,1,0:T(3,4)}",
        UnitTranspose { unit: 4 },
        u16_code,
    );
    relayout(
        "u8[300,1024]{1,0}",
        "u8[300,1024]{0,1:T(8,128)(4,1)}",
        UnitTranspose { unit: 4 },
        u8_code,
    );
    // Squares of sub-tiles, transposed between two sub-tiled layouts.
    relayout(
        "u16[32,256]{0,1:T(8,128)(2,1)}",
        "u16[32,256]{1,0:T(8,128)(2,1)}",
        SquareTranspose { side: 2 },
        u16_code,
    );
    relayout(
        "u8[64,256]{1,0:T(8,128)(4,1)}",
        "u8[64,256]{0,1:T(8,128)(4,1)}",
        SquareTranspose { side: 4 },
        u8_code,
    );
    // Strided and element by element.
    relayout(
        "f32[2,5]{1,0:T(4)(2,1)}",
        "f32[2,5]{0,1}",
        Strided,
        f32_code,
    );
    relayout(
        "f32[6,6]{1,0:T(3,3)}",
        "f32[6,6]{1,0:T(2,2)}",
        ElementByElement,
        f32_code,
    );
    // Past the streaming threshold: a transpose and a staged one.
    relayout(
        "f32[1031,2053]{1,0}",
        "f32[1031,2053]{0,1}",
        Transpose,
        f32_code,
    );
    relayout(
        "u16[2053,2051]{1,0}",
        "u16[2053,2051]{0,1:T(8,128)(2,1)}",
        StagedUnitTranspose { unit: 2 },
        u16_code,
    );
}

/// Static layouts (the nest built while compiling) and a mixed one (a
/// nest template filled in per call).
fn static_and_mixed() {
    type Rows = layout!(f32[512,512]{1,0});
    type Columns = layout!(f32[512,512]{0,1});
    type Tiled = layout!(f32[?,256]{1,0:T(8,128)});
    let src = TensorBuf::from_fn(Rows::new(), f32_code).unwrap();
    let mut dst = TensorBuf::<_, f32>::zeroed(Columns::new()).unwrap();
    src.relayout_into(&mut dst).unwrap();
    assert_eq!(dst[[3, 500]], f32_code(&[3, 500]));
    let rows: PreparedLayout = "f32[40,256]{1,0}".parse().unwrap();
    let src = TensorBuf::from_fn(rows, f32_code).unwrap();
    let mut dst = TensorBuf::<_, f32>::zeroed(Tiled::new([40, 256]).unwrap()).unwrap();
    src.relayout_into(&mut dst).unwrap();
    assert_eq!(dst[[39, 255]], f32_code(&[39, 255]));
}

/// Packed `s4`: a transpose of nibbles, a pack into tiles and an unpack.
fn packed() {
    let value = |i: &[usize]| ((i[0] * 3 + i[1]) % 16) as i8 - 8;
    let rows: PreparedLayout = "s4[512,256]{1,0:E(4)}".parse().unwrap();
    let src = PackedBuf::<_, S4>::from_fn(rows, value).unwrap();
    for dst in [
        "s4[512,256]{0,1:E(4)}",
        "s4[512,256]{1,0:T(8,128)(2,1)E(4)}",
    ] {
        let layout: PreparedLayout = dst.parse().unwrap();
        let mut dst = PackedBuf::<_, S4>::zeroed(layout).unwrap();
        src.relayout_into(&mut dst).unwrap();
        assert_eq!(dst.get([301, 77]), Some(value(&[301, 77])));
        let bytes: PreparedLayout = "s8[512,256]{0,1}".parse().unwrap();
        let mut wide = TensorBuf::<_, i8>::zeroed(bytes).unwrap();
        dst.unpack_into(&mut wide).unwrap();
        assert_eq!(wide[[301, 77]], value(&[301, 77]));
    }
}

#[test]
fn every_kernel_runs_within_the_stack_budget() {
    std::thread::Builder::new()
        .stack_size(BUDGET)
        .spawn(|| {
            every_kernel();
            static_and_mixed();
            packed();
        })
        .unwrap()
        .join()
        .unwrap();
}
