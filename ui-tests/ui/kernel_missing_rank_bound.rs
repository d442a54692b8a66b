// A generic kernel that indexes a tensor with two entries but does not
// say its layout has rank 2: the error names the missing bound.
use tessera::{AnyLayout, TensorView};

fn corner<L: AnyLayout>(t: &TensorView<L, f32>) -> f32 {
    t[[0, 0]]
}

fn main() {}
