use tessera::layout;

type A = layout!();

fn main() {}
