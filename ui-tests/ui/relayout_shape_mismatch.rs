// A relayout between static layouts of different dims.
type A = tessera::layout!(f32[3,5]);
type B = tessera::layout!(f32[5,3]{0,1});
fn main() {
    let a = tessera::Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    let mut b = tessera::Tensor::<B, f32, { B::BUFFER_LEN }>::zeroed();
    let _ = a.relayout_into(&mut b);
}
