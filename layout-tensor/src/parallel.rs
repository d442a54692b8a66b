//! Parallel work on tensors with rayon (feature `rayon`): the tiles of a
//! tensor as a parallel iterator ([`TensorBase::par_tiles_mut`]; packed
//! tensors have [`PackedBase::par_tiles_mut`](crate::packed::PackedBase::par_tiles_mut)
//! over bytes) and a relayout that copies bands of whole tiles on several
//! threads ([`TensorBase::par_relayout_into`]).
//!
//! Both split the buffer with safe slice splits: first-level tiles are
//! contiguous blocks ([`par_chunks_exact_mut`](rayon::slice::ParallelSliceMut::par_chunks_exact_mut)),
//! and a band is a contiguous block of both buffers, copied by the serial
//! [`relayout_into`](TensorBase::relayout_into) between the band's own
//! layouts.

use alloc::vec::Vec;
use core::borrow::Borrow;

use layout_core::{
    AnyLayout, ArrayLayout, DigitSource, Error, PhysicalDim, SameShape, Shape, TiledLayout,
};
use rayon::prelude::*;

use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tensor::{TensorBase, TensorView, TensorViewMut};
use crate::tiles::{TileBase, TileViewMut};

impl<S: StorageMut, L: TiledLayout> TensorBase<S, L>
where
    S::Elem: Element + Send,
    L::Grid: Send + Sync,
    L::Tile: Send + Sync,
{
    /// The first-level tiles as a rayon parallel iterator of
    /// [`TileViewMut`]s: each tile is its own block of the buffer, so the
    /// views are disjoint, and a tile's place and inside layout are the
    /// ones [`tiles_mut`](TensorBase::tiles_mut) gives.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[20,300]{1,0:T(8,128)});
    /// let mut t = TensorBuf::<A, f32>::zeroed(A::NEW)?;
    /// t.try_par_tiles_mut()?.for_each(|mut tile| {
    ///     let v = tile.number() as f32;
    ///     tile.fill(v);
    /// });
    /// assert_eq!(t[[19, 299]], 8.0); // the last of 9 tiles
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`TensorBase::try_tiles`].
    pub fn try_par_tiles_mut(
        &mut self,
    ) -> Result<impl IndexedParallelIterator<Item = TileViewMut<'_, L, S::Elem>>, Error> {
        let (grid, layout) = self.layout().tiling()?;
        let (count, len) = (grid.borrow().tile_count(), grid.borrow().tile_len());
        let blocks = self.as_mut_slice()[..count * len].par_chunks_exact_mut(len);
        Ok(blocks.enumerate().map(move |(number, block)| {
            TileBase::new(L::place(&grid, number), layout.clone(), block)
        }))
    }

    /// [`try_par_tiles_mut`](TensorBase::try_par_tiles_mut) for layouts
    /// known to have tile views; a static layout without tiles does not
    /// compile.
    ///
    /// ```
    /// use rayon::prelude::*;
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[16,256]{1,0:T(8,128)});
    /// let mut t = TensorBuf::<A, f32>::filled(A::NEW, 1.0)?;
    /// t.par_tiles_mut().for_each(|mut tile| {
    ///     let scale = 1.0 + tile.grid_index()[1] as f32;
    ///     tile.as_mut_slice().iter_mut().for_each(|v| *v *= scale);
    /// });
    /// assert_eq!(t[[15, 255]], 2.0);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Panics
    /// As [`TensorBase::tiles`]: for a run-time or mixed layout whose
    /// tiles are not views.
    #[track_caller]
    pub fn par_tiles_mut(
        &mut self,
    ) -> impl IndexedParallelIterator<Item = TileViewMut<'_, L, S::Elem>> {
        match self.try_par_tiles_mut() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element + Send + Sync,
{
    /// [`relayout_into`](TensorBase::relayout_into) on rayon's threads: the
    /// destination is split into bands of whole tiles along its most
    /// major dimension (whole rows of an untiled layout), each band a
    /// contiguous block of both buffers, and each band is copied by the
    /// serial relayout between the band's own layouts. The result is the
    /// serial one, slot for slot.
    ///
    /// The split needs both layouts to have the same most major
    /// dimension, cut by tiles that divide each other's band height, and
    /// no `pad(..)` or `L(n)` tail; otherwise (and for destinations
    /// smaller than two bands of 64 KiB) this is the serial relayout.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type Rows = layout!(f32[64,256]);
    /// type Tiled = layout!(f32[64,256]{1,0:T(8,128)});
    /// let src = TensorBuf::from_fn(Rows::NEW, |i| (i[0] * 256 + i[1]) as f32)?;
    /// let mut dst = TensorBuf::<Tiled, f32>::zeroed(Tiled::NEW)?;
    /// src.par_relayout_into(&mut dst)?;
    /// assert_eq!(dst, src.relayout(Tiled::NEW)?);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`TensorBase::relayout_into`].
    pub fn par_relayout_into<S2, L2>(&self, dst: &mut TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: SameShape<L>,
    {
        self.relayout_in_bands(dst, PAR_BAND_MIN_BYTES)
    }

    /// [`par_relayout_into`](TensorBase::par_relayout_into) with bands of
    /// at least `min_band_bytes` of the destination.
    fn relayout_in_bands<S2, L2>(
        &self,
        dst: &mut TensorBase<S2, L2>,
        min_band_bytes: usize,
    ) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: SameShape<L>,
    {
        let (from, to) = (self.to_array_layout(), dst.to_array_layout());
        let bands = if from.shape().dims() == to.shape().dims()
            && from.element_type() as u32 == to.element_type() as u32
        {
            band_plan(&from, &to, core::mem::size_of::<S::Elem>(), min_band_bytes)
        } else {
            None
        };
        let Some(plan) = bands else {
            // Not splittable (or shapes that differ: the serial relayout
            // says how).
            return self.relayout_into(dst);
        };
        let mut jobs = Vec::with_capacity(plan.bands);
        let (mut src, mut out) = (self.as_slice(), dst.as_mut_slice());
        let mut start = 0;
        while start < plan.size {
            let rows = plan.band_rows.min(plan.size - start);
            let (from_band, to_band) = (plan.from.band(rows)?, plan.to.band(rows)?);
            let (s, rest) = src.split_at(from_band.buffer_len());
            let (d, rest_mut) = core::mem::take(&mut out).split_at_mut(to_band.buffer_len());
            jobs.push((
                TensorView::new(from_band, s)?,
                TensorViewMut::new(to_band, d)?,
            ));
            src = rest;
            out = rest_mut;
            start += rows;
        }
        jobs.into_par_iter()
            .try_for_each(|(s, mut d)| s.relayout_into(&mut d))
    }
}

/// Destinations below two bands of this many bytes are copied serially:
/// starting a thread costs more than copying that much.
const PAR_BAND_MIN_BYTES: usize = 64 * 1024;

/// How one layout splits along its most major dimension: bands of `unit`
/// indices (a first-level tile's extent, 1 when untiled) are blocks of
/// `block` slots.
struct Split {
    layout: ArrayLayout,
    dim: usize,
    unit: usize,
    block: usize,
}

impl Split {
    /// The split of `layout`, or `None` when a band is not a block whose
    /// layout is the same layout over fewer indices.
    fn of(layout: &ArrayLayout) -> Option<Split> {
        let physical = layout.physical_dims();
        let dims = physical.as_slice();
        // No `pad(..)`, no `L(n)` tail: the buffer is the physical shape.
        let slots = dims.iter().try_fold(1usize, |n, p| n.checked_mul(p.size))?;
        if layout.layout().padding().is_some() || slots != layout.buffer_len() {
            return None;
        }
        let (
            DigitSource::Logical {
                dim,
                div,
                modulus: None,
            },
            block,
        ) = (dims.first()?.source, dims.first()?.stride)
        else {
            return None;
        };
        // Every other digit of `dim` must repeat within `div`, so that a
        // band starting at a multiple of `div` has the same digits there.
        for p in &dims[1..] {
            match p.source {
                DigitSource::Logical { dim: d, .. } if d != dim => {}
                DigitSource::Logical {
                    div: q,
                    modulus: Some(m),
                    ..
                } if div % q.checked_mul(m)? == 0 => {}
                DigitSource::Constant => {}
                _ => return None,
            }
        }
        Some(Split {
            layout: *layout,
            dim,
            unit: div,
            block,
        })
    }

    /// The layout of a band of `rows` indices along the split dimension,
    /// checked to be this layout's physical dims with a smaller count.
    fn band(&self, rows: usize) -> Result<ArrayLayout, Error> {
        let mut sizes = self.layout.sizes();
        let mut dims = [0usize; layout_core::MAX_RANK];
        dims[..sizes.len()].copy_from_slice(&sizes);
        dims[self.dim] = rows;
        sizes = layout_core::DimVec::from_slice(&dims[..sizes.len()]);
        let shape = Shape::new(self.layout.element_type(), &sizes)?;
        ArrayLayout::new(shape.with_layout(*self.layout.layout())?)
    }

    /// Whether a band of `rows` has this layout's physical dims, but for
    /// the count of the most major one, and is `ceil(rows / unit)` blocks:
    /// then its offsets are the layout's, less the band's first slot.
    fn band_matches(&self, rows: usize) -> bool {
        let Ok(band) = self.band(rows) else {
            return false;
        };
        let (full, part) = (self.layout.physical_dims(), band.physical_dims());
        let (full, part) = (full.as_slice(), part.as_slice());
        full.len() == part.len()
            && full.iter().zip(part).all(|(f, p)| same_digit(f, p))
            && band.buffer_len() == rows.div_ceil(self.unit) * self.block
    }
}

/// Whether physical dim `part` of a band indexes its slots as `full` of
/// the whole layout does, up to the band's first slot: the same stride,
/// and the same digit, or one that the band's smaller extent makes
/// equal (a modulus the band's digit never reaches; a digit that is
/// always 0 in the band, which the engine reports as constant). Bands start at multiples of every modulus of the
/// split dimension's digits ([`Split::of`]), so those digits restart there.
fn same_digit(full: &PhysicalDim, part: &PhysicalDim) -> bool {
    if full.stride != part.stride {
        return false;
    }
    match (full.source, part.source) {
        (f, p) if f == p => true,
        (DigitSource::Logical { .. }, DigitSource::Constant) => true,
        (
            DigitSource::Logical {
                dim,
                div,
                modulus: Some(m),
            },
            DigitSource::Logical {
                dim: d,
                div: v,
                modulus: None,
            },
        ) => dim == d && div == v && part.size <= m,
        _ => false,
    }
}

/// The bands of a parallel relayout from `from` to `to`.
struct BandPlan {
    from: Split,
    to: Split,
    /// Indices along the split dimension.
    size: usize,
    /// Indices per band (the last band may have fewer).
    band_rows: usize,
    bands: usize,
}

/// Bands of whole tiles of both layouts along their common most major
/// dimension, about four per thread and none below `min_band_bytes` of
/// the destination, or `None` when the copy is not split.
fn band_plan(
    from: &ArrayLayout,
    to: &ArrayLayout,
    elem_bytes: usize,
    min_band_bytes: usize,
) -> Option<BandPlan> {
    let (a, b) = (Split::of(from)?, Split::of(to)?);
    if a.dim != b.dim {
        return None;
    }
    let size = from.size(a.dim);
    // A band starts at a multiple of both tiles' extents.
    let unit = lcm(a.unit, b.unit)?;
    let units = size.div_ceil(unit);
    let unit_bytes = (unit / b.unit)
        .checked_mul(b.block)?
        .checked_mul(elem_bytes)?;
    let min_units = min_band_bytes.div_ceil(unit_bytes.max(1)).max(1);
    let wanted = (rayon::current_num_threads() * 4).max(2);
    let band_units = units.div_ceil(wanted).max(min_units);
    let bands = units.div_ceil(band_units);
    if bands < 2 {
        return None;
    }
    let band_rows = band_units * unit;
    let last = size - (bands - 1) * band_rows;
    for rows in [band_rows, last] {
        if !a.band_matches(rows) || !b.band_matches(rows) {
            return None;
        }
    }
    Some(BandPlan {
        from: a,
        to: b,
        size,
        band_rows,
        bands,
    })
}

/// The least common multiple, `None` on overflow.
fn lcm(a: usize, b: usize) -> Option<usize> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x.max(1)).checked_mul(b)
}

#[cfg(test)]
mod tests {
    use alloc::string::ToString;
    use alloc::vec;

    use layout_core::PrimitiveType;
    use proptest::prelude::*;
    use test_support::{PairBits, SpecGen};

    use super::*;
    use crate::TensorBuf;

    /// `src` relayouted into `dst` serially and in bands of at least
    /// `min_band_bytes`: the two destination buffers.
    fn both(src: &ArrayLayout, dst: &ArrayLayout, min_band_bytes: usize) -> (Vec<f32>, Vec<f32>) {
        let s = TensorBuf::from_fn(*src, |i| i.iter().fold(1.0f32, |a, &x| a * 31.0 + x as f32))
            .unwrap();
        // Padding slots hold a marker, so a band that wrote one would show.
        let mut serial = TensorBuf::from_vec(*dst, vec![-7.0f32; dst.buffer_len()]).unwrap();
        let mut parallel = serial.clone();
        s.relayout_into(&mut serial).unwrap();
        s.relayout_in_bands(&mut parallel, min_band_bytes).unwrap();
        (serial.into_vec(), parallel.into_vec())
    }

    fn parse(text: &str) -> ArrayLayout {
        text.parse().unwrap()
    }

    /// Layouts the benches do not use, each split into bands (checked):
    /// edge tiles with padding, tiles tiled again, column-major, 3-D,
    /// tiles of different heights on the two sides.
    #[test]
    fn bands_give_the_serial_result() {
        for (src, dst) in [
            ("f32[37,300]", "f32[37,300]{1,0:T(8,128)}"),
            ("f32[37,300]{1,0:T(8,128)}", "f32[37,300]"),
            ("f32[45,70]{1,0:T(4,16)(2,1)}", "f32[45,70]{1,0:T(6,8)}"),
            ("f32[20,9,33]{0,2,1:T(3,5)}", "f32[20,9,33]{2,0,1}"),
            ("f32[7,50,6]{2,1,0:T(2,4,4)}", "f32[7,50,6]{2,1,0:T(8,2)}"),
        ] {
            let (a, b) = (parse(src), parse(dst));
            let plan = band_plan(&a, &b, 4, 1);
            assert!(
                plan.as_ref().is_some_and(|p| p.bands >= 2),
                "{src} -> {dst}"
            );
            let (serial, parallel) = both(&a, &b, 1);
            assert_eq!(serial, parallel, "{src} -> {dst}");
        }
    }

    /// Layouts whose bands are not blocks are copied serially: a major
    /// dimension that differs, `pad(..)`, an `L(n)` tail.
    #[test]
    fn unsplittable_layouts_are_not_split() {
        for (src, dst) in [
            ("f32[40,30]{0,1}", "f32[40,30]"),
            ("f32[40,30]{1,0:pad(48,32)}", "f32[40,30]"),
            ("f32[40,30]{1,0:L(7)}", "f32[40,30]"),
        ] {
            let (a, b) = (parse(src), parse(dst));
            assert!(band_plan(&a, &b, 4, 1).is_none(), "{src} -> {dst}");
            let (serial, parallel) = both(&a, &b, 1);
            assert_eq!(serial, parallel, "{src} -> {dst}");
        }
        // A copy smaller than two minimum bands is not split either.
        let (a, b) = (parse("f32[64,64]"), parse("f32[64,64]{1,0:T(8,8)}"));
        assert!(band_plan(&a, &b, 4, PAR_BAND_MIN_BYTES).is_none());
        assert!(band_plan(&a, &b, 4, 1024).is_some());
    }

    /// Shapes that differ: the serial relayout's error.
    #[test]
    fn shape_mismatch_is_the_serial_error() {
        let s = TensorBuf::<ArrayLayout, f32>::zeroed(parse("f32[40,30]")).unwrap();
        let mut d = TensorBuf::<ArrayLayout, f32>::zeroed(parse("f32[40,31]")).unwrap();
        let serial = s.relayout_into(&mut d).unwrap_err();
        assert_eq!(
            s.par_relayout_into(&mut d).unwrap_err().to_string(),
            serial.to_string()
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Generated pairs (repeated tiling, padding, `L(n)`, any order):
        /// bands of one tile row give the serial result slot for slot.
        #[test]
        fn generated_bands_give_the_serial_result(
            (a, b) in SpecGen { rank: 1..=3, max_dim: 9, ..SpecGen::new(vec![PrimitiveType::F32]) }.pair(PairBits::Same)
        ) {
            let (a, b) = (a.layout(), b.layout());
            let (serial, parallel) = both(&a, &b, 1);
            prop_assert_eq!(serial, parallel, "{} -> {}", a, b);
        }

        /// Pairs in the same dimension order, without `pad(..)` or `L(n)`
        /// (most of them split into bands; the pairs above mostly do not).
        #[test]
        fn generated_split_bands_give_the_serial_result(
            (a, mut b) in SpecGen {
                rank: 1..=3,
                max_dim: 12,
                max_pad: None,
                align_one_in: 0,
                ..SpecGen::new(vec![PrimitiveType::F32])
            }.pair(PairBits::Same)
        ) {
            b.m2m = a.m2m.clone();
            let (a, b) = (a.layout(), b.layout());
            let (serial, parallel) = both(&a, &b, 1);
            prop_assert_eq!(serial, parallel, "{} -> {}", a, b);
        }
    }

    /// `par_tiles_mut` hands out the tiles `tiles_mut` does, every slot of
    /// every tile once, for static, mixed and run-time layouts.
    #[test]
    fn par_tiles_mut_visits_every_slot_once() {
        fn check<L: TiledLayout + crate::Stores<u32>>(layout: L)
        where
            L::Grid: Send + Sync,
            L::Tile: Send + Sync,
        {
            let mut t = TensorBuf::<L, u32>::zeroed(layout).unwrap();
            let places: Vec<_> = t
                .tiles_mut()
                .map(|tile| {
                    (
                        tile.number(),
                        tile.grid_index(),
                        tile.origin(),
                        tile.extent(),
                    )
                })
                .collect();
            let seen: Vec<_> = t
                .par_tiles_mut()
                .map(|mut tile| {
                    tile.as_mut_slice().iter_mut().for_each(|v| *v += 1);
                    (
                        tile.number(),
                        tile.grid_index(),
                        tile.origin(),
                        tile.extent(),
                    )
                })
                .collect();
            assert_eq!(seen, places);
            let grid = t.tile_grid().unwrap();
            let tiled = grid.tile_count() * grid.tile_len();
            assert!(t.as_slice()[..tiled].iter().all(|&v| v == 1));
            assert!(t.as_slice()[tiled..].iter().all(|&v| v == 0));
        }
        type Static = tessera::layout!(u32[13,11]{0,1:T(4,4)});
        check(Static::NEW);
        check(parse("u32[13,11]{0,1:T(4,4)}"));
        check(parse("u32[5,9,6]{2,1,0:T(2,4,4)(2,2)L(5)}"));
        check(parse("u32[30,7]{1,0:T(8,4)}").prepare());
    }

    /// A layout without tile views: the error of `try_tiles`.
    #[test]
    fn par_tiles_mut_of_untiled_layout_is_an_error() {
        let mut t = TensorBuf::<ArrayLayout, f32>::zeroed(parse("f32[4,4]")).unwrap();
        assert!(t.try_par_tiles_mut().is_err());
    }
}
