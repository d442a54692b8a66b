// A window with a number of ranges other than the static layout's rank.
type A = tessera::layout!(f32[16,256]);
fn main() {
    let t = tessera::TensorBuf::<A, f32>::zeroed(A::NEW).unwrap();
    let _ = t.window([0..4]);
}
