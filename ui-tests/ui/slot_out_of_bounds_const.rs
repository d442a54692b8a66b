use tessera::layout;

type A = layout!(f32[3, 5]{1, 0:T(2, 2)});

const PADDING: tessera::SlotOf<2> = A::slot(24);

fn main() {
    let _ = PADDING;
}
