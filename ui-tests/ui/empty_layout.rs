use tessera::layout;

type A = layout!(f32[3, 5]{});

fn main() {}
