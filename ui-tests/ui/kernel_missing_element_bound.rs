// A generic kernel that builds a tensor of `f32` over a layout it did not
// bound on `Stores<f32>`: the error names the missing bound.
use tessera::{HasRank, TensorView};

fn view<L: HasRank<2>>(l: L, data: &[f32]) -> TensorView<'_, L, f32> {
    TensorView::new(l, data).unwrap()
}

fn main() {}
