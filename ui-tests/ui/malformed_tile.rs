use tessera::layout;

type A = layout!(f32[16, 256]{1, 0:T(8; 128)});

fn main() {}
