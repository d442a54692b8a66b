use tessera::layout;
use tessera::SameShape;

/// A copy between two layouts of the same array.
fn copy<Src, Dst: SameShape<Src>>(_src: &[f32], _dst: &mut [f32]) {}

fn main() {
    copy::<layout!(f32[3, 5]{1, 0}), layout!(f32[5, 3]{0, 1})>(&[], &mut []);
}
