// A bad layout is one error, even when the type is used afterwards.
use tessera::layout;

type A = layout!(f32[3, 5]{1, 1});

const OFF: usize = A::offset([2, 3]);
const LEN: usize = A::BUFFER_LEN;

fn takes(_: A) {}

fn main() {
    let _ = (OFF, LEN);
    takes(A::NEW);
}
