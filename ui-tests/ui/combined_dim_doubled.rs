use tessera::layout;

type A = layout!(f32[16, 256]{1, 0:T(**, 128)});

fn main() {}
