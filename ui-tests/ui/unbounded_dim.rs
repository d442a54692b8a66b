use tessera::layout;

type A = layout!(f32[3, ?]{1, 0});

fn main() {}
