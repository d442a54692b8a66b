use tessera::layout;

type A = layout!(f32[16]{0:P(s32[4]{0})});

fn main() {}
