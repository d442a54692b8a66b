use tessera::layout;
use tessera::HasRank;

/// A kernel over matrices only.
fn rows<L: HasRank<2>>() -> usize {
    L::LAYOUT.size(0)
}

fn main() {
    rows::<layout!(f32[2, 3, 4])>();
}
