use tessera::layout;

type A = layout!(f32[16, 256]{1, 0:*(u32)});

fn main() {}
