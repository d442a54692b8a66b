// An index with three entries into a rank-2 static tensor.
type A = tessera::layout!(f32[3,5]);
fn main() {
    let t = tessera::Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    let _ = t[[0, 1, 2]];
}
