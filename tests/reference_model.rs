//! The engine's index math checked against a slow, literal reference model.
//!
//! The model (section "Reference model" below) never calls the engine: it
//! materialises the whole buffer of a layout as a row-major array of cells,
//! each holding the logical index stored there or nothing (padding), by
//! doing literally what `docs/xla-layouts.md` (section 2 and
//! "Tessera's decisions") describes: build the logical array, pad it
//! (`pad(..)`), transpose it into physical order, then for every tile level
//! prepend size-1 dims, merge `*` dims, pad to whole tiles, split each dim
//! into (count, tile) and move the tile dims to the minor end; finally
//! flatten and append the `L(n)` tail.
//!
//! Property tests generate thousands of layouts and compare every figure
//! the engine gives (`offset`, `slot`, `buffer_len`, `strides`,
//! `physical_shape`, byte sizes) with the model. Deterministic tests pin
//! the worked examples of XLA's tiled-layout doc.

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::{ArrayLayout, DigitSource, Dim, PrimitiveType, Shape, Slot};
use test_support::{PairBits, Spec, SpecGen};

// ---------------------------------------------------------------------------
// Reference model
// ---------------------------------------------------------------------------

/// What one slot of the buffer holds: the logical index of its element, or
/// `None` for padding.
type Cell = Option<Vec<usize>>;

/// Largest buffer the model materialises; bigger layouts are skipped (a
/// limit of the test's time budget, not of the engine).
const MODEL_CAP: usize = 20_000;

/// Every index of an array of `dims`, in row-major order (last dim
/// fastest). A rank-0 array has one index, `[]`; an array with a 0 dim has
/// none.
fn row_major_indices(dims: &[usize]) -> Vec<Vec<usize>> {
    if dims.contains(&0) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut idx = vec![0; dims.len()];
    loop {
        out.push(idx.clone());
        // Odometer: bump the last dim, carrying into the ones before it.
        let mut d = dims.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// A dense n-dimensional array of cells stored row-major.
#[derive(Clone, Debug)]
struct Grid {
    dims: Vec<usize>,
    cells: Vec<Cell>,
}

impl Grid {
    /// Step (a): the logical array, each cell holding its own index.
    fn logical(dims: &[usize]) -> Grid {
        Grid {
            dims: dims.to_vec(),
            cells: row_major_indices(dims).into_iter().map(Some).collect(),
        }
    }

    /// Position of `idx` in `cells` (row-major).
    fn position(&self, idx: &[usize]) -> usize {
        let mut p = 0;
        for (d, &i) in idx.iter().enumerate() {
            assert!(i < self.dims[d], "model index out of range");
            p = p * self.dims[d] + i;
        }
        p
    }

    fn get(&self, idx: &[usize]) -> Cell {
        self.cells[self.position(idx)].clone()
    }

    /// Grows every dim to `new_dims[d] >= dims[d]`; new cells are padding.
    /// `None` when the result would exceed [`MODEL_CAP`].
    fn pad_to(&self, new_dims: &[usize]) -> Option<Grid> {
        assert_eq!(new_dims.len(), self.dims.len());
        assert!(new_dims.iter().zip(&self.dims).all(|(n, o)| n >= o));
        if new_dims.iter().product::<usize>() > MODEL_CAP {
            return None;
        }
        let cells = row_major_indices(new_dims)
            .into_iter()
            .map(|idx| {
                let inside = idx.iter().zip(&self.dims).all(|(i, d)| i < d);
                if inside { self.get(&idx) } else { None }
            })
            .collect();
        Some(Grid {
            dims: new_dims.to_vec(),
            cells,
        })
    }

    /// Same cells, same order, new dims (row-major reshape).
    fn reshape(&self, new_dims: &[usize]) -> Grid {
        assert_eq!(new_dims.iter().product::<usize>(), self.cells.len());
        Grid {
            dims: new_dims.to_vec(),
            cells: self.cells.clone(),
        }
    }

    /// Output dim `k` is input dim `perm[k]`.
    fn transpose(&self, perm: &[usize]) -> Grid {
        assert_eq!(perm.len(), self.dims.len());
        let new_dims: Vec<usize> = perm.iter().map(|&p| self.dims[p]).collect();
        let cells = row_major_indices(&new_dims)
            .into_iter()
            .map(|out| {
                let mut src = vec![0; self.dims.len()];
                for (k, &p) in perm.iter().enumerate() {
                    src[p] = out[k];
                }
                self.get(&src)
            })
            .collect();
        Grid {
            dims: new_dims,
            cells,
        }
    }
}

/// One tile level, step (d). `tile` entries are sizes or `None` for `*`.
fn apply_tile_level(g: Grid, tile: &[Option<usize>]) -> Option<Grid> {
    let k = tile.len();
    // (d1) a tile with more entries than the shape: prepend size-1 dims.
    let g = if k > g.dims.len() {
        let mut dims = vec![1; k - g.dims.len()];
        dims.extend_from_slice(&g.dims);
        g.reshape(&dims)
    } else {
        g
    };
    let base = g.dims.len() - k;
    // (d2) merge each `*` dim into the next more-minor one. The merged dims
    // are adjacent, so a row-major merge is a reshape.
    let mut merged = g.dims[..base].to_vec();
    let mut sizes = Vec::new();
    let mut pending = 1;
    for (j, entry) in tile.iter().enumerate() {
        pending *= g.dims[base + j];
        if let Some(t) = entry {
            merged.push(pending);
            sizes.push(*t);
            pending = 1;
        }
    }
    assert_eq!(pending, 1, "a tile's last entry is never `*`");
    let g = g.reshape(&merged);
    let m = sizes.len();
    // (d3) pad the m most-minor dims to whole multiples of the tile.
    let mut padded = g.dims[..base].to_vec();
    for (i, &t) in sizes.iter().enumerate() {
        padded.push(g.dims[base + i].div_ceil(t) * t);
    }
    let g = g.pad_to(&padded)?;
    // (d4) reshape each padded dim into (count, tile).
    let mut split = g.dims[..base].to_vec();
    for (i, &t) in sizes.iter().enumerate() {
        split.push(g.dims[base + i] / t);
        split.push(t);
    }
    let g = g.reshape(&split);
    // (d5) move all tile dims to the minor end: (p.., c1,t1, .., cm,tm)
    // becomes (p.., c1..cm, t1..tm).
    let mut perm: Vec<usize> = (0..base).collect();
    perm.extend((0..m).map(|i| base + 2 * i));
    perm.extend((0..m).map(|i| base + 2 * i + 1));
    Some(g.transpose(&perm))
}

/// The model's whole buffer.
#[derive(Clone, Debug)]
struct Model {
    /// Every slot, tail padding included.
    buffer: Vec<Cell>,
    /// The final tiled shape, major to minor (before tail padding).
    physical_dims: Vec<usize>,
    /// Slots before the `L(n)` tail.
    untailed_len: usize,
}

/// Materialises the buffer of `spec`; `None` when it exceeds [`MODEL_CAP`].
fn reference_model(spec: &Spec) -> Option<Model> {
    let n = spec.dims.len();
    // (a) the logical array of indices.
    let g = Grid::logical(&spec.dims);
    if g.cells.len() > MODEL_CAP {
        return None;
    }
    // (b) pad each logical dim to its pad(..) width.
    let g = match &spec.padded {
        Some(p) => g.pad_to(p)?,
        None => g,
    };
    // (c) transpose into physical order: major to minor is m2m reversed.
    let perm: Vec<usize> = (0..n).map(|i| spec.m2m[n - 1 - i]).collect();
    let mut g = g.transpose(&perm);
    // (d) each tile level in turn.
    for tile in &spec.tiles {
        g = apply_tile_level(g, tile)?;
    }
    // (e) flatten row-major: the cells already are in that order.
    let physical_dims = g.dims.clone();
    let mut buffer = g.cells;
    let untailed_len = buffer.len();
    // (f) tail padding up to a multiple of L.
    while buffer.len() % spec.align != 0 {
        buffer.push(None);
    }
    Some(Model {
        buffer,
        physical_dims,
        untailed_len,
    })
}

// ---------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------

/// Layouts of every array type: rank 0..=4, dims 0..=7 (0 one time in 8),
/// any minor_to_major, up to 3 tile levels of 1 to rank + 1 entries 1..=5
/// (`*` one time in 5), `pad(..)` widening each dim by 0..=3 half the time,
/// `L(1..=5)` one time in 3, and half the time `E(n)` chosen from none and
/// the widths at least the type's.
fn layouts() -> SpecGen {
    SpecGen {
        rank: 0..=4,
        max_dim: 7,
        zero_dim_one_in: 8,
        max_tile_size: 5,
        combined_one_in: 5,
        max_pad: Some(3),
        max_align: 5,
        align_one_in: 3,
        e_widths: vec![1, 2, 4, 8, 16, 32, 64, 128],
        e_one_in: 2,
        ..SpecGen::new(
            PrimitiveType::ALL
                .iter()
                .copied()
                .filter(|t| t.is_array())
                .collect(),
        )
    }
}

fn spec_strategy() -> impl Strategy<Value = Spec> {
    layouts().spec()
}

/// Two layouts of the same logical array (element type, `E(n)` and dims).
fn spec_pair_strategy() -> impl Strategy<Value = (Spec, Spec)> {
    layouts().pair(PairBits::Same)
}

/// A generated layout with the engine's and the model's view of it.
fn engine_and_model(spec: &Spec) -> Result<(ArrayLayout, Option<Model>), TestCaseError> {
    // Every generated layout is valid: any rejection is a failure.
    let engine = spec
        .build()
        .map_err(|e| TestCaseError::fail(format!("{spec}: engine rejected: {e}")))?;
    Ok((engine, reference_model(spec)))
}

/// Layouts generated per property.
const CASES: u32 = 10_000;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_global_rejects: cases / 10,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Bytes for `slots` elements of `ty` under `E(e_bits)`.
fn bytes(ty: PrimitiveType, e_bits: u32, slots: usize) -> usize {
    if e_bits == 0 {
        slots * ty.bit_width().div_ceil(8) as usize
    } else {
        (slots * e_bits as usize).div_ceil(8)
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    /// Offsets, buffer length, the inverse and the physical shape agree
    /// with the model slot for slot.
    #[test]
    fn engine_matches_reference_model(spec in spec_strategy()) {
        let (engine, model) = engine_and_model(&spec)?;
        let Some(model) = model else { return Err(TestCaseError::reject("model too large")) };
        let what = spec.to_string();

        // The buffer length.
        prop_assert_eq!(engine.buffer_len(), model.buffer.len(), "buffer_len of {}", what);

        // The model's positions of all logical indices.
        for (pos, cell) in model.buffer.iter().enumerate() {
            if let Some(idx) = cell {
                prop_assert_eq!(engine.try_offset(idx), Ok(pos), "offset of {:?} in {}", idx, what);
            }
        }

        // Offsets are a bijection from all logical indices onto the
        // non-padding slots, each below buffer_len.
        let indices = row_major_indices(&spec.dims);
        prop_assert_eq!(engine.element_count(), indices.len(), "element_count of {}", what);
        let mut seen = HashSet::new();
        for idx in &indices {
            let o = engine.try_offset(idx);
            prop_assert!(o.is_ok(), "offset of {:?} in {} is {:?}", idx, what, o);
            let o = o.unwrap();
            prop_assert!(o < engine.buffer_len(), "offset {} of {:?} in {}", o, idx, what);
            prop_assert!(seen.insert(o), "offset {} taken twice in {}", o, what);
            prop_assert_eq!(model.buffer.get(o), Some(&Some(idx.clone())), "slot {} in {}", o, what);
        }
        let elements = model.buffer.iter().filter(|c| c.is_some()).count();
        prop_assert_eq!(seen.len(), elements, "elements in {}", what);

        // slot(o) is the inverse of offset and tells padding apart.
        for (o, cell) in model.buffer.iter().enumerate() {
            let expected = match cell {
                Some(idx) => Slot::Element(tessera::DimVec::from_slice(idx)),
                None => Slot::Padding,
            };
            prop_assert_eq!(engine.try_slot(o), Ok(expected), "slot({}) of {}", o, what);
        }
        prop_assert!(engine.try_slot(model.buffer.len()).is_err(), "slot(buffer_len) of {}", what);

        // The physical shape is the model's final tiled shape, and its
        // product is the length before the L(n) tail.
        let physical = engine.physical_shape();
        prop_assert_eq!(physical.dims(), &model.physical_dims[..], "physical_shape of {}", what);
        prop_assert_eq!(
            physical.dims().iter().product::<usize>(),
            model.untailed_len,
            "physical_shape product of {}", what
        );
        prop_assert!(engine.buffer_len() >= model.untailed_len);
        prop_assert!(engine.buffer_len() - model.untailed_len < spec.align);
        prop_assert_eq!(engine.buffer_len() % spec.align, 0);
    }

    /// When the engine reports strides, they give every offset; layouts
    /// without tiles always have strides.
    #[test]
    fn strides_agree_with_offsets(spec in spec_strategy()) {
        let (engine, model) = engine_and_model(&spec)?;
        let Some(model) = model else { return Err(TestCaseError::reject("model too large")) };
        let what = spec.to_string();
        let strides = engine.strides();
        if spec.tiles.is_empty() {
            prop_assert!(strides.is_some(), "untiled {} has no strides", what);
        }
        if let Some(strides) = strides {
            prop_assert_eq!(strides.len(), spec.dims.len());
            for (pos, cell) in model.buffer.iter().enumerate() {
                if let Some(idx) = cell {
                    let by_strides: usize = idx.iter().zip(strides.iter()).map(|(i, s)| i * s).sum();
                    prop_assert_eq!(
                        by_strides, pos,
                        "strides {:?} of {} give {} for {:?}, the model {}",
                        &strides[..], what, by_strides, idx, pos
                    );
                }
            }
        }
    }

    /// The physical dims' digit formula gives every element's offset
    /// whenever the layout is separable.
    #[test]
    fn physical_digits_give_offsets(spec in spec_strategy()) {
        let (engine, model) = engine_and_model(&spec)?;
        let Some(model) = model else { return Err(TestCaseError::reject("model too large")) };
        let what = spec.to_string();
        let dims = engine.physical_dims();
        let sizes: Vec<usize> = dims.iter().map(|d| d.size).collect();
        let physical = engine.physical_shape();
        prop_assert_eq!(&sizes[..], physical.dims(), "sizes of {}", what);
        if dims.is_separable() {
            for (pos, cell) in model.buffer.iter().enumerate() {
                if let Some(idx) = cell {
                    let by_digits: usize = dims
                        .iter()
                        .map(|d| match d.source {
                            DigitSource::Constant => 0,
                            DigitSource::Logical { dim, div, modulus } => {
                                let q = idx[dim] / div;
                                d.stride * modulus.map_or(q, |m| q % m)
                            }
                            DigitSource::Mixed => unreachable!(),
                        })
                        .sum();
                    prop_assert_eq!(by_digits, pos, "digits of {} for {:?}", what, idx);
                }
            }
        }
    }

    /// Logical-order iteration gives every index in row-major order with
    /// the model's offset; memory-order iteration gives the model's cells.
    #[test]
    fn elements_and_slots_walk_the_model(spec in spec_strategy()) {
        let (engine, model) = engine_and_model(&spec)?;
        let Some(model) = model else { return Err(TestCaseError::reject("model too large")) };
        let what = spec.to_string();
        let walked: Vec<(Vec<usize>, usize)> =
            engine.elements().map(|(i, o)| (i.to_vec(), o)).collect();
        let expected: Vec<(Vec<usize>, usize)> = row_major_indices(&spec.dims)
            .into_iter()
            .map(|i| {
                let o = model_offset(&model, &i);
                (i, o)
            })
            .collect();
        prop_assert_eq!(walked, expected, "elements() of {}", what);
        let slots: Vec<Slot> = engine.slots().collect();
        let cells: Vec<Slot> = model
            .buffer
            .iter()
            .map(|c| match c {
                Some(idx) => Slot::Element(tessera::DimVec::from_slice(idx)),
                None => Slot::Padding,
            })
            .collect();
        prop_assert_eq!(slots, cells, "slots() of {}", what);
    }

    /// A relayout nest visits every element once, with its offset in
    /// each layout, and never a padding slot.
    #[test]
    fn relayout_nests_pair_offsets((src, dst) in spec_pair_strategy()) {
        let (a, b) = (src.build(), dst.build());
        let (Ok(a), Ok(b)) = (a, b) else {
            return Err(TestCaseError::fail("generated layout rejected"));
        };
        if a.buffer_len() > MODEL_CAP || b.buffer_len() > MODEL_CAP {
            return Err(TestCaseError::reject("too large"));
        }
        let what = format!("{src} -> {dst}");
        let Some(nest) = tessera::walk::LoopNest::relayout(&a, &b).unwrap() else {
            return Ok(()); // no common digits: copied element by element
        };
        let mut pairs = Vec::new();
        let [ss, ds] = nest.inner_strides();
        nest.for_each_run(|[s, d], len| {
            pairs.extend((0..len).map(|i| (s + i * ss, d + i * ds)));
        });
        let mut expected: Vec<(usize, usize)> = row_major_indices(&src.dims)
            .iter()
            .map(|i| (a.try_offset(i).unwrap(), b.try_offset(i).unwrap()))
            .collect();
        // The nest visits the destination in memory order.
        let visited_dst: Vec<usize> = pairs.iter().map(|p| p.1).collect();
        let mut sorted = visited_dst.clone();
        sorted.sort_unstable();
        prop_assert_eq!(&visited_dst, &sorted, "destination order of {}", what);
        pairs.sort_unstable();
        expected.sort_unstable();
        prop_assert_eq!(&pairs, &expected, "pairs of {}", what);
        // Volumes in any order: the same pairs, in calls no smaller
        // than the nest order's.
        let strides = nest.volume_strides();
        let volume_pairs = |any_order: bool| {
            let mut pairs = Vec::new();
            let mut calls = 0;
            let mut visit = |start: [usize; 2], shape: [usize; 4]| {
                calls += 1;
                for o in 0..shape[0] {
                    for k in 0..shape[1] {
                        for r in 0..shape[2] {
                            for i in 0..shape[3] {
                                let at = |b: usize| {
                                    start[b] + o * strides[0][b] + k * strides[1][b]
                                        + r * strides[2][b] + i * strides[3][b]
                                };
                                pairs.push((at(0), at(1)));
                            }
                        }
                    }
                }
            };
            match any_order {
                true => nest.for_each_volume_any_order(&mut visit),
                false => nest.for_each_volume(&mut visit),
            }
            pairs.sort_unstable();
            (pairs, calls)
        };
        let (in_order, calls) = volume_pairs(false);
        let (any_order, fewer) = volume_pairs(true);
        prop_assert_eq!(&in_order, &expected, "volumes of {}", what);
        prop_assert_eq!(&any_order, &expected, "volumes in any order of {}", what);
        prop_assert!(fewer <= calls, "{} volumes in any order, {} in order: {}", fewer, calls, what);
        // Volumes a band at a time: the nest's own volumes in the same
        // order, a band of many only of volumes alike (one shape, one
        // stride apart).
        let volumes = |any_order: bool| {
            let mut volumes = Vec::new();
            match any_order {
                true => nest.for_each_volume_any_order(|start, shape| volumes.push((start, shape))),
                false => nest.for_each_volume(|start, shape| volumes.push((start, shape))),
            }
            volumes
        };
        for any_order in [false, true] {
            let mut banded = Vec::new();
            let mut visit = |start: [usize; 2], shape: [usize; 4], bands: usize, stride: [usize; 2]| {
                banded.extend((0..bands).map(|b| {
                    ([start[0] + b * stride[0], start[1] + b * stride[1]], shape)
                }));
            };
            match any_order {
                true => nest.for_each_volume_band_any_order(&mut visit),
                false => nest.for_each_volume_band(&mut visit),
            }
            let plain = volumes(any_order);
            prop_assert_eq!(&banded, &plain, "volume bands (any order: {}) of {}", any_order, what);
        }
    }

    /// A nest template (dims marked `?` in both layouts) serves the
    /// concrete sizes: it visits every element once, in the destination's
    /// memory order, with its offset in each layout.
    #[test]
    fn nest_templates_serve_every_size(
        (src, dst) in spec_pair_strategy(),
        dynamic in proptest::collection::vec(any::<bool>(), tessera::MAX_RANK),
    ) {
        let (a, b) = (src.build(), dst.build());
        let (Ok(a), Ok(b)) = (a, b) else {
            return Err(TestCaseError::fail("generated layout rejected"));
        };
        if a.buffer_len() > MODEL_CAP || b.buffer_len() > MODEL_CAP {
            return Err(TestCaseError::reject("too large"));
        }
        let template = |l: &ArrayLayout| {
            let dims: Vec<Dim> = l
                .sizes()
                .iter()
                .zip(&dynamic)
                .map(|(&n, &d)| if d { Dim::Unbounded } else { Dim::Static(n) })
                .collect();
            Shape::without_layout_from_dims(l.element_type(), &dims)
                .and_then(|s| s.with_layout(*l.layout()))
        };
        let (Ok(ta), Ok(tb)) = (template(&a), template(&b)) else {
            return Ok(()); // a layout attribute that needs static dims
        };
        let what = format!("{src} -> {dst} with {ta} -> {tb}");
        let Some(t) = tessera::walk::NestTemplate::relayout(&ta, &tb) else {
            return Ok(()); // built per call
        };
        let sizes = a.sizes();
        let nest = t.nest(&sizes, &sizes);
        prop_assert!(nest.is_some(), "no nest for the template's own sizes: {}", what);
        let nest = nest.unwrap();
        let mut pairs = Vec::new();
        let [ss, ds] = nest.inner_strides();
        nest.for_each_run(|[s, d], len| {
            pairs.extend((0..len).map(|i| (s + i * ss, d + i * ds)));
        });
        let visited_dst: Vec<usize> = pairs.iter().map(|p| p.1).collect();
        let mut sorted = visited_dst.clone();
        sorted.sort_unstable();
        prop_assert_eq!(&visited_dst, &sorted, "destination order of {}", what);
        let mut expected: Vec<(usize, usize)> = row_major_indices(&src.dims)
            .iter()
            .map(|i| (a.try_offset(i).unwrap(), b.try_offset(i).unwrap()))
            .collect();
        pairs.sort_unstable();
        expected.sort_unstable();
        prop_assert_eq!(pairs, expected, "pairs of {}", what);
    }

    /// Byte sizes follow from element_count / buffer_len and E(n).
    #[test]
    fn byte_sizes_agree_with_counts(spec in spec_strategy()) {
        let (engine, model) = engine_and_model(&spec)?;
        let what = spec.to_string();
        let elements: usize = spec.dims.iter().product();
        prop_assert_eq!(engine.element_count(), elements, "element_count of {}", what);
        prop_assert_eq!(
            engine.logical_byte_size(),
            bytes(spec.ty, spec.e_bits, elements),
            "logical_byte_size of {}", what
        );
        prop_assert_eq!(
            engine.physical_byte_size(),
            bytes(spec.ty, spec.e_bits, engine.buffer_len()),
            "physical_byte_size of {}", what
        );
        if let Some(model) = model {
            prop_assert_eq!(engine.buffer_len(), model.buffer.len(), "buffer_len of {}", what);
        }
        prop_assert!(engine.physical_byte_size() >= engine.logical_byte_size());
    }
}

// ---------------------------------------------------------------------------
// Deterministic tests
// ---------------------------------------------------------------------------

/// The layouts people write have a digit formula for every physical dim.
#[test]
fn common_layouts_are_separable() {
    for text in [
        "f32[1024,1024]{1,0:T(8,128)}",
        "bf16[1000,1000]{1,0:T(8,128)(2,1)}",
        "s8[64,300]{0,1:T(32,128)(4,1)}",
        "f32[3,5]{1,0:T(2,2)L(32)pad(4,8)}",
    ] {
        let a: ArrayLayout = text.parse().unwrap();
        assert!(a.physical_dims().is_separable(), "{text}");
    }
    // A later tile that does not divide an earlier one has no digit formula.
    let a: ArrayLayout = "pred[6]{0:T(3)(2)}".parse().unwrap();
    assert!(!a.physical_dims().is_separable());
}

/// Layouts where `strides()` is `Some` although tiling reorders elements
/// (found by `strides_agree_with_offsets`; the model's offsets are
/// written out by hand).
#[test]
fn strides_of_reordering_tiles() {
    // f32[3]{0:T(2,2)}: [3] -> [1,3] -> padded [2,4] -> (1,2,2,2); element
    // e at (0, e/2, 0, e%2), offset (e/2)*4 + e%2: 0, 1, 4. Not linear.
    let short = Spec::plain(F32, &[3], &[0]).tiled(&[&[Some(2), Some(2)]]);
    // f32[8]{0:T(4)(2,1)}: (4) gives (e/4, e%4) in [2,4]; (2,1) gives
    // (e%4)*2 + e/4: 0, 2, 4, 6, 1, 3, 5, 7. Not linear.
    let repeated = Spec::plain(F32, &[8], &[0]).tiled(&[&[Some(4)], &[Some(2), Some(1)]]);
    // pred[3]{0:T(2)(3)}: (2) gives (e/2, e%2) in [2,2]; (3) pads the
    // within-tile dim to 3: [2,1,3], offset (e/2)*3 + e%2: 0, 1, 3.
    let padded_later =
        Spec::plain(PrimitiveType::Pred, &[3], &[0]).tiled(&[&[Some(2)], &[Some(3)]]);
    let mut wrong = Vec::new();
    for (spec, offsets) in [
        (short, vec![0, 1, 4]),
        (repeated, vec![0, 2, 4, 6, 1, 3, 5, 7]),
        (padded_later, vec![0, 1, 3]),
    ] {
        let model = reference_model(&spec).unwrap();
        let engine = spec.build().unwrap();
        for (e, &want) in offsets.iter().enumerate() {
            assert_eq!(model_offset(&model, &[e]), want, "model, {spec}");
            assert_eq!(engine.try_offset(&[e]), Ok(want), "engine, {spec}");
        }
        if let Some(strides) = engine.strides() {
            wrong.push(format!("{spec}: strides {:?}", &strides[..]));
        }
    }
    assert!(
        wrong.is_empty(),
        "strides reported for reordering layouts: {wrong:#?}"
    );
}

/// The model's offset of every logical index, as a map from index to slot.
fn model_offset(model: &Model, idx: &[usize]) -> usize {
    model
        .buffer
        .iter()
        .position(|c| c.as_deref() == Some(idx))
        .unwrap_or_else(|| panic!("{idx:?} not in the model's buffer"))
}

const F32: PrimitiveType = PrimitiveType::F32;

/// XLA's tiled-layout doc: `f32[3,5]{1,0:T(2,2)}`, element (2,3) is at 17.
#[test]
fn doc_example_3x5_tiled_2x2() {
    let spec = Spec::plain(F32, &[3, 5], &[1, 0]).tiled(&[&[Some(2), Some(2)]]);
    let model = reference_model(&spec).unwrap();
    let engine = spec.build().unwrap();
    assert_eq!(model_offset(&model, &[2, 3]), 17);
    assert_eq!(engine.try_offset(&[2, 3]), Ok(17));
    assert_eq!(model.buffer.len(), 24);
    assert_eq!(engine.buffer_len(), 24);
    assert_eq!(model.physical_dims, [2, 3, 2, 2]);
    assert_eq!(engine.physical_shape().dims(), &[2, 3, 2, 2]);
}

/// XLA's tiled-layout doc: a 4x8 array tiled (2,4)(2,1).
#[test]
fn doc_example_4x8_tiled_2x4_then_2x1() {
    let expected: [[usize; 8]; 4] = [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ];
    let spec =
        Spec::plain(F32, &[4, 8], &[1, 0]).tiled(&[&[Some(2), Some(4)], &[Some(2), Some(1)]]);
    let model = reference_model(&spec).unwrap();
    let engine = spec.build().unwrap();
    for (i, row) in expected.iter().enumerate() {
        for (j, &want) in row.iter().enumerate() {
            assert_eq!(model_offset(&model, &[i, j]), want, "model at ({i},{j})");
            assert_eq!(engine.try_offset(&[i, j]), Ok(want), "engine at ({i},{j})");
        }
    }
    assert_eq!(model.physical_dims, [2, 2, 1, 4, 2, 1]);
    assert_eq!(engine.physical_shape().dims(), &[2, 2, 1, 4, 2, 1]);
    assert_eq!(engine.buffer_len(), 32);
}

/// Combined dims: `f32[2,7,8,11,10]{4,3,2,1,0}` with `T(*,*,2,*,3)` is
/// `f32[112,110]` tiled (2,3).
#[test]
fn combined_dims_equal_merged_shape() {
    let combined = Spec::plain(F32, &[2, 7, 8, 11, 10], &[4, 3, 2, 1, 0]).tiled(&[&[
        None,
        None,
        Some(2),
        None,
        Some(3),
    ]]);
    let merged = Spec::plain(F32, &[112, 110], &[1, 0]).tiled(&[&[Some(2), Some(3)]]);
    let (ec, em) = (combined.build().unwrap(), merged.build().unwrap());
    let (mc, mm) = (
        reference_model(&combined).unwrap(),
        reference_model(&merged).unwrap(),
    );
    assert_eq!(mc.buffer.len(), mm.buffer.len());
    assert_eq!(ec.buffer_len(), em.buffer_len());
    assert_eq!(ec.buffer_len(), mc.buffer.len());
    assert_eq!(ec.physical_shape().dims(), em.physical_shape().dims());
    // Slot by slot, the model's buffers hold the same elements once the
    // 5-d index is merged into the 2-d one.
    for (o, (c, m)) in mc.buffer.iter().zip(&mm.buffer).enumerate() {
        let c2 = c
            .as_ref()
            .map(|i| vec![(i[0] * 7 + i[1]) * 8 + i[2], i[3] * 10 + i[4]]);
        assert_eq!(&c2, m, "model slot {o}");
    }
    for idx in row_major_indices(&combined.dims) {
        let at = [(idx[0] * 7 + idx[1]) * 8 + idx[2], idx[3] * 10 + idx[4]];
        let want = em.try_offset(&at).unwrap();
        assert_eq!(
            ec.try_offset(&idx),
            Ok(want),
            "engine offset of {idx:?} vs {at:?}"
        );
        assert_eq!(mm.buffer[want].as_deref(), Some(&at[..]), "model at {want}");
    }
}

/// Tessera's decision on repeated tiling: `f32[6,8]{1,0:T(3,4)(2,1)}` needs
/// 64 slots (XLA's ArraySize allocates 48).
#[test]
fn repeated_tiling_buffer_covers_all_offsets() {
    let spec =
        Spec::plain(F32, &[6, 8], &[1, 0]).tiled(&[&[Some(3), Some(4)], &[Some(2), Some(1)]]);
    let model = reference_model(&spec).unwrap();
    let engine = spec.build().unwrap();
    assert_eq!(model.buffer.len(), 64);
    assert_eq!(engine.buffer_len(), 64);
    let max = row_major_indices(&spec.dims)
        .iter()
        .map(|i| engine.try_offset(i).unwrap())
        .max()
        .unwrap();
    assert!((48..64).contains(&max), "largest offset {max}");
}

/// `pad(..)` pads logical dims before `minor_to_major`; `L(n)` pads the
/// tail.
#[test]
fn padding_and_tail_alignment() {
    let mut row = Spec::plain(F32, &[2, 3], &[1, 0]);
    row.padded = Some(vec![3, 4]);
    row.align = 5;
    let mut col = row.clone();
    col.m2m = vec![0, 1];
    let (er, ec) = (row.build().unwrap(), col.build().unwrap());
    let (mr, mc) = (
        reference_model(&row).unwrap(),
        reference_model(&col).unwrap(),
    );
    for idx in row_major_indices(&[2, 3]) {
        let (i, j) = (idx[0], idx[1]);
        assert_eq!(model_offset(&mr, &idx), i * 4 + j);
        assert_eq!(er.try_offset(&idx), Ok(i * 4 + j));
        assert_eq!(model_offset(&mc, &idx), j * 3 + i);
        assert_eq!(ec.try_offset(&idx), Ok(j * 3 + i));
    }
    // 12 padded slots rounded up to L(5).
    assert_eq!((mr.buffer.len(), er.buffer_len()), (15, 15));
    assert_eq!((mc.buffer.len(), ec.buffer_len()), (15, 15));
    assert_eq!(er.try_slot(3), Ok(Slot::Padding));
    assert_eq!(er.try_slot(12), Ok(Slot::Padding));
    assert_eq!(er.strides().as_deref(), Some(&[4, 1][..]));
    assert_eq!(ec.strides().as_deref(), Some(&[1, 3][..]));
    // s4 packed by E(4): 15 slots take 8 bytes, 6 elements 3 bytes.
    let mut packed = row.clone();
    packed.ty = PrimitiveType::S4;
    packed.e_bits = 4;
    let ep = packed.build().unwrap();
    assert_eq!((ep.logical_byte_size(), ep.physical_byte_size()), (3, 8));
}

/// A tile with more entries than the shape: missing dims are leading 1s.
#[test]
fn tile_longer_than_shape() {
    let spec = Spec::plain(F32, &[5], &[0]).tiled(&[&[Some(2), Some(3)]]);
    let model = reference_model(&spec).unwrap();
    let engine = spec.build().unwrap();
    // [5] -> [1,5] -> padded [2,6] -> (1,2,2,3) with element e at (0,e/3,0,e%3).
    assert_eq!(model.physical_dims, [1, 2, 2, 3]);
    assert_eq!(engine.physical_shape().dims(), &[1, 2, 2, 3]);
    for e in 0..5 {
        let want = (e / 3) * 6 + e % 3;
        assert_eq!(model_offset(&model, &[e]), want);
        assert_eq!(engine.try_offset(&[e]), Ok(want));
    }
    assert_eq!(engine.buffer_len(), 12);
}

/// The model's building blocks on a tiny case, so that a broken helper
/// cannot hide behind an equally broken engine.
#[test]
fn model_helpers() {
    assert_eq!(row_major_indices(&[]), vec![Vec::<usize>::new()]);
    assert!(row_major_indices(&[2, 0]).is_empty());
    assert_eq!(
        row_major_indices(&[2, 2]),
        vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]
    );
    let g = Grid::logical(&[2, 3]).transpose(&[1, 0]);
    assert_eq!(g.dims, [3, 2]);
    assert_eq!(g.cells[1], Some(vec![1, 0]));
    let p = Grid::logical(&[1, 2]).pad_to(&[2, 3]).unwrap();
    assert_eq!(
        p.cells,
        vec![Some(vec![0, 0]), Some(vec![0, 1]), None, None, None, None]
    );
    // A scalar with a tile: one element, padded out to the tile.
    let mut s = Spec::plain(F32, &[], &[]).tiled(&[&[Some(4)]]);
    s.align = 3;
    let m = reference_model(&s).unwrap();
    assert_eq!(m.buffer, vec![Some(vec![]), None, None, None, None, None]);
    let e = s.build().unwrap();
    assert_eq!((e.try_offset(&[]), e.buffer_len()), (Ok(0), 6));
    // Bounded dims are not generated above; check they take their bound.
    let b = Shape::with_dims(F32, &[Dim::Bounded(3)]).unwrap();
    assert_eq!(ArrayLayout::new(b).unwrap().buffer_len(), 3);
}
