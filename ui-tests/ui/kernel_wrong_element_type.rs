// A kernel over `f32` tensors given a layout of `s32`: the error names
// both element types.
use tessera::{HasRank, Stores, layout};

fn scale<L: HasRank<2> + Stores<f32>>(_l: L) {}

fn main() {
    scale(<layout!(s32[4, 4])>::NEW);
}
