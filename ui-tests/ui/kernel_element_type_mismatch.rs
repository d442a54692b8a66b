use tessera::layout;
use tessera::SameShape;

/// A copy between two layouts of the same array.
fn copy<Src, Dst: SameShape<Src>>() {}

fn main() {
    copy::<layout!(f32[3, 5]), layout!(bf16[3, 5]{1, 0:T(2, 2)})>();
}
