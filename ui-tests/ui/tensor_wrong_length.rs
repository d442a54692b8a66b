// A static tensor whose array length is not the layout's buffer length.
type A = tessera::layout!(f32[3,5]{1,0:T(2,2)});
static T: tessera::Tensor<A, f32, 15> = tessera::Tensor::zeroed();
fn main() {}
