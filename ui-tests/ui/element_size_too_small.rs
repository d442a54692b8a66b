use tessera::layout;

type A = layout!(s8[16]<0:E(4)>);

fn main() {}
