use tessera::layout;

type RowMajor = layout!(f32[3, 5]{1, 0});
type ColMajor = layout!(f32[3, 5]{0, 1});

fn main() {
    let _: RowMajor = ColMajor::NEW;
}
