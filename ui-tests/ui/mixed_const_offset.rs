use tessera::layout;

// A `const` offset asked of a layout whose rows are known only at run time.
type A = layout!(f32[3, ?]{1, 0});
const OFF: usize = A::offset([1, 2]);

fn main() {}
