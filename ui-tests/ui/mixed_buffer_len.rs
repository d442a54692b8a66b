use tessera::layout;

// The buffer length of a layout with a `?` dim is known only at run time.
type A = layout!(bf16[?, 1024]{1, 0:T(8, 128)(2, 1)});
const LEN: usize = A::BUFFER_LEN;

fn main() {}
