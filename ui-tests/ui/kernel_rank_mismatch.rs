use tessera::{HasRank, layout};

/// A kernel over matrices only.
fn rows<L: HasRank<2>>(l: &L) -> usize {
    l.size(0)
}

fn main() {
    rows(&<layout!(f32[2, 3, 4])>::NEW);
}
