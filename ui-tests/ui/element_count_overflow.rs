use tessera::layout;

type A = layout!(f32[4294967296, 4294967296, 4]);

fn main() {}
