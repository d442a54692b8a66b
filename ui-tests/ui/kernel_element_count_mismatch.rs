use tessera::layout;
use tessera::SameElementCount;

/// A reshape: any two layouts with as many elements.
fn reshape<Src, Dst: SameElementCount<Src>>() {}

fn main() {
    reshape::<layout!(f32[4, 6]), layout!(f32[5, 5])>();
}
