// A static layout written by hand with `Attrs` at their defaults: the
// macro writes `DefaultAttrs`, so this would be a second type for
// `f32[3,5]`; it does not build.
use tessera::StaticLayout;
use tessera::typelevel::{Attrs, F32, N, NoPad};

type A = StaticLayout<2, F32, true, (N<3>, N<5>), (N<1>, N<0>), (), Attrs<1, 0, 0, 0, (), NoPad>>;

const LEN: usize = A::BUFFER_LEN;

fn main() {
    let _ = LEN;
}
