use tessera::layout;

type A = layout!(f32[16, 256]{1, 0:L(2)L(2)});

fn main() {}
