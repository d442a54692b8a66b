use tessera::layout;

type A = layout!(f32[3, 5]{2, 0});

fn main() {}
