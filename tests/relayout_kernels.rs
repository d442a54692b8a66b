//! The relayout planner's kernels: which kernel each pair of layouts gets
//! (chosen from the loop nest's strides, so pairs the benchmarks never
//! use get them too), and every kernel checked against the engine's
//! element-by-element offsets on thousands of generated layout pairs of
//! 1-, 2-, 4-, 8- and 16-byte elements, into destinations that start off
//! any alignment, and past the streaming threshold.

use num_complex::Complex;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::RelayoutKernel;
use tessera::walk::LoopNest;
use tessera::{
    ArrayLayout, Element, PreparedLayout, PrimitiveType, Slot, TensorBuf, TensorView, TensorViewMut,
};
use test_support::{PairBits, SpecGen, sub_tile_pair};

fn kernel(src: &str, dst: &str) -> RelayoutKernel {
    let src: ArrayLayout = src.parse().unwrap();
    let dst: ArrayLayout = dst.parse().unwrap();
    RelayoutKernel::for_layouts(&src, &dst).unwrap()
}

/// XLA's TPU layouts and the transposes between them, and the same
/// structures at shapes, element types and tilings no benchmark uses.
#[test]
fn each_pair_gets_the_kernel_of_its_structure() {
    use RelayoutKernel::*;
    let cases = [
        // Packs and unpacks of whole tiles: runs contiguous in both.
        (
            "f32[4096,1024]{1,0}",
            "f32[4096,1024]{1,0:T(8,128)}",
            ContiguousRuns,
        ),
        (
            "f32[4096,1024]{1,0:T(4,128)}",
            "f32[4096,1024]{1,0}",
            ContiguousRuns,
        ),
        (
            "f32[33,70]{1,0}",
            "f32[33,70]{1,0:T(2,128)}",
            ContiguousRuns,
        ),
        // A pack into tiles 4 elements wide is a transpose of runs of 4
        // (`x / 4` follows the runs in the source, `y` in the
        // destination), through the stage where rows of 7 put them at
        // any offset.
        (
            "s16[5,6,7]{2,1,0}",
            "s16[5,6,7]{2,1,0:T(3,4)}",
            StagedUnitTranspose { unit: 4 },
        ),
        (
            "s16[5,6,8]{2,1,0}",
            "s16[5,6,8]{2,1,0:T(3,4)}",
            UnitTranspose { unit: 4 },
        ),
        // A permutation of major dims keeps the runs.
        (
            "f32[64,64,1024]{2,1,0}",
            "f32[64,64,1024]{2,0,1}",
            ContiguousRuns,
        ),
        ("u8[3,5,9]{2,1,0}", "u8[3,5,9]{2,0,1}", ContiguousRuns),
        // Sub-tiles interleave rows: (2,1) and (4,1).
        (
            "bf16[64,256]{1,0}",
            "bf16[64,256]{1,0:T(8,128)(2,1)}",
            Interleave { factor: 2 },
        ),
        (
            "f32[10,12]{1,0}",
            "f32[10,12]{1,0:T(4,4)(2,1)}",
            Interleave { factor: 2 },
        ),
        (
            "s8[64,256]{1,0}",
            "s8[64,256]{1,0:T(8,128)(4,1)}",
            Interleave { factor: 4 },
        ),
        (
            "u8[64,256]{1,0}",
            "u8[64,256]{1,0:T(32,128)(4,1)}",
            Interleave { factor: 4 },
        ),
        (
            "bf16[64,256]{1,0:T(8,128)(2,1)}",
            "bf16[64,256]{1,0}",
            Deinterleave { factor: 2 },
        ),
        (
            "u16[16,384]{1,0:T(4,128)(2,1)}",
            "u16[16,384]{1,0}",
            Deinterleave { factor: 2 },
        ),
        // The (4,1) unpacks: four rows split out of each group, and the
        // same structures for 1-, 2- and 4-byte elements, factors 2 and
        // 4, partial tiles and a major dim.
        (
            "s8[64,256]{1,0:T(8,128)(4,1)}",
            "s8[64,256]{1,0}",
            Deinterleave { factor: 4 },
        ),
        (
            "u8[64,256]{1,0:T(32,128)(4,1)}",
            "u8[64,256]{1,0}",
            Deinterleave { factor: 4 },
        ),
        (
            "pred[4096,4096]{1,0}",
            "pred[4096,4096]{1,0:T(32,128)(4,1)}",
            Interleave { factor: 4 },
        ),
        (
            "pred[4096,4096]{1,0:T(32,128)(4,1)}",
            "pred[4096,4096]{1,0}",
            Deinterleave { factor: 4 },
        ),
        (
            "u8[37,301]{1,0}",
            "u8[37,301]{1,0:T(8,64)(2,1)}",
            Interleave { factor: 2 },
        ),
        (
            "s8[37,301]{1,0:T(8,64)(2,1)}",
            "s8[37,301]{1,0}",
            Deinterleave { factor: 2 },
        ),
        (
            "bf16[3,20,72]{2,1,0}",
            "bf16[3,20,72]{2,1,0:T(12,32)(4,1)}",
            Interleave { factor: 4 },
        ),
        (
            "bf16[3,20,72]{2,1,0:T(12,32)(4,1)}",
            "bf16[3,20,72]{2,1,0}",
            Deinterleave { factor: 4 },
        ),
        (
            "f32[30,50]{1,0:T(8,16)(4,1)}",
            "f32[30,50]{1,0}",
            Deinterleave { factor: 4 },
        ),
        // Transposes of the two most minor physical dims, with or without
        // tiling on either side, and the (4,1) unpack (a transpose of
        // 4-row groups).
        ("f32[2048,2048]{1,0}", "f32[2048,2048]{0,1}", Transpose),
        (
            "f32[2048,2048]{1,0}",
            "f32[2048,2048]{0,1:T(8,128)}",
            Transpose,
        ),
        (
            "f32[2048,2048]{0,1:T(8,128)}",
            "f32[2048,2048]{1,0}",
            Transpose,
        ),
        (
            "f32[300,300]{0,1:T(8,128)}",
            "f32[300,300]{1,0:T(8,128)}",
            Transpose,
        ),
        ("f64[5,7,9]{2,1,0}", "f64[5,7,9]{1,2,0}", Transpose),
        ("u8[31,17]{0,1}", "u8[31,17]{1,0:T(4,8)}", Transpose),
        // Transposes into and out of sub-tiles: of pairs and quads of
        // the rows that the sub-tiles interleave.
        (
            "bf16[2048,2048]{1,0}",
            "bf16[2048,2048]{0,1:T(8,128)(2,1)}",
            UnitTranspose { unit: 2 },
        ),
        (
            "bf16[2048,2048]{0,1:T(8,128)(2,1)}",
            "bf16[2048,2048]{1,0}",
            UnitTranspose { unit: 2 },
        ),
        (
            "s8[300,1024]{1,0}",
            "s8[300,1024]{0,1:T(8,128)(4,1)}",
            UnitTranspose { unit: 4 },
        ),
        (
            "u8[64,96]{0,1:T(32,128)(4,1)}",
            "u8[64,96]{1,0}",
            UnitTranspose { unit: 4 },
        ),
        // Rows of an odd number of elements: pairs at odd offsets in
        // every other row, through the stage, into and out of sub-tiles.
        (
            "bf16[64,257]{1,0}",
            "bf16[64,257]{0,1:T(8,128)(2,1)}",
            StagedUnitTranspose { unit: 2 },
        ),
        (
            "s8[37,1023]{0,1:T(8,128)(4,1)}",
            "s8[37,1023]{1,0}",
            StagedUnitTranspose { unit: 4 },
        ),
        (
            "u8[99,130]{1,0}",
            "u8[99,130]{0,1:T(32,128)(4,1)}",
            StagedUnitTranspose { unit: 4 },
        ),
        // Between two layouts of `(k,1)` sub-tiles, transposed: squares
        // of `k × k` contiguous in both, a transpose of squares.
        (
            "bf16[32,256]{0,1:T(8,128)(2,1)}",
            "bf16[32,256]{1,0:T(8,128)(2,1)}",
            SquareTranspose { side: 2 },
        ),
        (
            "s8[64,256]{1,0:T(8,128)(4,1)}",
            "s8[64,256]{0,1:T(8,128)(4,1)}",
            SquareTranspose { side: 4 },
        ),
        (
            "f32[4,6,8]{1,2,0:T(4,4)(2,1)}",
            "f32[4,6,8]{2,1,0:T(4,4)(2,1)}",
            SquareTranspose { side: 2 },
        ),
        // A partial tile cuts the squares: not these.
        (
            "bf16[31,256]{0,1:T(8,128)(2,1)}",
            "bf16[31,256]{1,0:T(8,128)(2,1)}",
            Interleave { factor: 2 },
        ),
        // Cuts that do not divide each other: no nest.
        (
            "f32[6,6]{1,0:T(3,3)}",
            "f32[6,6]{1,0:T(2,2)}",
            ElementByElement,
        ),
        // But 1-D tiles are plain strides (a tile's elements follow the
        // last tile's): one run.
        ("f32[13]{0:T(3)}", "f32[13]{0:T(2)}", ContiguousRuns),
    ];
    for (src, dst, expected) in cases {
        assert_eq!(kernel(src, dst), expected, "{src} -> {dst}");
    }
}

/// A distinct value per logical index, as an element of `T`.
trait FromIndex: Element + PartialEq + core::fmt::Debug {
    fn from_index(index: &[usize]) -> Self;
}

fn code(index: &[usize]) -> u64 {
    index.iter().fold(7, |acc, &i| {
        acc.wrapping_mul(131).wrapping_add(i as u64 + 1)
    })
}

macro_rules! from_index {
    ($($t:ty => $f:expr;)*) => {$(
        impl FromIndex for $t {
            fn from_index(index: &[usize]) -> Self {
                let f: fn(u64) -> $t = $f;
                f(code(index))
            }
        }
    )*};
}

from_index! {
    u8 => |c| c as u8;
    u16 => |c| c as u16;
    f32 => |c| (c % 1_000_003) as f32;
    f64 => |c| c as f64;
    bool => |c| c % 3 == 0;
    Complex<f64> => |c| Complex::new(c as f64, -(c as f64));
}

/// Relayouts `src` into a destination of layout `dst` placed `shift`
/// elements into a buffer filled with `sentinel`: every element lands
/// where the destination's engine puts it, padding slots and the slack
/// around the buffer keep the sentinel, and back again is the identity.
fn check_pair<T: FromIndex>(src: ArrayLayout, dst: ArrayLayout, shift: usize, sentinel: T) {
    check_shifted_pair([src, dst], [0, shift], sentinel);
}

/// [`check_pair`] from a source that starts `shifts[0]` elements into its
/// buffer, into a destination `shifts[1]` elements into its own.
fn check_shifted_pair<T: FromIndex>(
    [src, dst]: [ArrayLayout; 2],
    [from_shift, shift]: [usize; 2],
    sentinel: T,
) {
    let what = format!("{src} at +{from_shift} -> {dst} at +{shift}");
    let from = TensorBuf::from_fn(PreparedLayout::new(src), T::from_index).unwrap();
    let mut from_slots = vec![sentinel; src.buffer_len() + from_shift];
    from_slots[from_shift..].copy_from_slice(from.as_slice());
    let from = TensorView::new(PreparedLayout::new(src), &from_slots[from_shift..]).unwrap();
    let mut slots = vec![sentinel; dst.buffer_len() + shift + 3];
    let out = &mut slots[shift..shift + dst.buffer_len()];
    let mut to = TensorViewMut::new(PreparedLayout::new(dst), out).unwrap();
    from.relayout_into(&mut to).unwrap();
    assert!(
        slots[..shift].iter().all(|v| *v == sentinel),
        "{what}: before"
    );
    assert!(
        slots[shift + dst.buffer_len()..]
            .iter()
            .all(|v| *v == sentinel),
        "{what}: after"
    );
    let out = &slots[shift..shift + dst.buffer_len()];
    let mut slot = dst.slots();
    for (o, v) in out.iter().enumerate() {
        match slot.next().unwrap() {
            Slot::Element(i) => assert_eq!(*v, T::from_index(&i), "{what}: slot {o}"),
            Slot::Padding => assert_eq!(*v, sentinel, "{what}: padding slot {o}"),
        }
    }
    let there = TensorView::new(PreparedLayout::new(dst), out).unwrap();
    let back = there.relayout(PreparedLayout::new(src)).unwrap();
    assert!(back.as_slice() == from.as_slice(), "{what}: back");
}

/// Layouts of `ty` with dims up to 40 (vector blocks, cache tiles and
/// their partial edges), rank 1..=3, any `minor_to_major`, up to two tile
/// levels with entries up to 9 (the last up to 16 half the time: `(2,1)`,
/// `(4,1)` and wide minor tiles), `pad(..)` and `L(n)`.
fn layouts(ty: PrimitiveType) -> SpecGen {
    SpecGen {
        rank: 1..=3,
        max_dim: 40,
        zero_dim_one_in: 0,
        max_tile_levels: 2,
        max_tile_size: 9,
        combined_one_in: 0,
        wide_last_tile: Some(16),
        ..SpecGen::new(vec![ty])
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 500,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Whole tiles of groups that the vectors do not take (four 8-byte
/// elements, 32 bytes): bands of alike volumes through the transpose
/// kernel, packed and unpacked, at the buffers' starts and an element in.
#[test]
fn whole_bands_of_wide_groups_match_the_engine() {
    for (dims, m2m) in [("32,256", "1,0"), ("4,16,256", "2,1,0")] {
        let plain: ArrayLayout = format!("f64[{dims}]{{{m2m}}}").parse().unwrap();
        let tiled: ArrayLayout = format!("f64[{dims}]{{{m2m}:T(8,128)(4,1)}}")
            .parse()
            .unwrap();
        assert_eq!(
            RelayoutKernel::for_layouts(&plain, &tiled).unwrap(),
            RelayoutKernel::Interleave { factor: 4 }
        );
        for shifts in [[0, 0], [1, 1]] {
            check_shifted_pair([plain, tiled], shifts, -7.5f64);
            check_shifted_pair([tiled, plain], shifts, -7.5f64);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn u8_relayouts_match_the_engine(
        (a, b) in layouts(PrimitiveType::U8).pair(PairBits::Same),
        shift in 0usize..16,
    ) {
        check_pair::<u8>(a.layout(), b.layout(), shift, 0xA5);
    }

    #[test]
    fn u16_relayouts_match_the_engine(
        (a, b) in layouts(PrimitiveType::U16).pair(PairBits::Same),
        shift in 0usize..8,
    ) {
        check_pair::<u16>(a.layout(), b.layout(), shift, 0xA5A5);
    }

    #[test]
    fn f32_relayouts_match_the_engine(
        (a, b) in layouts(PrimitiveType::F32).pair(PairBits::Same),
        shift in 0usize..4,
    ) {
        check_pair::<f32>(a.layout(), b.layout(), shift, -7.5);
    }

    #[test]
    fn f64_relayouts_match_the_engine(
        (a, b) in layouts(PrimitiveType::F64).pair(PairBits::Same),
        shift in 0usize..2,
    ) {
        check_pair::<f64>(a.layout(), b.layout(), shift, -7.5);
    }

    /// Sub-word interleaves ([`sub_tile_pair`]): packs into and unpacks
    /// from `T(f k, c)(f, 1)` for factors 2 and 4, of 1-, 2- and 4-byte
    /// elements, from and into buffers at any element offset.
    #[test]
    fn u8_sub_tile_relayouts_match_the_engine(
        (a, b) in sub_tile_pair(vec![PrimitiveType::U8], 80),
        shifts in [0usize..16, 0usize..16],
    ) {
        check_shifted_pair([a.layout(), b.layout()], shifts, 0xA5u8);
    }

    #[test]
    fn u16_sub_tile_relayouts_match_the_engine(
        (a, b) in sub_tile_pair(vec![PrimitiveType::U16], 80),
        shifts in [0usize..8, 0usize..8],
    ) {
        check_shifted_pair([a.layout(), b.layout()], shifts, 0xA5A5u16);
    }

    #[test]
    fn f32_sub_tile_relayouts_match_the_engine(
        (a, b) in sub_tile_pair(vec![PrimitiveType::F32], 60),
        shifts in [0usize..4, 0usize..4],
    ) {
        check_shifted_pair([a.layout(), b.layout()], shifts, -7.5f32);
    }

    /// 8-byte elements: pairs take the vector interleave, groups of four
    /// the transpose kernel (no vector group of 32 bytes).
    #[test]
    fn f64_sub_tile_relayouts_match_the_engine(
        (a, b) in sub_tile_pair(vec![PrimitiveType::F64], 40),
        shifts in [0usize..2, 0usize..2],
    ) {
        check_shifted_pair([a.layout(), b.layout()], shifts, -7.5f64);
    }

    #[test]
    fn c128_relayouts_match_the_engine(
        (a, b) in layouts(PrimitiveType::C128).pair(PairBits::Same),
    ) {
        check_pair::<Complex<f64>>(a.layout(), b.layout(), 0, Complex::new(-7.5, 0.5));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..config() })]

    /// A relayout between run-time layouts builds its nest from the terms
    /// each `PreparedLayout` keeps (`LoopNest::relayout_between`), and
    /// the engine's `LoopNest::relayout` from the layouts' physical dims:
    /// the same copy (the same pairs of offsets, in the same order) or
    /// the same error, for every pair (empty arrays, `*` tiles, strided
    /// layouts whose terms are one per dimension). A strided layout's
    /// terms may give a nest where the physical dims give none (a `*`
    /// whose merge keeps offsets linear), never the reverse.
    #[test]
    fn prepared_layouts_plan_the_copy_the_engine_plans(
        (a, b) in SpecGen::new(vec![PrimitiveType::F32, PrimitiveType::S8]).pair(PairBits::Same),
    ) {
        let (a, b) = (a.layout(), b.layout());
        let (pa, pb) = (PreparedLayout::new(a), PreparedLayout::new(b));
        let pairs = |n: &LoopNest| {
            let mut v = Vec::new();
            let [ss, ds] = n.inner_strides();
            n.for_each_run(|[s, d], len| v.extend((0..len).map(|i| (s + i * ss, d + i * ds))));
            v
        };
        match (LoopNest::relayout_between(&pa, &pb), LoopNest::relayout(&a, &b)) {
            (Ok(Some(p)), Ok(Some(e))) => prop_assert_eq!(pairs(&p), pairs(&e), "{} -> {}", a, b),
            (Ok(Some(p)), Ok(None)) => {
                // Every element once, wherever the engine puts it.
                let mut expected: Vec<_> = b.elements().map(|(i, d)| (a.offset(&i), d)).collect();
                let mut found = pairs(&p);
                expected.sort_unstable();
                found.sort_unstable();
                prop_assert_eq!(found, expected, "{} -> {}", a, b);
            }
            (p, e) => prop_assert_eq!(p, e, "{} -> {}", a, b),
        }
    }
}

/// A transpose of the two most minor dims, `ty[y,x]` (or `ty[z,y,x]`,
/// `z` most major on both sides) from one `minor_to_major` to the other,
/// with a tiling or none on either side, dims up to 300: past the
/// transpose kernel's cache tiles (up to 128 rows by a cache line of runs)
/// and their partial edges, where the layouts of [`layouts`] (dims up to
/// 40) do not reach.
fn transpose_pair(ty: &'static str) -> impl Strategy<Value = (ArrayLayout, ArrayLayout)> {
    let tiling = prop_oneof![
        Just(String::new()),
        (
            prop::sample::select(vec![1usize, 2, 3, 4, 8, 16, 32]),
            prop::sample::select(vec![1usize, 5, 16, 64, 128, 130]),
        )
            .prop_map(|(a, b)| format!(":T({a},{b})")),
        // Sub-tiles of pairs and quads of rows (a unit transpose when the
        // rows they pair are a whole number of units).
        (
            prop::sample::select(vec![4usize, 8, 32]),
            prop::sample::select(vec![16usize, 128]),
            prop::sample::select(vec![2usize, 4]),
        )
            .prop_map(|(a, b, k)| format!(":T({a},{b})({k},1)")),
    ];
    (
        1usize..=3,
        1usize..300,
        1usize..300,
        any::<bool>(),
        tiling.clone(),
        tiling,
    )
        .prop_map(move |(z, y, x, flip, ta, tb)| {
            let (a, b) = match flip {
                false => ("1,0", "0,1"),
                true => ("0,1", "1,0"),
            };
            let (dims, [a, b]) = match z {
                1 => (format!("{y},{x}"), [a, b].map(String::from)),
                _ => (format!("{z},{y},{x}"), [a, b].map(|m| format!("{m},2"))),
            };
            let layout = |m: &str, t: &str| -> ArrayLayout {
                format!("{ty}[{dims}]{{{m}{t}}}").parse().unwrap()
            };
            (layout(&a, &ta), layout(&b, &tb))
        })
}

fn transpose_config() -> ProptestConfig {
    ProptestConfig {
        cases: 150,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(transpose_config())]

    #[test]
    fn u8_transposes_match_the_engine((a, b) in transpose_pair("u8"), shift in 0usize..64) {
        check_pair::<u8>(a, b, shift, 0xA5);
    }

    #[test]
    fn u16_transposes_match_the_engine((a, b) in transpose_pair("u16"), shift in 0usize..32) {
        check_pair::<u16>(a, b, shift, 0xA5A5);
    }

    #[test]
    fn f32_transposes_match_the_engine((a, b) in transpose_pair("f32"), shift in 0usize..16) {
        check_pair::<f32>(a, b, shift, -7.5);
    }

    #[test]
    fn f64_transposes_match_the_engine((a, b) in transpose_pair("f64"), shift in 0usize..8) {
        check_pair::<f64>(a, b, shift, -7.5);
    }
}

/// Runs longer than 2 KiB (the rows of a permutation of major dims),
/// whose copy aligns the destination itself rather than calling `memcpy`
/// for the whole run, from and into buffers at every element offset of a
/// 16-byte line, for 1-, 2-, 4- and 8-byte elements.
#[test]
fn long_runs_at_every_offset_match_the_engine() {
    fn check<T: FromIndex>(ty: &str, len: usize, sentinel: T) {
        let src: ArrayLayout = format!("{ty}[3,4,{len}]{{2,1,0}}").parse().unwrap();
        let dst: ArrayLayout = format!("{ty}[3,4,{len}]{{2,0,1}}").parse().unwrap();
        assert_eq!(
            RelayoutKernel::for_layouts(&src, &dst).unwrap(),
            RelayoutKernel::ContiguousRuns
        );
        for shift in 0..16 / core::mem::size_of::<T>() {
            check_shifted_pair([src, dst], [0, shift], sentinel);
            check_shifted_pair([src, dst], [shift, 1], sentinel);
        }
    }
    check::<u8>("u8", 4099, 0xa5);
    check::<u16>("u16", 2051, 0xa5a5);
    check::<f32>("f32", 1027, -7.5);
    check::<f64>("f64", 517, -7.5);
}

/// Transposes, plain and tiled, and the sub-tile packs and unpacks, whose
/// destinations take streaming stores (8 MiB or more), at shapes that are
/// not multiples of any vector or tile, into buffers on and off a 16-byte
/// boundary.
#[test]
fn large_relayouts_of_every_kernel_match_the_engine() {
    let layout = |text: String| -> ArrayLayout { text.parse().unwrap() };
    let f32_pairs = [
        ("{1,0}", "{0,1}"),
        ("{1,0}", "{0,1:T(8,128)}"),
        ("{0,1:T(8,128)}", "{1,0}"),
    ];
    // Every other pair off a 16-byte boundary.
    for (k, (a, b)) in f32_pairs.into_iter().enumerate() {
        let (src, dst) = (
            layout(format!("f32[1031,2053]{a}")),
            layout(format!("f32[1031,2053]{b}")),
        );
        assert_eq!(
            RelayoutKernel::for_layouts(&src, &dst).unwrap(),
            RelayoutKernel::Transpose
        );
        check_pair::<f32>(src, dst, k % 2, -7.5);
    }
    let u8_pairs = [
        ("{1,0}", "{1,0:T(8,128)(4,1)}"),
        ("{1,0:T(8,128)(4,1)}", "{1,0}"),
        ("{1,0}", "{1,0:T(32,128)(4,1)}"),
        ("{1,0:T(32,128)(4,1)}", "{1,0}"),
        ("{1,0}", "{0,1}"),
    ];
    for (k, (a, b)) in u8_pairs.into_iter().enumerate() {
        let (src, dst) = (
            layout(format!("u8[2061,4133]{a}")),
            layout(format!("u8[2061,4133]{b}")),
        );
        check_pair::<u8>(src, dst, 5 * (k % 2), 0xA5);
    }
    // Transposes of units at odd offsets (rows of 2051 pairs and 4133
    // quads), through the stage, streamed.
    let (src, dst) = (
        layout("u16[2053,2051]{1,0}".into()),
        layout("u16[2053,2051]{0,1:T(8,128)(2,1)}".into()),
    );
    assert_eq!(
        RelayoutKernel::for_layouts(&src, &dst).unwrap(),
        RelayoutKernel::StagedUnitTranspose { unit: 2 }
    );
    check_pair::<u16>(src, dst, 3, 0xA5A5);
    let (src, dst) = (
        layout("u8[2061,4133]{0,1:T(8,128)(4,1)}".into()),
        layout("u8[2061,4133]{1,0}".into()),
    );
    assert_eq!(
        RelayoutKernel::for_layouts(&src, &dst).unwrap(),
        RelayoutKernel::StagedUnitTranspose { unit: 4 }
    );
    check_pair::<u8>(src, dst, 1, 0xA5);
    // Transposes of units (pairs of u16, quads of u8) into and out of
    // sub-tiles, streamed.
    let unit_pairs = [
        (
            "u16[2053,2050]{1,0}",
            "u16[2053,2050]{0,1:T(8,128)(2,1)}",
            2,
        ),
        (
            "u16[2053,2050]{0,1:T(8,128)(2,1)}",
            "u16[2053,2050]{1,0}",
            2,
        ),
    ];
    for (k, (a, b, unit)) in unit_pairs.into_iter().enumerate() {
        let (src, dst) = (layout(a.into()), layout(b.into()));
        assert_eq!(
            RelayoutKernel::for_layouts(&src, &dst).unwrap(),
            RelayoutKernel::UnitTranspose { unit }
        );
        check_pair::<u16>(src, dst, k, 0xA5A5);
    }
    for (k, (a, b)) in [
        ("{1,0}", "{0,1:T(8,128)(4,1)}"),
        ("{0,1:T(32,128)(4,1)}", "{1,0}"),
    ]
    .into_iter()
    .enumerate()
    {
        let (src, dst) = (
            layout(format!("u8[2061,4132]{a}")),
            layout(format!("u8[2061,4132]{b}")),
        );
        assert_eq!(
            RelayoutKernel::for_layouts(&src, &dst).unwrap(),
            RelayoutKernel::UnitTranspose { unit: 4 }
        );
        check_pair::<u8>(src, dst, 3 * k, 0xA5);
    }
    // A tiled transpose of 8-byte elements.
    let (src, dst) = (
        layout("f64[1031,1029]{0,1:T(8,128)}".into()),
        layout("f64[1031,1029]{1,0}".into()),
    );
    check_pair::<f64>(src, dst, 1, -7.5);
    // Factor 4 of 2-byte elements and 2 of 1-byte ones, pack and unpack,
    // from sources off a 16-byte boundary.
    let u16_pairs = [
        ("{1,0}", "{1,0:T(8,128)(4,1)}"),
        ("{1,0:T(8,128)(4,1)}", "{1,0}"),
    ];
    for (a, b) in u16_pairs {
        let (src, dst) = (
            layout(format!("u16[2053,2051]{a}")),
            layout(format!("u16[2053,2051]{b}")),
        );
        check_shifted_pair([src, dst], [1, 0], 0xA5A5u16);
    }
    for (a, b) in [
        ("{1,0}", "{1,0:T(8,64)(2,1)}"),
        ("{1,0:T(8,64)(2,1)}", "{1,0}"),
    ] {
        let (src, dst) = (
            layout(format!("u8[2061,4133]{a}")),
            layout(format!("u8[2061,4133]{b}")),
        );
        check_shifted_pair([src, dst], [3, 0], 0xA5u8);
    }
    // `pred` in its TPU layout (1-byte elements, factor 4).
    for (a, b) in [
        ("{1,0}", "{1,0:T(32,128)(4,1)}"),
        ("{1,0:T(32,128)(4,1)}", "{1,0}"),
    ] {
        let (src, dst) = (
            layout(format!("pred[2061,4133]{a}")),
            layout(format!("pred[2061,4133]{b}")),
        );
        check_shifted_pair([src, dst], [7, 1], false);
    }
    // Runs of a page or more, streamed, read in the source's order
    // (`copy::in_source_order`): a permutation of major dims with runs
    // that are not a whole number of lines, and one into tiles whose
    // runs are rows of a tile (partial tiles at both ends of `y`).
    for (k, (a, b)) in [
        ("f32[37,61,1031]{2,1,0}", "f32[37,61,1031]{2,0,1}"),
        ("f32[61,37,1031]{2,0,1}", "f32[61,37,1031]{2,1,0}"),
        (
            "u8[7,9,2,77,4097]{4,3,2,1,0}",
            "u8[7,9,2,77,4097]{4,1,3,0,2}",
        ),
        (
            "f32[19,3,47,1100]{3,2,1,0}",
            "f32[19,3,47,1100]{3,1,0,2:T(2,1100)}",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let (src, dst) = (layout(a.into()), layout(b.into()));
        assert_eq!(
            RelayoutKernel::for_layouts(&src, &dst).unwrap(),
            RelayoutKernel::ContiguousRuns,
            "{a} -> {b}"
        );
        if a.starts_with("u8") {
            check_pair::<u8>(src, dst, k, 0xA5);
        } else {
            check_pair::<f32>(src, dst, k % 2, -7.5);
        }
    }
}

/// A source-contiguous level that another level of its dimension follows
/// (`x / 4` of `T(4)(2,1)`, before `x % 4`) is not moved: the walk counts
/// a dimension's digits most significant first.
#[test]
fn a_transpose_keeps_each_dimension_s_digits_in_order() {
    let src: ArrayLayout = "f32[2,5]{1,0:T(4)(2,1)}".parse().unwrap();
    let dst: ArrayLayout = "f32[2,5]{0,1}".parse().unwrap();
    assert_eq!(
        RelayoutKernel::for_layouts(&src, &dst).unwrap(),
        RelayoutKernel::Strided
    );
    check_pair::<f32>(src, dst, 0, -7.5);
    check_pair::<f32>(dst, src, 1, -7.5);
}

/// Transposes between two layouts of `(k,1)` sub-tiles
/// ([`RelayoutKernel::SquareTranspose`]): `k × k` squares, each moved
/// and transposed. Sides 2 and 4, 1-, 2-, 4- and 8-byte
/// elements (units of 4 to 64 bytes), rank 2 and 3, tiles the benchmarks
/// do not use, destinations at the start of a buffer and off any
/// alignment, past the streaming threshold (where aligned stores stream),
/// both ways; and shapes whose partial tiles cut the squares, which take
/// another kernel, checked the same.
#[test]
fn transposes_between_sub_tiles_match_the_engine() {
    let layout = |text: &str| -> ArrayLayout { text.parse().unwrap() };
    let pairs = [
        (
            "u16[32,256]",
            "{0,1:T(8,128)(2,1)}",
            "{1,0:T(8,128)(2,1)}",
            2,
        ),
        (
            "u8[64,256]",
            "{0,1:T(8,128)(4,1)}",
            "{1,0:T(8,128)(4,1)}",
            4,
        ),
        (
            "u8[64,256]",
            "{0,1:T(32,128)(4,1)}",
            "{1,0:T(32,128)(4,1)}",
            4,
        ),
        ("u8[24,40]", "{0,1:T(8,8)(2,1)}", "{1,0:T(8,8)(2,1)}", 2),
        (
            "f32[4,6,8]",
            "{1,2,0:T(4,4)(2,1)}",
            "{2,1,0:T(4,4)(2,1)}",
            2,
        ),
        ("f64[12,20]", "{0,1:T(4,4)(2,1)}", "{1,0:T(4,4)(2,1)}", 2),
        (
            "u16[3,16,64]",
            "{1,2,0:T(4,16)(2,1)}",
            "{2,1,0:T(4,16)(2,1)}",
            2,
        ),
        ("u8[16,48]", "{0,1:T(8,16)(4,1)}", "{1,0:T(8,16)(4,1)}", 4),
        // Squares of 32 and 64 bytes.
        ("u16[16,48]", "{0,1:T(8,16)(4,1)}", "{1,0:T(8,16)(4,1)}", 4),
        ("f32[24,8]", "{0,1:T(4,8)(4,1)}", "{1,0:T(4,8)(4,1)}", 4),
        // 8 MiB: streamed.
        (
            "u16[2048,2048]",
            "{0,1:T(8,128)(2,1)}",
            "{1,0:T(8,128)(2,1)}",
            2,
        ),
        // Streamed, 16-byte squares, partial tiles in both buffers.
        (
            "u8[2052,4100]",
            "{0,1:T(8,128)(4,1)}",
            "{1,0:T(8,128)(4,1)}",
            4,
        ),
        // One column of tiles: the nest in squares a transpose as it
        // comes (AVX2's tiles where the CPU has them).
        (
            "u16[1024,128]",
            "{0,1:T(8,128)(2,1)}",
            "{1,0:T(8,128)(2,1)}",
            2,
        ),
        // Volumes of a whole column of tiles one way (past 64 KiB: the
        // level outside them moved in), 8 MiB, partial tiles.
        (
            "u8[32772,256]",
            "{0,1:T(8,128)(4,1)}",
            "{1,0:T(8,128)(4,1)}",
            4,
        ),
        (
            "u16[16388,256]",
            "{0,1:T(8,128)(2,1)}",
            "{1,0:T(8,128)(2,1)}",
            2,
        ),
    ];
    for (k, (shape, a, b, side)) in pairs.into_iter().enumerate() {
        let (src, dst) = (
            layout(&format!("{shape}{a}")),
            layout(&format!("{shape}{b}")),
        );
        for (from, to) in [(src, dst), (dst, src)] {
            assert_eq!(
                RelayoutKernel::for_layouts(&from, &to).unwrap(),
                RelayoutKernel::SquareTranspose { side },
                "{from} -> {to}"
            );
            let mut shifts = vec![0];
            if k % 3 > 0 {
                shifts.push(k % 3);
            }
            for shift in shifts {
                match shape.as_bytes()[0] {
                    b'u' if shape.starts_with("u16") => check_pair::<u16>(from, to, shift, 0xA5A5),
                    b'u' => check_pair::<u8>(from, to, shift, 0xA5),
                    _ if shape.starts_with("f32") => check_pair::<f32>(from, to, shift, -7.5),
                    _ => check_pair::<f64>(from, to, shift, -7.5),
                }
            }
        }
    }
    // Static layouts: the nest in squares built while compiling.
    type Columns = tessera::layout!(u16[32,256]{0,1:T(8,128)(2,1)});
    type Rows = tessera::layout!(u16[32,256]{1,0:T(8,128)(2,1)});
    let from = TensorBuf::from_fn(Columns::new(), u16::from_index).unwrap();
    let mut to = TensorBuf::<_, u16>::zeroed(Rows::new()).unwrap();
    from.relayout_into(&mut to).unwrap();
    let runtime = layout("u16[32,256]{1,0:T(8,128)(2,1)}");
    for (slot, v) in runtime.slots().zip(to.as_slice()) {
        if let Slot::Element(index) = slot {
            assert_eq!(*v, u16::from_index(&index), "static, at {index:?}");
        }
    }
    // Partial tiles cut the squares: another kernel, the same copy.
    for (a, b) in [
        (
            "u16[31,250]{0,1:T(8,128)(2,1)}",
            "u16[31,250]{1,0:T(8,128)(2,1)}",
        ),
        (
            "u8[30,129]{0,1:T(8,128)(4,1)}",
            "u8[30,129]{1,0:T(8,128)(4,1)}",
        ),
    ] {
        let (src, dst) = (layout(a), layout(b));
        assert!(!matches!(
            RelayoutKernel::for_layouts(&src, &dst).unwrap(),
            RelayoutKernel::SquareTranspose { .. }
        ));
        match a.starts_with("u16") {
            true => check_pair::<u16>(src, dst, 1, 0xA5A5),
            false => check_pair::<u8>(src, dst, 1, 0xA5),
        }
    }
}

/// Layouts whose offsets are plain strides though their text tiles them
/// (a tile covering a whole dim, a `(1,4)` sub-tile of one row): the
/// nest of two `ArrayLayout`s (`LoopNest::relayout`, which
/// `RelayoutKernel::for_layouts` and static layouts plan from) is the
/// nest of the same layouts prepared (`LoopNest::relayout_between`,
/// which `relayout_into` between run-time layouts plans from), so
/// `for_layouts` names the kernel either runs. They differed: the first
/// found no nest, element by element, where the second found a
/// transpose.
#[test]
fn array_and_prepared_layouts_plan_the_same_nest() {
    let pairs = [
        (
            "s8[14,30]{1,0:T(12,16)(1,4)}",
            "s8[14,30]{0,1:T(12,16)(1,4)}",
        ),
        ("u8[6,22]{1,0:T(6,8)(2,1)}", "u8[6,22]{0,1:T(6,8)}"),
        (
            "u64[3520,1]{0,1:T(2,110)(2,1)}",
            "u64[3520,1]{1,0:T(64,2)(2,1)}",
        ),
        ("f32[8,128]{1,0:T(8,128)}", "f32[8,128]{0,1}"),
        ("bf16[64,256]{1,0}", "bf16[64,256]{0,1:T(8,128)(2,1)}"),
    ];
    for (a, b) in pairs {
        for (from, to) in [(a, b), (b, a)] {
            let arrays: [ArrayLayout; 2] = [from.parse().unwrap(), to.parse().unwrap()];
            let prepared = [from, to].map(|text| PreparedLayout::parse(text).unwrap());
            let built = LoopNest::relayout(&arrays[0], &arrays[1]).unwrap();
            let kept = LoopNest::relayout_between(&prepared[0], &prepared[1]).unwrap();
            assert_eq!(built, kept, "{from} -> {to}");
            assert!(built.is_some(), "{from} -> {to}: no nest");
        }
    }
}
