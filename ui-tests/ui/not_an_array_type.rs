use tessera::layout;

type A = layout!(token[]);

fn main() {}
