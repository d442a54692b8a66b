//! Tensors checked against the engine: every access path (indexing,
//! `get`, iteration in logical and memory order, relayout) agrees with
//! `ArrayLayout::offset` / `slot` for thousands of generated layouts.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::walk::SlotBoxes;
use tessera::{
    AnyLayout, ArrayLayout, PreparedLayout, PrimitiveType, RelayoutKernel, Slot, TensorBuf,
    TensorView, TensorViewMut,
};
use test_support::{PairBits, Spec, SpecGen, row_major};

/// Layouts of f32 elements: rank 0..=3 with dims 0..=6, any
/// minor_to_major, up to 3 tile levels (with `*`), `pad(..)` and `L(n)`.
fn layouts() -> SpecGen {
    SpecGen::new(vec![PrimitiveType::F32])
}

fn spec() -> impl Strategy<Value = Spec> {
    layouts().spec()
}

/// Two layouts of the same dims.
fn spec_pair() -> impl Strategy<Value = (Spec, Spec)> {
    layouts().pair(PairBits::Own)
}

/// A distinct nonzero value per logical index.
fn value_of(index: &[usize]) -> f32 {
    index.iter().fold(1.0, |acc, &i| acc * 8.0 + i as f32)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const SENTINEL: f32 = -7.5;

proptest! {
    #![proptest_config(config())]

    /// Every read path finds each element where the engine puts it.
    #[test]
    fn access_paths_agree_with_engine(spec in spec()) {
        let layout = spec.layout();
        let t = TensorBuf::from_fn(PreparedLayout::new(layout), value_of).unwrap();
        let indices = row_major(&spec.dims);
        for idx in &indices {
            let o = layout.try_offset(idx).unwrap();
            prop_assert_eq!(t.as_slice()[o], value_of(idx));
            prop_assert_eq!(t.get_dyn(idx), Some(&value_of(idx)));
            prop_assert_eq!(t.try_offset(idx), Ok(o));
        }
        // Out of bounds and wrong rank are refused, not misread.
        let mut past = spec.dims.clone();
        if !past.is_empty() {
            prop_assert_eq!(t.get_dyn(&past), None);
            past.pop();
            prop_assert_eq!(t.get_dyn(&past), None);
        }
        // Logical order.
        let values: Vec<f32> = t.iter().copied().collect();
        let expected: Vec<f32> = indices.iter().map(|i| value_of(i)).collect();
        prop_assert_eq!(&values, &expected);
        let indexed: Vec<Vec<usize>> = t.iter().indexed().map(|(i, _)| i.to_vec()).collect();
        prop_assert_eq!(&indexed, &indices);
        // The same by fold (the loop nest), and by fold after `next`.
        let mut folded = Vec::new();
        t.iter().indexed().for_each(|(i, v)| folded.push((i.to_vec(), *v)));
        let with_values: Vec<(Vec<usize>, f32)> =
            indices.iter().map(|i| (i.clone(), value_of(i))).collect();
        prop_assert_eq!(&folded, &with_values);
        let mut it = t.iter().indexed();
        let mut walked: Vec<(Vec<usize>, f32)> = it
            .by_ref()
            .take(indices.len() / 3)
            .map(|(i, v)| (i.to_vec(), *v))
            .collect();
        it.for_each(|(i, v)| walked.push((i.to_vec(), *v)));
        prop_assert_eq!(&walked, &with_values);
        // Memory order: the engine's slot for each offset, and padding
        // holds the layout's padding value (zero).
        let mut count = 0;
        for (o, (index, value)) in t.slots().enumerate() {
            match layout.try_slot(o).unwrap() {
                Slot::Element(i) => {
                    prop_assert_eq!(index.as_deref(), Some(&i[..]));
                    prop_assert_eq!(*value, value_of(&i));
                }
                Slot::Padding => {
                    prop_assert_eq!(index, None);
                    prop_assert_eq!(*value, 0.0);
                }
            }
            count += 1;
        }
        prop_assert_eq!(count, layout.buffer_len());
    }

    /// `slots` and `slots_mut` hand out every slot once, in memory order,
    /// with the engine's index (or padding), whether the walk is a fold
    /// from the start (the loop nest), `next` (the run cursor) or a fold
    /// after `skip` slots; over a bare `ArrayLayout` and a prepared one.
    #[test]
    fn slot_walks_agree_with_engine(spec in spec(), skip in 0usize..40) {
        let layout = spec.layout();
        let expected: Vec<Option<Vec<usize>>> = (0..layout.buffer_len())
            .map(|o| match layout.try_slot(o).unwrap() {
                Slot::Element(i) => Some(i.to_vec()),
                Slot::Padding => None,
            })
            .collect();
        check_slot_walks(layout, &expected, skip)?;
        check_slot_walks(PreparedLayout::new(layout), &expected, skip)?;
    }

    /// Every traversal visits each element once, in logical order where
    /// it promises it, over a bare `ArrayLayout` and a prepared one; the
    /// fills touch exactly the slots they name.
    #[test]
    fn traversals_agree_with_engine(spec in spec(), skip in 0usize..40) {
        let layout = spec.layout();
        let indices = row_major(&spec.dims);
        let offsets: Vec<usize> = indices.iter().map(|i| layout.offset(i)).collect();
        let mut t = TensorBuf::<ArrayLayout, f32>::filled(layout, SENTINEL).unwrap();
        // for_each_mut: every index once (in the order chosen for speed).
        let mut seen = Vec::new();
        t.for_each_mut(|i, v| {
            seen.push(i.to_vec());
            *v = value_of(i);
        });
        let mut sorted = seen.clone();
        sorted.sort();
        let mut expected_indices = indices.clone();
        expected_indices.sort();
        prop_assert_eq!(&sorted, &expected_indices);
        for (i, &o) in indices.iter().zip(&offsets) {
            prop_assert_eq!(t.as_slice()[o], value_of(i));
        }
        let mut visited = Vec::new();
        t.for_each(|i, v| visited.push((i.to_vec(), *v)));
        let expected: Vec<(Vec<usize>, f32)> =
            seen.iter().map(|i| (i.clone(), value_of(i))).collect();
        prop_assert_eq!(&visited, &expected);
        // iter: `next` and `fold` agree, also after a partial walk.
        let values: Vec<f32> = indices.iter().map(|i| value_of(i)).collect();
        let mut it = t.iter();
        let mut head = Vec::new();
        for _ in 0..skip.min(values.len()) {
            head.push(*it.next().unwrap());
        }
        let rest: Vec<f32> = it.fold(Vec::new(), |mut acc, v| {
            acc.push(*v);
            acc
        });
        head.extend(rest);
        prop_assert_eq!(&head, &values);
        prop_assert_eq!(t.iter().len(), values.len());
        // indexed: each element with its index, also after a partial walk.
        let start = skip.min(values.len());
        let mut it = t.iter();
        it.by_ref().take(start).for_each(drop);
        let rest: Vec<(Vec<usize>, f32)> =
            it.indexed().map(|(i, v)| (i.as_ref().to_vec(), *v)).collect();
        let expected: Vec<(Vec<usize>, f32)> =
            indices[start..].iter().map(|i| (i.clone(), value_of(i))).collect();
        prop_assert_eq!(&rest, &expected);
        // iter_mut writes where the engine says.
        for (k, v) in t.iter_mut().enumerate() {
            *v = k as f32;
        }
        for (k, &o) in offsets.iter().enumerate() {
            prop_assert_eq!(t.as_slice()[o], k as f32);
        }
        // fill: every element slot, no padding slot.
        t.as_mut_slice().fill(SENTINEL);
        t.fill(1.5);
        let is_element: Vec<bool> = (0..layout.buffer_len())
            .map(|o| layout.slot(o) != Slot::Padding)
            .collect();
        for (o, v) in t.as_slice().iter().enumerate() {
            prop_assert_eq!(*v, if is_element[o] { 1.5 } else { SENTINEL }, "slot {}", o);
        }
        // The padding's boxes, where the layout has them: each stretch
        // names padding only, and together they name all of it.
        if let Some(padding) = SlotBoxes::padding(&layout) {
            let mut named = vec![false; layout.buffer_len()];
            padding.for_each_span(|start, len| {
                for n in &mut named[start..start + len] {
                    *n = true;
                }
            });
            for (o, n) in named.iter().enumerate() {
                prop_assert_eq!(*n, !is_element[o], "slot {}", o);
            }
        }
        // The elements' boxes name each element slot once.
        if let Some(elements) = SlotBoxes::elements(&layout) {
            let mut named = vec![0u8; layout.buffer_len()];
            elements.for_each_span(|start, len| {
                for n in &mut named[start..start + len] {
                    *n += 1;
                }
            });
            for (o, n) in named.iter().enumerate() {
                prop_assert_eq!(*n, is_element[o] as u8, "slot {}", o);
            }
        }
        // fill_padding: every padding slot, no element slot.
        t.as_mut_slice().fill(SENTINEL);
        t.fill_padding().unwrap();
        for (o, v) in t.as_slice().iter().enumerate() {
            prop_assert_eq!(*v, if is_element[o] { SENTINEL } else { 0.0 }, "slot {}", o);
        }
        // The prepared layout walks the same way.
        let p = TensorBuf::from_fn(PreparedLayout::new(layout), value_of).unwrap();
        let pv: Vec<f32> = p.iter().copied().collect();
        prop_assert_eq!(&pv, &values);
        prop_assert_eq!(p.iter().sum::<f32>(), values.iter().sum::<f32>());
    }

    /// Relayout puts every element where the destination's engine says,
    /// leaves its padding untouched, and back again is the identity.
    #[test]
    fn relayout_round_trips((a, b) in spec_pair()) {
        let (la, lb) = (a.layout(), b.layout());
        let src = TensorBuf::from_fn(PreparedLayout::new(la), value_of).unwrap();
        let mut slots = vec![SENTINEL; lb.buffer_len()];
        let mut dst = TensorViewMut::new(PreparedLayout::new(lb), &mut slots).unwrap();
        src.relayout_into(&mut dst).unwrap();
        for (o, v) in slots.iter().enumerate() {
            match lb.try_slot(o).unwrap() {
                Slot::Element(i) => prop_assert_eq!(*v, value_of(&i), "slot {}", o),
                Slot::Padding => prop_assert_eq!(*v, SENTINEL, "padding slot {}", o),
            }
        }
        let there = TensorView::new(PreparedLayout::new(lb), &slots).unwrap();
        let back = there.relayout(PreparedLayout::new(la)).unwrap();
        prop_assert_eq!(back.as_slice(), src.as_slice());
        prop_assert!(back == there);
    }
}

/// For XLA's tilings `for_each` streams through the buffer: offsets only
/// grow, padding skipped.
#[test]
fn for_each_walks_memory_order_for_xla_tilings() {
    for text in [
        "f32[19,300]{1,0:T(8,128)}",
        "f32[19,300]{0,1:T(8,128)}",
        "bf16[19,300]{1,0:T(8,128)(2,1)}",
        "s8[40,260]{1,0:T(8,128)(4,1)}",
        "f32[3,19,300]{2,0,1:T(4,128)}",
        "f32[7,10]{1,0:pad(9,12)}",
    ] {
        let layout: ArrayLayout = text.parse().unwrap();
        let t = TensorBuf::<ArrayLayout, f32>::zeroed(layout);
        let offsets: Vec<usize> = match t {
            Ok(t) => {
                let mut o = Vec::new();
                t.for_each(|i, _| o.push(layout.offset(i)));
                o
            }
            // Not an f32 layout: walk a byte tensor of the same shape.
            Err(_) => {
                let mut o = Vec::new();
                macro_rules! walk {
                    ($t:ty) => {
                        TensorBuf::<ArrayLayout, $t>::zeroed(layout)
                            .unwrap()
                            .for_each(|i, _| o.push(layout.offset(i)))
                    };
                }
                match layout.element_type() {
                    PrimitiveType::Bf16 => walk!(half::bf16),
                    PrimitiveType::S8 => walk!(i8),
                    other => panic!("{other:?}"),
                }
                o
            }
        };
        assert_eq!(offsets.len(), layout.element_count(), "{text}");
        assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{text}");
    }
}

#[test]
fn index_panics_name_the_dimension_and_bound() {
    let t = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[3,5]{1,0:T(2,2)}").unwrap())
        .unwrap();
    let err = std::panic::catch_unwind(|| t[[1, 5]]).unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert_eq!(msg, "index 5 is out of bounds for dimension `1` of size 5");
    let err = std::panic::catch_unwind(|| t[[1, 2, 3]]).unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(msg.contains("3"), "{msg}");
}

#[test]
fn construction_errors_name_the_mismatch() {
    let l = PreparedLayout::parse("bf16[4,4]").unwrap();
    let data = [0.0f32; 16];
    let err = TensorView::new(l, &data[..]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "element type `f32` does not match the layout's element type `bf16`"
    );
    let l = PreparedLayout::parse("f32[4,4]{1,0:T(8)}").unwrap();
    let err = TensorView::new(l, &data[..]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the buffer has 16 slots but the layout needs 32"
    );
    let a = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[4,4]").unwrap()).unwrap();
    let err = a
        .relayout(PreparedLayout::parse("f32[4,5]").unwrap())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "dimension `1` has size 4 in the source but 5 in the destination"
    );
    let err = a
        .relayout(PreparedLayout::parse("s32[4,4]").unwrap())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "element type `f32` does not match the layout's element type `s32`"
    );
}

type Tiled = tessera::layout!(f32[3,5]{1,0:T(2,2)});
type RowMajor = tessera::layout!(f32[3,5]);
type Padded = tessera::layout!(f32[3,5]{1,0:pad(4,8:lowest)});

static WEIGHTS: tessera::Tensor<Tiled, f32, { Tiled::BUFFER_LEN }> = tessera::Tensor::from_slots([
    0.0, 1.0, 5.0, 6.0, 2.0, 3.0, 7.0, 8.0, 4.0, 0.0, 9.0, 0.0, //
    10.0, 11.0, 0.0, 0.0, 12.0, 13.0, 0.0, 0.0, 14.0, 0.0, 0.0, 0.0,
]);

#[test]
fn static_tensor_in_a_static() {
    for y in 0..3 {
        for x in 0..5 {
            assert_eq!(WEIGHTS[[y, x]], (y * 5 + x) as f32);
        }
    }
    let mut rm = tessera::Tensor::<RowMajor, f32, { RowMajor::BUFFER_LEN }>::zeroed();
    WEIGHTS.relayout_into(&mut rm).unwrap();
    let expected: Vec<f32> = (0..15).map(|v| v as f32).collect();
    assert_eq!(rm.as_slice(), &expected[..]);
    assert!(rm == WEIGHTS);
}

/// A `for` loop over a static row-major tensor (one run of every
/// element) writes each element once, in order; `indexed` after some
/// `next` calls counts the indices by rows from there.
#[test]
fn row_major_walks_are_one_run() {
    let mut t = tessera::Tensor::<RowMajor, f32, { RowMajor::BUFFER_LEN }>::zeroed();
    let mut k = 0.0;
    for v in t.iter_mut() {
        *v = k;
        k += 1.0;
    }
    let expected: Vec<f32> = (0..15).map(|v| v as f32).collect();
    assert_eq!(t.as_slice(), &expected[..]);
    let mut it = t.iter();
    it.by_ref().take(7).for_each(drop);
    let rest: Vec<([usize; 2], f32)> = it.indexed().map(|(i, v)| (i, *v)).collect();
    let want: Vec<([usize; 2], f32)> = (7..15).map(|n| ([n / 5, n % 5], n as f32)).collect();
    assert_eq!(rest, want);
}

#[test]
fn const_padding_value_fills_padding_slots() {
    const T: tessera::Tensor<Padded, f32, { Padded::BUFFER_LEN }> =
        tessera::Tensor::with_padding_value(1.0);
    assert_eq!(T.as_slice().len(), 32);
    let layout = T.to_array_layout();
    for (o, v) in T.as_slice().iter().enumerate() {
        match layout.try_slot(o).unwrap() {
            Slot::Element(_) => assert_eq!(*v, 1.0),
            Slot::Padding => assert_eq!(*v, f32::NEG_INFINITY),
        }
    }
}

/// `fill_padding` and `fill` on a static layout (its boxes constants)
/// write every padding slot and every element slot, and nothing else, as
/// the run-time layout of the same text does.
/// The slots `layout`'s tensors hand out, by every walk, against
/// `expected` (the engine's slot of each offset).
fn check_slot_walks<L: AnyLayout + tessera::Stores<f32>>(
    layout: L,
    expected: &[Option<Vec<usize>>],
    skip: usize,
) -> Result<(), TestCaseError> {
    let held = |i: Option<L::Index>| i.map(|i| i.as_ref().to_vec());
    let mut t = TensorBuf::<L, f32>::filled(layout, SENTINEL).unwrap();
    // Fold from the start.
    let mut folded = Vec::new();
    t.slots().for_each(|(i, _)| folded.push(held(i)));
    prop_assert_eq!(&folded, expected, "fold");
    // `next`, then a fold of the rest.
    let mut it = t.slots();
    let mut walked: Vec<_> = it.by_ref().take(skip).map(|(i, _)| held(i)).collect();
    prop_assert_eq!(it.len(), expected.len() - walked.len());
    it.for_each(|(i, _)| walked.push(held(i)));
    prop_assert_eq!(&walked, expected, "next, then fold");
    // Writable: each slot numbered by its place in the walk.
    let mut k = 0.0;
    let mut at = Vec::new();
    let mut it = t.slots_mut();
    for (i, v) in it.by_ref().take(skip) {
        at.push(held(i));
        *v = k;
        k += 1.0;
    }
    it.for_each(|(i, v)| {
        at.push(held(i));
        *v = k;
        k += 1.0;
    });
    prop_assert_eq!(&at, expected, "slots_mut");
    for (o, v) in t.as_slice()[..expected.len()].iter().enumerate() {
        prop_assert_eq!(*v, o as f32);
    }
    // A fold from the start writes every slot once.
    t.slots_mut()
        .for_each(|(i, v)| *v += if i.is_some() { 0.5 } else { 0.25 });
    for (o, v) in t.as_slice()[..expected.len()].iter().enumerate() {
        let add = if expected[o].is_some() { 0.5 } else { 0.25 };
        prop_assert_eq!(*v, o as f32 + add);
    }
    Ok(())
}

fn check_static_fill_padding<L: tessera::KnownLayout + tessera::Stores<f32>>(layout: L, pad: f32) {
    let a = layout.to_array_layout();
    assert!(
        SlotBoxes::padding(&a).is_some(),
        "{a}: its padding is boxes"
    );
    let mut t = TensorBuf::<L, f32>::filled(layout, SENTINEL).unwrap();
    t.as_mut_slice().fill(SENTINEL);
    t.fill_padding().unwrap();
    let mut r = TensorBuf::<ArrayLayout, f32>::filled(a, SENTINEL).unwrap();
    r.as_mut_slice().fill(SENTINEL);
    r.fill_padding().unwrap();
    for (o, v) in t.as_slice().iter().enumerate() {
        let expected = match a.try_slot(o).unwrap() {
            Slot::Element(_) => SENTINEL,
            Slot::Padding => pad,
        };
        assert_eq!(*v, expected, "{a}: slot {o}");
    }
    assert_eq!(t.as_slice(), r.as_slice(), "{a}");
    // fill, through the elements' boxes: every element slot, no padding.
    assert!(
        SlotBoxes::elements(&a).is_some(),
        "{a}: its elements are boxes"
    );
    t.fill(2.5);
    for (o, v) in t.as_slice().iter().enumerate() {
        let expected = match a.try_slot(o).unwrap() {
            Slot::Element(_) => 2.5,
            Slot::Padding => pad,
        };
        assert_eq!(*v, expected, "{a}: slot {o}");
    }
}

#[test]
fn static_fills_write_their_own_slots_only() {
    type EdgeColumns = tessera::layout!(f32[37,300]{1,0:T(8,128)});
    type ShortY = tessera::layout!(f32[3,200]{1,0:T(8,128)});
    type Transposed = tessera::layout!(f32[19,130]{0,1:T(4,128)});
    type Pairs = tessera::layout!(f32[5,7,9]{2,0,1:T(2,4)(2,1)});
    type OneRow = tessera::layout!(f32[1,9]{1,0:T(2,4)});
    check_static_fill_padding(EdgeColumns::NEW, 0.0);
    check_static_fill_padding(ShortY::NEW, 0.0);
    check_static_fill_padding(Transposed::NEW, 0.0);
    check_static_fill_padding(Pairs::NEW, 0.0);
    check_static_fill_padding(OneRow::NEW, 0.0);
    check_static_fill_padding(Padded::NEW, f32::NEG_INFINITY);
}

/// Static layouts' slot walks (their index a `[usize; R]`, the nest and
/// the runs constants) agree with the engine, edge tiles and sub-tiles
/// included.
#[test]
fn static_slot_walks_agree_with_engine() {
    fn check<L: tessera::KnownLayout + tessera::Stores<f32>>(layout: L) {
        let a = layout.to_array_layout();
        let expected: Vec<Option<Vec<usize>>> = (0..a.buffer_len())
            .map(|o| match a.try_slot(o).unwrap() {
                Slot::Element(i) => Some(i.to_vec()),
                Slot::Padding => None,
            })
            .collect();
        for skip in [0, 1, 7, expected.len() / 2] {
            check_slot_walks(layout, &expected, skip).unwrap();
        }
        // `iter().indexed()` by fold: logical order, `[usize; R]` indices.
        let t = TensorBuf::<L, f32>::from_fn(layout, value_of).unwrap();
        let mut seen = Vec::new();
        t.iter()
            .indexed()
            .for_each(|(i, v)| seen.push((i.as_ref().to_vec(), *v)));
        let want: Vec<(Vec<usize>, f32)> = row_major(&a.sizes())
            .into_iter()
            .map(|i| (i.clone(), value_of(&i)))
            .collect();
        assert_eq!(seen, want, "{a}");
    }
    check(<tessera::layout!(f32[37,300]{1,0:T(8,128)})>::NEW);
    check(<tessera::layout!(f32[19,130]{0,1:T(4,128)})>::NEW);
    check(<tessera::layout!(f32[5,7,9]{2,0,1:T(2,4)(2,1)})>::NEW);
    check(<tessera::layout!(f32[3,4,5,6]{3,2,1,0:T(2,4)})>::NEW);
    check(<tessera::layout!(f32[11]{0:T(4)L(17)})>::NEW);
    check(<tessera::layout!(f32[6]{0:T(3)(2)})>::NEW);
    check(Padded::NEW);
}

#[test]
fn static_and_runtime_views_agree() {
    let data: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let s = TensorView::new(Tiled::NEW, &data).unwrap();
    let r = TensorView::new(PreparedLayout::new(Tiled::LAYOUT), &data).unwrap();
    for y in 0..3 {
        for x in 0..5 {
            assert_eq!(s[[y, x]], r[[y, x]]);
            assert_eq!(s.get([y, x]), Some(&data[Tiled::offset([y, x])]));
        }
    }
    assert_eq!(s.get([3, 0]), None);
    assert!(s.iter().eq(r.iter()));
}

#[test]
fn bytes_views() {
    let mut t = tessera::Tensor::<RowMajor, f32, { RowMajor::BUFFER_LEN }>::zeroed();
    t[[0, 1]] = 1.0;
    assert_eq!(&t.as_bytes()[4..8], &1.0f32.to_le_bytes());
    t.as_bytes_mut()[8..12].copy_from_slice(&2.0f32.to_le_bytes());
    assert_eq!(t[[0, 2]], 2.0);
}

#[test]
fn half_and_complex_elements() {
    use num_complex::Complex;
    let l = PreparedLayout::parse("bf16[2,3]{0,1}").unwrap();
    let t = TensorBuf::from_fn(l, |i| half::bf16::from_f32((i[0] * 3 + i[1]) as f32)).unwrap();
    assert_eq!(t[[1, 2]], half::bf16::from_f32(5.0));
    let l = PreparedLayout::parse("c64[2,2]").unwrap();
    let t = TensorBuf::from_fn(l, |i| Complex::new(i[0] as f32, i[1] as f32)).unwrap();
    assert_eq!(t[[1, 0]], Complex::new(1.0, 0.0));
    let l = PreparedLayout::parse("c64[2,2]{1,0:pad(2,3:lowest)}").unwrap();
    let err = TensorBuf::<_, Complex<f32>>::from_fn(l, |_| Complex::new(0.0, 0.0)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "element type `c64` has no `lowest` value to pad with"
    );
}

/// The kernels' special cases (contiguous runs, the `(2,1)` and `(4,1)`
/// interleaves, strided transposes, partial tiles) against the engine.
#[test]
fn tpu_tilings_pack_and_unpack() {
    for (src, dst) in [
        ("f32[16,256]{1,0}", "f32[16,256]{1,0:T(8,128)}"),
        ("f32[21,300]{1,0}", "f32[21,300]{1,0:T(8,128)}"),
        ("f32[21,300]{1,0}", "f32[21,300]{0,1:T(8,128)}"),
        ("bf16[16,256]{1,0}", "bf16[16,256]{1,0:T(8,128)(2,1)}"),
        ("bf16[19,130]{1,0}", "bf16[19,130]{1,0:T(8,128)(2,1)}"),
        ("s8[32,256]{1,0}", "s8[32,256]{1,0:T(32,128)(4,1)}"),
        ("s8[35,129]{1,0}", "s8[35,129]{1,0:T(32,128)(4,1)}"),
    ] {
        let a = tessera::ArrayLayout::parse(src).unwrap();
        let b = tessera::ArrayLayout::parse(dst).unwrap();
        let n = a.buffer_len();
        // Values are slot numbers, held in whichever element type.
        let check = |src_slots: &[u64], dst_slots: &[u64]| {
            for (index, o) in a.elements() {
                assert_eq!(
                    dst_slots[b.try_offset(&index).unwrap()],
                    src_slots[o],
                    "{src} -> {dst} at {index:?}"
                );
            }
        };
        match a.element_type() {
            PrimitiveType::F32 => {
                let s: Vec<f32> = (0..n).map(|v| v as f32).collect();
                let sv = TensorView::new(PreparedLayout::new(a), &s).unwrap();
                let t = sv.relayout(PreparedLayout::new(b)).unwrap();
                let back = t.relayout(PreparedLayout::new(a)).unwrap();
                assert_eq!(back.as_slice(), &s[..]);
                let d: Vec<u64> = t.as_slice().iter().map(|&v| v as u64).collect();
                check(&(0..n as u64).collect::<Vec<_>>(), &d);
            }
            PrimitiveType::Bf16 => {
                let s: Vec<half::bf16> = (0..n).map(|v| half::bf16::from_f32(v as f32)).collect();
                let sv = TensorView::new(PreparedLayout::new(a), &s).unwrap();
                let t = sv.relayout(PreparedLayout::new(b)).unwrap();
                let back = t.relayout(PreparedLayout::new(a)).unwrap();
                assert_eq!(back.as_slice(), &s[..]);
                let d: Vec<u64> = t.as_slice().iter().map(|&v| v.to_f32() as u64).collect();
                let s: Vec<u64> = s.iter().map(|&v| v.to_f32() as u64).collect();
                check(&s, &d);
            }
            _ => {
                let s: Vec<i8> = (0..n).map(|v| v as i8).collect();
                let sv = TensorView::new(PreparedLayout::new(a), &s).unwrap();
                let t = sv.relayout(PreparedLayout::new(b)).unwrap();
                let back = t.relayout(PreparedLayout::new(a)).unwrap();
                assert_eq!(back.as_slice(), &s[..]);
                let d: Vec<u64> = t.as_slice().iter().map(|&v| v as u8 as u64).collect();
                let s: Vec<u64> = s.iter().map(|&v| v as u8 as u64).collect();
                check(&s, &d);
            }
        }
    }
}

/// Relayouts whose destination is large enough for streaming stores (at
/// least 8 MiB), into buffers that start on and off a 16-byte boundary, in
/// both directions: every element lands where the engine puts it, and
/// padding slots keep their sentinel.
#[test]
fn large_relayouts_stream_exactly() {
    let rows_text = "f32[2051,1030]{1,0}";
    let tiled_text = "f32[2051,1030]{1,0:T(8,128)}";
    let rows = PreparedLayout::parse(rows_text).unwrap();
    let tiled = PreparedLayout::parse(tiled_text).unwrap();
    let (m, n) = (2051, 1030);
    let value = |i: usize, j: usize| (i * n + j) as f32;
    let src = TensorBuf::from_fn(rows, |ix| value(ix[0], ix[1])).unwrap();
    assert!(tiled.to_array_layout().buffer_len() * 4 >= 8 << 20);
    for skip in [0, 1, 2, 3] {
        // Tiled, starting `skip` elements into the allocation.
        let mut buf = vec![SENTINEL; tiled.to_array_layout().buffer_len() + skip];
        let mut dst = TensorViewMut::new(tiled, &mut buf[skip..]).unwrap();
        src.relayout_into(&mut dst).unwrap();
        let a = tiled.to_array_layout();
        let mut written = vec![false; a.buffer_len()];
        for i in 0..m {
            for j in 0..n {
                let off = a.offset(&[i, j]);
                assert_eq!(
                    dst.as_slice()[off],
                    value(i, j),
                    "pack [{i}, {j}], skip {skip}"
                );
                written[off] = true;
            }
        }
        for (off, w) in written.iter().enumerate() {
            if !w {
                assert_eq!(dst.as_slice()[off], SENTINEL, "padding slot {off} written");
            }
        }
        // And back, into a row-major buffer starting `skip` elements in.
        let mut back_buf = vec![SENTINEL; m * n + skip];
        let mut back = TensorViewMut::new(rows, &mut back_buf[skip..]).unwrap();
        dst.relayout_into(&mut back).unwrap();
        assert!(back.as_slice() == src.as_slice(), "unpack, skip {skip}");
    }
}

/// The same for `bf16` row pairs (`T(8,128)(2,1)`, an interleave with
/// streaming stores above 8 MiB) and back (a deinterleave, also
/// streaming), with partial tiles in both dims, at element offsets that
/// put the blocks on and off 16-byte alignment.
#[test]
fn large_interleaves_stream_exactly() {
    use half::bf16;
    let (m, n) = (4099, 1030);
    let rows = PreparedLayout::parse(&format!("bf16[{m},{n}]{{1,0}}")).unwrap();
    let tiled = PreparedLayout::parse(&format!("bf16[{m},{n}]{{1,0:T(8,128)(2,1)}}")).unwrap();
    let value = |i: usize, j: usize| bf16::from_bits(((i * 7 + j * 13) % 65_000) as u16);
    let src = TensorBuf::from_fn(rows, |ix| value(ix[0], ix[1])).unwrap();
    let a = tiled.to_array_layout();
    assert!(a.buffer_len() * 2 >= 8 << 20);
    let sentinel = bf16::from_bits(0xffff);
    for skip in [0, 1, 8] {
        let mut buf = vec![sentinel; a.buffer_len() + skip];
        let mut dst = TensorViewMut::new(tiled, &mut buf[skip..]).unwrap();
        src.relayout_into(&mut dst).unwrap();
        let mut written = vec![false; a.buffer_len()];
        for i in 0..m {
            for j in 0..n {
                let off = a.offset(&[i, j]);
                assert_eq!(
                    dst.as_slice()[off].to_bits(),
                    value(i, j).to_bits(),
                    "pack [{i}, {j}], skip {skip}"
                );
                written[off] = true;
            }
        }
        for (off, w) in written.iter().enumerate() {
            if !w {
                assert_eq!(
                    dst.as_slice()[off].to_bits(),
                    0xffff,
                    "padding slot {off} written"
                );
            }
        }
        // And back (a deinterleave, streaming too), into a row-major
        // buffer starting `skip` elements in: rows of 1030 `bf16` start
        // on a 16-byte boundary one time in four.
        let mut back_buf = vec![sentinel; m * n + skip];
        let mut back = TensorViewMut::new(rows, &mut back_buf[skip..]).unwrap();
        dst.relayout_into(&mut back).unwrap();
        let bits = |s: &[bf16]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert!(
            bits(back.as_slice()) == bits(src.as_slice()),
            "unpack, skip {skip}"
        );
        assert!(bits(&back_buf[..skip]).iter().all(|&b| b == 0xffff));
    }
}

/// Unpacks of 8 MiB or more out of `s8` `T(8,128)(4,1)`, `u8`
/// `T(32,128)(4,1)` and `bf16` `T(8,128)(2,1)` into rows a whole number
/// of tiles wide, with a partial last band: each plane of rows is one
/// span of the destination, and where rows share cache lines (every start
/// but the one on a line) the streamed deinterleave of blocks of four
/// rows (`s8`, `u8`) goes through a stage a few planes at a time, that of
/// two (`bf16`) streams in place. Every element lands in place and
/// nothing before or after the rows is written.
#[test]
fn large_unpacks_into_whole_rows_stream_exactly() {
    fn check<T: tessera::Element + PartialEq + core::fmt::Debug>(
        dims: [usize; 2],
        ty: &str,
        tiling: &str,
        value: impl Fn(usize) -> T,
        sentinel: T,
    ) {
        let [m, n] = dims;
        let rows = PreparedLayout::parse(&format!("{ty}[{m},{n}]{{1,0}}")).unwrap();
        let tiled = PreparedLayout::parse(&format!("{ty}[{m},{n}]{{1,0:{tiling}}}")).unwrap();
        assert!(m * n * size_of::<T>() >= 8 << 20);
        let src = TensorBuf::from_fn(rows, |ix| value(ix[0] * n + ix[1])).unwrap();
        let mut packed = TensorBuf::<_, T>::zeroed(tiled).unwrap();
        src.relayout_into(&mut packed).unwrap();
        let line = 64 / size_of::<T>();
        for skip in [0, 1, line / 4, line + 3] {
            let mut buf = vec![sentinel; m * n + skip + 5];
            let mut back = TensorViewMut::new(rows, &mut buf[skip..skip + m * n]).unwrap();
            packed.relayout_into(&mut back).unwrap();
            let wrong = back
                .as_slice()
                .iter()
                .zip(src.as_slice())
                .position(|(a, b)| a != b);
            assert_eq!(wrong, None, "{ty} unpack, skip {skip}: first wrong element");
            assert!(
                buf[..skip].iter().all(|v| *v == sentinel),
                "before, skip {skip}"
            );
            assert!(
                buf[skip + m * n..].iter().all(|v| *v == sentinel),
                "after, skip {skip}"
            );
        }
    }
    check(
        [8197, 1024],
        "s8",
        "T(8,128)(4,1)",
        |i| (i % 251) as i8,
        i8::MIN,
    );
    check(
        [2147, 3968],
        "u8",
        "T(32,128)(4,1)",
        |i| (i % 253) as u8,
        u8::MAX,
    );
    check(
        [4099, 1024],
        "bf16",
        "T(8,128)(2,1)",
        // Finite values (no NaN, which compares unequal to itself), all
        // unlike the sentinel, -1.
        |i| half::bf16::from_bits((i % 0x3f80) as u16),
        half::bf16::from_bits(0xbf80),
    );
}

/// Transposes between two sub-tiled layouts past the streaming threshold
/// (`RelayoutKernel::SquareTranspose`: `bf16`'s squares of 8 bytes
/// through AVX2's tiles where the CPU has it, `s8`'s of 16 one by one),
/// both ways, into destinations that start a cache line, 16 bytes past
/// one and an element past one (through the stage, whole lines
/// streamed): every element where the destination's layout
/// puts it, padding and the elements around the destination untouched.
/// Shapes no benchmark uses, with partial tiles, and with whole ones
/// whose way back stages several of a volume's outer steps a part.
#[test]
fn large_square_transposes_stream_exactly() {
    fn check<T: tessera::Element + PartialEq + core::fmt::Debug>(
        dims: [usize; 2],
        ty: &str,
        tiling: &str,
        side: usize,
        value: impl Fn(usize) -> T,
        sentinel: T,
    ) {
        let [m, n] = dims;
        let columns = PreparedLayout::parse(&format!("{ty}[{m},{n}]{{0,1:{tiling}}}")).unwrap();
        let rows = PreparedLayout::parse(&format!("{ty}[{m},{n}]{{1,0:{tiling}}}")).unwrap();
        for (from, to) in [(columns, rows), (rows, columns)] {
            let (a, b) = (from.to_array_layout(), to.to_array_layout());
            assert_eq!(
                RelayoutKernel::for_layouts(&a, &b),
                Ok(RelayoutKernel::SquareTranspose { side })
            );
            assert!(b.buffer_len() * size_of::<T>() >= 8 << 20);
            let src = TensorBuf::from_fn(from, |ix| value(ix[0] * n + ix[1])).unwrap();
            let (line, len) = (64 / size_of::<T>(), b.buffer_len());
            let mut expected = vec![sentinel; len];
            for i in 0..m {
                for j in 0..n {
                    expected[b.offset(&[i, j])] = value(i * n + j);
                }
            }
            for past in [0, 16 / size_of::<T>(), 1] {
                let mut buf = vec![sentinel; line + past + len];
                let at = (64 - buf.as_ptr().addr() % 64) % 64 / size_of::<T>() + past;
                let mut dst = TensorViewMut::new(to, &mut buf[at..at + len]).unwrap();
                src.relayout_into(&mut dst).unwrap();
                let wrong = buf[at..at + len]
                    .iter()
                    .zip(&expected)
                    .position(|(a, b)| a != b);
                let case = format!("{ty} {a} -> {b}, {past} elements past a line");
                assert_eq!(wrong, None, "{case}: first wrong slot");
                assert!(buf[..at].iter().all(|v| *v == sentinel), "{case}: before");
                assert!(
                    buf[at + len..].iter().all(|v| *v == sentinel),
                    "{case}: after"
                );
            }
        }
    }
    check(
        [2054, 2050],
        "bf16",
        "T(8,128)(2,1)",
        2,
        |i| half::bf16::from_bits((i % 0x3f80) as u16),
        half::bf16::from_bits(0xbf80),
    );
    // Whole tiles, 33 bands of them (a volume of 66 KiB, past
    // `CACHED_VOLUME_BYTES`): the way back's staged parts of several
    // outer steps, each line of the source read whole across them.
    check(
        [4224, 1152],
        "bf16",
        "T(8,128)(2,1)",
        2,
        |i| half::bf16::from_bits((i % 0x3f80) as u16),
        half::bf16::from_bits(0xbf80),
    );
    check(
        [4100, 2060],
        "s8",
        "T(8,128)(4,1)",
        4,
        |i| (i % 251) as i8,
        i8::MIN,
    );
}
