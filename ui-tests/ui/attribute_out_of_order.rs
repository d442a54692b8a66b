use tessera::layout;

type A = layout!(s4[16, 256]{1, 0:E(4)T(8, 128)});

fn main() {}
