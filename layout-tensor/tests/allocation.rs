//! Allocating constructors given a layout read at run time: a buffer that
//! cannot be allocated is an error naming its bytes, never an abort
//! ("memory allocation failed") or a "capacity overflow" panic.
//!
//! Not under Miri, which stops at "resource exhaustion" instead of letting
//! an allocation fail.
#![cfg(not(miri))]

use layout_tensor::packed::S4;
use layout_tensor::{PackedBuf, TensorBuf};
use tessera::{Error, ErrorKind, PreparedLayout};

fn layout(text: &str) -> PreparedLayout {
    PreparedLayout::parse(text).unwrap()
}

fn assert_allocation_failed(result: Result<impl Sized, Error>, bytes: usize) {
    match result {
        Ok(_) => panic!("allocated {bytes} bytes"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::AllocationFailed { bytes });
            assert!(e.to_string().contains(&bytes.to_string()), "{e}");
        }
    }
}

#[test]
fn tensors_too_large_for_memory_are_errors() {
    // 4 TB: more than any test machine has.
    let big = layout("f32[1000000000000]");
    assert_allocation_failed(TensorBuf::<_, f32>::zeroed(big), 4_000_000_000_000);
    assert_allocation_failed(TensorBuf::filled(big, 1.5f32), 4_000_000_000_000);
    assert_allocation_failed(TensorBuf::from_fn(big, |_| 0f32), 4_000_000_000_000);
    // Past `isize::MAX` bytes (`Vec`'s "capacity overflow") is past XLA's
    // `int64` too: the layout itself is refused.
    let e = PreparedLayout::parse("f64[4611686018427387904]").unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Overflow { .. } | ErrorKind::SizeMayOverflowInt64 { .. }
        ),
        "{e}"
    );
}

#[test]
fn packed_tensors_too_large_for_memory_are_errors() {
    let big = layout("s4[2305843009213693952]{0:E(4)}");
    assert_allocation_failed(PackedBuf::<_, S4>::zeroed(big), 1 << 60);
}

#[test]
fn relayout_into_a_huge_layout_is_an_error() {
    let small = TensorBuf::from_fn(layout("f32[2]"), |i| i[0] as f32).unwrap();
    // Two elements, but a tile of 10^12 slots: 4 TB of padding.
    let tiled = layout("f32[2]{0:T(1000000000000)}");
    assert_allocation_failed(small.relayout(tiled), 4_000_000_000_000);
}
