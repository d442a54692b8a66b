use tessera::layout;

type A = layout!(f32[3, 5]{1, 0:T(2, 2)});

const OFF: usize = A::offset([2, 5]);

fn main() {
    let _ = OFF;
}
