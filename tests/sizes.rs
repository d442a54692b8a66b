//! Size budgets: what an iterator keeps is a few words, whatever the
//! layout's rank or tiling, so iterators cost no stack on a
//! microcontroller. A budget exceeded fails
//! the build of this test.

use core::mem::size_of;

use tessera::packed::{PackedSlots, S4, U2};
use tessera::{
    ArrayLayout, Indexed, Iter, IterMut, PackedIter, PreparedLayout, Slots, SlotsMut, layout,
};

/// At most this many bytes of iterator state for a static layout of rank
/// ≤ 4.
const BUDGET: usize = 128;

type Rank4 = layout!(bf16[2,3,64,256]{3,2,1,0:T(8,128)(2,1)});
type Rank1 = layout!(f32[1000]{0:T(128)});
type Int4 = layout!(s4[256,1024]{1,0:T(8,128)(2,1)E(4)});
type Int2 = layout!(u2[3,5,7,9]{0,1,2,3:E(2)});

const _: () = assert!(size_of::<Iter<'static, half::bf16, Rank4>>() <= BUDGET);
const _: () = assert!(size_of::<Iter<'static, f32, Rank1>>() <= BUDGET);
const _: () = assert!(size_of::<IterMut<'static, half::bf16, Rank4>>() <= BUDGET);
const _: () = assert!(size_of::<Indexed<'static, half::bf16, Rank4>>() <= BUDGET);
const _: () = assert!(size_of::<Slots<'static, half::bf16, Rank4>>() <= BUDGET);
const _: () = assert!(size_of::<SlotsMut<'static, half::bf16, Rank4>>() <= BUDGET);
const _: () = assert!(size_of::<Slots<'static, f32, Rank1>>() <= BUDGET);
const _: () = assert!(size_of::<PackedIter<'static, S4, Int4>>() <= BUDGET);
const _: () = assert!(size_of::<PackedIter<'static, U2, Int2>>() <= BUDGET);
const _: () = assert!(size_of::<PackedSlots<'static, U2, Int2>>() <= BUDGET);
const _: () = assert!(size_of::<PackedSlots<'static, S4, Int4>>() <= BUDGET);
// Run-time layouts are borrowed from the tensor, never copied in.
const _: () = assert!(size_of::<Iter<'static, f32, ArrayLayout>>() <= BUDGET);
const _: () = assert!(size_of::<Iter<'static, f32, PreparedLayout>>() <= BUDGET);

#[test]
fn iterator_sizes() {
    // Reported for the record; the budgets above are checked when this
    // file compiles.
    let sizes = [
        size_of::<Iter<'static, half::bf16, Rank4>>(),
        size_of::<Indexed<'static, half::bf16, Rank4>>(),
        size_of::<Slots<'static, half::bf16, Rank4>>(),
        size_of::<PackedIter<'static, S4, Int4>>(),
        size_of::<Iter<'static, f32, ArrayLayout>>(),
    ];
    println!("Iter, Indexed, Slots (static rank 4), PackedIter, Iter (run-time): {sizes:?} bytes");
    assert!(sizes.iter().all(|&s| s <= BUDGET));
}
