use tessera::layout;

type A = layout!((f32[3], f32[5]));

fn main() {}
