use tessera::layout;

type A = layout!(f32[16]{0:D(C)});

fn main() {}
