use tessera::layout;

type A = layout!(f32{1, 0});

fn main() {}
