//! Relayout against an element-by-element copy along the engine's walker
//! (whose offsets `layout_props` checks against `offset`): any two layouts
//! of the same array, whole-byte and packed sub-byte types, source and
//! destination slices that start off their alignment, and, now and then,
//! destinations past the streaming threshold (16 KiB in fuzz builds,
//! `cfg(fuzzing)`; 8 MiB otherwise).

#![no_main]

use core::fmt::Debug;

use half::bf16;
use layout_tensor::packed::{S4, SubByte, U2};
use layout_tensor::{
    Element, PackedBuf, PackedView, PackedViewMut, TensorBuf, TensorView, TensorViewMut,
};
use libfuzzer_sys::fuzz_target;
use tessera::{ArrayLayout, PreparedLayout};
use tessera_fuzz::{Choices, dims, layout_text};
use test_support::row_major;

/// Largest buffer of an ordinary case, in slots.
const MAX_SLOTS: usize = 1 << 12;
/// Bytes that make relayout stream its stores: layout-tensor's
/// `STREAM_FROM_BYTES` in fuzz builds (`cfg(fuzzing)`, set by cargo-fuzz).
const STREAM_BYTES: usize = 16 << 10;

/// Copies `src` into `dst` element by element along both walkers.
fn copy_by_walker<T: Copy>(a: &ArrayLayout, src: &[T], b: &ArrayLayout, dst: &mut [T]) {
    let (mut from, mut to) = (a.elements(), b.elements());
    while let (Some(s), Some(d)) = (from.next_offset(), to.next_offset()) {
        dst[d] = src[s];
    }
    assert_eq!((from.next_offset(), to.next_offset()), (None, None));
}

fn check<T: Element + Copy + PartialEq + Debug>(
    c: &mut Choices<'_>,
    la: PreparedLayout,
    lb: PreparedLayout,
    value: impl Fn(usize) -> T,
    sentinel: T,
) {
    let (a, b) = (*la.array_layout(), *lb.array_layout());
    // The source, `shift` slots into its allocation (off its alignment).
    let shift = c.below(4);
    let mut counter = 0;
    let src = TensorBuf::from_fn(la, |_| {
        counter += 1;
        value(counter)
    })
    .unwrap();
    let mut src_slots = vec![sentinel; shift + a.buffer_len()];
    src_slots[shift..].copy_from_slice(src.as_slice());
    let src = TensorView::new(la, &src_slots[shift..]).unwrap();
    // The destination, likewise shifted, padding left as the sentinel.
    let dst_shift = c.below(4);
    let mut dst_slots = vec![sentinel; dst_shift + b.buffer_len()];
    let mut dst = TensorViewMut::new(lb, &mut dst_slots[dst_shift..]).unwrap();
    src.relayout_into(&mut dst).unwrap();
    let mut expected = vec![sentinel; b.buffer_len()];
    copy_by_walker(&a, src.as_slice(), &b, &mut expected);
    assert!(dst_slots[..dst_shift].iter().all(|s| *s == sentinel));
    assert!(dst_slots[dst_shift..] == expected[..], "{la} -> {lb}");
    if c.below(4) == 0 {
        let mut owned = src.relayout(lb).unwrap();
        owned.fill_padding().unwrap();
        let mut expected = TensorBuf::<_, T>::zeroed(lb).unwrap();
        expected.fill_padding().unwrap();
        copy_by_walker(&a, src.as_slice(), &b, expected.as_mut_slice());
        assert!(
            owned.as_slice() == expected.as_slice(),
            "{la} -> {lb} (owned)"
        );
    }
}

/// Packed relayout of `E` against `get_dyn`, the source `shift` bytes
/// into its allocation.
fn check_packed<E: SubByte>(
    c: &mut Choices<'_>,
    la: PreparedLayout,
    lb: PreparedLayout,
    value: impl Fn(usize) -> E::Value,
) {
    let a = *la.array_layout();
    let shift = c.below(4);
    let sizes = a.sizes();
    let src = PackedBuf::<_, E>::from_fn(la, |i| value(value_at(&sizes, i))).unwrap();
    let mut bytes = vec![0xA5u8; shift + src.as_bytes().len()];
    bytes[shift..].copy_from_slice(src.as_bytes());
    let src = PackedView::<_, E>::new(la, &bytes[shift..]).unwrap();
    let mut out = vec![0u8; lb.array_layout().physical_byte_size()];
    let mut dst = PackedViewMut::<_, E>::new(lb, &mut out).unwrap();
    src.relayout_into(&mut dst).unwrap();
    for i in &row_major(&sizes) {
        assert_eq!(dst.get_dyn(i), src.get_dyn(i), "{la} -> {lb} at {i:?}");
    }
}

/// The row-major position of `index` in a box of `sizes`.
fn value_at(sizes: &[usize], index: &[usize]) -> usize {
    sizes.iter().zip(index).fold(0, |acc, (s, i)| acc * s + i)
}

fuzz_target!(|data: &[u8]| {
    let mut c = Choices::new(data);
    let kind = c.below(6);
    let (ty, width) = [
        ("f32", 4),
        ("u8", 1),
        ("bf16", 2),
        ("f64", 8),
        ("s4", 0),
        ("u2", 0),
    ][kind];
    let streaming = width > 0 && c.byte() == 0xA5 && c.byte() == 0x5A;
    let dims = if streaming {
        // At least the streaming threshold: rows of 1024..=1039 elements.
        let cols = 1024 + c.below(16);
        let rows = (STREAM_BYTES / width).div_ceil(cols) + c.below(8);
        vec![rows, cols]
    } else {
        let rank = 1 + c.below(4);
        dims(&mut c, rank, 7)
    };
    let bits = |c: &mut Choices<'_>| match ty {
        "s4" => [0, 4][c.below(2)],
        "u2" => [0, 2][c.below(2)],
        _ => 0,
    };
    let (ba, bb) = (bits(&mut c), bits(&mut c));
    let ta = layout_text(&mut c, ty, &dims, ba);
    let tb = layout_text(&mut c, ty, &dims, bb);
    let (Ok(la), Ok(lb)) = (PreparedLayout::parse(&ta), PreparedLayout::parse(&tb)) else {
        return;
    };
    let limit = if streaming {
        4 * STREAM_BYTES
    } else {
        MAX_SLOTS
    };
    if la.array_layout().buffer_len() > limit || lb.array_layout().buffer_len() > limit {
        return;
    }
    match kind {
        0 => check(&mut c, la, lb, |n| n as f32, -1.0),
        1 => check(&mut c, la, lb, |n| (n % 251) as u8, 0xFF),
        2 => check(
            &mut c,
            la,
            lb,
            |n| bf16::from_bits((n % 0x7F00) as u16),
            bf16::from_bits(0xBF80),
        ),
        3 => check(&mut c, la, lb, |n| n as f64, -1.0),
        4 => check_packed::<S4>(&mut c, la, lb, |n| n as i8 % 8),
        _ => check_packed::<U2>(&mut c, la, lb, |n| (n % 4) as u8),
    }
});
