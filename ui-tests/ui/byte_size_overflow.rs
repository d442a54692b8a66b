use tessera::layout;

type A = layout!(c128[4611686018427387904]);

fn main() {}
