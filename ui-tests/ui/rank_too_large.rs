use tessera::layout;

type A = layout!(f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);

fn main() {}
