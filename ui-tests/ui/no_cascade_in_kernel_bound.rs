// A bad layout is one error, even when it is passed to a bounded kernel.
use tessera::{HasRank, RowMajorDense, layout};

type A = layout!(f32[3, 5]{1, 0:T(0, 2)});

fn rows<L: HasRank<2> + RowMajorDense>() -> usize {
    L::LAYOUT.size(0)
}

fn main() {
    let _ = rows::<A>();
}
