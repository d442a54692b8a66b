use tessera::layout;
use tessera::RowMajorDense;

/// A kernel that reads its input as a plain row-major slice.
fn sum<L: RowMajorDense>(data: &[f32]) -> f32 {
    data.iter().take(L::LAYOUT.element_count()).sum()
}

fn main() {
    sum::<layout!(f32[16, 256]{1, 0:T(8, 128)})>(&[]);
}
