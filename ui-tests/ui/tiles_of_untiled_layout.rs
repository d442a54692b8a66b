// Tile views of a static layout without tiles: a compile error naming why.
type A = tessera::layout!(f32[16,256]);
fn main() {
    let t = tessera::TensorBuf::<A, f32>::zeroed(A::NEW).unwrap();
    for tile in t.tiles() {
        let _ = tile.number();
    }
}
