use tessera::layout;

type A = layout!(g32[3, 5]{1, 0});

fn main() {}
