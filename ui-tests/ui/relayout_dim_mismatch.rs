// A relayout between static layouts that differ in one dimension: the
// error names the dimension and both sizes.
type A = tessera::layout!(f32[2,4,8]);
type B = tessera::layout!(f32[2,4,16]{2,1,0:T(8)});
fn main() {
    let a = tessera::Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    let mut b = tessera::Tensor::<B, f32, { B::BUFFER_LEN }>::zeroed();
    let _ = a.relayout_into(&mut b);
}
