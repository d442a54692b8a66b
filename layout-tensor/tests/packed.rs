//! Packed sub-byte tensors checked against a plain reference of XLA's
//! `PackIntN` rule (the slot at offset `o` with `n` bits per slot lives in
//! byte `o*n/8`, shifted left by `8 - n - o*n%8`), for thousands of
//! generated layouts of every sub-byte element type.

use layout_tensor::packed::{F4e2m1fn, Pred, S1, S2, S4, U1, U2, U4};
use layout_tensor::{Packed, PackedBuf, PackedView, PackedViewMut, SubByte, TensorBuf};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use tessera::{AnyLayout, ArrayLayout, ErrorKind, PreparedLayout, PrimitiveType, Slot};
use test_support::{PairBits, Spec, SpecGen, row_major};

// ---------------------------------------------------------------------
// Generated layouts
// ---------------------------------------------------------------------

const TYPES: [PrimitiveType; 8] = [
    PrimitiveType::S4,
    PrimitiveType::U4,
    PrimitiveType::S2,
    PrimitiveType::U2,
    PrimitiveType::S1,
    PrimitiveType::U1,
    PrimitiveType::F4e2m1fn,
    PrimitiveType::Pred,
];

/// Layouts of rank 0..=3 with dims 0..=6, any minor_to_major, up to 3
/// tile levels (repeated tiling, `*`, a last entry of 8 half the time),
/// `E(n)` or none, `pad(..)`, `L(n)`, of every sub-byte element type.
fn layouts() -> SpecGen {
    SpecGen {
        wide_last_tile: Some(8),
        e_widths: vec![1, 2, 4, 8],
        e_one_in: 1,
        ..SpecGen::new(TYPES.to_vec())
    }
}

fn spec() -> impl Strategy<Value = Spec> {
    layouts().spec()
}

/// Two layouts of the same element type and dims (any `E(n)` each).
fn spec_pair() -> impl Strategy<Value = (Spec, Spec)> {
    layouts().pair(PairBits::Own)
}

/// Two row-major layouts `[rows, cols]` with long rows, each packed at
/// the type's own width and padded to some row length by a `T(1,k)`
/// tile: the relayout's runs are long and start at every bit phase, so
/// whole bytes are copied between ragged ends.
fn long_run_pair() -> impl Strategy<Value = (Spec, Spec)> {
    test_support::long_row_pair(TYPES.to_vec())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        // Under Miri (`.ci/run`), a sample: Miri runs about 1000x slower.
        cases: if cfg!(miri) { 4 } else { 2500 },
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------
// The reference
// ---------------------------------------------------------------------

/// Values as integers, for the reference (which does not use the
/// crate's own encoding).
trait TestValue: Copy + PartialEq + std::fmt::Debug {
    fn from_i64(v: i64) -> Option<Self>;
}

impl TestValue for i8 {
    fn from_i64(v: i64) -> Option<i8> {
        i8::try_from(v).ok()
    }
}

impl TestValue for u8 {
    fn from_i64(v: i64) -> Option<u8> {
        u8::try_from(v).ok()
    }
}

impl TestValue for bool {
    fn from_i64(v: i64) -> Option<bool> {
        match v {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

/// The values of `ty`, as integers.
fn range(ty: PrimitiveType) -> std::ops::Range<i64> {
    let w = ty.bit_width();
    if ty.is_signed_integral() {
        -(1 << (w - 1))..(1 << (w - 1))
    } else {
        0..(1 << w)
    }
}

/// The `n` bits a value of `ty` occupies: its two's complement low `w`
/// bits, upper bits zero (`PackIntN`'s `input & LsbMask(n)` of an
/// ml_dtypes value).
fn reference_bits(ty: PrimitiveType, v: i64) -> u8 {
    (v & ((1 << ty.bit_width()) - 1)) as u8
}

/// Writes `field` into slot `offset` of `bytes` by the `PackIntN` rule.
fn reference_write(bytes: &mut [u8], offset: usize, n: usize, field: u8) {
    if n == 8 {
        bytes[offset] = field;
        return;
    }
    let bit = offset * n;
    let shift = 8 - n - bit % 8;
    let mask = (((1u16 << n) - 1) as u8) << shift;
    bytes[bit / 8] = (bytes[bit / 8] & !mask) | (field << shift);
}

/// The `n`-bit field of slot `offset`.
fn reference_read(bytes: &[u8], offset: usize, n: usize) -> u8 {
    if n == 8 {
        return bytes[offset];
    }
    let bit = offset * n;
    let shift = 8 - n - bit % 8;
    (bytes[bit / 8] >> shift) & (((1u16 << n) - 1) as u8)
}

/// A value of `ty` per logical index, from a seed.
fn values_for(ty: PrimitiveType, count: usize, seed: u64) -> Vec<i64> {
    let r = range(ty);
    let span = (r.end - r.start) as u64;
    let mut x = seed | 1;
    (0..count)
        .map(|_| {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            r.start + (x % span) as i64
        })
        .collect()
}

/// The buffer the reference expects: `fill` everywhere, each element's
/// bits at its engine offset.
fn reference_bytes(layout: &ArrayLayout, values: &[i64], fill: u8) -> Vec<u8> {
    let n = layout.element_size_in_bits();
    let mut bytes = vec![fill; layout.physical_byte_size()];
    for (index, v) in row_major(layout.sizes().as_slice()).iter().zip(values) {
        let offset = layout.offset(index);
        reference_write(
            &mut bytes,
            offset,
            n,
            reference_bits(layout.element_type(), *v),
        );
    }
    bytes
}

// ---------------------------------------------------------------------
// The checks, generic over the element type
// ---------------------------------------------------------------------

fn typed<E: SubByte>(values: &[i64]) -> Vec<E::Value>
where
    E::Value: TestValue,
{
    values
        .iter()
        .map(|v| E::Value::from_i64(*v).unwrap())
        .collect()
}

/// set/get round trip, bits where the reference says, and every other
/// construction path agreeing.
fn check_round_trip<E: SubByte>(layout: ArrayLayout, seed: u64) -> Result<(), TestCaseError>
where
    E::Value: TestValue,
{
    let rt = PreparedLayout::new(layout);
    let indices = row_major(layout.sizes().as_slice());
    let ints = values_for(layout.element_type(), indices.len(), seed);
    let values = typed::<E>(&ints);

    let mut t = PackedBuf::<_, E>::zeroed(rt).unwrap();
    prop_assert_eq!(t.as_bytes().len(), layout.physical_byte_size());
    for (index, v) in indices.iter().zip(&values) {
        t.set_dyn(index, *v).unwrap();
    }
    for (index, v) in indices.iter().zip(&values) {
        prop_assert_eq!(t.get_dyn(index), Some(*v), "index {:?}", index);
    }
    let expected = reference_bytes(&layout, &ints, 0);
    prop_assert_eq!(t.as_bytes(), &expected[..], "{}", layout);
    prop_assert_eq!(t.iter().collect::<Vec<_>>(), values.clone());
    prop_assert_eq!(t.iter().len(), indices.len());
    // `fold` after a partial walk, and `for_each`, agree with `next`.
    let skip = (seed as usize) % (values.len() + 1);
    let mut it = t.iter();
    let mut walked: Vec<E::Value> = it.by_ref().take(skip).collect();
    walked.extend(it.fold(Vec::new(), |mut acc, v| {
        acc.push(v);
        acc
    }));
    prop_assert_eq!(&walked, &values);
    let mut each = Vec::new();
    t.for_each(|index, v| each.push((index.to_vec(), v)));
    let expected_each: Vec<(Vec<usize>, E::Value)> = indices
        .iter()
        .cloned()
        .zip(values.iter().copied())
        .collect();
    prop_assert_eq!(&each, &expected_each);
    // Rows unpack to what `get` reads.
    let rank = layout.rank();
    let width = if rank == 0 { 1 } else { layout.size(rank - 1) };
    let mut row = vec![E::ZERO; width];
    for (index, chunk) in indices
        .chunks(width.max(1))
        .zip(values.chunks(width.max(1)))
    {
        let prefix = &index[0][..rank.saturating_sub(1)];
        t.read_row(prefix, &mut row).unwrap();
        prop_assert_eq!(&row[..], chunk, "row {:?} of {}", prefix, layout);
    }
    if rank > 0 {
        let mut short = vec![E::ZERO; width + 1];
        prop_assert!(t.read_row(&vec![0; rank - 1], &mut short).is_err());
        // Too many entries, up to more than any rank has: the error
        // names the row index's length and the rank.
        for found in [rank, tessera::MAX_RANK + 1] {
            let err = t.read_row(&vec![0; found], &mut row).map_err(|e| e.kind());
            prop_assert_eq!(err, Err(ErrorKind::RowIndexRankMismatch { rank, found }));
        }
        if rank > 1 && layout.element_count() > 0 {
            let mut bad = vec![0; rank - 1];
            bad[0] = layout.size(0);
            let err = t.read_row(&bad, &mut row).map_err(|e| e.kind());
            let out_of_bounds = matches!(err, Err(ErrorKind::IndexOutOfBounds { .. }));
            prop_assert!(out_of_bounds, "{:?}", err);
        }
    }

    // Slot by slot: elements hold their bits, padding stays zero.
    let n = layout.element_size_in_bits();
    for offset in 0..layout.buffer_len() {
        let field = t.slot_bits(offset).unwrap();
        prop_assert_eq!(field, reference_read(&expected, offset, n));
        if layout.slot(offset) == Slot::Padding {
            prop_assert_eq!(field, 0);
        }
    }
    prop_assert_eq!(t.slot_bits(layout.buffer_len()), None);

    // Out-of-bounds reads and writes.
    if layout.rank() > 0 {
        let mut bad = vec![0; layout.rank()];
        bad[0] = layout.size(0);
        prop_assert_eq!(t.get_dyn(&bad), None);
        let before = t.as_bytes().to_vec();
        let err = t.set_dyn(&bad, values.first().copied().unwrap_or(E::ZERO));
        let out_of_bounds = matches!(
            err.map_err(|e| e.kind()),
            Err(ErrorKind::IndexOutOfBounds { .. })
        );
        prop_assert!(out_of_bounds);
        prop_assert_eq!(t.as_bytes(), &before[..]);
    }

    // The other constructors.
    let from_values = PackedBuf::<_, E>::from_values(rt, values.iter().copied()).unwrap();
    prop_assert_eq!(from_values.as_bytes(), &expected[..]);
    let mut k = 0;
    let from_fn = PackedBuf::<_, E>::from_fn(rt, |i| {
        assert_eq!(i, &indices[k][..]);
        k += 1;
        values[k - 1]
    })
    .unwrap();
    prop_assert_eq!(from_fn.as_bytes(), &expected[..]);
    let view = PackedView::<_, E>::new(rt, &expected).unwrap();
    prop_assert!(view == t);
    let mut copy = expected.clone();
    let mut view_mut = PackedViewMut::<_, E>::new(rt, &mut copy).unwrap();
    let mut seen = Vec::new();
    view_mut.view().for_each(|i, v| seen.push((i.to_vec(), v)));
    prop_assert_eq!(
        seen,
        indices
            .iter()
            .cloned()
            .zip(values.iter().copied())
            .collect::<Vec<_>>()
    );
    view_mut.write_values(values.iter().copied()).unwrap();
    prop_assert_eq!(&copy, &expected);
    Ok(())
}

/// The writing walks against the reference: `fill` writes every
/// element's bits and no padding, `fill_padding` the padding's (zero:
/// the generated layouts name no padding value) and no element,
/// `for_each_mut` visits every element once and writes what it leaves,
/// and `slots` hands out every slot's index and value in memory order.
fn check_walks<E: SubByte>(layout: ArrayLayout, seed: u64) -> Result<(), TestCaseError>
where
    E::Value: TestValue,
{
    let rt = PreparedLayout::new(layout);
    let ty = layout.element_type();
    let n = layout.element_size_in_bits();
    let indices = row_major(layout.sizes().as_slice());
    let ints = values_for(ty, indices.len().max(1), seed);
    let typed_values = typed::<E>(&ints);
    let noise = (seed >> 8) as u8 | 1;
    // `fill`: over a buffer of noise, every element is the value and
    // every padding slot keeps its bits.
    let mut t = PackedBuf::<_, E>::from_vec(rt, vec![noise; layout.physical_byte_size()]).unwrap();
    t.fill(typed_values[0]).unwrap();
    let mut expected = vec![noise; layout.physical_byte_size()];
    for index in &indices {
        reference_write(
            &mut expected,
            layout.offset(index),
            n,
            reference_bits(ty, ints[0]),
        );
    }
    prop_assert_eq!(t.as_bytes(), &expected[..], "fill of {}", layout);
    // `fill_padding`: the padding slots zeroed, the elements kept.
    t.fill_padding().unwrap();
    for offset in 0..layout.buffer_len() {
        if layout.slot(offset) == Slot::Padding {
            reference_write(&mut expected, offset, n, 0);
        }
    }
    prop_assert_eq!(t.as_bytes(), &expected[..], "fill_padding of {}", layout);
    // `slots`: the engine's slot of each offset, the value its bits.
    let slots: Vec<(Option<Vec<usize>>, E::Value)> =
        t.slots().map(|(i, v)| (i.map(|i| i.to_vec()), v)).collect();
    prop_assert_eq!(slots.len(), layout.buffer_len());
    for (offset, (index, value)) in slots.iter().enumerate() {
        let bits = reference_read(&expected, offset, n);
        prop_assert_eq!(*value, E::from_bits(bits), "slot {} of {}", offset, layout);
        match layout.slot(offset) {
            Slot::Element(i) => prop_assert_eq!(index.as_deref(), Some(&i[..])),
            Slot::Padding => prop_assert_eq!(index, &None),
        }
    }
    // `for_each_mut`: each element once, written with its own value.
    let mut seen = Vec::new();
    t.for_each_mut(|i, v| {
        let k = indices.iter().position(|x| x == i).unwrap();
        seen.push(k);
        *v = typed_values[k % typed_values.len()];
    })
    .unwrap();
    seen.sort_unstable();
    prop_assert_eq!(seen, (0..indices.len()).collect::<Vec<_>>());
    for (k, index) in indices.iter().enumerate() {
        prop_assert_eq!(t.get_dyn(index), Some(typed_values[k % typed_values.len()]));
    }
    // A value out of range stops the walk with the error.
    let r = range(ty);
    if let Some(bad) = E::Value::from_i64(r.end)
        && !indices.is_empty()
    {
        // The walk stops at the `stop`-th element: those before it
        // hold their new value, it and the rest their old one.
        let stop = (seed as usize) % indices.len();
        let (new, old) = (E::Value::from_i64(r.start).unwrap(), t.clone());
        let mut order = Vec::new();
        let err = t
            .for_each_mut(|i, v| {
                *v = if order.len() == stop { bad } else { new };
                order.push(i.to_vec());
            })
            .map_err(|e| e.kind());
        let out_of_range = matches!(err, Err(ErrorKind::ValueOutOfRange { .. }));
        prop_assert!(out_of_range, "{:?}", err);
        prop_assert_eq!(order.len(), stop + 1);
        for index in &indices {
            let written = order[..stop].contains(index);
            let want = if written {
                new
            } else {
                old.get_dyn(index).unwrap()
            };
            prop_assert_eq!(t.get_dyn(index), Some(want), "{:?} of {}", index, layout);
        }
        let err = t.fill(bad).map_err(|e| e.kind());
        let out_of_range = matches!(err, Err(ErrorKind::ValueOutOfRange { .. }));
        prop_assert!(out_of_range, "{:?}", err);
    }
    Ok(())
}

/// Values outside the type's range are rejected, and nothing is written.
fn check_out_of_range<E: SubByte>(layout: ArrayLayout) -> Result<(), TestCaseError>
where
    E::Value: TestValue,
{
    let ty = layout.element_type();
    let r = range(ty);
    let mut t = PackedBuf::<_, E>::zeroed(PreparedLayout::new(layout)).unwrap();
    let index = vec![0; layout.rank()];
    for v in -300i64..300 {
        let Some(value) = E::Value::from_i64(v) else {
            continue;
        };
        if r.contains(&v) {
            prop_assert!(E::to_bits(value).is_ok());
            continue;
        }
        let expected = ErrorKind::ValueOutOfRange {
            value: v,
            element_type: ty,
        };
        prop_assert_eq!(E::to_bits(value).map_err(|e| e.kind()), Err(expected));
        if layout.element_count() > 0 {
            let err = t.set_dyn(&index, value).unwrap_err();
            prop_assert_eq!(err.kind(), expected);
            prop_assert!(t.as_bytes().iter().all(|b| *b == 0));
            let err = t.write_values(std::iter::repeat_n(value, layout.element_count()));
            prop_assert_eq!(err.map_err(|e| e.kind()), Err(expected));
        }
    }
    Ok(())
}

/// A → B into a buffer of 0xFF bytes leaves padding bits untouched; B → A
/// gives back A's bytes.
fn check_relayout<E: SubByte>(
    a: ArrayLayout,
    b: ArrayLayout,
    seed: u64,
) -> Result<(), TestCaseError>
where
    E::Value: TestValue,
{
    let indices = row_major(a.sizes().as_slice());
    let ints = values_for(a.element_type(), indices.len(), seed);
    let values = typed::<E>(&ints);
    let (ra, rb) = (PreparedLayout::new(a), PreparedLayout::new(b));
    let src = PackedBuf::<_, E>::from_values(ra, values.iter().copied()).unwrap();

    let mut dst = PackedBuf::<_, E>::from_vec(rb, vec![0xFF; b.physical_byte_size()]).unwrap();
    src.relayout_into(&mut dst).unwrap();
    let expected = reference_bytes(&b, &ints, 0xFF);
    prop_assert_eq!(dst.as_bytes(), &expected[..], "{} -> {}", a, b);
    for (index, v) in indices.iter().zip(&values) {
        prop_assert_eq!(dst.get_dyn(index), Some(*v));
    }
    let nb = b.element_size_in_bits();
    for offset in 0..b.buffer_len() {
        if b.slot(offset) == Slot::Padding {
            prop_assert_eq!(dst.slot_bits(offset), Some(((1u16 << nb) - 1) as u8));
        }
    }

    let mut back = PackedBuf::<_, E>::zeroed(ra).unwrap();
    dst.relayout_into(&mut back).unwrap();
    prop_assert_eq!(back.as_bytes(), src.as_bytes(), "{} -> {} -> {}", a, b, a);
    prop_assert!(back == src && dst == src);
    Ok(())
}

/// Tile views of packed tensors against the engine: offered exactly when
/// the layout has tile views and a tile is whole bytes; each tile's bytes
/// are its block of the parent's; every element is read through its tile
/// at its place in the tile; `tiles_mut` reaches every element once and
/// every byte of the tiles once.
fn check_tiles<E: SubByte>(layout: ArrayLayout, seed: u64) -> Result<(), TestCaseError>
where
    E::Value: TestValue,
{
    let rt = PreparedLayout::new(layout);
    let n = layout.element_size_in_bits();
    let mut bytes = vec![0u8; layout.physical_byte_size()];
    let mut x = seed | 1;
    for b in &mut bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let t = PackedBuf::<_, E>::from_vec(rt, bytes.clone()).unwrap();
    let grid = match layout.tile_grid() {
        Ok(g) => g,
        Err(e) => {
            let refused = t.try_tiles().err().map(|e| e.kind());
            prop_assert_eq!(refused, Some(e.kind()));
            prop_assert!(t.tile(&vec![0; layout.rank()]).is_none());
            return Ok(());
        }
    };
    let tile_bits = grid.tile_len() * n;
    if !tile_bits.is_multiple_of(8) {
        let kind = t.try_tiles().err().map(|e| e.kind());
        let whole_bytes = matches!(kind, Some(ErrorKind::TileViewUnsupported { .. }));
        prop_assert!(whole_bytes, "{}: {:?}", layout, kind);
        prop_assert!(t.tile(&vec![0; layout.rank()]).is_none());
        return Ok(());
    }
    let tile_bytes = tile_bits / 8;
    prop_assert_eq!(grid.inner().physical_byte_size(), tile_bytes);
    // In memory order: places from the grid, bytes from the parent.
    let tiles: Vec<_> = t.try_tiles().unwrap().collect();
    prop_assert_eq!(tiles.len(), grid.tile_count());
    for (number, tile) in tiles.iter().enumerate() {
        let g = grid.grid_index(number);
        prop_assert_eq!(tile.number(), number);
        prop_assert_eq!(tile.grid_index(), g);
        prop_assert_eq!(tile.origin(), grid.origin(g.as_slice()));
        prop_assert_eq!(tile.extent(), grid.extent(g.as_slice()));
        prop_assert_eq!(tile.as_bytes(), &bytes[number * tile_bytes..][..tile_bytes]);
        let by_index = t.tile(g.as_slice()).unwrap();
        prop_assert_eq!(by_index.as_bytes(), tile.as_bytes());
        prop_assert_eq!(by_index.number(), number);
    }
    prop_assert!(t.tile(grid.counts().as_slice()).is_none());
    // Every element through its tile: the same value, and the tile's slot
    // (inside layout's offset) holds the parent's slot bits.
    let tile_dims = grid.tile_dims();
    for index in row_major(layout.sizes().as_slice()) {
        let g: Vec<usize> = index
            .iter()
            .zip(tile_dims.iter())
            .map(|(i, d)| i / d)
            .collect();
        let tile = t.tile(&g).unwrap();
        let local: Vec<usize> = index
            .iter()
            .zip(tile.origin().iter())
            .map(|(i, o)| i - o)
            .collect();
        prop_assert_eq!(tile.get_dyn(&local), t.get_dyn(&index));
        let inside = grid.inner().offset(&local);
        prop_assert_eq!(
            tile.slot_bits(inside),
            t.slot_bits(tile.number() * grid.tile_len() + inside)
        );
        prop_assert_eq!(
            layout.offset(&index),
            tile.number() * grid.tile_len() + inside
        );
    }
    // `tiles_mut`: each element written once through its tile, each byte
    // of the tiles reached once, the tail after the tiles untouched.
    let mut w = PackedBuf::<_, E>::zeroed(rt).unwrap();
    let ints = values_for(layout.element_type(), layout.element_count(), seed);
    let values = typed::<E>(&ints);
    let strides = row_major_strides(layout.sizes().as_slice());
    let mut writes = vec![0usize; values.len()];
    let mut reached = vec![0usize; bytes.len()];
    for mut tile in w.tiles_mut() {
        let (origin, extent) = (tile.origin(), tile.extent());
        let first = tile.number() * tile_bytes;
        for (k, _) in tile.as_bytes_mut().iter_mut().enumerate() {
            reached[first + k] += 1;
        }
        for local in row_major(extent.as_slice()) {
            let number = element_number(&local, &origin, &strides);
            writes[number] += 1;
            tile.set_dyn(&local, values[number]).unwrap();
        }
    }
    prop_assert!(writes.iter().all(|&c| c == 1), "{}: {:?}", layout, writes);
    let tiled = grid.tile_count() * tile_bytes;
    prop_assert!(reached[..tiled].iter().all(|&c| c == 1));
    prop_assert!(reached[tiled..].iter().all(|&c| c == 0));
    for (index, v) in row_major(layout.sizes().as_slice()).iter().zip(&values) {
        prop_assert_eq!(w.get_dyn(index), Some(*v));
    }
    prop_assert_eq!(w.as_bytes(), &reference_bytes(&layout, &ints, 0)[..]);
    // `par_tiles_mut`: the same tiles in the same places, the same bytes.
    #[cfg(feature = "rayon")]
    {
        use rayon::prelude::*;
        let mut p = PackedBuf::<_, E>::zeroed(rt).unwrap();
        let places: Vec<_> = p
            .try_par_tiles_mut()
            .unwrap()
            .map(|mut tile| {
                let (origin, extent) = (tile.origin(), tile.extent());
                for local in row_major(extent.as_slice()) {
                    let number = element_number(&local, &origin, &strides);
                    tile.set_dyn(&local, values[number]).unwrap();
                }
                (tile.number(), tile.grid_index())
            })
            .collect();
        let expected: Vec<_> = (0..grid.tile_count())
            .map(|number| (number, grid.grid_index(number)))
            .collect();
        prop_assert_eq!(places, expected);
        prop_assert_eq!(p.as_bytes(), w.as_bytes());
    }
    Ok(())
}

/// The row-major element number of tile-local index `local` of the tile
/// at `origin`, with the parent's row-major `strides`.
fn element_number(local: &[usize], origin: &[usize], strides: &[usize]) -> usize {
    local
        .iter()
        .zip(origin)
        .zip(strides)
        .map(|((l, o), s)| (l + o) * s)
        .sum()
}

/// Row-major strides of `dims` (the element number of an index).
fn row_major_strides(dims: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    strides
}

/// Calls `$f::<Marker>($args)` for the marker of `$ty`.
macro_rules! dispatch {
    ($ty:expr, $f:ident($($arg:expr),*)) => {
        match $ty {
            PrimitiveType::S4 => $f::<S4>($($arg),*),
            PrimitiveType::U4 => $f::<U4>($($arg),*),
            PrimitiveType::S2 => $f::<S2>($($arg),*),
            PrimitiveType::U2 => $f::<U2>($($arg),*),
            PrimitiveType::S1 => $f::<S1>($($arg),*),
            PrimitiveType::U1 => $f::<U1>($($arg),*),
            PrimitiveType::F4e2m1fn => $f::<F4e2m1fn>($($arg),*),
            PrimitiveType::Pred => $f::<Pred>($($arg),*),
            other => panic!("not a sub-byte type: {other}"),
        }
    };
}

proptest! {
    #![proptest_config(config())]

    /// Every logical index reads back what was written, and the bits sit
    /// where the `PackIntN` reference puts them.
    #[test]
    fn set_get_round_trip_matches_pack_int_n(spec in spec(), seed in any::<u64>()) {
        let layout = spec.layout();
        dispatch!(spec.ty, check_round_trip(layout, seed))?;
    }

    /// `fill`, `fill_padding`, `for_each_mut` and `slots` agree with the
    /// reference on every generated layout.
    #[test]
    fn packed_walks_match_the_reference(spec in spec(), seed in any::<u64>()) {
        let layout = spec.layout();
        dispatch!(spec.ty, check_walks(layout, seed))?;
    }

    /// Packed tile views agree with the engine's grid and offsets, and
    /// `tiles_mut` reaches every element and every byte of the tiles once.
    #[test]
    fn packed_tiles_agree_with_engine(spec in spec(), seed in any::<u64>()) {
        let layout = spec.layout();
        dispatch!(spec.ty, check_tiles(layout, seed))?;
    }

    /// Values outside the element type's range are errors, never wrapped.
    #[test]
    fn out_of_range_values_are_rejected(spec in spec()) {
        let layout = spec.layout();
        dispatch!(spec.ty, check_out_of_range(layout))?;
    }

    /// Relayout between two packed layouts (any `E(n)` each) is exact,
    /// leaves padding bits alone, and A → B → A is the identity.
    #[test]
    fn relayout_round_trips_and_keeps_padding((a, b) in spec_pair(), seed in any::<u64>()) {
        let (la, lb) = (a.layout(), b.layout());
        dispatch!(a.ty, check_relayout(la, lb, seed))?;
    }

    /// The same for long contiguous runs (the whole-byte copy path).
    #[test]
    fn relayout_long_runs((a, b) in long_run_pair(), seed in any::<u64>()) {
        let (la, lb) = (a.layout(), b.layout());
        dispatch!(a.ty, check_relayout(la, lb, seed))?;
    }

    /// The same for the pairs that relayout by bytes: row-major ↔
    /// `(k,1)` sub-tiles (rows of fields interleaved) and ↔ transposed
    /// sub-tiles (a byte transpose), row-major ↔ tiles (runs of bytes),
    /// row-major ↔ transposed, tiled or not (squares of fields), with odd
    /// dims, partial tiles and sub-tiles, in both directions.
    #[test]
    fn byte_relayouts_round_trip((ty, a, b) in byte_kernel_pair(), seed in any::<u64>()) {
        let (la, lb) = (a.parse().unwrap(), b.parse().unwrap());
        dispatch!(ty, check_relayout(la, lb, seed))?;
    }
}

/// A sub-byte type packed at its own width, and two layouts of one array
/// of it whose relayout the byte kernels serve when the dims are whole
/// bytes of whole sub-tiles (and slot by slot where they are not).
fn byte_kernel_pair() -> impl Strategy<Value = (PrimitiveType, String, String)> {
    let ty = prop::sample::select(TYPES.to_vec());
    let dims = (1usize..=3, 1usize..=24, 1usize..=40);
    let tile = (
        prop::sample::select(vec![1usize, 2, 8]),
        prop::sample::select(vec![4usize, 8, 16, 128]),
    );
    (ty, dims, tile, 0usize..5, any::<bool>(), any::<bool>()).prop_map(
        |(ty, (z, y, x), (a, b), kind, three, reverse)| {
            let n = ty.bit_width() as usize;
            let k = 8 / n;
            let shape = match three {
                true => format!("{z},{y},{x}"),
                false => format!("{y},{x}"),
            };
            let (rm, m2m_t) = match three {
                true => ("2,1,0", "2,0,1"),
                false => ("1,0", "0,1"),
            };
            let rows = a * k;
            let tiled = match kind {
                0 => format!("{{{rm}:T({rows},{b})({k},1)E({n})}}"),
                1 => format!("{{{m2m_t}:T({rows},{b})({k},1)E({n})}}"),
                2 => format!("{{{rm}:T({a},{b})E({n})}}"),
                // Transposes whose bytes hold slots of another dim in
                // each layout: squares of fields.
                3 => format!("{{{m2m_t}:E({n})}}"),
                _ => format!("{{{m2m_t}:T({a},{b})E({n})}}"),
            };
            let plain = format!("{{{rm}:E({n})}}");
            let (src, dst) = match reverse {
                true => (tiled, plain),
                false => (plain, tiled),
            };
            (
                ty,
                format!("{ty}[{shape}]{src}"),
                format!("{ty}[{shape}]{dst}"),
            )
        },
    )
}

// ---------------------------------------------------------------------
// Deterministic tests
// ---------------------------------------------------------------------

type W = tessera::layout!(s4[4,8]{1,0:E(4)});

/// The doc example's int4 weights.
static WEIGHTS: Packed<W, { W::PHYSICAL_BYTE_SIZE }> = Packed::from_bytes([
    0x01, 0x23, 0x45, 0x67, // row 0:  0  1  2  3  4  5  6  7
    0xFE, 0xDC, 0xBA, 0x98, // row 1: -1 -2 -3 -4 -5 -6 -7 -8
    0x70, 0x70, 0x70, 0x70, // row 2:  7  0  7  0  7  0  7  0
    0x00, 0x00, 0x00, 0x0F, // row 3:  0  0  0  0  0  0  0 -1
]);

#[test]
fn doc_example_weights() {
    let expected: [[i8; 8]; 4] = [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [-1, -2, -3, -4, -5, -6, -7, -8],
        [7, 0, 7, 0, 7, 0, 7, 0],
        [0, 0, 0, 0, 0, 0, 0, -1],
    ];
    assert_eq!(W::PHYSICAL_BYTE_SIZE, 16);
    for (i, row) in expected.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            assert_eq!(WEIGHTS.get([i, j]), Some(*v), "[{i}, {j}]");
        }
    }
    assert_eq!(WEIGHTS.get([4, 0]), None);
    assert_eq!(WEIGHTS.get([0, 8]), None);
    assert_eq!(
        WEIGHTS.iter().collect::<Vec<i8>>(),
        expected.iter().flatten().copied().collect::<Vec<i8>>()
    );
    // Writing the same values through `set` gives the same bytes.
    let mut copy = Packed::<W, { W::PHYSICAL_BYTE_SIZE }>::zeroed();
    for (i, row) in expected.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            copy.set([i, j], *v).unwrap();
        }
    }
    assert_eq!(copy.as_bytes(), WEIGHTS.as_bytes());
    assert!(copy == WEIGHTS);
    assert_eq!(
        format!("{:?}", WEIGHTS.view()).split(", elements").next(),
        Some("Packed { layout: s4[4,8]{1,0:E(4)}")
    );
}

/// A static packed tensor built entirely in `const` context.
const MASK_BYTES: [u8; 2] = {
    type P = tessera::layout!(pred[3,3]{1,0:E(1)});
    const EYE: Packed<P, { P::PHYSICAL_BYTE_SIZE }> =
        Packed::from_bytes([0b1000_1000, 0b1000_0000]);
    EYE.into_bytes()
};

type Mask = tessera::layout!(pred[3,3]{1,0:E(1)});
static IDENTITY: Packed<Mask, { Mask::PHYSICAL_BYTE_SIZE }> = Packed::from_bytes(MASK_BYTES);
static EMPTY: Packed<Mask, { Mask::PHYSICAL_BYTE_SIZE }> = Packed::zeroed();

#[test]
fn const_static_packed() {
    assert_eq!(Mask::PHYSICAL_BYTE_SIZE, 2); // 9 bits
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(IDENTITY.get([i, j]), Some(i == j));
            assert_eq!(EMPTY.get([i, j]), Some(false));
        }
    }
    assert_eq!(EMPTY.as_bytes(), &[0, 0]);
    // The seven bits after the ninth slot are not slots.
    assert_eq!(IDENTITY.slot_bits(8), Some(1));
    assert_eq!(IDENTITY.slot_bits(9), None);
}

#[test]
fn tiled_static_layout() {
    // 2×4 tiles of int4: tile (0,0) holds rows 0-1, columns 0-3.
    type T = tessera::layout!(s4[3,5]{1,0:T(2,4)E(4)});
    assert_eq!(T::BUFFER_LEN, 32);
    let mut t = Packed::<T, { T::PHYSICAL_BYTE_SIZE }>::zeroed();
    for i in 0..3 {
        for j in 0..5 {
            t.set([i, j], (i * 5 + j) as i8 - 7).unwrap();
        }
    }
    // Row 0 of tile (0,0): -7 -6 -5 -4; row 1: -2 -1 0 1.
    assert_eq!(&t.as_bytes()[..4], &[0x9A, 0xBC, 0xEF, 0x01]);
    // Tile (0,1): column 4 of rows 0 and 1, then padding.
    assert_eq!(&t.as_bytes()[4..8], &[0xD0, 0x00, 0x20, 0x00]);
    let mut wide =
        PackedBuf::<_, S4>::zeroed(PreparedLayout::parse("s4[3,5]{0,1}").unwrap()).unwrap();
    t.relayout_into(&mut wide).unwrap();
    // Column 0: -7, -2, 3, one per byte, upper bits zero.
    assert_eq!(wide.as_bytes()[..3], [0x09, 0x0E, 0x03]);
    assert!(wide == t);
}

#[test]
fn pred_packs_eight_per_byte_high_bit_first() {
    let l = PreparedLayout::parse("pred[10]{0:E(1)}").unwrap();
    let t = PackedBuf::<_, Pred>::from_values(l, (0..10).map(|i| i % 3 == 0)).unwrap();
    assert_eq!(t.as_bytes(), &[0b1001_0010, 0b0100_0000]);
    let l2 = PreparedLayout::parse("pred[10]{0:E(2)}").unwrap();
    let mut t2 = PackedBuf::<_, Pred>::zeroed(l2).unwrap();
    t.relayout_into(&mut t2).unwrap();
    assert_eq!(
        t2.as_bytes(),
        &[0b01_00_00_01, 0b00_00_01_00, 0b00_01_00_00]
    );
    // pred without E: one per byte, like `bool`.
    let l8 = PreparedLayout::parse("pred[10]{0}").unwrap();
    let mut t8 = PackedBuf::<_, Pred>::zeroed(l8).unwrap();
    t.relayout_into(&mut t8).unwrap();
    assert_eq!(t8.as_bytes(), &[1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
}

/// The planner's kernel for packed pairs, by structure: bytes that hold
/// the same elements in both layouts relayout as bytes (runs, transposes
/// of bytes), rows of fields interleave into `(k,1)` sub-tiles and back
/// a byte at a time, anything else goes slot by slot; each checked
/// against the reference.
#[test]
#[cfg_attr(
    miri,
    ignore = "over 10 minutes under Miri; byte_relayouts_round_trip runs the kernels there"
)]
fn packed_pairs_take_the_byte_kernels() {
    use tessera::RelayoutKernel::{self, *};
    let cases: [(&str, &str, &str, RelayoutKernel); 12] = [
        (
            "s4",
            "{1,0:E(4)}",
            "{1,0:T(8,128)(2,1)E(4)}",
            Interleave { factor: 2 },
        ),
        (
            "s4",
            "{1,0:T(8,128)(2,1)E(4)}",
            "{1,0:E(4)}",
            Deinterleave { factor: 2 },
        ),
        ("s4", "{1,0:E(4)}", "{0,1:T(8,128)(2,1)E(4)}", Transpose),
        ("u4", "{1,0:E(4)}", "{1,0:T(8,128)E(4)}", ContiguousRuns),
        (
            "u2",
            "{1,0:E(2)}",
            "{1,0:T(16,64)(4,1)E(2)}",
            Interleave { factor: 4 },
        ),
        (
            "pred",
            "{1,0:T(16,128)(8,1)E(1)}",
            "{1,0:E(1)}",
            Deinterleave { factor: 8 },
        ),
        ("s2", "{1,0:E(2)}", "{0,1:T(8,128)(4,1)E(2)}", Transpose),
        // Bytes of x pairs against bytes of y pairs (quads, octets):
        // squares of fields transposed.
        ("s4", "{1,0:E(4)}", "{0,1:E(4)}", Transpose),
        ("u2", "{0,1:E(2)}", "{1,0:E(2)}", Transpose),
        ("pred", "{1,0:E(1)}", "{0,1:E(1)}", Transpose),
        ("s4", "{1,0:E(4)}", "{0,1:T(8,128)E(4)}", Transpose),
        // Slots wider than the value: upper bits to clear.
        ("u4", "{1,0:E(4)}", "{1,0}", PackedSlots),
    ];
    for (ty, src, dst, kernel) in cases {
        let (a, b): (ArrayLayout, ArrayLayout) = (
            format!("{ty}[48,256]{src}").parse().unwrap(),
            format!("{ty}[48,256]{dst}").parse().unwrap(),
        );
        assert_eq!(
            RelayoutKernel::for_layouts(&a, &b).unwrap(),
            kernel,
            "{a} -> {b}"
        );
        let ty = a.element_type();
        dispatch!(ty, check_relayout(a, b, 7)).unwrap();
    }
}

/// Transposes of packed layouts by squares of fields, for each width
/// (`k` = 2, 4, 8 slots per byte), both directions, tiled or not: shapes
/// whose vector blocks (16 rows of 16 bytes) cover most of the array and
/// leave odd squares and odd slots at the edges, and a 3-D one.
#[test]
#[cfg_attr(miri, ignore = "native only: the kernel has no unsafe code of its own")]
fn field_square_transposes() {
    for ty in ["s4", "u2", "pred"] {
        let n = match ty {
            "s4" => 4,
            "u2" => 2,
            _ => 1,
        };
        // Every dim a whole number of bytes' slots (8 for `pred`), not of
        // vector blocks; and a partial tile of the tiled destination.
        let shapes = ["48,256", "40,264", "24,1032", "56,136"];
        let cases = shapes.into_iter().flat_map(|shape| {
            [
                (shape, format!("{{1,0:E({n})}}"), format!("{{0,1:E({n})}}")),
                (shape, format!("{{0,1:E({n})}}"), format!("{{1,0:E({n})}}")),
                (
                    shape,
                    format!("{{1,0:E({n})}}"),
                    format!("{{0,1:T(8,128)E({n})}}"),
                ),
            ]
        });
        let partial = match n {
            1 => "50,304",
            _ => "50,300",
        };
        let tiled = (
            partial,
            format!("{{1,0:E({n})}}"),
            format!("{{0,1:T(8,128)E({n})}}"),
        );
        // Several tiles of `y`, the last partial: the 8-row tiles of `x`
        // go side by side as one block of rows (vector blocks of 32 and 64
        // rows across tiles), both ways.
        let across = ["264,272", "392,1032"].into_iter().flat_map(|shape| {
            [
                (
                    shape,
                    format!("{{1,0:E({n})}}"),
                    format!("{{0,1:T(8,128)E({n})}}"),
                ),
                (
                    shape,
                    format!("{{0,1:T(8,128)E({n})}}"),
                    format!("{{1,0:E({n})}}"),
                ),
            ]
        });
        // Source rows of an odd length, which start mid-byte (realigned
        // as the kernel reads them), plain and into tiles, and back;
        // destination rows that do (shifted as the kernel writes them),
        // plain and out of tiles; and both.
        let packed = |order: &str| match order.contains(':') {
            true => format!("{{{order}E({n})}}"),
            false => format!("{{{order}:E({n})}}"),
        };
        let rows = |shape, src, dst| (shape, packed(src), packed(dst));
        let odd = [
            rows("40,263", "1,0", "0,1"),
            rows("263,40", "0,1", "1,0"),
            rows("264,263", "1,0", "0,1:T(8,128)"),
            rows("263,40", "1,0", "0,1"),
            rows("40,263", "0,1", "1,0"),
            rows("264,263", "0,1:T(8,128)", "1,0"),
            rows("263,263", "1,0", "0,1"),
            rows("135,71", "0,1", "1,0"),
        ];
        for (shape, src, dst) in cases.chain([tiled]).chain(across).chain(odd) {
            let a: ArrayLayout = format!("{ty}[{shape}]{src}").parse().unwrap();
            let b: ArrayLayout = format!("{ty}[{shape}]{dst}").parse().unwrap();
            assert_eq!(
                tessera::RelayoutKernel::for_layouts(&a, &b).unwrap(),
                tessera::RelayoutKernel::Transpose,
                "{a} -> {b}"
            );
            let ty = a.element_type();
            dispatch!(ty, check_relayout(a, b, 11)).unwrap();
        }
        let a: ArrayLayout = format!("{ty}[3,40,272]{{2,1,0:E({n})}}").parse().unwrap();
        let b: ArrayLayout = format!("{ty}[3,40,272]{{1,2,0:E({n})}}").parse().unwrap();
        dispatch!(a.element_type(), check_relayout(a, b, 12)).unwrap();
    }
}

/// Out of tiles into rows that start mid-byte, the tile rows of each row
/// joined in a stage and shifted once (`packed_joined_runs`): rows of
/// more tile rows than the stage holds (129 of `u2`'s 32 bytes, 71 of
/// `s4`'s 64, 313 of `pred`'s 16), a partial last tile, planes of a 3-D
/// array, rows padded apart, each against the reference bytes with
/// padding kept, and back.
#[test]
#[cfg_attr(miri, ignore = "tens of thousands of slots a row")]
fn joined_tile_rows_round_trip() {
    let pair = |ty: &str, dims: &str, tiled: &str, plain: &str| -> [ArrayLayout; 2] {
        [tiled, plain].map(|m| format!("{ty}[{dims}]{m}").parse().unwrap())
    };
    let [a, b] = pair("u2", "3,16389", "{1,0:T(2,128)E(2)}", "{1,0:E(2)}");
    check_relayout::<U2>(a, b, 1).unwrap();
    let [a, b] = pair("s4", "5,9001", "{1,0:T(4,128)E(4)}", "{1,0:E(4)}");
    check_relayout::<S4>(a, b, 2).unwrap();
    let [a, b] = pair("pred", "9,40001", "{1,0:T(8,128)E(1)}", "{1,0:E(1)}");
    check_relayout::<Pred>(a, b, 3).unwrap();
    let [a, b] = pair("s4", "3,5,333", "{2,1,0:T(2,128)E(4)}", "{2,1,0:E(4)}");
    check_relayout::<S4>(a, b, 4).unwrap();
    // Rows of whole bytes a slot apart in the destination: each row's
    // pieces joined, but not the next row's.
    let [a, b] = pair("u2", "5,1024", "{1,0:T(8,128)E(2)}", "{1,0:T(1,1025)E(2)}");
    check_relayout::<U2>(a, b, 5).unwrap();
}

/// Past the streaming threshold (8 MiB of destination): the field
/// kernels write with streaming stores, and the round trip through the
/// `(2,1)` sub-tiles of `E(4)` gives back the source's bytes, the values
/// in place on the way; rows of an odd length too (every other one
/// starting mid-byte, through the stage).
#[test]
#[cfg_attr(miri, ignore = "16 Mi elements")]
fn streamed_field_relayouts_round_trip() {
    for cols in [4096, 4095] {
        streamed_field_round_trip(4096, cols);
    }
}

/// The layout `s4[rows,cols]` with `minor_to_major` and tiles `m`.
fn s4_layout(rows: usize, cols: usize, m: &str) -> PreparedLayout {
    PreparedLayout::parse(&format!("s4[{rows},{cols}]{m}")).unwrap()
}

/// The value at `[y, x]` of [`s4_rows`]: every value of `s4` in turn.
fn s4_value(y: usize, x: usize) -> i8 {
    ((y * 7 + x * 3) % 16) as i8 - 8
}

/// `s4[rows,cols]{1,0:E(4)}` holding [`s4_value`].
fn s4_rows(rows: usize, cols: usize) -> PackedBuf<PreparedLayout, S4> {
    PackedBuf::<_, S4>::from_values(
        s4_layout(rows, cols, "{1,0:E(4)}"),
        (0..rows * cols).map(|k| s4_value(k / cols, k % cols)),
    )
    .unwrap()
}

/// [`streamed_field_relayouts_round_trip`] of `s4[rows,cols]`.
fn streamed_field_round_trip(rows: usize, cols: usize) {
    let layout = |l: &str| s4_layout(rows, cols, l);
    let value = s4_value;
    let src = s4_rows(rows, cols);
    let mut tiled = PackedBuf::<_, S4>::zeroed(layout("{1,0:T(8,128)(2,1)E(4)}")).unwrap();
    assert!(tiled.as_bytes().len() >= 8 << 20);
    src.relayout_into(&mut tiled).unwrap();
    for (y, x) in [
        (0, 0),
        (1, 0),
        (0, 1),
        (7, 129),
        (rows - 1, cols - 1),
        (2049, 1234),
    ] {
        assert_eq!(tiled.get([y, x]), Some(value(y, x)), "at [{y}, {x}]");
    }
    // Row pairs: byte `x` of a sub-tile row holds rows `y` (high nibble)
    // and `y + 1` of column `x`.
    let b = tiled.as_bytes()[1];
    assert_eq!(
        [b >> 4, b & 15],
        [value(0, 1) as u8 & 15, value(1, 1) as u8 & 15]
    );
    let mut back = PackedBuf::<_, S4>::zeroed(layout("{1,0:E(4)}")).unwrap();
    tiled.relayout_into(&mut back).unwrap();
    assert!(back.as_bytes() == src.as_bytes());
}

#[test]
fn s4_between_e4_and_one_per_byte() {
    let packed = PreparedLayout::parse("s4[2,5]{1,0:E(4)}").unwrap();
    let bytes = PreparedLayout::parse("s4[2,5]{1,0}").unwrap();
    let values: Vec<i8> = (-5..5).collect();
    let a = PackedBuf::<_, S4>::from_values(packed, values.iter().copied()).unwrap();
    assert_eq!(a.as_bytes(), &[0xBC, 0xDE, 0xF0, 0x12, 0x34]);
    let mut b = PackedBuf::<_, S4>::from_vec(bytes, vec![0xAA; 10]).unwrap();
    a.relayout_into(&mut b).unwrap();
    // One value per byte, in the low nibble, upper bits zero.
    assert_eq!(b.as_bytes(), &[0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0, 1, 2, 3, 4]);
    let mut back = PackedBuf::<_, S4>::zeroed(packed).unwrap();
    b.relayout_into(&mut back).unwrap();
    assert_eq!(back.as_bytes(), a.as_bytes());
    // Reads ignore the upper bits of a wide slot (ml_dtypes does too).
    let sloppy = PackedBuf::<_, S4>::from_vec(bytes, vec![0xFB; 10]).unwrap();
    assert_eq!(sloppy.get([0, 0]), Some(-5));
}

/// Runs copied a byte at a time: equal bit phase in both buffers (with
/// ragged ends), and unequal phase (each destination byte shifted from
/// two source bytes, the ends slot by slot); padding bits stay.
#[test]
fn relayout_whole_bytes_keeps_neighbours() {
    let src_layout = PreparedLayout::parse("u1[2,20]{1,0:E(1)}").unwrap();
    let values: Vec<u8> = (0..40).map(|k| ((k * 7 + 3) % 5 < 2) as u8).collect();
    let src = PackedBuf::<_, U1>::from_values(src_layout, values.iter().copied()).unwrap();
    for dst_text in [
        "u1[2,20]{1,0:T(1,28)E(1)}", // row 1 at bit 28: same phase as 20
        "u1[2,20]{1,0:T(1,24)E(1)}", // row 1 at bit 24: another phase
        "u1[2,20]{1,0:T(1,21)E(1)}",
        "u1[2,20]{0,1:E(1)}",
    ] {
        let l = PreparedLayout::parse(dst_text).unwrap();
        let n = l.to_array_layout().physical_byte_size();
        let mut dst = PackedBuf::<_, U1>::from_vec(l, vec![0xFF; n]).unwrap();
        src.relayout_into(&mut dst).unwrap();
        let ints: Vec<i64> = values.iter().map(|v| i64::from(*v)).collect();
        assert_eq!(
            dst.as_bytes(),
            &reference_bytes(&l.to_array_layout(), &ints, 0xFF)[..],
            "{dst_text}"
        );
        let mut back = PackedBuf::<_, U1>::zeroed(src_layout).unwrap();
        dst.relayout_into(&mut back).unwrap();
        assert_eq!(back.as_bytes(), src.as_bytes(), "{dst_text}");
    }
}

#[test]
fn pack_and_unpack_tensors() {
    let s8 = PreparedLayout::parse("s8[3,4]{0,1}").unwrap();
    let unpacked = TensorBuf::from_fn(s8, |i| (i[0] * 4 + i[1]) as i8 - 6).unwrap();
    let s4 = PreparedLayout::parse("s4[3,4]{1,0:T(2,2)E(4)}").unwrap();
    let packed = PackedBuf::<_, S4>::from_tensor(s4, &unpacked).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            assert_eq!(packed.get([i, j]), Some((i * 4 + j) as i8 - 6));
        }
    }
    let round = packed
        .to_tensor(PreparedLayout::parse("s8[3,4]{1,0}").unwrap())
        .unwrap();
    assert!(round == unpacked);

    // A value that does not fit s4 is an error.
    let too_big = TensorBuf::from_fn(s8, |i| (i[0] * 4 + i[1]) as i8).unwrap();
    let err = PackedBuf::<_, S4>::from_tensor(s4, &too_big).unwrap_err();
    assert_eq!(err.to_string(), "value 8 does not fit element type `s4`");

    // bool tensors and packed pred.
    let bools = TensorBuf::from_fn(PreparedLayout::parse("pred[9]{0}").unwrap(), |i| {
        i[0] % 2 == 1
    })
    .unwrap();
    let bits = PackedBuf::<_, Pred>::from_tensor(
        PreparedLayout::parse("pred[9]{0:E(1)}").unwrap(),
        &bools,
    )
    .unwrap();
    assert_eq!(bits.as_bytes(), &[0b0101_0101, 0]);

    // Dims must match.
    let err = PackedBuf::<_, S4>::from_tensor(
        PreparedLayout::parse("s4[3,5]{1,0:E(4)}").unwrap(),
        &unpacked,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "dimension `1` has size 4 in the source but 5 in the destination"
    );
}

/// Relayouts between slot widths (`E(n)` and one value per byte, or two
/// `E(n)`s) along runs longer than the 256 values they are converted in
/// at a time, from slots that start mid-byte too.
#[test]
fn width_changes_over_long_runs() {
    for (ty, a, b) in [
        ("s4", "{1,0:E(4)}", "{1,0}"),
        ("u2", "{1,0}", "{1,0:E(2)}"),
        ("pred", "{1,0:E(1)}", "{1,0:E(4)}"),
        ("s4", "{1,0:T(2,600)E(4)}", "{1,0}"),
    ] {
        for shape in ["3,600", "2,1030", "5,263"] {
            let la: ArrayLayout = format!("{ty}[{shape}]{a}").parse().unwrap();
            let lb: ArrayLayout = format!("{ty}[{shape}]{b}").parse().unwrap();
            dispatch!(la.element_type(), check_relayout(la, lb, 5)).unwrap();
        }
    }
}

/// `unpack_into` walks both layouts' runs in step: pieces contiguous in
/// both unpack a byte at a time (from any slot, so heads and tails of
/// partial bytes), the others element by element. Every element lands
/// where the destination's layout puts it, for packed layouts tiled or
/// not, odd dims, and destinations in row-major, transposed and tiled
/// order; padding slots of the destination are left as they are.
#[test]
fn unpack_into_places_every_element() {
    let value = |y: usize, x: usize| ((y * 7 + x * 3) % 16) as i8 - 8;
    for (y, x) in [(37, 300), (8, 256), (5, 3)] {
        let packed_layouts = ["{1,0:E(4)}", "{1,0:T(8,128)E(4)}", "{0,1:T(4,2)E(4)}"];
        for packed in packed_layouts {
            let layout = PreparedLayout::parse(&format!("s4[{y},{x}]{packed}")).unwrap();
            let src = PackedBuf::<_, S4>::from_fn(layout, |i| value(i[0], i[1])).unwrap();
            for wide in ["{1,0}", "{0,1}", "{1,0:T(8,128)}"] {
                let layout = PreparedLayout::parse(&format!("s8[{y},{x}]{wide}")).unwrap();
                let mut dst = TensorBuf::<_, i8>::filled(layout, 99).unwrap();
                src.unpack_into(&mut dst).unwrap();
                for (i, j) in (0..y).flat_map(|i| (0..x).map(move |j| (i, j))) {
                    assert_eq!(dst[[i, j]], value(i, j), "{packed} -> {wide} at [{i}, {j}]");
                }
                let padding = dst.as_slice().iter().filter(|&&v| v == 99).count();
                assert_eq!(padding, dst.as_slice().len() - y * x, "{packed} -> {wide}");
            }
        }
    }
    // Unsigned and one-bit values, whole bytes of 4 and 8 slots.
    let u2 = PreparedLayout::parse("u2[3,40]{1,0:E(2)}").unwrap();
    let src = PackedBuf::<_, U2>::from_fn(u2, |i| ((i[0] + i[1]) % 4) as u8).unwrap();
    let mut dst =
        TensorBuf::<_, u8>::zeroed(PreparedLayout::parse("u8[3,40]{1,0}").unwrap()).unwrap();
    src.unpack_into(&mut dst).unwrap();
    assert!((0..120).all(|k| dst.as_slice()[k] == ((k / 40 + k % 40) % 4) as u8));
    let bits = PreparedLayout::parse("pred[3,40]{1,0:E(1)}").unwrap();
    let src = PackedBuf::<_, Pred>::from_fn(bits, |i| (i[0] * 40 + i[1]) % 3 == 0).unwrap();
    let mut dst =
        TensorBuf::<_, bool>::zeroed(PreparedLayout::parse("pred[3,40]{1,0}").unwrap()).unwrap();
    src.unpack_into(&mut dst).unwrap();
    assert!((0..120).all(|k| dst.as_slice()[k] == (k % 3 == 0)));
}

/// `pack_from` is `unpack_into`'s inverse for every pair of layouts
/// there, and a value that does not fit stops it with the elements
/// before it (in logical order) written and the rest untouched, in a
/// contiguous piece as in a strided one.
#[test]
fn pack_from_round_trips_and_stops_at_a_misfit() {
    let value = |y: usize, x: usize| ((y * 7 + x * 3) % 16) as i8 - 8;
    for (y, x) in [(37, 300), (8, 256), (5, 3)] {
        for wide in ["{1,0}", "{0,1}", "{1,0:T(8,128)}"] {
            let layout = PreparedLayout::parse(&format!("s8[{y},{x}]{wide}")).unwrap();
            let src = TensorBuf::from_fn(layout, |i| value(i[0], i[1])).unwrap();
            let packed_layouts = ["{1,0:E(4)}", "{1,0:T(8,128)E(4)}", "{0,1:T(4,2)E(4)}"];
            for packed in packed_layouts {
                let layout = PreparedLayout::parse(&format!("s4[{y},{x}]{packed}")).unwrap();
                let mut dst = PackedBuf::<_, S4>::zeroed(layout).unwrap();
                dst.pack_from(&src).unwrap();
                for (i, j) in (0..y).flat_map(|i| (0..x).map(move |j| (i, j))) {
                    assert_eq!(
                        dst.get([i, j]),
                        Some(value(i, j)),
                        "{wide} -> {packed} at [{i}, {j}]"
                    );
                }
                // A misfit at [2, 1]: the elements before it are written.
                let mut bad = src.clone();
                bad[[2.min(y - 1), 1]] = 8;
                let mut dst = PackedBuf::<_, S4>::zeroed(layout).unwrap();
                let err = dst.pack_from(&bad).unwrap_err();
                assert_eq!(err.to_string(), "value 8 does not fit element type `s4`");
                let stop = 2.min(y - 1) * x + 1;
                for k in 0..y * x {
                    let (i, j) = (k / x, k % x);
                    let expected = if k < stop { value(i, j) } else { 0 };
                    assert_eq!(
                        dst.get([i, j]),
                        Some(expected),
                        "{wide} -> {packed} at [{i}, {j}]"
                    );
                }
            }
        }
    }
}

#[test]
fn f4e2m1fn_values() {
    let expected = [
        0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0,
    ];
    for (bits, v) in expected.iter().enumerate() {
        let decoded = F4e2m1fn::to_f32(bits as u8);
        assert_eq!(decoded.to_bits(), f32::to_bits(*v), "{bits:#06b}");
        assert_eq!(F4e2m1fn::from_f32(*v), Some(bits as u8));
    }
    assert_eq!(F4e2m1fn::from_f32(5.0), None);
    assert_eq!(F4e2m1fn::from_f32(f32::NAN), None);
    assert_eq!(F4e2m1fn::from_f32(f32::INFINITY), None);

    type A = tessera::layout!(f4e2m1fn[2,2]{1,0:E(4)});
    let mut a = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::zeroed();
    a.set([1, 1], F4e2m1fn::from_f32(-1.5).unwrap()).unwrap();
    assert_eq!(a.get_f32([1, 1]), Some(-1.5));
    assert_eq!(a.as_bytes(), &[0x00, 0x0B]);
    assert_eq!(
        a.set([0, 0], 16).unwrap_err().to_string(),
        "value 16 does not fit element type `f4e2m1fn`"
    );
}

#[test]
fn error_messages() {
    let bytes = [0u8; 8];
    let msg = |r: Result<PackedView<'_, PreparedLayout, S4>, tessera::Error>| {
        r.map(|_| ()).unwrap_err().to_string()
    };
    assert_eq!(
        msg(PackedView::new(
            PreparedLayout::parse("u4[4]{0:E(4)}").unwrap(),
            &bytes
        )),
        "element type `s4` does not match the layout's element type `u4`"
    );
    assert_eq!(
        msg(PackedView::new(
            PreparedLayout::parse("f32[2]").unwrap(),
            &bytes
        )),
        "element type `s4` does not match the layout's element type `f32`"
    );
    assert_eq!(
        msg(PackedView::new(
            PreparedLayout::parse("s4[2]{0:E(16)}").unwrap(),
            &bytes
        )),
        "the layout stores elements in 16 bits but the storage holds 8 bits per element"
    );
    // A packed layout given to a tensor of whole elements.
    assert_eq!(
        tessera::TensorBuf::<_, bool>::zeroed(
            PreparedLayout::parse("pred[3,5]{1,0:E(1)}").unwrap()
        )
        .unwrap_err()
        .to_string(),
        "the layout stores elements in 1 bit but the storage holds 8 bits per element \
         (packed elements are held by `PackedBuf`, `tessera::packed`)"
    );
    assert_eq!(
        msg(PackedView::new(
            PreparedLayout::parse("s4[17]{0:E(4)}").unwrap(),
            &bytes
        )),
        "the buffer has 8 bytes but the layout needs 9"
    );

    let l = PreparedLayout::parse("s2[2,3]{1,0:E(2)}").unwrap();
    let mut t = PackedBuf::<_, S2>::zeroed(l).unwrap();
    assert_eq!(
        t.set([0, 0], 2).unwrap_err().to_string(),
        "value 2 does not fit element type `s2`"
    );
    assert_eq!(
        t.set([0, 0], -3).unwrap_err().to_string(),
        "value -3 does not fit element type `s2`"
    );
    assert_eq!(
        t.set([2, 0], 1).unwrap_err().to_string(),
        "index 2 is out of bounds for dimension `0` of size 2"
    );
    assert_eq!(
        t.set_dyn(&[0], 1).unwrap_err().to_string(),
        "index has 1 entry but the layout has rank 2"
    );
    assert_eq!(
        t.write_values([1, 0, -1]).unwrap_err().to_string(),
        "3 values given but the layout has 6 elements"
    );
    assert_eq!(
        t.write_values([0; 7]).unwrap_err().to_string(),
        "more values given than the layout's 6 elements"
    );
    assert_eq!(
        t.read_row(&[0, 0], &mut [0; 3]).unwrap_err().to_string(),
        "row index has 2 entries but a row of a rank-2 layout takes 1"
    );
    assert_eq!(
        t.read_row(&[0], &mut [0; 2]).unwrap_err().to_string(),
        "the row buffer has 2 slots but a row has 3 elements"
    );
    assert_eq!(
        t.read_row(&[0], &mut [0; 4]).unwrap_err().to_string(),
        "the row buffer has 4 slots but a row has 3 elements"
    );
    let other = PreparedLayout::parse("s2[2,4]{1,0:E(2)}").unwrap();
    let mut dst = PackedBuf::<_, S2>::zeroed(other).unwrap();
    assert_eq!(
        t.relayout_into(&mut dst).unwrap_err().to_string(),
        "dimension `1` has size 3 in the source but 4 in the destination"
    );
    let err =
        PackedBuf::<_, U1>::zeroed(PreparedLayout::parse("u2[4]{0:E(2)}").unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "element type `u1` does not match the layout's element type `u2`"
    );
}

#[test]
fn unsigned_and_one_bit_ranges() {
    assert_eq!(U4::to_bits(15), Ok(15));
    assert!(U4::to_bits(16).is_err());
    assert_eq!(U2::to_bits(3), Ok(3));
    assert!(U2::to_bits(4).is_err());
    assert_eq!(U1::to_bits(1), Ok(1));
    assert!(U1::to_bits(2).is_err());
    assert_eq!(S1::to_bits(-1), Ok(1));
    assert!(S1::to_bits(1).is_err());
    assert_eq!(S1::from_bits(1), -1);
    assert_eq!(S2::from_bits(0b10), -2);
    assert_eq!(S4::from_bits(0xF8), -8); // upper bits ignored
    assert!(!Pred::from_bits(0b10)); // the low bit only
}

/// A static packed layout's tile views: the inside layout is computed at
/// compile time (`s4[8,128]{1,0:T(2,1)E(4)}`), edge tiles report their
/// valid extent, and each tile holds the bytes and values the run-time
/// layout's tiles hold.
#[test]
fn static_packed_tiles_match_run_time_ones() {
    type W = tessera::layout!(s4[20,300]{1,0:T(8,128)(2,1)E(4)});
    let rt = PreparedLayout::parse("s4[20,300]{1,0:T(8,128)(2,1)E(4)}").unwrap();
    let value = |i: &[usize]| ((i[0] * 7 + i[1] * 3) % 16) as i8 - 8;
    let s = PackedBuf::from_fn(W::NEW, value).unwrap();
    let r = PackedBuf::<_, S4>::from_fn(rt, value).unwrap();
    assert_eq!(s.as_bytes(), r.as_bytes());
    assert_eq!(
        tessera::TileOf::<W>::LAYOUT.to_string(),
        "s4[8,128]{1,0:T(2,1)E(4)}"
    );
    let extents: Vec<Vec<usize>> = s.tiles().map(|t| t.extent().to_vec()).collect();
    assert_eq!(extents.len(), 9);
    assert_eq!(extents[2], [8, 44]);
    assert_eq!(extents[6], [4, 128]);
    assert_eq!(extents[8], [4, 44]);
    for (a, b) in s.tiles().zip(r.tiles()) {
        assert_eq!(a.as_bytes().len(), 512);
        assert_eq!(a.as_bytes(), b.as_bytes());
        assert_eq!(a.origin(), b.origin());
        let ext = a.extent();
        for y in 0..ext[0] {
            for x in 0..ext[1] {
                let v = value(&[a.origin()[0] + y, a.origin()[1] + x]);
                assert_eq!(a.get([y, x]), Some(v));
                assert_eq!(b.get([y, x]), Some(v));
            }
        }
        // Padding rows of an edge tile are in the tile, not in its extent.
        if ext[0] < 8 {
            assert_eq!(a.get([7, 0]), Some(0));
        }
    }
    // Writing through a tile of the static layout lands in the parent.
    let mut s = s;
    s.tile_mut(&[2, 2]).unwrap().set([3, 43], 7).unwrap();
    assert_eq!(s.get([19, 299]), Some(7));
    assert!(s.tile(&[3, 0]).is_none());
}

/// Packed transposes (`{1,0:E(n)}` → `{0,1:E(n)}`, squares of fields)
/// into destinations at every byte offset against a cache line: where
/// every destination row lies alike against the lines (rows of 128, 64
/// and 32 bytes), the first tile along a row is cut short so that the
/// others start on a line ([`lead_to_pieces`] in the crate's `packed`
/// squares); where not (rows of 150 bytes), tiles start at 0. Each
/// against the reference bytes, the bytes around the view untouched.
#[test]
#[cfg_attr(miri, ignore = "64 offsets of 76,800 slots each")]
fn packed_transposes_at_every_line_offset() {
    fn check<E: SubByte>(ty: &str, dims: &str, bits: u32)
    where
        E::Value: TestValue,
    {
        let [a, b]: [ArrayLayout; 2] =
            ["{1,0", "{0,1"].map(|m| format!("{ty}[{dims}]{m}:E({bits})}}").parse().unwrap());
        let ints = values_for(a.element_type(), a.element_count(), 5);
        let values = typed::<E>(&ints);
        let src = PackedBuf::<_, E>::from_values(PreparedLayout::new(a), values).unwrap();
        let expected = reference_bytes(&b, &ints, 0);
        let len = b.physical_byte_size();
        for offset in 0..64 {
            let mut backing = vec![0xA5u8; len + 128];
            let at = backing.as_ptr().align_offset(64) + offset;
            let view = &mut backing[at..at + len];
            view.fill(0);
            let mut dst = PackedViewMut::<_, E>::new(PreparedLayout::new(b), view).unwrap();
            src.relayout_into(&mut dst).unwrap();
            assert!(
                backing[at..at + len] == expected[..],
                "{a} -> {b} at {offset}"
            );
            assert!(
                backing[..at].iter().all(|&x| x == 0xA5),
                "before, at {offset}"
            );
            assert!(
                backing[at + len..].iter().all(|&x| x == 0xA5),
                "after, at {offset}"
            );
        }
    }
    check::<S4>("s4", "256,300", 4);
    check::<S4>("s4", "300,256", 4);
    check::<U2>("u2", "256,300", 2);
    check::<Pred>("pred", "256,300", 1);
    check::<S4>("s4", "300,300", 4);
}

/// A packed transpose past the streaming threshold (8 MiB of
/// destination), into a destination 16 bytes past a line as a large
/// `Vec`'s is: its tiles' pieces of the destination rows stream whole
/// lines; sampled values in place, and the way back gives the source's
/// bytes.
#[test]
#[cfg_attr(miri, ignore = "16 Mi elements")]
fn streamed_packed_transpose_round_trips() {
    let (rows, cols) = (4096, 4352);
    let layout = |l: &str| s4_layout(rows, cols, l);
    let value = s4_value;
    let src = s4_rows(rows, cols);
    let len = rows * cols / 2;
    assert!(len >= 8 << 20);
    let mut backing = vec![0u8; len + 128];
    let at = backing.as_ptr().align_offset(64) + 16;
    let mut dst =
        PackedViewMut::<_, S4>::new(layout("{0,1:E(4)}"), &mut backing[at..at + len]).unwrap();
    src.relayout_into(&mut dst).unwrap();
    for y in (0..rows).step_by(97) {
        for x in (0..cols).step_by(89) {
            assert_eq!(dst.view().get([y, x]), Some(value(y, x)), "at [{y}, {x}]");
        }
    }
    let mut back = PackedBuf::<_, S4>::zeroed(layout("{1,0:E(4)}")).unwrap();
    dst.view().relayout_into(&mut back).unwrap();
    assert!(back.as_bytes() == src.as_bytes());
}
