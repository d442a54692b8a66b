// A static tensor whose Rust element type is not the layout's.
type A = tessera::layout!(bf16[2,3]);
static T: tessera::Tensor<A, f32, { A::BUFFER_LEN }> = tessera::Tensor::zeroed();
fn main() {}
