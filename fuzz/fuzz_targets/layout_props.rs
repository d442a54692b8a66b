//! Properties of every layout on small arrays, checked with the engine's
//! own answers against each other: each element's offset is below the
//! buffer length, no two elements share a slot (injective), `slot` undoes
//! `offset` and every other slot is padding, the walker visits the same
//! offsets in the same order, and strides agree where the layout has them.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera::{ArrayLayout, DimVec, PreparedLayout, Slot};
use tessera_fuzz::{Choices, dims, layout_text};
use test_support::row_major;

const TYPES: [(&str, u32); 8] = [
    ("f32", 0),
    ("bf16", 0),
    ("s8", 0),
    ("pred", 0),
    ("s4", 4),
    ("u2", 2),
    ("u1", 1),
    ("c64", 0),
];

/// Largest buffer checked slot by slot.
const MAX_SLOTS: usize = 1 << 10;

fuzz_target!(|data: &[u8]| {
    let mut c = Choices::new(data);
    let (ty, bits) = c.pick(&TYPES);
    let rank = c.below(5);
    let dims = dims(&mut c, rank, 6);
    let text = layout_text(&mut c, ty, &dims, bits);
    let Ok(a) = ArrayLayout::parse(&text) else {
        return;
    };
    assert_eq!(
        PreparedLayout::parse(&text).map(|r| r.array_layout().to_string()),
        Ok(a.to_string())
    );
    let len = a.buffer_len();
    if len > MAX_SLOTS {
        return;
    }
    let sizes = a.sizes();
    let mut owner: Vec<Option<Vec<usize>>> = vec![None; len];
    let mut walk = a.elements();
    let strides = a.strides();
    let mut count = 0usize;
    for index in row_major(&sizes) {
        let o = a.try_offset(&index).expect("in-bounds index");
        assert!(o < len, "{text}: offset {o} of {index:?} >= {len}");
        assert!(
            owner[o].is_none(),
            "{text}: {index:?} and {:?} share slot {o}",
            owner[o]
        );
        assert_eq!(
            a.try_slot(o),
            Ok(Slot::Element(DimVec::from_slice(&index))),
            "{text}"
        );
        assert_eq!(walk.next_offset(), Some(o), "{text}: walker at {index:?}");
        if let Some(s) = &strides {
            let by_strides: usize = index.iter().zip(s.iter()).map(|(i, s)| i * s).sum();
            assert_eq!(by_strides, o, "{text}: strides {s:?}");
        }
        owner[o] = Some(index);
        count += 1;
    }
    assert_eq!(walk.next_offset(), None, "{text}");
    assert_eq!(count, a.element_count());
    for (o, held) in owner.iter().enumerate() {
        if held.is_none() {
            assert_eq!(a.try_slot(o), Ok(Slot::Padding), "{text}: slot {o}");
        }
    }
    assert!(a.try_slot(len).is_err());
});
