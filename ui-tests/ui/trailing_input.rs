use tessera::layout;

type A = layout!(f32[3, 5]{1, 0} f32);

fn main() {}
