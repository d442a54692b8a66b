//! The pattern a kernel author copies: kernels generic over static
//! layouts, whose signatures state what they need, so a wrong layout is a
//! type error at the call site, and whose index math folds to constants.
//!
//! Run with `cargo run --example kernels`.

use tessera::{HasRank, KnownLayout, RowMajorDense, SameShape, layout};

/// Copies a matrix from one layout to another (e.g. untiling a TPU
/// buffer). `Dst: SameShape<Src>` makes a copy between different arrays
/// (other dims or element type) a type error; `HasRank<2>` gives the
/// two-level loop.
fn relayout<Src, Dst>(src: &[f32], dst: &mut [f32])
where
    Src: HasRank<2>,
    Dst: HasRank<2> + SameShape<Src>,
{
    let (s, d) = (Src::LAYOUT, Dst::LAYOUT); // constants after monomorphisation
    assert!(src.len() >= s.buffer_len() && dst.len() >= d.buffer_len());
    for i in 0..s.size(0) {
        for j in 0..s.size(1) {
            // In bounds by the loop ranges, so the unchecked offset is exact.
            dst[d.offset_unchecked(&[i, j])] = src[s.offset_unchecked(&[i, j])];
        }
    }
}

/// `c = a × b` on plain row-major buffers. `RowMajorDense` lets the kernel
/// index with `i * cols + j`; the inner dimensions are checked when the
/// kernel is instantiated (`const` block), so a mismatch fails the build.
fn matmul<A, B, C>(a: &[f32], b: &[f32], c: &mut [f32])
where
    A: HasRank<2> + RowMajorDense,
    B: HasRank<2> + RowMajorDense,
    C: HasRank<2> + RowMajorDense,
{
    const {
        assert!(
            A::LAYOUT.size(1) == B::LAYOUT.size(0),
            "inner dimensions differ"
        );
        assert!(C::LAYOUT.size(0) == A::LAYOUT.size(0) && C::LAYOUT.size(1) == B::LAYOUT.size(1));
    }
    let (m, k, n) = (A::LAYOUT.size(0), A::LAYOUT.size(1), B::LAYOUT.size(1));
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
}

/// Fills a buffer of layout `L` with each element's row-major position,
/// padding with NaN.
fn iota<L: HasRank<2>>() -> Vec<f32> {
    let l = L::LAYOUT;
    let mut buf = vec![f32::NAN; l.buffer_len()];
    for i in 0..l.size(0) {
        for j in 0..l.size(1) {
            buf[l.offset_unchecked(&[i, j])] = (i * l.size(1) + j) as f32;
        }
    }
    buf
}

type Tiled = layout!(f32[16,256]{1,0:T(8,128)});
type RowMajor = layout!(f32[16,256]);
type Weights = layout!(f32[256,4]);
type Out = layout!(f32[16,4]);

fn main() {
    let tiled = iota::<Tiled>();
    let mut flat = vec![0.0; RowMajor::BUFFER_LEN];
    relayout::<Tiled, RowMajor>(&tiled, &mut flat);
    assert!(flat.iter().enumerate().all(|(p, &v)| v == p as f32));

    let w = vec![1.0; Weights::BUFFER_LEN];
    let mut out = vec![0.0; Out::BUFFER_LEN];
    // `matmul::<Tiled, Weights, Out>` would not compile: Tiled is not
    // row-major dense. Untile first, as above.
    matmul::<RowMajor, Weights, Out>(&flat, &w, &mut out);
    let row0: f32 = (0..256).map(|j| j as f32).sum();
    assert_eq!(out[0], row0);
    println!(
        "untiled {} elements of {}; out[0] = {}",
        <Tiled as KnownLayout>::LAYOUT.element_count(),
        Tiled::NEW,
        out[0]
    );
}
