use tessera::layout;

// A `?` dim cannot be padded to a width: its extent is unknown.
type A = layout!(f32[?, 4]{1, 0:pad(8, 4)});

fn main() {}
