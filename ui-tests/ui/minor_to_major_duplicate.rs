use tessera::layout;

type A = layout!(f32[3, 5]{1, 1});

fn main() {}
