use tessera::{SameShape, layout};

/// A copy between two layouts of the same array.
fn copy<Src, Dst: SameShape<Src>>() {}

fn main() {
    // As many elements, but a matrix is not a vector: the ranks differ.
    copy::<layout!(f32[3, 5]), layout!(f32[15])>();
}
