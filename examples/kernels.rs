//! The pattern a kernel author copies: kernels generic over layouts, whose
//! signatures state what they need, so a wrong layout is a type error at
//! the call site, and whose index math folds to constants for static
//! layouts (and works unchanged for layouts read at run time).
//!
//! Run with `cargo run --example kernels`.

use tessera::{ArrayLayout, HasRank, KnownLayout, SameShape, Tensor, TensorView, layout};

/// Copies a matrix from one layout to another (e.g. untiling a TPU
/// buffer). `D: SameShape<S>` makes a copy between different arrays
/// (other dims or element type) a type error when both are static;
/// `HasRank<2>` gives the two-level loop. The layouts are values: zero
/// sized for `layout!` types, so every offset is a constant expression.
fn relayout<S, D>(s: &S, src: &[f32], d: &D, dst: &mut [f32])
where
    S: HasRank<2>,
    D: HasRank<2> + SameShape<S>,
{
    for y in 0..s.size(0) {
        for x in 0..s.size(1) {
            // In bounds by the loop ranges: for a static layout the check
            // folds away.
            dst[d.offset(&[y, x])] = src[s.offset(&[y, x])];
        }
    }
}

/// `c = a × b`, each operand in whatever layout it is stored: a tiled `a`
/// is read in place, no untiling first. Tensors index with `t[[y, x]]`.
fn matmul<A, B, C>(a: &TensorView<A, f32>, b: &TensorView<B, f32>, c: &mut [f32], cl: &C)
where
    A: HasRank<2>,
    B: HasRank<2>,
    C: HasRank<2>,
{
    let (m, k, n) = (a.layout().size(0), a.layout().size(1), b.layout().size(1));
    assert_eq!(b.layout().size(0), k, "inner dimensions differ");
    for y in 0..m {
        for x in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[[y, p]] * b[[p, x]];
            }
            c[cl.offset(&[y, x])] = acc;
        }
    }
}

/// Fills a buffer of layout `L` with each element's row-major position,
/// padding with NaN.
fn iota<L: HasRank<2>>(l: &L) -> Vec<f32> {
    let mut buf = vec![f32::NAN; l.buffer_len()];
    for y in 0..l.size(0) {
        for x in 0..l.size(1) {
            buf[l.offset(&[y, x])] = (y * l.size(1) + x) as f32;
        }
    }
    buf
}

type Tiled = layout!(f32[16,256]{1,0:T(8,128)});
type RowMajor = layout!(f32[16,256]);
type Weights = layout!(f32[256,4]);
type Out = layout!(f32[16,4]);

fn main() -> Result<(), tessera::Error> {
    let tiled = iota(&Tiled::NEW);
    let mut flat = vec![0.0; RowMajor::BUFFER_LEN];
    relayout(&Tiled::NEW, &tiled, &RowMajor::NEW, &mut flat);
    assert!(flat.iter().enumerate().all(|(p, &v)| v == p as f32));

    // The same kernel with a layout read at run time (from an HLO dump,
    // say): checked when used instead of when compiled.
    let from_text: ArrayLayout = "f32[16,256]{1,0:T(8,128)}".parse()?;
    let mut again = vec![0.0; RowMajor::BUFFER_LEN];
    relayout(&from_text, &tiled, &RowMajor::NEW, &mut again);
    assert_eq!(flat, again);

    // The tiled operand read in place.
    let a = TensorView::new(Tiled::NEW, &tiled)?;
    let w = Tensor::<Weights, f32, { Weights::BUFFER_LEN }>::filled(1.0);
    let mut out = vec![0.0; Out::BUFFER_LEN];
    matmul(&a, &w.view(), &mut out, &Out::NEW);
    let row0: f32 = (0..256).map(|x| x as f32).sum();
    assert_eq!(out[0], row0);
    println!(
        "untiled {} elements of {}; out[0] = {}",
        <Tiled as KnownLayout>::LAYOUT.element_count(),
        Tiled::NEW,
        out[0]
    );
    Ok(())
}
