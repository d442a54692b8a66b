use tessera::layout;

type A = layout!(f32[16, 256]{1, 0:L(0)});

fn main() {}
