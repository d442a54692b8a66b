//! Relayout throughput against `copy_from_slice` of the same bytes, side by
//! side in one run. See BENCHMARKS.md, "Relayout throughput".
//!
//! ```sh
//! cargo bench -p tessera-xla --bench relayout
//! TESSERA_BENCH_SIZES=1,16 cargo bench -p tessera-xla --bench relayout -- f32_
//! ```
//!
//! Groups, per data size (`TESSERA_BENCH_SIZES`, MiB of logical data, any
//! of 1, 16, 256; default all three):
//!
//! - `f32_<S>MiB`: `memcpy` (`copy_from_slice` of the same bytes), `pack`
//!   (`f32[M,1024]{1,0}` → `{1,0:T(8,128)}`), `unpack` (back), both with
//!   static layouts (`layout!`); `pack_runtime` / `unpack_runtime`, the
//!   same with [`PreparedLayout`] and `TensorBuf`; `pack_mixed` /
//!   `unpack_mixed`, the same with `f32[?,1024]` layouts (`MixedLayout`,
//!   the row count at run time) over the static case's buffers;
//!   `pack_unaligned` /
//!   `unpack_unaligned`, static, for `f32[M-3,947]` (neither dim a multiple
//!   of the tile).
//! - `bf16_<S>MiB`: `memcpy`, `pack` (`bf16[M,1024]{1,0}` →
//!   `{1,0:T(8,128)(2,1)}`), `pack_runtime`, `pack_mixed` (`bf16[?,1024]`),
//!   `unpack`.
//! - `call_8KiB` (always): the fixed cost of one call, `f32[8,256]{1,0}` →
//!   `{1,0:T(8,128)}` (two tiles, 16 runs of 512 bytes): `memcpy`, `pack`,
//!   `pack_runtime`, `pack_mixed` (`f32[?,256]`).
//! - `paired_f32_<S>MiB`, `paired_bf16_<S>MiB`: the same relayouts (all
//!   of the `f32` group's, and the `bf16` group's), each timed in turns
//!   with `memcpy` of its logical bytes ([`paired`]). What criterion
//!   reports as the time per iteration is the relayout's time as a
//!   multiple of `memcpy`'s, in milliseconds: `1.14 ms` means 1.14×
//!   memcpy's time, 0.88× its throughput. The machine's memory bandwidth
//!   drifts with other load by up to 2× over seconds, which moves
//!   `memcpy` and a relayout that criterion times seconds apart by
//!   different amounts; timed in turns, both see the same drift. At
//!   1 MiB a copy's two buffers (2 MiB) outgrow the benchmark machine's
//!   L2 cache (1 MiB per core) and come from its L3 (32 MiB), which holds
//!   the relayout's and `memcpy`'s buffers together, so taking turns
//!   evicts nothing either would have found.
//! - `paired_unaligned_f32_<S>MiB`: `pack` and `unpack` of the unaligned
//!   shape (`f32[M-3,947]`), each timed in turns with the same relayout of
//!   the aligned one (`f32[M,1024]`), reported as the unaligned shape's
//!   time per logical byte over the aligned one's, in milliseconds the
//!   same way (`1.12 ms`: 1.12× the aligned shape's time per byte).
//! - `paired_static_<S>MiB`: static layouts against run-time ones, the
//!   same relayout between the same buffers ([`static_entry`]): the `f32`
//!   `T(8,128)` pack and unpack, the plain `f32` transpose
//!   (`f32[M,1024]{1,0}` → `{0,1}`), the transpose into `{0,1:T(8,128)}`,
//!   and the `bf16` `T(8,128)(2,1)` pack, each through `layout!` types in
//!   turns with `PreparedLayout`s of the same layouts, reported as the
//!   static path's time over the run-time one's, in milliseconds the same
//!   way (`0.98 ms`: the static path took 0.98× the run-time one's time).
//!   Only these: `cargo bench -p tessera-xla --bench relayout -- static`.
//! - `paired_matrix_<S>MiB`: the benchmark matrix ([`matrix_group`]):
//!   XLA's TPU tilings × {pack, unpack, transpose+tile}, plain
//!   transposes next to the `transpose` crate's on the same data, and a
//!   permutation of major dims, each with run-time layouts, checked, its
//!   kernel asserted, and timed in turns with `memcpy` like the other
//!   paired groups (`1.14 ms`: 1.14× memcpy's time). Only these:
//!   `cargo bench -p tessera-xla --bench relayout -- matrix`.
//! - `paired_transpose_shapes_1MiB` (with size 1 only): plain
//!   transposes (`{1,0}` → `{0,1}`) of 1 MiB in shapes the matrix does
//!   not use, whose destination rows are 2 or 4 KiB apart (the
//!   matrix's are 1 KiB apart) and so crowd into few sets of the L1
//!   cache, and 1000 bytes apart ([`transpose_shapes`]),
//!   timed in turns with `memcpy` like the matrix. Only these:
//!   `TESSERA_BENCH_SIZES=1 cargo bench -p tessera-xla --bench relayout -- shapes`.
//! - `paired_transpose_shapes_16MiB` (with size 16 only): plain
//!   transposes of 16 MiB, above the streaming threshold, whose source
//!   runs lie 4000 bytes to 64 KiB apart (the matrix's lie 1 KiB
//!   apart), into destination rows from 512 bytes to 4 KiB long
//!   ([`transpose_shapes`]). Only these: `TESSERA_BENCH_SIZES=16 cargo
//!   bench -p tessera-xla --bench relayout -- shapes`.
//! - `paired_partial_tiles_1MiB` (with size 1 only): the matrix's
//!   tilings × {pack, unpack, transpose+tile} on shapes whose tiles are
//!   partial in both dims (`f32[509,515]`, `bf16[721,727]`,
//!   `s8`/`u8[1021,1027]`, [`partial_tiles_1mib`]), timed in turns with
//!   `memcpy` like the matrix. Only these: `TESSERA_BENCH_SIZES=1 cargo
//!   bench -p tessera-xla --bench relayout -- partial_tiles`.
//! - `paired_packed_odd_rows_1MiB` (with size 1 only): packed `s4` and
//!   `u2` rows that start mid-byte, to and from `T(8,128)E(n)` tiles
//!   ([`packed_odd_rows_1mib`]), timed in turns with `memcpy` of the
//!   packed bytes. Only these: `TESSERA_BENCH_SIZES=1 cargo bench -p
//!   tessera-xla --bench relayout -- packed_odd_rows`.
//! - `paired_packed_tiled_transposes_1MiB` (with size 1 only): packed
//!   transposes into and out of `{0,1:T(8,128)E(n)}` tiles, whose 8 rows
//!   a tile go side by side, and of rows that start mid-byte
//!   ([`packed_tiled_transposes_1mib`]), timed in
//!   turns with `memcpy` of the packed bytes. Only these:
//!   `TESSERA_BENCH_SIZES=1 cargo bench -p tessera-xla --bench relayout --
//!   packed_tiled_transposes`.
//! - `naive_1MiB` (with size 1 only): `memcpy`, `pack` (the kernel) and
//!   the per-element loop `dst[[i, j]] = src[[i, j]]` through static
//!   (`naive_pack`) and run-time (`naive_pack_runtime`) layouts.
//!
//! Every selected size's buffers are allocated and checked before its
//! groups run, even when a criterion filter leaves them out: choose sizes
//! with `TESSERA_BENCH_SIZES`, groups with filters.
//!
//! Throughput is logical bytes (elements × element size) per second, so
//! ratios of throughputs in a group are ratios against `memcpy` of the
//! same number of bytes. Output buffers are allocated, filled (so their
//! pages are mapped) and checked before timing; one thread.

// `criterion_group!` generates an undocumented function.
#![allow(missing_docs)]

mod common;

use std::time::Duration;

use common::{in_turns, in_turns_on};

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, black_box, criterion_group, criterion_main,
};
use half::bf16;
use tessera::RelayoutKernel;
use tessera::packed::{S4, U2};
use tessera::{
    AnyLayout, Element, HasRank, PreparedLayout, SameShape, Stores, TensorBase, TensorBuf,
    TensorView, TensorViewMut,
};
use tessera::{PackedBuf, Storage, StorageMut, SubByte};

/// The data sizes to run, from `TESSERA_BENCH_SIZES` (MiB, comma
/// separated).
fn sizes() -> Vec<usize> {
    let text = std::env::var("TESSERA_BENCH_SIZES").unwrap_or_else(|_| "1,16,256".into());
    text.split(',')
        .map(|s| {
            let mib = s
                .trim()
                .parse()
                .expect("TESSERA_BENCH_SIZES: MiB, comma separated");
            assert!(
                matches!(mib, 1 | 16 | 256),
                "TESSERA_BENCH_SIZES: sizes are 1, 16 and 256 (MiB), not {mib}"
            );
            mib
        })
        .collect()
}

/// A group for one size: few samples, flat sampling for the big buffers
/// (one iteration of 256 MiB takes tens of milliseconds).
fn group<'a>(c: &'a mut Criterion, name: &str, mib: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(format!("{name}_{mib}MiB"));
    if mib >= 256 {
        g.sample_size(10).sampling_mode(SamplingMode::Flat);
    } else {
        g.sample_size(20);
    }
    g
}

/// The buffer length and logical bytes of a layout.
fn lens<L: AnyLayout, T>(l: &L) -> (usize, u64) {
    let a = l.to_array_layout();
    let bytes = a.element_count() * size_of::<T>();
    (a.buffer_len(), bytes as u64)
}

/// Source slots: distinct values, padding (if any) included.
fn source<T>(len: usize, value: impl Fn(usize) -> T) -> Vec<T> {
    (0..len).map(value).collect()
}

/// `memcpy` of `bytes` bytes, as `copy_from_slice` between two `T` buffers.
fn memcpy<T: Copy>(g: &mut BenchmarkGroup<'_, WallTime>, bytes: u64, src: &[T], dst: &mut [T]) {
    let n = bytes as usize / size_of::<T>();
    let (src, dst) = (&src[..n], &mut dst[..n]);
    dst.copy_from_slice(src);
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("memcpy", |b| {
        b.iter(|| dst.copy_from_slice(black_box(src)));
    });
}

/// One relayout, `src.relayout_into(dst)`, timed.
fn relayout<S, S2, L, L2>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    src: &TensorBase<S, L>,
    dst: &mut TensorBase<S2, L2>,
) where
    S: Storage,
    S::Elem: Element,
    S2: StorageMut<Elem = S::Elem>,
    L: AnyLayout,
    L2: SameShape<L>,
{
    let bytes = src.to_array_layout().element_count() * size_of::<S::Elem>();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(name, |b| {
        b.iter(|| black_box(src).relayout_into(dst).unwrap());
    });
}

/// A group of paired timings ([`paired`]) for one size.
fn paired_group<'a>(c: &'a mut Criterion, name: &str, mib: usize) -> BenchmarkGroup<'a, WallTime> {
    group(c, &format!("paired_{name}"), mib)
}

/// One relayout timed in turns with `copy_from_slice` from `copy_src` to
/// `copy_dst`, of as many elements as the relayout's logical array (the
/// same bytes; the buffers may be longer): each iteration runs both,
/// in alternating order, and the reported time per iteration is the
/// relayout's total time over `memcpy`'s, in milliseconds (see the module
/// docs).
fn paired<S, S2, L, L2>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    (src, dst): (&TensorBase<S, L>, &mut TensorBase<S2, L2>),
    (copy_src, copy_dst): (&[S::Elem], &mut [S::Elem]),
) where
    S: Storage,
    S::Elem: Element,
    S2: StorageMut<Elem = S::Elem>,
    L: AnyLayout,
    L2: SameShape<L>,
{
    let n = src.to_array_layout().element_count();
    let (copy_src, copy_dst) = (&copy_src[..n], &mut copy_dst[..n]);
    in_turns(
        g,
        name,
        || black_box(src).relayout_into(dst).unwrap(),
        || copy_dst.copy_from_slice(black_box(copy_src)),
        1.0,
    );
}

/// The unaligned relayout (`odd`) timed in turns with the aligned one,
/// reported as its time per logical byte over the aligned one's, in
/// milliseconds ([`in_turns`]): the quantity the "within 1.25× of an
/// aligned shape" target names, measured directly rather than as a ratio
/// of two ratios against `memcpy` taken at different times.
fn paired_unaligned<S, S2, L, L2, So, So2, Lo, Lo2>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    (odd_src, odd_dst): (&TensorBase<So, Lo>, &mut TensorBase<So2, Lo2>),
    (src, dst): (&TensorBase<S, L>, &mut TensorBase<S2, L2>),
) where
    S: Storage,
    S::Elem: Element,
    S2: StorageMut<Elem = S::Elem>,
    L: AnyLayout,
    L2: SameShape<L>,
    So: Storage,
    So::Elem: Element,
    So2: StorageMut<Elem = So::Elem>,
    Lo: AnyLayout,
    Lo2: SameShape<Lo>,
{
    let bytes = |n: usize, size: usize| (n * size) as f64;
    let aligned = bytes(src.to_array_layout().element_count(), size_of::<S::Elem>());
    let odd = bytes(
        odd_src.to_array_layout().element_count(),
        size_of::<So::Elem>(),
    );
    in_turns(
        g,
        name,
        || black_box(odd_src).relayout_into(odd_dst).unwrap(),
        || black_box(src).relayout_into(dst).unwrap(),
        aligned / odd,
    );
}

/// Checks that `packed` holds `rows` in `tiled` (element by element through
/// the layouts' offsets, every 7th row) and that `back` equals `rows`.
fn check<T: Element + PartialEq + core::fmt::Debug>(
    rows_layout: &impl AnyLayout,
    tiled_layout: &impl AnyLayout,
    rows: &[T],
    packed: &[T],
    back: &[T],
) {
    let a = rows_layout.to_array_layout();
    let (m, n) = (a.size(0), a.size(1));
    for i in (0..m).step_by(7) {
        for j in 0..n {
            assert_eq!(
                packed[tiled_layout.offset_in_bounds(&[i, j])],
                rows[rows_layout.offset_in_bounds(&[i, j])],
                "pack at [{i}, {j}]"
            );
        }
    }
    assert!(back[..m * n] == rows[..m * n], "unpack(pack(x)) != x");
}

/// `f32` rows whose count is known at run time.
type F32RowsMixed = tessera::layout!(f32[?, 1024]{1,0});
/// The same array in `T(8,128)` tiles.
type F32TiledMixed = tessera::layout!(f32[?, 1024]{1,0:T(8,128)});
/// `bf16` rows whose count is known at run time.
type Bf16RowsMixed = tessera::layout!(bf16[?, 1024]{1,0});
/// The same array in `T(8,128)(2,1)` tiles.
type Bf16TiledMixed = tessera::layout!(bf16[?, 1024]{1,0:T(8,128)(2,1)});

/// The static layouts of one data size, in a module.
#[rustfmt::skip] // rustfmt unindents the items of this macro's module.
macro_rules! layouts {
    ($name:ident, $m:tt, $m_odd:tt, $m_bf16:tt) => {
        /// The static layouts of one data size.
        mod $name {
            use tessera::layout;
            /// `M` rows of 1024 `f32`.
            pub(super) type F32Rows = layout!(f32[$m, 1024]{1,0});
            /// The same array in `T(8,128)` tiles.
            pub(super) type F32Tiled = layout!(f32[$m, 1024]{1,0:T(8,128)});
            /// `M - 3` rows of 947: neither a multiple of the tile.
            pub(super) type F32RowsOdd = layout!(f32[$m_odd, 947]{1,0});
            /// The same array in `T(8,128)` tiles.
            pub(super) type F32TiledOdd = layout!(f32[$m_odd, 947]{1,0:T(8,128)});
            /// `2M` rows of 1024 `bf16`: the same bytes as the `f32` case.
            pub(super) type Bf16Rows = layout!(bf16[$m_bf16, 1024]{1,0});
            /// The same array in `T(8,128)(2,1)` tiles.
            pub(super) type Bf16Tiled = layout!(bf16[$m_bf16, 1024]{1,0:T(8,128)(2,1)});
            /// The `f32` array transposed (`minor_to_major` `{0,1}`).
            pub(super) type F32Cols = layout!(f32[$m, 1024]{0,1});
            /// The `f32` array transposed into `T(8,128)` tiles.
            pub(super) type F32ColsTiled = layout!(f32[$m, 1024]{0,1:T(8,128)});
        }
    };
}

layouts!(mib1, 256, 253, 512);
layouts!(mib16, 4096, 4093, 8192);
layouts!(mib256, 65536, 65533, 131072);

/// Runs `$body` with `$z` naming the layouts module of `$mib` MiB.
macro_rules! with_size {
    ($mib:expr, $z:ident => $body:expr) => {
        match $mib {
            1 => {
                use mib1 as $z;
                $body
            }
            16 => {
                use mib16 as $z;
                $body
            }
            _ => {
                use mib256 as $z;
                $body
            }
        }
    };
}

/// `f32` pack and unpack, static and run-time layouts, aligned (`rm`,
/// `ti`) and not (`rm_odd`, `ti_odd`).
fn f32_group<Rm, Ti, RmOdd, TiOdd>(
    c: &mut Criterion,
    mib: usize,
    (rm, ti): (Rm, Ti),
    (rm_odd, ti_odd): (RmOdd, TiOdd),
) where
    Rm: Stores<f32> + SameShape<Ti> + Copy,
    Ti: Stores<f32> + SameShape<Rm> + Copy,
    RmOdd: Stores<f32> + SameShape<TiOdd> + Copy,
    TiOdd: Stores<f32> + SameShape<RmOdd> + Copy,
{
    let rm_rt = PreparedLayout::new(rm.to_array_layout());
    let ti_rt = PreparedLayout::new(ti.to_array_layout());
    let (rows_len, bytes) = lens::<_, f32>(&rm);
    let (tiled_len, _) = lens::<_, f32>(&ti);
    let (odd_rows_len, _) = lens::<_, f32>(&rm_odd);
    let (odd_tiled_len, _) = lens::<_, f32>(&ti_odd);

    let rows = source(rows_len, |i| i as f32);
    let mut packed = vec![-1.0f32; tiled_len];
    let mut back = vec![-1.0f32; rows_len];
    let rows_odd = source(odd_rows_len, |i| i as f32);
    let mut packed_odd = vec![-1.0f32; odd_tiled_len];
    let mut back_odd = vec![-1.0f32; odd_rows_len];
    // The run-time path owns its buffers.
    let rows_buf = TensorBuf::from_vec(rm_rt, rows.clone()).unwrap();
    let mut packed_buf = TensorBuf::from_vec(ti_rt, vec![-1.0f32; tiled_len]).unwrap();
    let mut back_buf = TensorBuf::from_vec(rm_rt, vec![-1.0f32; rows_len]).unwrap();

    let src = TensorView::new(rm, &rows).unwrap();
    let mut dst = TensorViewMut::new(ti, &mut packed).unwrap();
    let mut dst_back = TensorViewMut::new(rm, &mut back).unwrap();
    let src_odd = TensorView::new(rm_odd, &rows_odd).unwrap();
    let mut dst_odd = TensorViewMut::new(ti_odd, &mut packed_odd).unwrap();
    let mut dst_odd_back = TensorViewMut::new(rm_odd, &mut back_odd).unwrap();

    // Check every path once (this also maps every page).
    src.relayout_into(&mut dst).unwrap();
    dst.relayout_into(&mut dst_back).unwrap();
    check(&rm, &ti, &rows, dst.as_slice(), dst_back.as_slice());
    rows_buf.relayout_into(&mut packed_buf).unwrap();
    packed_buf.relayout_into(&mut back_buf).unwrap();
    assert!(packed_buf.as_slice() == dst.as_slice(), "run-time pack");
    assert!(back_buf.as_slice() == &rows[..], "run-time unpack");
    src_odd.relayout_into(&mut dst_odd).unwrap();
    dst_odd.relayout_into(&mut dst_odd_back).unwrap();
    let odd = (dst_odd.as_slice(), dst_odd_back.as_slice());
    check(&rm_odd, &ti_odd, &rows_odd, odd.0, odd.1);

    // The mixed layouts over the static case's buffers: the same pack must
    // give the same bytes.
    let m = rm.to_array_layout().size(0);
    let rm_mixed = F32RowsMixed::new([m, 1024]).unwrap();
    let ti_mixed = F32TiledMixed::new([m, 1024]).unwrap();
    let mut packed_mixed = vec![-1.0f32; tiled_len];
    let mut back_mixed = vec![-1.0f32; rows_len];
    let src_mixed = TensorView::new(rm_mixed, &rows).unwrap();
    let mut dst_mixed = TensorViewMut::new(ti_mixed, &mut packed_mixed).unwrap();
    let mut dst_mixed_back = TensorViewMut::new(rm_mixed, &mut back_mixed).unwrap();
    src_mixed.relayout_into(&mut dst_mixed).unwrap();
    dst_mixed.relayout_into(&mut dst_mixed_back).unwrap();
    assert!(dst_mixed.as_slice() == dst.as_slice(), "mixed pack");
    assert!(dst_mixed_back.as_slice() == &rows[..], "mixed unpack");

    let mut g = group(c, "f32", mib);
    memcpy(&mut g, bytes, &rows, dst_back.as_mut_slice());
    relayout(&mut g, "pack", &src, &mut dst);
    relayout(&mut g, "unpack", &dst.view(), &mut dst_back);
    relayout(&mut g, "pack_runtime", &rows_buf, &mut packed_buf);
    relayout(&mut g, "unpack_runtime", &packed_buf.view(), &mut back_buf);
    relayout(&mut g, "pack_mixed", &src_mixed, &mut dst_mixed);
    relayout(
        &mut g,
        "unpack_mixed",
        &dst_mixed.view(),
        &mut dst_mixed_back,
    );
    relayout(&mut g, "pack_unaligned", &src_odd, &mut dst_odd);
    relayout(
        &mut g,
        "unpack_unaligned",
        &dst_odd.view(),
        &mut dst_odd_back,
    );
    g.finish();

    let mut scratch = vec![0.0f32; rows_len];
    let mut g = paired_group(c, "f32", mib);
    let r = &rows[..];
    paired(&mut g, "pack", (&src, &mut dst), (r, &mut scratch));
    paired(
        &mut g,
        "unpack",
        (&dst.view(), &mut dst_back),
        (r, &mut scratch),
    );
    paired(
        &mut g,
        "pack_runtime",
        (&rows_buf, &mut packed_buf),
        (r, &mut scratch),
    );
    let unpack_runtime = (&packed_buf.view(), &mut back_buf);
    paired(&mut g, "unpack_runtime", unpack_runtime, (r, &mut scratch));
    paired(
        &mut g,
        "pack_mixed",
        (&src_mixed, &mut dst_mixed),
        (r, &mut scratch),
    );
    let unpack_mixed = (&dst_mixed.view(), &mut dst_mixed_back);
    paired(&mut g, "unpack_mixed", unpack_mixed, (r, &mut scratch));
    paired(
        &mut g,
        "pack_unaligned",
        (&src_odd, &mut dst_odd),
        (r, &mut scratch),
    );
    let unpack_odd = (&dst_odd.view(), &mut dst_odd_back);
    paired(&mut g, "unpack_unaligned", unpack_odd, (r, &mut scratch));
    g.finish();

    let mut g = group(c, "paired_unaligned_f32", mib);
    let pack = (&src, &mut dst);
    paired_unaligned(&mut g, "pack", (&src_odd, &mut dst_odd), pack);
    let unpack = (&dst.view(), &mut dst_back);
    let unpack_odd = (&dst_odd.view(), &mut dst_odd_back);
    paired_unaligned(&mut g, "unpack", unpack_odd, unpack);
    g.finish();
}

/// `bf16` pack into `T(8,128)(2,1)` (rows interleaved in pairs) and back,
/// static and run-time layouts.
fn bf16_group<Rm, Ti>(c: &mut Criterion, mib: usize, rm: Rm, ti: Ti)
where
    Rm: Stores<bf16> + SameShape<Ti> + Copy,
    Ti: Stores<bf16> + SameShape<Rm> + Copy,
{
    let rm_rt = PreparedLayout::new(rm.to_array_layout());
    let ti_rt = PreparedLayout::new(ti.to_array_layout());
    let (rows_len, bytes) = lens::<_, bf16>(&rm);
    let (tiled_len, _) = lens::<_, bf16>(&ti);
    // Finite values only (the exponent is never all ones), so `==` compares.
    let rows = source(rows_len, |i| bf16::from_bits(i as u16 & 0x3fff));
    let mut packed = vec![bf16::NEG_ONE; tiled_len];
    let mut back = vec![bf16::NEG_ONE; rows_len];
    let rows_buf = TensorBuf::from_vec(rm_rt, rows.clone()).unwrap();
    let mut packed_buf = TensorBuf::from_vec(ti_rt, vec![bf16::NEG_ONE; tiled_len]).unwrap();

    let src = TensorView::new(rm, &rows).unwrap();
    let mut dst = TensorViewMut::new(ti, &mut packed).unwrap();
    let mut dst_back = TensorViewMut::new(rm, &mut back).unwrap();
    src.relayout_into(&mut dst).unwrap();
    dst.relayout_into(&mut dst_back).unwrap();
    check(&rm, &ti, &rows, dst.as_slice(), dst_back.as_slice());
    rows_buf.relayout_into(&mut packed_buf).unwrap();
    assert!(packed_buf.as_slice() == dst.as_slice(), "run-time pack");
    let m = rm.to_array_layout().size(0);
    let src_mixed = TensorView::new(Bf16RowsMixed::new([m, 1024]).unwrap(), &rows).unwrap();
    let ti_mixed = Bf16TiledMixed::new([m, 1024]).unwrap();
    let mut packed_mixed = vec![bf16::NEG_ONE; tiled_len];
    let mut dst_mixed = TensorViewMut::new(ti_mixed, &mut packed_mixed).unwrap();
    src_mixed.relayout_into(&mut dst_mixed).unwrap();
    assert!(dst_mixed.as_slice() == dst.as_slice(), "mixed pack");

    let mut g = group(c, "bf16", mib);
    memcpy(&mut g, bytes, &rows, dst_back.as_mut_slice());
    relayout(&mut g, "pack", &src, &mut dst);
    relayout(&mut g, "pack_runtime", &rows_buf, &mut packed_buf);
    relayout(&mut g, "pack_mixed", &src_mixed, &mut dst_mixed);
    relayout(&mut g, "unpack", &dst.view(), &mut dst_back);
    g.finish();

    let mut scratch = vec![bf16::ZERO; rows_len];
    let mut g = paired_group(c, "bf16", mib);
    let r = &rows[..];
    paired(&mut g, "pack", (&src, &mut dst), (r, &mut scratch));
    paired(
        &mut g,
        "pack_runtime",
        (&rows_buf, &mut packed_buf),
        (r, &mut scratch),
    );
    paired(
        &mut g,
        "pack_mixed",
        (&src_mixed, &mut dst_mixed),
        (r, &mut scratch),
    );
    paired(
        &mut g,
        "unpack",
        (&dst.view(), &mut dst_back),
        (r, &mut scratch),
    );
    g.finish();
}

/// `src.relayout_into(dst)` through static layouts `from` and `to`, timed
/// in turns with the same relayout through run-time ones
/// (`PreparedLayout`s of the same layouts), both between the same two
/// buffers (`src`, `out`), after checking that both write the same slots
/// and, at every 61st element, what the layouts say. The time per
/// iteration is the static relayout's time over the run-time one's, in
/// milliseconds ([`in_turns_on`]): `0.98 ms` means the static path took
/// 0.98× the run-time path's time.
fn static_entry<T, A, B>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    (from, to): (A, B),
    src: &[T],
    mut out: &mut [T],
) where
    T: Element + PartialEq + core::fmt::Debug,
    A: Stores<T> + Copy,
    B: Stores<T> + SameShape<A> + Copy,
{
    let (from_rt, to_rt) = (
        PreparedLayout::new(from.to_array_layout()),
        PreparedLayout::new(to.to_array_layout()),
    );
    let (src_static, src_rt) = (
        TensorView::new(from, src).unwrap(),
        TensorView::new(from_rt, src).unwrap(),
    );
    src_static
        .relayout_into(&mut TensorViewMut::new(to, &mut *out).unwrap())
        .unwrap();
    let sizes = from.to_array_layout().sizes();
    for index in sampled_indices(&sizes) {
        assert_eq!(
            out[to.offset_in_bounds(&index)],
            src[from.offset_in_bounds(&index)],
            "{name} at {index:?}"
        );
    }
    // Scrambled, so that a run-time path that wrote nothing would show.
    let expected = out.to_vec();
    out.reverse();
    src_rt
        .relayout_into(&mut TensorViewMut::new(to_rt, &mut *out).unwrap())
        .unwrap();
    assert!(out == &expected[..], "{name}: static and run-time differ");
    in_turns_on(
        g,
        name,
        &mut out,
        |out| {
            let mut dst = TensorViewMut::new(to, out).unwrap();
            black_box(&src_static).relayout_into(&mut dst).unwrap();
        },
        |out| {
            let mut dst = TensorViewMut::new(to_rt, out).unwrap();
            black_box(&src_rt).relayout_into(&mut dst).unwrap();
        },
        1.0,
    );
}

/// Static layouts against run-time ones (`paired_static_<S>MiB`): the
/// `f32` `T(8,128)` pack and unpack, the plain `f32` transpose and the
/// transpose into `T(8,128)`, and the `bf16` `T(8,128)(2,1)` pack, each
/// through static layouts in turns with the same relayout through
/// run-time ones ([`static_entry`]).
fn static_group<Rm, Ti, Co, CoTi, Brm, Bti>(
    c: &mut Criterion,
    mib: usize,
    (rm, ti, co, co_ti): (Rm, Ti, Co, CoTi),
    (bf16_rm, bf16_ti): (Brm, Bti),
) where
    Rm: Stores<f32> + SameShape<Ti> + Copy,
    Ti: Stores<f32> + SameShape<Rm> + Copy,
    Co: Stores<f32> + SameShape<Rm> + Copy,
    CoTi: Stores<f32> + SameShape<Rm> + Copy,
    Brm: Stores<bf16> + Copy,
    Bti: Stores<bf16> + SameShape<Brm> + Copy,
{
    let (rows_len, tiled_len) = (lens::<_, f32>(&rm).0, lens::<_, f32>(&ti).0);
    let (cols_len, cols_tiled_len) = (lens::<_, f32>(&co).0, lens::<_, f32>(&co_ti).0);
    let rows = source(rows_len, |i| i as f32);
    let mut tiled = vec![-1.0f32; tiled_len];
    TensorView::new(rm, &rows)
        .unwrap()
        .relayout_into(&mut TensorViewMut::new(ti, &mut tiled).unwrap())
        .unwrap();
    let most = [rows_len, tiled_len, cols_len, cols_tiled_len];
    let mut out = vec![-1.0f32; most.into_iter().max().unwrap()];
    let bf16_rows = source(lens::<_, bf16>(&bf16_rm).0, |i| {
        bf16::from_bits(i as u16 & 0x3fff)
    });
    let mut bf16_out = vec![bf16::NEG_ONE; lens::<_, bf16>(&bf16_ti).0];

    let mut g = paired_group(c, "static", mib);
    static_entry(&mut g, "f32_pack", (rm, ti), &rows, &mut out[..tiled_len]);
    static_entry(&mut g, "f32_unpack", (ti, rm), &tiled, &mut out[..rows_len]);
    let out_cols = &mut out[..cols_len];
    static_entry(&mut g, "f32_transpose", (rm, co), &rows, out_cols);
    let out_tiled = &mut out[..cols_tiled_len];
    static_entry(&mut g, "f32_transpose_tile", (rm, co_ti), &rows, out_tiled);
    let bf16_pair = (bf16_rm, bf16_ti);
    static_entry(&mut g, "bf16_pack", bf16_pair, &bf16_rows, &mut bf16_out);
    g.finish();
}

/// The element-by-element loop a user would write with indexing.
fn naive<S, S2, L, L2>(src: &TensorBase<S, L>, dst: &mut TensorBase<S2, L2>)
where
    S: Storage<Elem = f32>,
    S2: StorageMut<Elem = f32>,
    L: HasRank<2>,
    L2: HasRank<2>,
{
    let a = src.to_array_layout();
    let (m, n) = (a.size(0), a.size(1));
    for i in 0..m {
        for j in 0..n {
            dst[[i, j]] = src[[i, j]];
        }
    }
}

/// The per-element indexing loop against the kernel, 1 MiB.
fn naive_1mib(c: &mut Criterion) {
    let (rm, ti) = (mib1::F32Rows::NEW, mib1::F32Tiled::NEW);
    let rm_rt = PreparedLayout::new(mib1::F32Rows::LAYOUT);
    let ti_rt = PreparedLayout::new(mib1::F32Tiled::LAYOUT);
    let (rows_len, bytes) = lens::<_, f32>(&rm);
    let (tiled_len, _) = lens::<_, f32>(&ti);
    let rows = source(rows_len, |i| i as f32);
    let mut packed = vec![-1.0f32; tiled_len];
    let mut packed_naive = vec![-1.0f32; tiled_len];
    let mut scratch = vec![-1.0f32; rows_len];
    let rows_buf = TensorBuf::from_vec(rm_rt, rows.clone()).unwrap();
    let mut packed_buf = TensorBuf::from_vec(ti_rt, vec![-1.0f32; tiled_len]).unwrap();

    let src = TensorView::new(rm, &rows).unwrap();
    let mut dst = TensorViewMut::new(ti, &mut packed).unwrap();
    let mut dst_naive = TensorViewMut::new(ti, &mut packed_naive).unwrap();
    src.relayout_into(&mut dst).unwrap();
    naive(&src, &mut dst_naive);
    naive(&rows_buf, &mut packed_buf);
    assert!(dst_naive.as_slice() == dst.as_slice(), "naive pack differs");
    assert!(
        packed_buf.as_slice() == dst.as_slice(),
        "naive run-time pack differs"
    );

    let mut g = group(c, "naive", 1);
    memcpy(&mut g, bytes, &rows, &mut scratch);
    relayout(&mut g, "pack", &src, &mut dst);
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("naive_pack", |b| {
        b.iter(|| naive(black_box(&src), &mut dst_naive));
    });
    g.bench_function("naive_pack_runtime", |b| {
        b.iter(|| naive(black_box(&rows_buf), &mut packed_buf));
    });
    g.finish();
}

/// The fixed cost of one call: two tiles of `f32[8,256]`, 8 KiB.
fn call_8kib(c: &mut Criterion) {
    type Rows = tessera::layout!(f32[8, 256]{1,0});
    type Tiled = tessera::layout!(f32[8, 256]{1,0:T(8,128)});
    type RowsMixed = tessera::layout!(f32[?, 256]{1,0});
    type TiledMixed = tessera::layout!(f32[?, 256]{1,0:T(8,128)});
    let rows = source(8 * 256, |i| i as f32);
    let mut packed = vec![-1.0f32; 8 * 256];
    let mut packed_runtime = packed.clone();
    let mut packed_mixed = packed.clone();
    let mut scratch = packed.clone();
    let src = TensorView::new(Rows::NEW, &rows).unwrap();
    let mut dst = TensorViewMut::new(Tiled::NEW, &mut packed).unwrap();
    let src_runtime = TensorView::new(PreparedLayout::new(Rows::LAYOUT), &rows).unwrap();
    let tiled_runtime = PreparedLayout::new(Tiled::LAYOUT);
    let mut dst_runtime = TensorViewMut::new(tiled_runtime, &mut packed_runtime).unwrap();
    let src_mixed = TensorView::new(RowsMixed::new([8, 256]).unwrap(), &rows).unwrap();
    let tiled_mixed = TiledMixed::new([8, 256]).unwrap();
    let mut dst_mixed = TensorViewMut::new(tiled_mixed, &mut packed_mixed).unwrap();
    src.relayout_into(&mut dst).unwrap();
    src_runtime.relayout_into(&mut dst_runtime).unwrap();
    src_mixed.relayout_into(&mut dst_mixed).unwrap();
    assert!(dst_runtime.as_slice() == dst.as_slice(), "run-time pack");
    assert!(dst_mixed.as_slice() == dst.as_slice(), "mixed pack");

    let mut g = c.benchmark_group("call_8KiB");
    memcpy(&mut g, 8 * 256 * 4, &rows, &mut scratch);
    relayout(&mut g, "pack", &src, &mut dst);
    relayout(&mut g, "pack_runtime", &src_runtime, &mut dst_runtime);
    relayout(&mut g, "pack_mixed", &src_mixed, &mut dst_mixed);
    g.finish();
}

/// One pair of the matrix: a name, the source and destination layouts'
/// text after the element type and dims (`{1,0:T(8,128)}`), and the
/// kernel the planner picks (checked).
struct Pair {
    name: &'static str,
    src: &'static str,
    dst: &'static str,
    kernel: RelayoutKernel,
}

/// XLA's TPU tilings of `ty` (`f32`, `bf16`, `s8`, `u8`) × {pack, unpack,
/// transpose+tile}, as [`Pair`]s over `[rows, 1024]`.
fn tiling_pairs(tiling: &'static str, interleave: Option<usize>) -> [Pair; 3] {
    let tiled: &'static str = format!("{{1,0:{tiling}}}").leak();
    let transposed: &'static str = format!("{{0,1:{tiling}}}").leak();
    let pack = match interleave {
        Some(factor) => RelayoutKernel::Interleave { factor },
        None => RelayoutKernel::ContiguousRuns,
    };
    let unpack = match interleave {
        Some(factor) => RelayoutKernel::Deinterleave { factor },
        None => RelayoutKernel::ContiguousRuns,
    };
    [
        Pair {
            name: "pack",
            src: "{1,0}",
            dst: tiled,
            kernel: pack,
        },
        Pair {
            name: "unpack",
            src: tiled,
            dst: "{1,0}",
            kernel: unpack,
        },
        Pair {
            name: "transpose_tile",
            src: "{1,0}",
            dst: transposed,
            // With sub-tiles, the innermost level (the `factor` rows of a
            // sub-tile, consecutive in the row-major source) is
            // contiguous in both buffers: a transpose of units of
            // `factor` elements.
            kernel: match interleave {
                Some(unit) => RelayoutKernel::UnitTranspose { unit },
                None => RelayoutKernel::Transpose,
            },
        },
    ]
}

/// Every 61st index of an array of `sizes`, in logical (row-major) order.
fn sampled_indices(sizes: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let count = sizes.iter().product::<usize>();
    (0..count).step_by(61).map(|k| {
        let mut index = vec![0; sizes.len()];
        let mut rest = k;
        for d in (0..sizes.len()).rev() {
            index[d] = rest % sizes[d];
            rest /= sizes[d];
        }
        index
    })
}

/// Checks `dst` against `src` at every 61st logical index (through each
/// layout's offsets).
fn check_sampled<T: Element + PartialEq + core::fmt::Debug>(
    src: &TensorBuf<PreparedLayout, T>,
    dst: &TensorBuf<PreparedLayout, T>,
) {
    let sizes = src.to_array_layout().sizes();
    for index in sampled_indices(&sizes) {
        assert_eq!(src.get_dyn(&index), dst.get_dyn(&index), "at {index:?}");
    }
}

/// The two layouts of a matrix entry, `ty[dims]{src}` and
/// `ty[dims]{dst}`, parsed at run time, after checking that the planner
/// picks the entry's kernel.
fn planned_layouts(ty: &str, dims: &str, pair: &Pair) -> (PreparedLayout, PreparedLayout) {
    let layout = |l: &str| {
        let text = format!("{ty}[{dims}]{l}");
        PreparedLayout::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
    };
    let (src, dst) = (layout(pair.src), layout(pair.dst));
    assert_eq!(
        RelayoutKernel::for_layouts(&src.to_array_layout(), &dst.to_array_layout()).unwrap(),
        pair.kernel,
        "{ty}[{dims}]: {} -> {}",
        pair.src,
        pair.dst
    );
    (src, dst)
}

/// One matrix entry: `ty[dims]{src}` → `ty[dims]{dst}` with run-time
/// layouts, checked, then timed in turns with `memcpy` of its logical
/// bytes ([`paired`]).
fn matrix_entry<T: Element + PartialEq + core::fmt::Debug>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    ty: &str,
    dims: &str,
    pair: &Pair,
    value: impl Fn(usize) -> T,
) {
    let (src_layout, dst_layout) = planned_layouts(ty, dims, pair);
    let a = src_layout.to_array_layout();
    let src = TensorBuf::from_vec(src_layout, source(a.buffer_len(), value)).unwrap();
    let mut dst = TensorBuf::<_, T>::zeroed(dst_layout).unwrap();
    src.relayout_into(&mut dst).unwrap();
    check_sampled(&src, &dst);
    let mut scratch = src.as_slice().to_vec();
    let name = format!("{ty}_{}", pair.name);
    paired(g, &name, (&src, &mut dst), (src.as_slice(), &mut scratch));
}

/// One packed matrix entry: `ty[dims]{src}` → `ty[dims]{dst}` of a
/// sub-byte type (`PackedBuf`, run-time layouts), checked at every 61st
/// logical index, then timed in turns with `memcpy` of its logical bytes
/// (the packed bytes of the array).
fn packed_matrix_entry<E: SubByte>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    ty: &str,
    dims: &str,
    pair: &Pair,
    value: impl Fn(usize) -> E::Value,
) where
    E::Value: PartialEq + core::fmt::Debug,
{
    let (src_layout, dst_layout) = planned_layouts(ty, dims, pair);
    let a = src_layout.to_array_layout();
    let count = a.element_count();
    let src = PackedBuf::<_, E>::from_values(src_layout, (0..count).map(&value)).unwrap();
    let mut dst = PackedBuf::<_, E>::zeroed(dst_layout).unwrap();
    src.relayout_into(&mut dst).unwrap();
    let sizes = a.sizes();
    for k in (0..count).step_by(61) {
        let index = [k / sizes[1], k % sizes[1]];
        assert_eq!(src.get_dyn(&index), dst.get_dyn(&index), "at {index:?}");
    }
    let bytes = count * E::TYPE.bit_width() as usize / 8;
    let copy_src = src.as_bytes()[..bytes].to_vec();
    let mut copy_dst = vec![0u8; bytes];
    in_turns(
        g,
        &format!("{ty}_{}", pair.name),
        || black_box(&src).relayout_into(&mut dst).unwrap(),
        || copy_dst.copy_from_slice(black_box(&copy_src)),
        1.0,
    );
}

/// The `transpose` crate's out-of-place transpose of `[rows, cols]`
/// elements, checked, then timed in turns with `memcpy` of the same bytes.
fn transpose_crate_entry<T: Element + PartialEq + core::fmt::Debug>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    ty: &str,
    [rows, cols]: [usize; 2],
    value: impl Fn(usize) -> T,
) {
    let src = source(rows * cols, value);
    let mut dst = src.clone();
    let mut scratch = src.clone();
    transpose::transpose(&src, &mut dst, cols, rows);
    for k in (0..rows * cols).step_by(61) {
        assert_eq!(dst[(k % cols) * rows + k / cols], src[k], "transpose crate");
    }
    in_turns(
        g,
        &format!("{ty}_transpose_crate"),
        || transpose::transpose(black_box(&src), &mut dst, cols, rows),
        || scratch.copy_from_slice(black_box(&src)),
        1.0,
    );
}

/// The `f32` `T(8,128)` pack and unpack as a kernel author writes them
/// by hand (`f32_T8128_pack_hand`, `f32_T8128_unpack_hand`): for each
/// tile in destination order, its 8 rows of 128 copied with
/// `copy_from_slice`, on `[rows, cols]` (multiples of 8 and 128), checked
/// against the layouts' offsets and timed in turns with `memcpy`, as the
/// matrix's own entries: the peer of the contiguous-run kernel.
fn hand_tile_entries(g: &mut BenchmarkGroup<'_, WallTime>, [rows, cols]: [usize; 2]) {
    let dims = format!("f32[{rows},{cols}]");
    let row_major: tessera::ArrayLayout = format!("{dims}{{1,0}}").parse().unwrap();
    let tiled: tessera::ArrayLayout = format!("{dims}{{1,0:T(8,128)}}").parse().unwrap();
    let tiles_across = cols / 128;
    // `(source, destination)` offsets of tile row `r` of tile `(band, t)`.
    let run = move |band: usize, t: usize, r: usize| {
        let at_rows = (band * 8 + r) * cols + t * 128;
        let at_tiles = ((band * tiles_across + t) * 8 + r) * 128;
        (at_rows, at_tiles)
    };
    let pack = move |src: &[f32], dst: &mut [f32]| {
        for band in 0..rows / 8 {
            for t in 0..tiles_across {
                for r in 0..8 {
                    let (s, d) = run(band, t, r);
                    dst[d..d + 128].copy_from_slice(&src[s..s + 128]);
                }
            }
        }
    };
    let unpack = move |src: &[f32], dst: &mut [f32]| {
        for band in 0..rows / 8 {
            for t in 0..tiles_across {
                for r in 0..8 {
                    let (d, s) = run(band, t, r);
                    dst[d..d + 128].copy_from_slice(&src[s..s + 128]);
                }
            }
        }
    };
    let values = source(rows * cols, |i| i as f32);
    let mut packed = vec![0.0; rows * cols];
    let mut unpacked = vec![0.0; rows * cols];
    let mut scratch = values.clone();
    pack(&values, &mut packed);
    unpack(&packed, &mut unpacked);
    for k in (0..rows * cols).step_by(61) {
        let index = [k / cols, k % cols];
        assert_eq!(
            packed[tiled.offset(&index)],
            values[row_major.offset(&index)]
        );
    }
    assert_eq!(unpacked, values, "the hand-written unpack undoes its pack");
    in_turns(
        g,
        "f32_T8128_pack_hand",
        || pack(black_box(&values), &mut packed),
        || scratch.copy_from_slice(black_box(&values)),
        1.0,
    );
    in_turns(
        g,
        "f32_T8128_unpack_hand",
        || unpack(black_box(&packed), &mut unpacked),
        || scratch.copy_from_slice(black_box(&packed)),
        1.0,
    );
}

/// The benchmark matrix (`paired_matrix_<S>MiB`): XLA's TPU tilings
/// (`f32` `T(8,128)`, `T(4,128)`, `T(2,128)`; `bf16` `T(8,128)(2,1)`;
/// `s8` `T(8,128)(4,1)`; `u8` `T(32,128)(4,1)`) × {pack, unpack,
/// transpose+tile} over `[rows, 1024]` of `S` MiB (and `pred`'s
/// `T(32,128)(4,1)` pack and unpack), `bf16` and `s8` transposed
/// between two of their tiled layouts (`{0,1:T}` → `{1,0:T}`, and back:
/// `*_tiled_transpose_back`), plain transposes (`{1,0}` → `{0,1}`) with the `transpose` crate's on the same data as
/// their peer, and a permutation of major dims (`f32[a,a,1024]{2,1,0}` →
/// `{2,0,1}`), each timed in turns with `memcpy` ([`paired`]; run-time
/// layouts, the kernels static layouts run too), and `s4`'s
/// `T(8,128)(2,1)E(4)` pack, unpack and transpose+tile from and to
/// `{1,0:E(4)}` (`PackedBuf`, [`packed_matrix_entry`]); the `f32`
/// `T(8,128)` pack and unpack have a hand-written peer
/// ([`hand_tile_entries`]).
fn matrix_group(c: &mut Criterion, mib: usize) {
    let mut g = paired_group(c, "matrix", mib);
    let rows = |size: usize| format!("{},1024", (mib << 20) / (1024 * size));
    let plain = Pair {
        name: "transpose",
        src: "{1,0}",
        dst: "{0,1}",
        kernel: RelayoutKernel::Transpose,
    };
    for tiling in ["T(8,128)", "T(4,128)", "T(2,128)"] {
        for pair in tiling_pairs(tiling, None) {
            let pair = Pair {
                name: format!("{}_{}", tiling.replace(['(', ')', ','], ""), pair.name).leak(),
                ..pair
            };
            matrix_entry(&mut g, "f32", &rows(4), &pair, |i| i as f32);
        }
    }
    hand_tile_entries(&mut g, [(mib << 20) / (1024 * 4), 1024]);
    for pair in tiling_pairs("T(8,128)(2,1)", Some(2)) {
        matrix_entry(&mut g, "bf16", &rows(2), &pair, |i| {
            bf16::from_bits(i as u16 & 0x3fff)
        });
    }
    for pair in tiling_pairs("T(8,128)(4,1)", Some(4)) {
        matrix_entry(&mut g, "s8", &rows(1), &pair, |i| i as i8);
    }
    // A weight transposed between two tiled layouts, and back: its
    // sub-tiles' squares moved and transposed.
    let tiled_transpose = |tiling: &str, side: usize, back: bool| {
        let [columns, rows] = [format!("{{0,1:{tiling}}}"), format!("{{1,0:{tiling}}}")];
        let (name, src, dst) = match back {
            false => ("tiled_transpose", columns, rows),
            true => ("tiled_transpose_back", rows, columns),
        };
        Pair {
            name,
            src: src.leak(),
            dst: dst.leak(),
            kernel: RelayoutKernel::SquareTranspose { side },
        }
    };
    for back in [false, true] {
        matrix_entry(
            &mut g,
            "bf16",
            &rows(2),
            &tiled_transpose("T(8,128)(2,1)", 2, back),
            |i| bf16::from_bits(i as u16 & 0x3fff),
        );
        matrix_entry(
            &mut g,
            "s8",
            &rows(1),
            &tiled_transpose("T(8,128)(4,1)", 4, back),
            |i| i as i8,
        );
    }
    for pair in tiling_pairs("T(32,128)(4,1)", Some(4)) {
        matrix_entry(&mut g, "u8", &rows(1), &pair, |i| i as u8);
    }
    for pair in &tiling_pairs("T(32,128)(4,1)", Some(4))[..2] {
        matrix_entry(&mut g, "pred", &rows(1), pair, |i| i % 3 == 0);
    }
    // `s4` packed two per byte: the pack and unpack interleave rows of
    // nibbles, the transpose+tile moves bytes of two `x`.
    let s4_rows = format!("{},1024", (mib << 21) / 1024);
    for pair in tiling_pairs("T(8,128)(2,1)E(4)", Some(2)) {
        let pair = Pair {
            src: match pair.src {
                "{1,0}" => "{1,0:E(4)}",
                other => other,
            },
            dst: match pair.dst {
                "{1,0}" => "{1,0:E(4)}",
                other => other,
            },
            kernel: match pair.kernel {
                RelayoutKernel::UnitTranspose { .. } => RelayoutKernel::Transpose,
                other => other,
            },
            ..pair
        };
        packed_matrix_entry::<S4>(&mut g, "s4", &s4_rows, &pair, |i| (i % 16) as i8 - 8);
    }
    // And its plain transpose: bytes of two `x` into bytes of two `y`.
    let s4_plain = Pair {
        name: "transpose",
        src: "{1,0:E(4)}",
        dst: "{0,1:E(4)}",
        kernel: RelayoutKernel::Transpose,
    };
    packed_matrix_entry::<S4>(&mut g, "s4", &s4_rows, &s4_plain, |i| (i % 16) as i8 - 8);
    let shape = |size: usize| [(mib << 20) / (1024 * size), 1024];
    matrix_entry(&mut g, "f32", &rows(4), &plain, |i| i as f32);
    transpose_crate_entry(&mut g, "f32", shape(4), |i| i as f32);
    matrix_entry(&mut g, "bf16", &rows(2), &plain, |i| {
        bf16::from_bits(i as u16 & 0x3fff)
    });
    transpose_crate_entry(&mut g, "bf16", shape(2), |i| {
        bf16::from_bits(i as u16 & 0x3fff)
    });
    matrix_entry(&mut g, "u8", &rows(1), &plain, |i| i as u8);
    transpose_crate_entry(&mut g, "u8", shape(1), |i| i as u8);
    let a = match mib {
        1 => 16,
        16 => 64,
        _ => 256,
    };
    let permute = Pair {
        name: "permute_major",
        src: "{2,1,0}",
        dst: "{2,0,1}",
        kernel: RelayoutKernel::ContiguousRuns,
    };
    matrix_entry(&mut g, "f32", &format!("{a},{a},1024"), &permute, |i| {
        i as f32
    });
    g.finish();
}

/// Plain transposes in shapes the matrix does not use
/// (`paired_transpose_shapes_<S>MiB`): `f32`, `bf16` and `u8`
/// `[rows, cols]{1,0}` → `{0,1}`; checked, the kernel asserted, timed in
/// turns with `memcpy`. At 1 MiB, destination rows (`rows` elements)
/// 1000 bytes, 2 KiB and 4 KiB apart, which crowd the L1 cache; at 16
/// MiB (streamed), source runs (`cols` elements) 4000 bytes, 8 to 64 KiB
/// apart, which crowd the L2 cache, into destination rows of 512 bytes
/// to 4 KiB. Other sizes have none.
fn transpose_shapes(c: &mut Criterion, mib: usize) {
    let [f32_shapes, bf16_shapes, u8_shapes]: [&[&str]; 3] = match mib {
        1 => [
            &["250,1048", "512,512", "1024,256"],
            &["500,1048", "1024,512", "2048,256"],
            &["1000,1048", "2048,512", "4096,256"],
        ],
        16 => [
            &["1024,4096", "256,16384"],
            &["1024,8192", "512,16384"],
            &["4000,4000", "2048,8192", "512,32768"],
        ],
        _ => return,
    };
    let mut g = paired_group(c, "transpose_shapes", mib);
    let plain = |dims: &str| Pair {
        name: format!("transpose_{}", dims.replace(',', "x")).leak(),
        src: "{1,0}",
        dst: "{0,1}",
        kernel: RelayoutKernel::Transpose,
    };
    for &dims in f32_shapes {
        matrix_entry(&mut g, "f32", dims, &plain(dims), |i| i as f32);
    }
    for &dims in bf16_shapes {
        matrix_entry(&mut g, "bf16", dims, &plain(dims), |i| {
            bf16::from_bits(i as u16 & 0x3fff)
        });
    }
    for &dims in u8_shapes {
        matrix_entry(&mut g, "u8", dims, &plain(dims), |i| i as u8);
    }
    g.finish();
}

/// Shapes whose tiles are partial in both dims (`paired_partial_tiles_1MiB`):
/// about 1 MiB of each TPU tiling's type, `[rows, cols]` neither a
/// multiple of the tile, × {pack, unpack, transpose+tile, and its
/// reverse}; checked, the kernel asserted, timed in turns with `memcpy`.
/// Every band of tiles ends in a partial tile column, and the last band
/// in partial rows; the odd row lengths of `bf16`, `s8` and `u8` put the
/// units of the transposes into and out of sub-tiles (a row's 2 or 4
/// elements) at odd offsets, so they go through the stage.
fn partial_tiles_1mib(c: &mut Criterion) {
    let mut g = paired_group(c, "partial_tiles", 1);
    // The matrix's pairs and the transpose out of tiles, with the
    // transposes' kernel: of units at odd offsets for types with
    // sub-tiles.
    let pairs = |tiling: &'static str, interleave: Option<usize>, transpose| {
        let [pack, unpack, mut into] = tiling_pairs(tiling, interleave);
        into.kernel = transpose;
        let out = Pair {
            name: "untile_transpose",
            src: into.dst,
            dst: "{1,0}",
            kernel: transpose,
        };
        [pack, unpack, into, out]
    };
    for pair in pairs("T(8,128)", None, RelayoutKernel::Transpose) {
        matrix_entry(&mut g, "f32", "509,515", &pair, |i| i as f32);
    }
    let staged = |unit| RelayoutKernel::StagedUnitTranspose { unit };
    for pair in pairs("T(8,128)(2,1)", Some(2), staged(2)) {
        matrix_entry(&mut g, "bf16", "721,727", &pair, |i| {
            bf16::from_bits(i as u16 & 0x3fff)
        });
    }
    for pair in pairs("T(8,128)(4,1)", Some(4), staged(4)) {
        matrix_entry(&mut g, "s8", "1021,1027", &pair, |i| i as i8);
    }
    for pair in pairs("T(32,128)(4,1)", Some(4), staged(4)) {
        matrix_entry(&mut g, "u8", "1021,1027", &pair, |i| i as u8);
    }
    g.finish();
}

/// Packed rows that start mid-byte (`paired_packed_odd_rows_1MiB`): `s4`
/// rows of 1023 (every other row starts a nibble into a byte) and `u2`
/// rows of 1021 (each row a slot further into its byte) between
/// row-major `E(n)` and `T(8,128)E(n)` tiles, both ways: runs contiguous
/// in both buffers that start at different bits of a byte, each
/// destination byte shifted from two source bytes; and the `s4` rows
/// into `T(8,128)(2,1)E(4)` and out, rows of fields interleaved through a
/// stage where they are realigned. Checked, the kernel asserted, timed
/// in turns with `memcpy` of the packed bytes.
fn packed_odd_rows_1mib(c: &mut Criterion) {
    let mut g = paired_group(c, "packed_odd_rows", 1);
    let pair = |name: &'static str, row_major: &'static str, tiled: &'static str| {
        let (src, dst) = match name {
            "pack" => (row_major, tiled),
            _ => (tiled, row_major),
        };
        Pair {
            name: format!("{name}_odd_rows").leak(),
            src,
            dst,
            kernel: RelayoutKernel::PackedSlots,
        }
    };
    for name in ["pack", "unpack"] {
        let s4 = pair(name, "{1,0:E(4)}", "{1,0:T(8,128)E(4)}");
        packed_matrix_entry::<S4>(&mut g, "s4", "2048,1023", &s4, |i| (i % 16) as i8 - 8);
        let u2 = pair(name, "{1,0:E(2)}", "{1,0:T(8,128)E(2)}");
        packed_matrix_entry::<U2>(&mut g, "u2", "4096,1021", &u2, |i| (i % 4) as u8);
        // Into the `(2,1)` sub-tiles of the matrix's `s4` tiling, and out:
        // rows of fields interleaved, realigned through a stage.
        let mut s4 = pair(name, "{1,0:E(4)}", "{1,0:T(8,128)(2,1)E(4)}");
        s4.name = format!("{name}_subtiles_odd_rows").leak();
        s4.kernel = match name {
            "pack" => RelayoutKernel::Interleave { factor: 2 },
            _ => RelayoutKernel::Deinterleave { factor: 2 },
        };
        packed_matrix_entry::<S4>(&mut g, "s4", "2048,1023", &s4, |i| (i % 16) as i8 - 8);
    }
    g.finish();
}

/// Packed transposes into and out of tiles of 8 rows
/// (`paired_packed_tiled_transposes_1MiB`): `s4[2048,1024]{1,0:E(4)}` →
/// `{0,1:T(8,128)E(4)}` and back, and `u2[2000,2000]`'s (partial tiles
/// both ways), squares of fields whose blocks are a tile's 8 rows (or
/// runs) until the planner puts the tiles side by side; and the plain
/// transposes of `s4[2048,1023]`, whose source rows start mid-byte every
/// other row, and of `s4[1023,2048]`, whose destination rows do.
/// Checked, the kernel asserted, timed in turns with `memcpy` of the
/// packed bytes.
fn packed_tiled_transposes_1mib(c: &mut Criterion) {
    let mut g = paired_group(c, "packed_tiled_transposes", 1);
    let pair = |name: &'static str, src: &'static str, dst: &'static str| Pair {
        name,
        src,
        dst,
        kernel: RelayoutKernel::Transpose,
    };
    let (rows, tiled) = ("{1,0:E(4)}", "{0,1:T(8,128)E(4)}");
    let s4 = [
        pair("transpose_tile", rows, tiled),
        pair("untile_transpose", tiled, rows),
    ];
    for s4 in &s4 {
        packed_matrix_entry::<S4>(&mut g, "s4", "2048,1024", s4, |i| (i % 16) as i8 - 8);
    }
    let (rows, tiled) = ("{1,0:E(2)}", "{0,1:T(8,128)E(2)}");
    let u2 = [
        pair("transpose_tile", rows, tiled),
        pair("untile_transpose", tiled, rows),
    ];
    for u2 in &u2 {
        packed_matrix_entry::<U2>(&mut g, "u2", "2000,2000", u2, |i| (i % 4) as u8);
    }
    // Source rows of an odd length, every other one starting mid-byte;
    // then destination rows.
    let odd = pair("odd_rows_transpose", "{1,0:E(4)}", "{0,1:E(4)}");
    packed_matrix_entry::<S4>(&mut g, "s4", "2048,1023", &odd, |i| (i % 16) as i8 - 8);
    let odd = pair("odd_dst_rows_transpose", "{1,0:E(4)}", "{0,1:E(4)}");
    packed_matrix_entry::<S4>(&mut g, "s4", "1023,2048", &odd, |i| (i % 16) as i8 - 8);
    g.finish();
}

fn relayouts(c: &mut Criterion) {
    call_8kib(c);
    let sizes = sizes();
    for &mib in &sizes {
        matrix_group(c, mib);
    }
    for &mib in &sizes {
        with_size!(mib, z => f32_group(
            c,
            mib,
            (z::F32Rows::NEW, z::F32Tiled::NEW),
            (z::F32RowsOdd::NEW, z::F32TiledOdd::NEW),
        ));
    }
    for &mib in &sizes {
        with_size!(mib, z => bf16_group(c, mib, z::Bf16Rows::NEW, z::Bf16Tiled::NEW));
    }
    for &mib in &sizes {
        with_size!(mib, z => static_group(
            c,
            mib,
            (z::F32Rows::NEW, z::F32Tiled::NEW, z::F32Cols::NEW, z::F32ColsTiled::NEW),
            (z::Bf16Rows::NEW, z::Bf16Tiled::NEW),
        ));
    }
    for &mib in &sizes {
        transpose_shapes(c, mib);
    }
    if sizes.contains(&1) {
        partial_tiles_1mib(c);
        packed_odd_rows_1mib(c);
        packed_tiled_transposes_1mib(c);
        naive_1mib(c);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = relayouts
}
criterion_main!(benches);
