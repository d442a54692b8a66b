use tessera::layout;

// `?` is a dim's extent, not a tile size.
type A = layout!(f32[?, 256]{1, 0:T(?, 128)});

fn main() {}
