use tessera::layout;

type A = layout!(f32[3usize, 5]);

fn main() {}
