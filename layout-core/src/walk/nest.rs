//! Building loop nests: a layout's digits as counters ([`LoopNest::logical`]),
//! and two layouts' digits refined to common ones ([`LoopNest::relayout`]).

use crate::array::terms::{OffsetTerms, Term};
use crate::array::{ArrayLayout, DigitSource, PhysicalDims};
use crate::error::{Error, ErrorKind, Locus};
use crate::layouts::traits::AnyLayout;
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK, MAX_TILE_LEVELS};

/// Most levels of a [`LoopNest`]: a relayout refines the digits of two
/// layouts, so it can have up to twice the physical rank.
pub const MAX_LOOP_LEVELS: usize = 2 * MAX_PHYSICAL_RANK;

/// One counter of a [`LoopNest`]: the digit `(index[dim] / div) % extent`
/// of the logical index, and how far each buffer's offset moves when it
/// counts up by one.
///
/// ```
/// use tessera::{walk::{Level, LoopNest}, ArrayLayout};
/// let a: ArrayLayout = "f32[4,6]{0,1}".parse()?;
/// let nest = LoopNest::logical(&a).unwrap();
/// // The outer counter walks y: 4 steps of 1 slot in this column-major buffer.
/// let y: Level = nest.levels()[0];
/// assert_eq!((y.dim, y.div, y.extent, y.strides), (0, 1, 4, [1, 0]));
/// assert_eq!(nest.levels()[1].strides, [4, 0]); // x steps over a column of 4
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Level {
    /// The logical dimension this level counts.
    pub dim: usize,
    /// The weight of one step in the logical index: one step adds `div`
    /// to `index[dim]`.
    pub div: usize,
    /// Most steps (the trip count before bounds: a tile size, or the
    /// number of tiles).
    pub extent: usize,
    /// Offset change per step in each buffer, in elements (`[source,
    /// destination]` for a relayout; the second is 0 for one layout).
    pub strides: [usize; 2],
    /// Every entry of the level takes all `extent` steps: the dimension's
    /// size is a multiple of `div * extent`, so no entry meets a partial
    /// tile. A walk then needs no bound per entry, and for a nest built
    /// in a `const` the trip count is a constant.
    pub(crate) whole: bool,
}

/// What a nest's levels past its `len` hold: all zero, so a new nest's
/// storage is cleared rather than copied from a constant.
const UNUSED_LEVEL: Level = Level {
    dim: 0,
    div: 0,
    extent: 0,
    strides: [0, 0],
    whole: false,
};

pub(super) const NO_LEVEL: Level = Level {
    dim: 0,
    div: 1,
    extent: 1,
    strides: [0, 0],
    whole: true,
};

/// Most digits of one logical dimension: each tile level splits at most
/// every digit it reaches in two, so `2^MAX_TILE_LEVELS` (a dimension
/// with more has no nest; callers fall back to element order).
const MAX_DIGITS: usize = 1 << MAX_TILE_LEVELS;

/// The digits of one logical dimension in one layout, least significant
/// first, when they form an exact chain.
#[derive(Clone, Copy)]
pub(super) struct Chain {
    len: usize,
    divs: [usize; MAX_DIGITS],
    strides: [usize; MAX_DIGITS],
    /// Each digit's physical dim (its index in the layout's physical dims).
    physical: [usize; MAX_DIGITS],
}

const NO_CHAIN: Chain = Chain {
    len: 0,
    divs: [0; MAX_DIGITS],
    strides: [0; MAX_DIGITS],
    physical: [0; MAX_DIGITS],
};

impl Chain {
    /// How many digits.
    pub(super) const fn len(&self) -> usize {
        self.len
    }

    /// Digit `i`'s (least significant first) `div` and physical dim.
    pub(super) const fn digit(&self, i: usize) -> [usize; 2] {
        [self.divs[i], self.physical[i]]
    }
}

/// A [`Chain`] being built: digits added in any order, kept sorted by
/// `div`, with their moduli for the final check.
struct ChainBuilder {
    chain: Chain,
    mods: [usize; MAX_DIGITS],
}

impl ChainBuilder {
    const NEW: ChainBuilder = ChainBuilder {
        chain: NO_CHAIN,
        mods: [0; MAX_DIGITS],
    };

    /// Adds the digit `(index / div) % modulus` (none when `modulus` is 0)
    /// at physical dim `physical`, whose stride is `stride`; `false` when
    /// the chain is full.
    const fn add(&mut self, div: usize, modulus: usize, stride: usize, physical: usize) -> bool {
        let c = &mut self.chain;
        if c.len == MAX_DIGITS {
            return false;
        }
        // Insertion by ascending div.
        let mut i = c.len;
        while i > 0 && c.divs[i - 1] > div {
            c.divs[i] = c.divs[i - 1];
            c.strides[i] = c.strides[i - 1];
            c.physical[i] = c.physical[i - 1];
            self.mods[i] = self.mods[i - 1];
            i -= 1;
        }
        c.divs[i] = div;
        c.strides[i] = stride;
        c.physical[i] = physical;
        self.mods[i] = modulus;
        c.len += 1;
        true
    }

    /// Whether the digits form an exact mixed-radix chain for a dimension
    /// of `size`.
    const fn is_exact(&self, size: usize) -> bool {
        let c = &self.chain;
        if size <= 1 {
            return c.len == 0;
        }
        if c.len == 0 || c.divs[0] != 1 {
            return false;
        }
        let mut i = 0;
        while i < c.len {
            let m = self.mods[i];
            let reach = if m == 0 {
                usize::MAX
            } else {
                c.divs[i].saturating_mul(m)
            };
            if i + 1 < c.len {
                if m == 0 || c.divs[i + 1] != reach {
                    return false;
                }
            } else if reach < size {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Adds every digit of `dim` among a layout's offset `terms` (a
    /// chain's `physical` is the term's position) and checks the chain
    /// for a dimension of `size`.
    const fn of_terms(&mut self, terms: &[Term], dim: usize, size: usize) -> bool {
        let mut p = 0;
        while p < terms.len() {
            let t = &terms[p];
            if t.dim == dim && !self.add(t.div, t.modulus, t.stride, p) {
                return false;
            }
            p += 1;
        }
        self.is_exact(size)
    }
}

/// The digits of `dim` in `layout` (whose physical dims are `dims`), least
/// significant first, if they form
/// an exact mixed-radix chain: the first has `div` 1, each next `div` is
/// the previous `div * modulus`, and the last digit reaches past the size.
/// A dimension of size 0 or 1 has no digits.
pub(super) const fn chain(layout: &ArrayLayout, dims: &PhysicalDims, dim: usize) -> Option<Chain> {
    let dims = dims.as_slice();
    let mut b = ChainBuilder::NEW;
    let mut p = 0;
    while p < dims.len() {
        match dims[p].source {
            DigitSource::Mixed => return None,
            DigitSource::Logical {
                dim: d,
                div,
                modulus,
            } if d == dim => {
                let modulus = match modulus {
                    Some(m) => m,
                    None => 0,
                };
                if !b.add(div, modulus, dims[p].stride, p) {
                    return None;
                }
            }
            _ => {}
        }
        p += 1;
    }
    match b.is_exact(layout.size(dim)) {
        true => Some(b.chain),
        false => None,
    }
}

/// The digit of `dim` among a layout's offset `terms` that holds the cut
/// point `cut`: the one of largest `div` not above it.
const fn source_digit(terms: &[Term], dim: usize, cut: usize) -> Option<&Term> {
    let mut best: Option<&Term> = None;
    let mut p = 0;
    while p < terms.len() {
        let t = &terms[p];
        if t.dim == dim && t.div <= cut {
            best = match best {
                Some(b) if b.div >= t.div => Some(b),
                _ => Some(t),
            };
        }
        p += 1;
    }
    best
}

/// The positions of `terms` in memory order: by stride, largest first,
/// ties in their order (a layout's digits of more than one value never
/// share a stride unless the array is empty).
const fn by_stride(terms: &[Term]) -> [u8; MAX_PHYSICAL_RANK] {
    let mut order = [0u8; MAX_PHYSICAL_RANK];
    let mut n = 0;
    while n < terms.len() {
        // Insertion: after every term of a larger or equal stride.
        let mut i = n;
        while i > 0 && terms[order[i - 1] as usize].stride < terms[n].stride {
            order[i] = order[i - 1];
            i -= 1;
        }
        order[i] = n as u8;
        n += 1;
    }
    order
}

/// Counters over the elements of one layout, or of two layouts of the same
/// logical shape, outermost first (see the [module docs](super)).
///
/// ```
/// use tessera::{walk::LoopNest, ArrayLayout};
/// let src: ArrayLayout = "f32[2,3]{1,0}".parse()?;
/// let dst: ArrayLayout = "f32[2,3]{0,1}".parse()?;
/// let nest = LoopNest::relayout(&src, &dst)?.unwrap();
/// let (from, mut to) = ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [0.0; 6]);
/// let [ss, ds] = nest.inner_strides();
/// nest.for_each_run(|[s, d], len| (0..len).for_each(|i| to[d + i * ds] = from[s + i * ss]));
/// assert_eq!(to, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]); // transposed
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoopNest {
    pub(super) len: usize,
    pub(super) rank: usize,
    pub(super) element_count: usize,
    pub(super) sizes: [usize; MAX_RANK],
    pub(super) levels: [Level; MAX_LOOP_LEVELS],
}

impl core::fmt::Debug for LoopNest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LoopNest")
            .field("sizes", &&self.sizes[..self.rank])
            .field("levels", &self.levels())
            .finish()
    }
}

impl LoopNest {
    const fn empty(layout: &ArrayLayout) -> LoopNest {
        let mut sizes = [0usize; MAX_RANK];
        let mut d = 0;
        while d < layout.rank() {
            sizes[d] = layout.size(d);
            d += 1;
        }
        LoopNest {
            len: 0,
            rank: layout.rank(),
            element_count: layout.element_count(),
            sizes,
            levels: [UNUSED_LEVEL; MAX_LOOP_LEVELS],
        }
    }

    /// No levels, no dims: all zero, so that a nest made from it is
    /// cleared in place rather than copied from a constant.
    pub(super) const CLEARED: LoopNest = LoopNest {
        len: 0,
        rank: 0,
        element_count: 0,
        sizes: [0; MAX_RANK],
        levels: [UNUSED_LEVEL; MAX_LOOP_LEVELS],
    };

    /// A copy of this nest that moves only the levels in use: the rest
    /// are cleared. A plain copy moves all of its 5.9 KB, which took a
    /// third of a small relayout's time.
    #[inline(always)]
    pub(super) const fn copy_in_use(&self) -> LoopNest {
        let mut nest = LoopNest::CLEARED;
        self.copy_into(&mut nest);
        nest
    }

    /// Copies this nest into `to`, a nest whose levels past this one's
    /// `len` are clear: only the levels in use move.
    #[inline(always)]
    pub(super) const fn copy_into(&self, to: &mut LoopNest) {
        to.len = self.len;
        to.rank = self.rank;
        to.element_count = self.element_count;
        to.sizes = self.sizes;
        let mut k = 0;
        while k < self.len {
            to.levels[k] = self.levels[k];
            k += 1;
        }
    }

    /// Whether a level of `dim` stepping `div` for `extent` steps is
    /// [`Level::whole`] in this nest's sizes.
    pub(super) const fn whole(&self, dim: usize, div: usize, extent: usize) -> bool {
        let span = div.saturating_mul(extent);
        span != 0 && self.sizes[dim].is_multiple_of(span)
    }

    const fn push(&mut self, mut level: Level) {
        if level.extent <= 1 {
            return; // a counter that never moves
        }
        level.whole = self.whole(level.dim, level.div, level.extent);
        if self.len > 0 {
            let outer = self.levels[self.len - 1];
            if outer.dim == level.dim
                && outer.div == level.div.saturating_mul(level.extent)
                && outer.strides[0] == level.strides[0].saturating_mul(level.extent)
                && outer.strides[1] == level.strides[1].saturating_mul(level.extent)
            {
                // Contiguous in both buffers: one longer counter.
                let extent = outer.extent.saturating_mul(level.extent);
                self.levels[self.len - 1] = Level {
                    dim: level.dim,
                    div: level.div,
                    extent,
                    strides: level.strides,
                    whole: self.whole(level.dim, level.div, extent),
                };
                return;
            }
        }
        self.levels[self.len] = level;
        self.len += 1;
    }

    /// The elements of `layout` in logical (row-major index) order, or
    /// `None` when some dimension's digits do not form an exact chain (a
    /// `*` that merges two varying dimensions, or tiles that do not nest,
    /// such as `T(3)(2)`). Strides are `[stride, 0]`.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    /// let nest = LoopNest::logical(&a).unwrap();
    /// let mut offsets = Vec::new();
    /// nest.for_each_run(|[start, _], len| {
    ///     let stride = nest.inner_strides()[0];
    ///     offsets.extend((0..len).map(|i| start + i * stride));
    /// });
    /// let expected: Vec<usize> = (0..3)
    ///     .flat_map(|y| (0..5).map(move |x| (y, x)))
    ///     .map(|(y, x)| a.offset(&[y, x]))
    ///     .collect();
    /// assert_eq!(offsets, expected);
    /// ```
    pub const fn logical(layout: &ArrayLayout) -> Option<LoopNest> {
        let mut nest = LoopNest::empty(layout);
        let physical = layout.physical_dims();
        let mut d = 0;
        while d < layout.rank() {
            let c = match chain(layout, &physical, d) {
                Some(c) => c,
                None => return None,
            };
            let mut i = c.len;
            while i > 0 {
                i -= 1;
                let extent = if i + 1 < c.len {
                    c.divs[i + 1] / c.divs[i]
                } else {
                    layout.size(d).div_ceil(c.divs[i])
                };
                nest.push(Level {
                    dim: d,
                    div: c.divs[i],
                    extent,
                    strides: [c.strides[i], 0],
                    whole: false, // set by `push`
                });
            }
            d += 1;
        }
        Some(nest)
    }

    /// Checks that `src` and `dst` hold the same logical array (element
    /// type and dims), then builds the nest that copies one into the
    /// other: levels in the destination's memory order, strides
    /// `[source, destination]`, runs as long as both buffers allow.
    ///
    /// Each layout's offsets are taken as the terms a
    /// [`PreparedLayout`](crate::PreparedLayout) keeps: plain strides
    /// where the layout has them ([`ArrayLayout::strides`]: tiles that
    /// keep row-major order, such as `T(8,128)` on `f32[24,128]`, or any
    /// 1-D tiling), else the digits of its tiles.
    ///
    /// `Ok(None)` when no nest exists (a dimension's digits do not form an
    /// exact chain in one of the layouts, or the two layouts cut a
    /// dimension at points that do not divide each other, such as
    /// `f32[6,6]{1,0:T(3,3)}` and `{1,0:T(2,2)}`); callers then copy
    /// element by element.
    ///
    /// # Errors
    /// The element types, the ranks or a dimension's sizes differ.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "f32[16,256]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "f32[16,256]{1,0:T(8,128)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// // Runs of 128 elements, contiguous in both buffers.
    /// assert_eq!(nest.levels().last().unwrap().extent, 128);
    /// assert_eq!(nest.inner_strides(), [1, 1]);
    /// ```
    pub const fn relayout(src: &ArrayLayout, dst: &ArrayLayout) -> Result<Option<LoopNest>, Error> {
        if let Err(e) = check_same_array(src, dst) {
            return Err(e);
        }
        // The terms a `PreparedLayout` keeps (plain strides where the
        // layout has them), so that `relayout_between` of prepared layouts
        // plans the same nest.
        match (OffsetTerms::new(src), OffsetTerms::new(dst)) {
            (Some(a), Some(b)) => LoopNest::relayout_terms(a.terms(), b.terms(), dst),
            _ => Ok(None),
        }
    }

    /// [`LoopNest::relayout`] of any two layouts (static, mixed or
    /// run-time): the same nest, planned from the offset terms a
    /// [`PreparedLayout`](crate::PreparedLayout) keeps instead of working out its digits again
    /// when both layouts are prepared. This is the nest `relayout_into`
    /// builds on each call between layouts it has no constant nest or
    /// template for.
    ///
    /// # Errors
    /// As [`LoopNest::relayout`].
    ///
    /// ```
    /// use tessera::{walk::LoopNest, PreparedLayout};
    /// let src = PreparedLayout::parse("f32[16,256]{1,0}").unwrap();
    /// let dst = PreparedLayout::parse("f32[16,256]{0,1:T(8,128)}").unwrap();
    /// let nest = LoopNest::relayout_between(&src, &dst).unwrap().unwrap();
    /// let runs = |n: &LoopNest| {
    ///     let mut v = Vec::new();
    ///     n.for_each_run(|start, len| v.push((start, len)));
    ///     v
    /// };
    /// let built = LoopNest::relayout(src.array_layout(), dst.array_layout());
    /// assert_eq!(runs(&nest), runs(&built.unwrap().unwrap()));
    /// // A wrong destination is an error, as for `relayout`.
    /// let other = PreparedLayout::parse("f32[16,255]{1,0}").unwrap();
    /// assert!(LoopNest::relayout_between(&src, &other).is_err());
    /// ```
    pub fn relayout_between<S: AnyLayout, D: AnyLayout>(
        src: &S,
        dst: &D,
    ) -> Result<Option<LoopNest>, Error> {
        match (src.prepared_parts(), dst.prepared_parts()) {
            (Some((a, a_terms)), Some((b, b_terms))) => {
                check_same_array(a, b)?;
                LoopNest::relayout_terms(a_terms.terms(), b_terms.terms(), b)
            }
            _ => LoopNest::relayout(&src.to_array_layout(), &dst.to_array_layout()),
        }
    }

    /// The relayout nest of two layouts of one logical array, from their
    /// offset terms (`dst_terms` are `dst`'s): [`LoopNest::relayout`] once
    /// the arrays are checked. Each term is one digit of the index; the
    /// destination's are taken in memory order (by stride, largest
    /// first), whatever order the terms come in.
    const fn relayout_terms(
        src_terms: &[Term],
        dst_terms: &[Term],
        dst: &ArrayLayout,
    ) -> Result<Option<LoopNest>, Error> {
        let rank = dst.rank();
        // Per dimension, the union of both layouts' cut points, ascending:
        // `cuts[cut_start[d]..][..cut_len[d]]`. Each is a digit's `div` in
        // one of the layouts, so there are at most as many as digits.
        let mut cuts = [0usize; MAX_LOOP_LEVELS];
        let mut cut_start = [0usize; MAX_RANK];
        let mut cut_len = [0usize; MAX_RANK];
        let mut total = 0;
        let mut d = 0;
        while d < rank {
            let size = dst.size(d);
            let mut a = ChainBuilder::NEW;
            let mut b = ChainBuilder::NEW;
            if !a.of_terms(src_terms, d, size) || !b.of_terms(dst_terms, d, size) {
                return Ok(None);
            }
            let (a, b) = (&a.chain, &b.chain);
            cut_start[d] = total;
            // Merge two ascending lists, dropping duplicates.
            let (mut i, mut j) = (0, 0);
            while i < a.len || j < b.len {
                let next = if j >= b.len || (i < a.len && a.divs[i] <= b.divs[j]) {
                    a.divs[i]
                } else {
                    b.divs[j]
                };
                if i < a.len && a.divs[i] == next {
                    i += 1;
                }
                if j < b.len && b.divs[j] == next {
                    j += 1;
                }
                if total > cut_start[d] && !next.is_multiple_of(cuts[total - 1]) {
                    return Ok(None);
                }
                cuts[total] = next;
                total += 1;
            }
            cut_len[d] = total - cut_start[d];
            d += 1;
        }
        // Built where it is returned: the nest is 5.9 KB, and copying it
        // out of a local took a tenth of a small relayout's time.
        let mut out = Ok(Some(LoopNest::empty(dst)));
        if let Ok(Some(nest)) = &mut out
            && !nest.push_relayout_levels(src_terms, dst_terms, dst, &cuts, &cut_start, &cut_len)
        {
            out = Ok(None);
        }
        out
    }

    /// Pushes the levels of a relayout: each digit of the destination in
    /// memory order, cut at every cut point of its dimension in its
    /// range (`cuts[cut_start[d]..][..cut_len[d]]`, ascending); `false`
    /// when the cuts do not nest (no common digits).
    const fn push_relayout_levels(
        &mut self,
        src_terms: &[Term],
        dst_terms: &[Term],
        dst: &ArrayLayout,
        cuts: &[usize; MAX_LOOP_LEVELS],
        cut_start: &[usize; MAX_RANK],
        cut_len: &[usize; MAX_RANK],
    ) -> bool {
        let rank = dst.rank();
        let mut last_div = [usize::MAX; MAX_RANK];
        let mut used = [0usize; MAX_RANK];
        let order = by_stride(dst_terms);
        let mut p = 0;
        while p < dst_terms.len() {
            let t = &dst_terms[order[p] as usize];
            let (dim, div) = (t.dim, t.div);
            let reach = match t.modulus {
                0 => usize::MAX,
                m => div.saturating_mul(m),
            };
            // This digit's cut points, most significant first.
            let dim_cuts = cuts.split_at(cut_start[dim]).1.split_at(cut_len[dim]).0;
            let mut k = dim_cuts.len();
            while k > 0 {
                k -= 1;
                let cut = dim_cuts[k];
                if cut < div || cut >= reach {
                    continue;
                }
                if cut >= last_div[dim] {
                    return false; // not most significant first
                }
                last_div[dim] = cut;
                used[dim] += 1;
                let extent = if k + 1 < dim_cuts.len() {
                    dim_cuts[k + 1] / cut
                } else {
                    dst.size(dim).div_ceil(cut)
                };
                let src_stride = match source_digit(src_terms, dim, cut) {
                    Some(a) => a.stride.saturating_mul(cut / a.div),
                    None => return false, // unreachable: the chain starts at 1
                };
                let dst_stride = t.stride.saturating_mul(cut / div);
                self.push(Level {
                    dim,
                    div: cut,
                    extent,
                    strides: [src_stride, dst_stride],
                    whole: false, // set by `push`
                });
            }
            p += 1;
        }
        let mut d = 0;
        while d < rank {
            if used[d] != cut_len[d] {
                return false;
            }
            d += 1;
        }
        true
    }

    /// The same nest with level `from` (counted outermost first) moved to
    /// position `to`, the levels between shifted by one. The nest visits
    /// the same elements with the same offsets, in another order: a
    /// level's trip count depends only on the index its outer levels
    /// reach, whatever their order. Kernels use it to bring the level
    /// that is contiguous in the source next to the innermost one, which
    /// is contiguous in the destination (a transpose, copied in square
    /// blocks).
    ///
    /// # Panics
    /// If `from` or `to` is not below `levels().len()`.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "f32[4,6]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "f32[4,6]{0,1:T(2,2)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let dims = |n: &LoopNest| n.levels().iter().map(|l| (l.dim, l.div)).collect::<Vec<_>>();
    /// assert_eq!(dims(&nest), [(1, 2), (0, 2), (1, 1), (0, 1)]);
    /// let moved = nest.with_level_moved(3, 1);
    /// assert_eq!(dims(&moved), [(1, 2), (0, 1), (0, 2), (1, 1)]);
    /// let mut pairs = Vec::new();
    /// let [ss, ds] = moved.inner_strides();
    /// moved.for_each_run(|[s, d], len| pairs.extend((0..len).map(|i| (s + i * ss, d + i * ds))));
    /// pairs.sort();
    /// let mut expected: Vec<_> = (0..4)
    ///     .flat_map(|y| (0..6).map(move |x| [y, x]))
    ///     .map(|i| (src.offset(&i), dst.offset(&i)))
    ///     .collect();
    /// expected.sort();
    /// assert_eq!(pairs, expected);
    /// ```
    pub const fn with_level_moved(&self, from: usize, to: usize) -> LoopNest {
        assert!(from < self.len && to < self.len, "level out of range");
        let mut nest = self.copy_in_use();
        let moved = self.levels[from];
        let mut k = from;
        while k > to {
            nest.levels[k] = nest.levels[k - 1];
            k -= 1;
        }
        while k < to {
            nest.levels[k] = nest.levels[k + 1];
            k += 1;
        }
        nest.levels[to] = moved;
        nest
    }

    /// The nest in units of its innermost run, and the run's length, when
    /// that run is contiguous in both buffers, never cut by a partial
    /// tile (its level is whole) and every other level's strides are whole
    /// units: its other levels, strides divided by the length. A copy
    /// along it, unit by unit, copies what a copy along `self` copies (a
    /// transpose into `(2,1)` sub-tiles is a transpose of pairs). Its
    /// levels count the same dims as before, so its offsets are right but
    /// an index built from it is not; `None` otherwise.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[16,256]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[16,256]{0,1:T(8,128)(2,1)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// // Pairs of consecutive x, contiguous in both buffers.
    /// let (pairs, unit) = nest.by_units().unwrap();
    /// assert_eq!(unit, 2);
    /// assert_eq!(pairs.levels().len(), nest.levels().len() - 1);
    /// ```
    pub const fn by_units(&self) -> Option<(LoopNest, usize)> {
        if self.len < 2 {
            return None;
        }
        let k = self.levels[self.len - 1].extent;
        if k < 2 {
            return None;
        }
        match self.in_units(k) {
            Some(nest) => Some((nest, k)),
            None => None,
        }
    }

    /// The nest in units of `k` elements, when every unit is whole in
    /// both buffers: the innermost level is contiguous in both, never cut
    /// by a partial tile (its level is whole), and its extent a multiple
    /// of `k`, and every other level's strides are whole units. The
    /// innermost level then counts `extent / k` units (and is gone when
    /// its extent is `k`), the others' strides are divided by `k`. A copy
    /// along it, unit by unit, copies what a copy along `self` copies:
    /// packed sub-byte layouts whose bytes hold the same elements (two
    /// `s4` of consecutive `x` under `E(4)`) relayout as bytes. As for
    /// [`LoopNest::by_units`], its offsets are right but an index built
    /// from it is not; `None` otherwise.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "s4[16,256]{1,0:E(4)}".parse().unwrap();
    /// let dst: ArrayLayout = "s4[16,256]{1,0:T(8,128)E(4)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// // Runs of 128 `s4`, 64 bytes.
    /// let bytes = nest.in_units(2).unwrap();
    /// assert_eq!(bytes.inner_strides(), [1, 1]);
    /// assert_eq!(bytes.levels().last().unwrap().extent, 64);
    /// assert_eq!(bytes.element_count(), 16 * 256 / 2);
    /// // A run of 3 elements is not a number of pairs.
    /// let odd: ArrayLayout = "s4[16,3]{1,0:E(4)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&odd, &odd).unwrap().unwrap();
    /// assert!(nest.in_units(2).is_none());
    /// ```
    pub const fn in_units(&self, k: usize) -> Option<LoopNest> {
        if k == 1 {
            return Some(*self);
        }
        if self.len == 0 || k == 0 {
            return None;
        }
        let run = self.levels[self.len - 1];
        if run.strides[0] != 1
            || run.strides[1] != 1
            || !run.whole
            || !run.extent.is_multiple_of(k)
            || (run.extent == k && self.len < 2)
        {
            return None;
        }
        let mut nest = self.copy_in_use();
        let outer = match run.extent == k {
            true => {
                nest.len -= 1;
                nest.levels[nest.len] = UNUSED_LEVEL;
                nest.len
            }
            false => {
                nest.levels[nest.len - 1].extent = run.extent / k;
                nest.levels[nest.len - 1].div = run.div.saturating_mul(k);
                nest.len - 1
            }
        };
        nest.element_count /= k;
        let mut l = 0;
        while l < outer {
            let [s, d] = nest.levels[l].strides;
            if !s.is_multiple_of(k) || !d.is_multiple_of(k) {
                return None;
            }
            nest.levels[l].strides = [s / k, d / k];
            l += 1;
        }
        Some(nest)
    }

    /// The nest in units of `k × k` squares, and `k`, when its innermost
    /// two levels are such a square contiguous in both buffers and
    /// transposed between them: the innermost counts `k` with strides
    /// `[k, 1]`, the next `k` with `[1, k]`, neither cut by a partial tile
    /// (both whole), and every other level's strides are whole squares.
    /// Those two levels are gone and the others' strides divided by `k²`.
    /// A copy along it that moves each square whole and transposes it
    /// (element `r * k + c` of the source's square to `c * k + r` of the
    /// destination's) is the copy of `self`: a transpose between two layouts
    /// of `(k,1)` sub-tiles (`{0,1:T(8,128)(2,1)}` into
    /// `{1,0:T(8,128)(2,1)}`), whose squares of `k` rows by `k` columns
    /// are `k²` consecutive slots in each. As for [`LoopNest::by_units`],
    /// its offsets are right but an index built from it is not; `None`
    /// otherwise.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[32,256]{0,1:T(8,128)(2,1)}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[32,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let (squares, k) = nest.in_squares().unwrap();
    /// assert_eq!(k, 2);
    /// assert_eq!(squares.levels().len(), nest.levels().len() - 2);
    /// assert_eq!(squares.element_count(), 32 * 256 / 4);
    /// // Pairs of `x` contiguous in both buffers are no square.
    /// let rows: ArrayLayout = "bf16[32,256]{1,0}".parse().unwrap();
    /// let nest = LoopNest::relayout(&rows, &dst).unwrap().unwrap();
    /// assert!(nest.in_squares().is_none());
    /// ```
    pub const fn in_squares(&self) -> Option<(LoopNest, usize)> {
        if self.len < 3 {
            return None;
        }
        let [inner, next] = [self.levels[self.len - 1], self.levels[self.len - 2]];
        let k = inner.extent;
        if k < 2
            || next.extent != k
            || inner.strides[0] != k
            || inner.strides[1] != 1
            || next.strides[0] != 1
            || next.strides[1] != k
            || !inner.whole
            || !next.whole
        {
            return None;
        }
        // The square as one run of `k²` elements contiguous in both, and
        // the nest in units of that run.
        let square = k * k;
        let mut run = self.copy_in_use();
        run.len -= 1;
        run.levels[run.len] = UNUSED_LEVEL;
        run.levels[run.len - 1] = Level {
            extent: square,
            strides: [1, 1],
            ..inner
        };
        match run.in_units(square) {
            Some(nest) => Some((nest, k)),
            None => None,
        }
    }

    /// Whether the walk visits the source buffer's offsets in increasing
    /// order: each level's source stride passes everything the levels
    /// inside it reach. Then the slots a walk skips between two elements
    /// are exactly the padding between them (a memory-order nest of a
    /// layout whose tiles nest; not one whose tiles cut across each other,
    /// `T(3)(2,1)`).
    ///
    /// ```
    /// use tessera::ArrayLayout;
    /// use tessera::walk::LoopNest;
    /// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let memory = LoopNest::relayout(&a, &a)?.unwrap();
    /// assert!(memory.is_increasing());
    /// let logical = LoopNest::logical(&a).unwrap(); // row 0 of every tile, then row 1
    /// assert!(!logical.is_increasing());
    /// # Ok::<(), tessera::Error>(())
    /// ```
    pub const fn is_increasing(&self) -> bool {
        // The largest offset the levels inside the current one reach.
        let mut reach = 0usize;
        let mut k = self.len;
        while k > 0 {
            k -= 1;
            let level = &self.levels[k];
            if level.extent > 1 {
                if level.strides[0] <= reach {
                    return false;
                }
                reach = reach.saturating_add(level.strides[0].saturating_mul(level.extent - 1));
            }
        }
        true
    }

    /// The levels, outermost first.
    #[inline]
    pub const fn levels(&self) -> &[Level] {
        self.levels.split_at(self.len).0
    }

    /// The strides of the innermost level (the step within a run); `[1,
    /// 1]` when there are no levels.
    #[inline]
    pub const fn inner_strides(&self) -> [usize; 2] {
        if self.len == 0 {
            [1, 1]
        } else {
            self.levels[self.len - 1].strides
        }
    }

    /// The logical dimension sizes.
    #[inline]
    pub const fn sizes(&self) -> &[usize] {
        self.sizes.split_at(self.rank).0
    }

    /// Number of elements the nest visits.
    #[inline]
    pub const fn element_count(&self) -> usize {
        self.element_count
    }
}

/// Checks that two layouts hold the same logical array.
const fn check_same_array(src: &ArrayLayout, dst: &ArrayLayout) -> Result<(), Error> {
    if src.element_type() as u32 != dst.element_type() as u32 {
        return Err(Error::at(
            ErrorKind::ElementTypeMismatch {
                expected: src.element_type(),
                found: dst.element_type(),
            },
            Locus::ElementType,
        ));
    }
    check_same_dims(src, dst)
}

/// Checks that two layouts have the same rank and dims (their element
/// types may differ: packing `s4` from `s8`, say).
///
/// # Errors
/// [`ErrorKind::RankMismatch`], or [`ErrorKind::DimensionMismatch`] naming
/// the first dim that differs.
pub const fn check_same_dims(src: &ArrayLayout, dst: &ArrayLayout) -> Result<(), Error> {
    if src.rank() != dst.rank() {
        return Err(Error::at(
            ErrorKind::RankMismatch {
                expected: src.rank(),
                found: dst.rank(),
            },
            Locus::Dims,
        ));
    }
    let mut d = 0;
    while d < src.rank() {
        if src.size(d) != dst.size(d) {
            return Err(Error::at(
                ErrorKind::DimensionMismatch {
                    dim: d,
                    expected: src.size(d),
                    found: dst.size(d),
                },
                Locus::Dim(d),
            ));
        }
        d += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::LoopNest;
    use crate::ArrayLayout;

    /// `(dim, div, whole)` of each level, outermost first.
    fn wholes(spec: &str) -> [(usize, usize, bool); 4] {
        let a: ArrayLayout = spec.parse().unwrap();
        let nest = LoopNest::logical(&a).unwrap();
        let l = nest.levels();
        core::array::from_fn(|k| (l[k].dim, l[k].div, l[k].whole))
    }

    #[test]
    fn a_level_is_whole_when_no_entry_meets_a_partial_tile() {
        // 1000 rows are 125 whole tiles of 8; 1000 columns end in a
        // partial tile of 104, so neither x level is whole.
        assert_eq!(
            wholes("f32[1000,1000]{1,0:T(8,128)}"),
            [(0, 8, true), (0, 1, true), (1, 128, false), (1, 1, false)]
        );
        assert_eq!(
            wholes("f32[1004,1024]{1,0:T(8,128)}"),
            [(0, 8, false), (0, 1, false), (1, 128, true), (1, 1, true)]
        );
    }

    #[test]
    fn a_template_decides_wholeness_for_the_sizes_it_is_given() {
        use crate::{Shape, walk::NestTemplate};
        let t: Shape = "f32[?,256]{1,0:T(8,128)}".parse().unwrap();
        let template = NestTemplate::relayout(&t, &t).unwrap();
        // The level of the 8 rows inside a tile: whole when the run-time
        // row count is a multiple of 8.
        let rows_in_tile_whole = |y: usize| {
            let nest = template.nest(&[y, 256], &[y, 256]).unwrap();
            let level = nest.levels().iter().find(|l| l.dim == 0 && l.div == 1);
            level.unwrap().whole
        };
        assert!(rows_in_tile_whole(1024));
        assert!(!rows_in_tile_whole(1001));
    }
}
