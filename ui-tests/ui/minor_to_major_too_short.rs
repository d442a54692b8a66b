use tessera::layout;

type A = layout!(f32[3, 5, 7]{1, 0});

fn main() {}
