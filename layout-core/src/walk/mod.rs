//! Loop nests: visiting every element of a layout, or of two layouts at
//! once, incrementally (no division and no offset recomputed per element).
//!
//! The engine's [`physical_dims`](ArrayLayout::physical_dims) says which
//! digit `(index[d] / div) % modulus` of the logical index each physical
//! dim holds. When the digits of every logical dimension form an exact
//! mixed-radix chain (each `div` is the previous `div * modulus`, the last
//! digit covers the whole dimension), the index can be counted digit by
//! digit: a [`LoopNest`] is that list of counters, each with its stride in
//! one or two buffers.
//!
//! ```text
//! f32[3,5]{1,0:T(2,2)}, in memory order:
//!
//!   level   counts            extent  stride
//!   y / 2   tile rows         2       12
//!   x / 2   tile columns      3        4
//!   y % 2   row in tile       2        2
//!   x % 2   column in tile    2        1
//! ```
//!
//! A relayout nest ([`LoopNest::relayout`]) refines the digits of both
//! layouts to common ones, orders them as the destination's memory, and
//! merges levels that are contiguous in both buffers, so its innermost
//! level is the longest run that both buffers hold in order: for
//! row-major → `T(8,128)`, runs of 128 elements with stride 1 in both.
//!
//! Bounds are handled per level, not per element: a level's trip count is
//! `min(extent, ceil((size - outer part) / div))`, computed when the level
//! is entered, so tile padding is skipped without a test per element.
//!
//! Kernels take more than one element per call: a run of the innermost
//! level ([`LoopNest::for_each_run`]), a block of two levels, a plane of
//! three, or a volume of four ([`LoopNest::for_each_volume`]), each as
//! large as the trip counts allow while all its runs have the same length.

mod template;

pub use template::NestTemplate;

use crate::array::{ArrayLayout, DigitSource, DimVec, PhysicalDims, Slot};
use crate::error::{Error, ErrorKind, Locus};
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK, MAX_TILE_LEVELS};

/// Most levels of a [`LoopNest`]: a relayout refines the digits of two
/// layouts, so it can have up to twice the physical rank.
pub const MAX_LOOP_LEVELS: usize = 2 * MAX_PHYSICAL_RANK;

/// One counter of a [`LoopNest`]: the digit `(index[dim] / div) % extent`
/// of the logical index, and how far each buffer's offset moves when it
/// counts up by one.
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
}

const NO_LEVEL: Level = Level {
    dim: 0,
    div: 1,
    extent: 1,
    strides: [0, 0],
};

/// Most digits of one logical dimension: each tile level splits at most
/// every digit it reaches in two, so `2^MAX_TILE_LEVELS` (a dimension
/// with more has no nest; callers fall back to element order).
const MAX_DIGITS: usize = 1 << MAX_TILE_LEVELS;

/// The digits of one logical dimension in one layout, least significant
/// first, when they form an exact chain.
#[derive(Clone, Copy)]
struct Chain {
    len: usize,
    divs: [usize; MAX_DIGITS],
    strides: [usize; MAX_DIGITS],
}

const NO_CHAIN: Chain = Chain {
    len: 0,
    divs: [0; MAX_DIGITS],
    strides: [0; MAX_DIGITS],
};

/// The digits of `dim` in `layout` (whose physical dims are `dims`), least
/// significant first, if they form
/// an exact mixed-radix chain: the first has `div` 1, each next `div` is
/// the previous `div * modulus`, and the last digit reaches past the size.
/// A dimension of size 0 or 1 has no digits.
const fn chain(layout: &ArrayLayout, dims: &PhysicalDims, dim: usize) -> Option<Chain> {
    let size = layout.size(dim);
    let dims = dims.as_slice();
    let mut c = NO_CHAIN;
    let mut mods = [0usize; MAX_DIGITS];
    let mut p = 0;
    while p < dims.len() {
        match dims[p].source {
            DigitSource::Mixed => return None,
            DigitSource::Logical {
                dim: d,
                div,
                modulus,
            } if d == dim => {
                if c.len == MAX_DIGITS {
                    return None;
                }
                // Insertion by ascending div.
                let mut i = c.len;
                while i > 0 && c.divs[i - 1] > div {
                    c.divs[i] = c.divs[i - 1];
                    c.strides[i] = c.strides[i - 1];
                    mods[i] = mods[i - 1];
                    i -= 1;
                }
                c.divs[i] = div;
                c.strides[i] = dims[p].stride;
                mods[i] = match modulus {
                    Some(m) => m,
                    None => 0,
                };
                c.len += 1;
            }
            _ => {}
        }
        p += 1;
    }
    if size <= 1 {
        return if c.len == 0 { Some(c) } else { None };
    }
    if c.len == 0 || c.divs[0] != 1 {
        return None;
    }
    let mut i = 0;
    while i < c.len {
        let reach = if mods[i] == 0 {
            usize::MAX
        } else {
            c.divs[i].saturating_mul(mods[i])
        };
        if i + 1 < c.len {
            if mods[i] == 0 || c.divs[i + 1] != reach {
                return None;
            }
        } else if reach < size {
            return None;
        }
        i += 1;
    }
    Some(c)
}

/// Counters over the elements of one layout, or of two layouts of the same
/// logical shape, outermost first (see the [module docs](self)).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoopNest {
    len: usize,
    rank: usize,
    element_count: usize,
    sizes: [usize; MAX_RANK],
    levels: [Level; MAX_LOOP_LEVELS],
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
            levels: [NO_LEVEL; MAX_LOOP_LEVELS],
        }
    }

    const fn push(&mut self, level: Level) {
        if level.extent <= 1 {
            return; // a counter that never moves
        }
        if self.len > 0 {
            let outer = self.levels[self.len - 1];
            if outer.dim == level.dim
                && outer.div == level.div.saturating_mul(level.extent)
                && outer.strides[0] == level.strides[0].saturating_mul(level.extent)
                && outer.strides[1] == level.strides[1].saturating_mul(level.extent)
            {
                // Contiguous in both buffers: one longer counter.
                self.levels[self.len - 1] = Level {
                    dim: level.dim,
                    div: level.div,
                    extent: outer.extent.saturating_mul(level.extent),
                    strides: level.strides,
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
    /// `Ok(None)` when no nest exists (a dimension's digits do not form an
    /// exact chain in one of the layouts, or the two layouts cut a
    /// dimension at points that do not divide each other, such as `T(3)`
    /// and `T(2)`); callers then copy element by element.
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
        let rank = src.rank();
        // Per dimension, the union of both layouts' cut points.
        let mut cuts = [[0usize; 2 * MAX_DIGITS]; MAX_RANK];
        let mut cut_len = [0usize; MAX_RANK];
        let mut src_chains = [NO_CHAIN; MAX_RANK];
        let src_physical = src.physical_dims();
        let dst_physical = dst.physical_dims();
        let mut d = 0;
        while d < rank {
            let (a, b) = match (chain(src, &src_physical, d), chain(dst, &dst_physical, d)) {
                (Some(a), Some(b)) => (a, b),
                _ => return Ok(None),
            };
            src_chains[d] = a;
            // Merge two ascending lists, dropping duplicates.
            let (mut i, mut j, mut n) = (0, 0, 0);
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
                if n > 0 && !next.is_multiple_of(cuts[d][n - 1]) {
                    return Ok(None);
                }
                cuts[d][n] = next;
                n += 1;
            }
            cut_len[d] = n;
            d += 1;
        }
        let mut nest = LoopNest::empty(dst);
        let mut last_div = [usize::MAX; MAX_RANK];
        let mut used = [0usize; MAX_RANK];
        let dims = dst_physical.as_slice();
        let mut p = 0;
        while p < dims.len() {
            if let DigitSource::Logical { dim, div, modulus } = dims[p].source {
                let reach = match modulus {
                    Some(m) => div.saturating_mul(m),
                    None => usize::MAX,
                };
                // This digit's cut points, most significant first.
                let mut k = cut_len[dim];
                while k > 0 {
                    k -= 1;
                    let cut = cuts[dim][k];
                    if cut < div || cut >= reach {
                        continue;
                    }
                    if cut >= last_div[dim] {
                        return Ok(None); // not most significant first
                    }
                    last_div[dim] = cut;
                    used[dim] += 1;
                    let extent = if k + 1 < cut_len[dim] {
                        cuts[dim][k + 1] / cut
                    } else {
                        dst.size(dim).div_ceil(cut)
                    };
                    // The source digit holding this cut: the largest div
                    // not above it.
                    let a = &src_chains[dim];
                    let mut s = a.len;
                    while s > 1 && a.divs[s - 1] > cut {
                        s -= 1;
                    }
                    let src_stride = a.strides[s - 1].saturating_mul(cut / a.divs[s - 1]);
                    let dst_stride = dims[p].stride.saturating_mul(cut / div);
                    nest.push(Level {
                        dim,
                        div: cut,
                        extent,
                        strides: [src_stride, dst_stride],
                    });
                }
            }
            p += 1;
        }
        let mut d = 0;
        while d < rank {
            if used[d] != cut_len[d] {
                return Ok(None);
            }
            d += 1;
        }
        Ok(Some(nest))
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
    /// use layout_core::{walk::LoopNest, ArrayLayout};
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
        let mut nest = *self;
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

    /// How many steps `level` takes when entered with `index[dim] == base`:
    /// all of them unless the level reaches past the dimension's end (a
    /// partial tile), the only case that divides.
    #[inline(always)]
    const fn trips(&self, level: &Level, base: usize) -> usize {
        let remaining = self.sizes[level.dim] - base;
        if remaining >= level.div.saturating_mul(level.extent) {
            return level.extent;
        }
        let div = level.div;
        if div.is_power_of_two() {
            // A shift, not a division by a divisor known only at run
            // time: every row of `f32[M,947]` ends in a partial tile, so
            // a relayout of it comes here per row (`div` 1 or 128).
            let shift = div.trailing_zeros();
            return (remaining >> shift) + (remaining & (div - 1) != 0) as usize;
        }
        remaining.div_ceil(div)
    }

    /// Calls `f(start_offsets, len)` for every run of the innermost level,
    /// in nest order: the run's elements are at `start + i * inner_strides`
    /// for `i < len`, in each buffer. Every element is visited once;
    /// padding is never visited.
    #[inline]
    pub fn for_each_run<F: FnMut([usize; 2], usize)>(&self, mut f: F) {
        let [outer, _] = self.block_strides();
        self.for_each_block(|start, rows, len| {
            for_each_step(start, rows, outer, |o| f(o, len));
        });
    }

    /// The strides of the innermost two levels as `[outer, inner]`, each
    /// `[source, destination]` (see [`LoopNest::for_each_block`]).
    #[inline(always)]
    pub const fn block_strides(&self) -> [[usize; 2]; 2] {
        match self.len {
            0 => [[0, 0], [1, 1]],
            _ => [self.inner_level(1).strides, self.inner_level(0).strides],
        }
    }

    /// Calls `f(start_offsets, rows, len)` for every block of the innermost
    /// two levels: element `(r, i)` of a block, `r < rows`, `i < len`, is at
    /// `start + r * outer + i * inner` with `[outer, inner] =
    /// block_strides()`. Kernels whose innermost run is short (a tile of
    /// 2 interleaving two rows) handle a whole block per call. With fewer
    /// than two levels, `rows` is 1. Every element is visited once, in nest
    /// order; padding never.
    #[inline]
    pub fn for_each_block<F: FnMut([usize; 2], usize, usize)>(&self, mut f: F) {
        let [step, _, _] = self.plane_strides();
        self.for_each_plane(|start, [steps, rows, len]| {
            for_each_step(start, steps, step, |o| f(o, rows, len));
        });
    }

    /// The strides of the innermost three levels as `[step, row, run]`,
    /// each `[source, destination]` (see [`LoopNest::for_each_plane`]).
    #[inline(always)]
    pub const fn plane_strides(&self) -> [[usize; 2]; 3] {
        let [row, run] = self.block_strides();
        [self.inner_level(2).strides, row, run]
    }

    /// Calls `f(start_offsets, [steps, rows, len])` for every plane of
    /// blocks: element `(k, r, i)` of a plane is at `start + k * step + r *
    /// row + i * run` with `[step, row, run] = plane_strides()`. A plane
    /// holds the blocks of the innermost three levels that have the same
    /// shape, so that per-call costs are paid once per `steps` blocks (the
    /// `(y % 8) / 2` level of `T(8,128)(2,1)` makes planes of 4 blocks);
    /// a plane whose blocks differ (a partial tile) comes as a plane of all
    /// but its last block and that block, or block by block. With fewer
    /// than three levels, `steps` is 1. Every element is visited once, in
    /// nest order; padding never.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[16,256]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let [step, row, run] = nest.plane_strides();
    /// assert_eq!([step, row, run], [[512, 256], [1, 2], [256, 1]]);
    /// let mut seen = vec![false; 16 * 256];
    /// nest.for_each_plane(|start, [steps, rows, len]| {
    ///     assert_eq!([steps, rows, len], [4, 128, 2]); // pairs of rows, 4 per tile
    ///     for (k, r, i) in (0..steps).flat_map(|k| (0..rows).flat_map(move |r| (0..len).map(move |i| (k, r, i)))) {
    ///         let at = |b: usize| start[b] + k * step[b] + r * row[b] + i * run[b];
    ///         let (y, x) = (at(0) / 256, at(0) % 256);
    ///         assert_eq!(at(1), dst.offset(&[y, x]));
    ///         assert!(!std::mem::replace(&mut seen[at(0)], true));
    ///     }
    /// });
    /// assert!(seen.iter().all(|&s| s));
    /// ```
    #[inline]
    pub fn for_each_plane<F: FnMut([usize; 2], [usize; 3])>(&self, mut f: F) {
        let [outer, _, _, _] = self.volume_strides();
        self.for_each_volume(|start, [outers, steps, rows, len]| {
            for_each_step(start, outers, outer, |o| f(o, [steps, rows, len]));
        });
    }

    /// The strides of the innermost four levels as `[outer, step, row,
    /// run]`, each `[source, destination]` (see
    /// [`LoopNest::for_each_volume`]).
    #[inline(always)]
    pub const fn volume_strides(&self) -> [[usize; 2]; 4] {
        let [step, row, run] = self.plane_strides();
        [self.inner_level(3).strides, step, row, run]
    }

    /// Calls `f(start_offsets, [outers, steps, rows, len])` for every
    /// volume of blocks: element `(o, k, r, i)` of a volume is at `start +
    /// o * outer + k * step + r * row + i * run` with `[outer, step, row,
    /// run] = volume_strides()`. A volume holds the blocks of the innermost
    /// four levels that have the same shape: for `T(8,128)(2,1)` from
    /// row-major, a whole band of tiles (`outers` tiles of 4 row pairs),
    /// where a plane is one tile. A volume whose blocks differ (partial
    /// tiles) comes in parts: the planes before the last one in one call
    /// when they are alike, then plane by plane, each split the same way
    /// down to rows. With fewer than four levels, `outers` is 1. Every
    /// element is visited once, in nest order; padding never.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[16,256]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// assert_eq!(nest.volume_strides()[0], [128, 1024]); // the next tile
    /// let mut volumes = Vec::new();
    /// nest.for_each_volume(|start, shape| volumes.push((start, shape)));
    /// // Two bands of two tiles, each tile 4 blocks of 128 row pairs.
    /// assert_eq!(volumes, [([0, 0], [2, 4, 128, 2]), ([2048, 2048], [2, 4, 128, 2])]);
    /// ```
    #[inline(always)]
    pub fn for_each_volume<F: FnMut([usize; 2], [usize; 4])>(&self, mut f: F) {
        if self.element_count == 0 {
            return;
        }
        if self.len == 0 {
            f([0, 0], [1, 1, 1, 1]);
            return;
        }
        // From here the rank is at least 1 and every size at least 1, so
        // the stand-in levels (`NO_LEVEL`, dimension 0) take one step.
        let cell = [3, 2, 1, 0].map(|k| self.inner_level(k));
        self.for_each_outer(
            self.len.saturating_sub(4),
            #[inline(always)]
            |offsets, base| self.volume(&cell, offsets, base, &mut f),
        );
    }

    /// Calls `f(index, start_offsets, len)` for every run of the innermost
    /// level, in nest order, with the logical index of the run's first
    /// element: element `i < len` of the run has that index with
    /// `index[run.dim] + i * run.div` and sits at `start + i *
    /// inner_strides()`, where `run` is the innermost level
    /// (`levels().last()`; with no levels, every run has length 1). `f`
    /// may change `index` but must restore it. Element iterators are built
    /// on this: the index moves by one addition per level, never by a
    /// division.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    /// let nest = LoopNest::logical(&a).unwrap();
    /// let mut firsts = Vec::new();
    /// nest.for_each_indexed_run(|index, [start, _], len| firsts.push((index[..2].to_vec(), start, len)));
    /// assert_eq!(firsts[0], (vec![0, 0], 0, 2)); // x 0..2 of row 0, in tile (0,0)
    /// assert_eq!(firsts[1], (vec![0, 2], 4, 2)); // x 2..4, in tile (0,1)
    /// assert_eq!(firsts[2], (vec![0, 4], 8, 1)); // x 4, a partial tile
    /// ```
    #[inline(always)]
    pub fn for_each_indexed_run<F: FnMut(&mut [usize; MAX_RANK], [usize; 2], usize)>(
        &self,
        mut f: F,
    ) {
        if self.element_count == 0 {
            return;
        }
        if self.len == 0 {
            let mut index = [0usize; MAX_RANK];
            f(&mut index, [0, 0], 1);
            return;
        }
        // The odometer counts the levels outside the innermost two; the
        // runs of one block (the level around the runs) are a plain loop,
        // so a run costs an addition per buffer and one to the index, not
        // a step of the general odometer.
        let run = self.levels[self.len - 1];
        let row = self.inner_level(1);
        self.for_each_outer(
            self.len.saturating_sub(2),
            #[inline(always)]
            |offsets, base| {
                let rows = self.trips(&row, base[row.dim]);
                let mut at = offsets;
                for _ in 0..rows {
                    let len = self.trips(&run, base[run.dim]);
                    f(base, at, len);
                    at[0] = at[0].wrapping_add(row.strides[0]);
                    at[1] = at[1].wrapping_add(row.strides[1]);
                    base[row.dim] += row.div;
                }
                base[row.dim] -= rows * row.div;
            },
        );
    }

    /// Level `k` counted from the innermost (0), or a level of one step
    /// when the nest has no more.
    #[inline(always)]
    const fn inner_level(&self, k: usize) -> Level {
        if k < self.len {
            self.levels[self.len - 1 - k]
        } else {
            NO_LEVEL
        }
    }

    /// An odometer over the outermost `levels` levels (no recursion, so
    /// `body` is inlined into one loop): calls `body(offsets, base)` for
    /// every combination of their digits, `base` the logical index they
    /// reach, per dimension (`body` may change it but must restore it).
    #[inline(always)]
    fn for_each_outer(
        &self,
        levels: usize,
        mut body: impl FnMut([usize; 2], &mut [usize; MAX_RANK]),
    ) {
        // `count[k]` steps taken by level `k`, `trips[k]` its trip count
        // since it was last entered.
        let mut count = [0usize; MAX_LOOP_LEVELS];
        let mut trips = [0usize; MAX_LOOP_LEVELS];
        let mut base = [0usize; MAX_RANK];
        let mut offsets = [0usize; 2];
        let mut k = 0;
        while k < levels {
            trips[k] = self.trips(&self.levels[k], 0);
            k += 1;
        }
        loop {
            body(offsets, &mut base);
            // Count up, innermost first.
            let mut k = levels;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                let l = &self.levels[k];
                count[k] += 1;
                offsets[0] = offsets[0].wrapping_add(l.strides[0]);
                offsets[1] = offsets[1].wrapping_add(l.strides[1]);
                base[l.dim] += l.div;
                if count[k] < trips[k] {
                    break;
                }
                // Level `k` is done: back to its start, carry outwards.
                let t = trips[k];
                offsets[0] = offsets[0].wrapping_sub(t.wrapping_mul(l.strides[0]));
                offsets[1] = offsets[1].wrapping_sub(t.wrapping_mul(l.strides[1]));
                base[l.dim] -= t * l.div;
                count[k] = 0;
            }
            // Levels inside `k` start again, at the new outer index.
            let mut j = k + 1;
            while j < levels {
                trips[j] = self.trips(&self.levels[j], base[self.levels[j].dim]);
                j += 1;
            }
        }
    }

    /// The volume of levels `[outer, step, row, run]` at `offsets`, the
    /// outer digits having reached `base`: one call when all its blocks
    /// have the same shape, else one for the planes before the last if
    /// they do, and plane by plane for the rest.
    #[inline(always)]
    fn volume<F: FnMut([usize; 2], [usize; 4])>(
        &self,
        [outer, step, row, run]: &[Level; 4],
        offsets: [usize; 2],
        base: &mut [usize; MAX_RANK],
        f: &mut F,
    ) {
        let outers = self.trips(outer, base[outer.dim]);
        let (steps, rows, len) = (
            self.trips(step, base[step.dim]),
            self.trips(row, base[row.dim]),
            self.trips(run, base[run.dim]),
        );
        // Trip counts only shrink as the index grows, so when the first
        // and the last of the first `k` planes have as many blocks, their
        // first and last block as many rows, and their first and last row
        // the same length, all of them do. The last row's index differs
        // from the first's by the last step of each level above it in the
        // same dimension (no copy of `base`: a copy right after the
        // odometer's stores stalls on store forwarding).
        let uniform = |k: usize| {
            steps == self.trips(step, base[step.dim] + to_last(step, outer, k))
                && rows
                    == self.trips(
                        row,
                        base[row.dim] + to_last(row, outer, k) + to_last(row, step, steps),
                    )
                && len
                    == self.trips(
                        run,
                        base[run.dim]
                            + to_last(run, outer, k)
                            + to_last(run, step, steps)
                            + to_last(run, row, rows),
                    )
        };
        // All planes alike; or all but the last (a partial tile at the
        // end of the outer level's dimension); or plane by plane.
        let alike = if uniform(outers) {
            outers
        } else if outers > 1 && uniform(outers - 1) {
            outers - 1
        } else {
            0
        };
        if alike > 0 {
            (*f)(offsets, [alike, steps, rows, len]);
            if alike == outers {
                return;
            }
        }
        let saved = base[outer.dim];
        let mut o = [
            offsets[0].wrapping_add(alike.wrapping_mul(outer.strides[0])),
            offsets[1].wrapping_add(alike.wrapping_mul(outer.strides[1])),
        ];
        base[outer.dim] += alike * outer.div;
        let mut i = alike;
        while i < outers {
            self.plane(step, row, run, o, base, f);
            o[0] = o[0].wrapping_add(outer.strides[0]);
            o[1] = o[1].wrapping_add(outer.strides[1]);
            base[outer.dim] += outer.div;
            i += 1;
        }
        base[outer.dim] = saved;
    }

    /// The plane of levels `step`, `row` and `run` at `offsets`, the outer
    /// digits having reached `base`, as volumes of one plane: one call
    /// when all its blocks have the same shape, else one for the blocks
    /// before the last if they do, and block by block for the rest.
    #[inline(always)]
    fn plane<F: FnMut([usize; 2], [usize; 4])>(
        &self,
        step: &Level,
        row: &Level,
        run: &Level,
        offsets: [usize; 2],
        base: &mut [usize; MAX_RANK],
        f: &mut F,
    ) {
        let steps = self.trips(step, base[step.dim]);
        let (rows, len) = (
            self.trips(row, base[row.dim]),
            self.trips(run, base[run.dim]),
        );
        let uniform = |k: usize| {
            rows == self.trips(row, base[row.dim] + to_last(row, step, k))
                && len
                    == self.trips(
                        run,
                        base[run.dim] + to_last(run, step, k) + to_last(run, row, rows),
                    )
        };
        let alike = if uniform(steps) {
            steps
        } else if steps > 1 && uniform(steps - 1) {
            steps - 1
        } else {
            0
        };
        if alike > 0 {
            (*f)(offsets, [1, alike, rows, len]);
            if alike == steps {
                return;
            }
        }
        let saved = base[step.dim];
        let mut o = [
            offsets[0].wrapping_add(alike.wrapping_mul(step.strides[0])),
            offsets[1].wrapping_add(alike.wrapping_mul(step.strides[1])),
        ];
        base[step.dim] += alike * step.div;
        // One split serves every block left: either only the last block
        // is left, or even the first blocks split (trip counts shrink only
        // at a dimension's end, so those are full in the step's
        // dimension), and then by a partial tile in a dimension the step
        // does not count, the same in every block (every row of
        // `f32[M,947]` ends in one).
        let split = self.block_split(row, run, base);
        let mut i = alike;
        while i < steps {
            self.block(split, row, run, o, base, f);
            o[0] = o[0].wrapping_add(step.strides[0]);
            o[1] = o[1].wrapping_add(step.strides[1]);
            base[step.dim] += step.div;
            i += 1;
        }
        base[step.dim] = saved;
    }

    /// How the block of levels `row` and `run`, the outer digits having
    /// reached `base`, splits into calls: `[rows, len, alike]`, the first
    /// `alike` rows as long as the first (`len`).
    #[inline(always)]
    fn block_split(&self, row: &Level, run: &Level, base: &[usize; MAX_RANK]) -> [usize; 3] {
        let rows = self.trips(row, base[row.dim]);
        let len = self.trips(run, base[run.dim]);
        let row_len = |k: usize| self.trips(run, base[run.dim] + to_last(run, row, k));
        let alike = if row_len(rows) == len {
            // The last row as long as the first: one block.
            rows
        } else if rows > 1 && row_len(rows - 1) == len {
            // A partial tile in the row's dimension: all rows but the last.
            rows - 1
        } else {
            0
        };
        [rows, len, alike]
    }

    /// The block of levels `row` and `run` at `offsets`, the outer digits
    /// having reached `base`, as volumes of one block: the rows as long as
    /// the first in one call, then row by row ([`LoopNest::block_split`]).
    #[inline(always)]
    fn block<F: FnMut([usize; 2], [usize; 4])>(
        &self,
        [rows, len, alike]: [usize; 3],
        row: &Level,
        run: &Level,
        offsets: [usize; 2],
        base: &[usize; MAX_RANK],
        f: &mut F,
    ) {
        if alike > 0 {
            (*f)(offsets, [1, 1, alike, len]);
        }
        let mut r = alike;
        let mut o = [
            offsets[0].wrapping_add(r.wrapping_mul(row.strides[0])),
            offsets[1].wrapping_add(r.wrapping_mul(row.strides[1])),
        ];
        while r < rows {
            (*f)(o, [1, 1, 1, self.trips(run, base[run.dim] + r * row.div)]);
            o[0] = o[0].wrapping_add(row.strides[0]);
            o[1] = o[1].wrapping_add(row.strides[1]);
            r += 1;
        }
    }
}

/// How much further `level`'s dimension is at the last of `trips` steps of
/// `outer` than at the first: `(trips - 1) * outer.div` if they count the
/// same dimension, else 0.
#[inline(always)]
const fn to_last(level: &Level, outer: &Level, trips: usize) -> usize {
    if level.dim == outer.dim {
        (trips - 1) * outer.div
    } else {
        0
    }
}

/// Calls `f(start + k * stride)` for `k < count`, each `[source,
/// destination]` (wrapping, as a stride of 0 or an unused buffer's may).
#[inline(always)]
fn for_each_step(
    start: [usize; 2],
    count: usize,
    stride: [usize; 2],
    mut f: impl FnMut([usize; 2]),
) {
    let mut o = start;
    let mut k = 0;
    while k < count {
        f(o);
        o[0] = o[0].wrapping_add(stride[0]);
        o[1] = o[1].wrapping_add(stride[1]);
        k += 1;
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

/// The elements of a layout in logical order with their offsets, counted
/// incrementally ([`ArrayLayout::elements`]).
#[derive(Clone)]
pub struct Elements {
    layout: ArrayLayout,
    nest: Option<LoopNest>,
    counters: [usize; MAX_LOOP_LEVELS],
    trips: [usize; MAX_LOOP_LEVELS],
    index: [usize; MAX_RANK],
    offset: usize,
    remaining: usize,
    started: bool,
}

impl Elements {
    pub(crate) const fn new(layout: &ArrayLayout) -> Elements {
        let nest = LoopNest::logical(layout);
        let mut e = Elements {
            layout: *layout,
            nest,
            counters: [0; MAX_LOOP_LEVELS],
            trips: [0; MAX_LOOP_LEVELS],
            index: [0; MAX_RANK],
            offset: 0,
            remaining: layout.element_count(),
            started: false,
        };
        if let Some(n) = &e.nest {
            let mut i = 0;
            while i < n.len {
                e.trips[i] = n.trips(&n.levels[i], 0);
                i += 1;
            }
        }
        e
    }

    /// Moves to the next index (the current one is not the last).
    fn advance(&mut self) {
        let Some(nest) = &self.nest else {
            // No exact chain: count the logical index and ask the engine.
            let mut d = self.layout.rank();
            while d > 0 {
                d -= 1;
                self.index[d] += 1;
                if self.index[d] < self.layout.size(d) {
                    break;
                }
                self.index[d] = 0;
            }
            self.offset = self
                .layout
                .offset_in_bounds(self.index.split_at(self.layout.rank()).0);
            return;
        };
        let mut i = nest.len;
        while i > 0 {
            i -= 1;
            let l = &nest.levels[i];
            self.counters[i] += 1;
            self.index[l.dim] += l.div;
            self.offset = self.offset.wrapping_add(l.strides[0]);
            if self.counters[i] < self.trips[i] {
                // Re-enter the inner levels, which start again from 0.
                let mut j = i + 1;
                while j < nest.len {
                    let lj = &nest.levels[j];
                    self.trips[j] = nest.trips(lj, self.index[lj.dim]);
                    j += 1;
                }
                return;
            }
            let n = self.counters[i];
            self.index[l.dim] -= l.div * n;
            self.offset = self.offset.wrapping_sub(l.strides[0].wrapping_mul(n));
            self.counters[i] = 0;
        }
    }
}

impl Elements {
    /// The offset of the next element, without building its index (the
    /// fast path of element iterators); [`Elements::index`] gives the
    /// index of the element it returned.
    #[inline]
    pub fn next_offset(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        if self.started {
            self.advance();
        }
        self.started = true;
        self.remaining -= 1;
        Some(self.offset)
    }

    /// The logical index of the element [`Elements::next_offset`] last
    /// returned (all zeros before the first call).
    #[inline]
    pub fn index(&self) -> &[usize] {
        self.index.split_at(self.layout.rank()).0
    }
}

impl Iterator for Elements {
    /// The logical index and the element's offset.
    type Item = (DimVec, usize);

    #[inline]
    fn next(&mut self) -> Option<(DimVec, usize)> {
        let offset = self.next_offset()?;
        Some((DimVec::from_slice(self.index()), offset))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Elements {}
impl core::iter::FusedIterator for Elements {}

/// Every slot of a layout's buffer in memory order, with what it holds,
/// counted incrementally ([`ArrayLayout::slots`]).
#[derive(Clone)]
pub struct Slots {
    layout: ArrayLayout,
    exact: bool,
    rank: usize,
    sizes: [usize; MAX_PHYSICAL_RANK],
    /// Per physical dim: the logical dim it counts (`usize::MAX` for none),
    /// its div, and the first counter value that is padding.
    dim: [usize; MAX_PHYSICAL_RANK],
    div: [usize; MAX_PHYSICAL_RANK],
    limit: [usize; MAX_PHYSICAL_RANK],
    counters: [usize; MAX_PHYSICAL_RANK],
    index: [usize; MAX_RANK],
    /// Physical counters at or past their limit, plus logical index
    /// entries at or past their size: the slot is padding when nonzero.
    violations: usize,
    offset: usize,
    tiled_len: usize,
}

impl Slots {
    pub(crate) const fn new(layout: &ArrayLayout) -> Slots {
        let physical = layout.physical_dims();
        let dims = physical.as_slice();
        let mut s = Slots {
            layout: *layout,
            exact: true,
            rank: dims.len(),
            sizes: [0; MAX_PHYSICAL_RANK],
            dim: [usize::MAX; MAX_PHYSICAL_RANK],
            div: [0; MAX_PHYSICAL_RANK],
            limit: [usize::MAX; MAX_PHYSICAL_RANK],
            counters: [0; MAX_PHYSICAL_RANK],
            index: [0; MAX_RANK],
            violations: 0,
            offset: 0,
            tiled_len: 1,
        };
        let mut d = 0;
        while d < layout.rank() {
            if chain(layout, &physical, d).is_none() {
                s.exact = false;
            }
            if layout.size(d) == 0 {
                s.violations += 1;
            }
            d += 1;
        }
        let mut p = 0;
        while p < dims.len() {
            s.sizes[p] = dims[p].size;
            s.tiled_len = s.tiled_len.saturating_mul(dims[p].size);
            match dims[p].source {
                DigitSource::Constant => s.limit[p] = 1,
                DigitSource::Logical { dim, div, modulus } => {
                    s.dim[p] = dim;
                    s.div[p] = div;
                    if let Some(m) = modulus {
                        s.limit[p] = m;
                    }
                }
                DigitSource::Mixed => {}
            }
            p += 1;
        }
        s
    }

    /// Counts the physical index up by one slot.
    fn advance(&mut self) {
        let mut p = self.rank;
        while p > 0 {
            p -= 1;
            let before = self.counters[p];
            self.counters[p] = before + 1;
            if before + 1 == self.limit[p] {
                self.violations += 1;
            }
            self.move_index(p, before, before + 1);
            if self.counters[p] < self.sizes[p] {
                return;
            }
            if self.counters[p] >= self.limit[p] {
                self.violations -= 1;
            }
            self.move_index(p, self.counters[p], 0);
            self.counters[p] = 0;
        }
    }

    /// Moves `index[dim[p]]` for physical counter `p` going from `from` to
    /// `to`, keeping `violations` in step.
    fn move_index(&mut self, p: usize, from: usize, to: usize) {
        let d = self.dim[p];
        if d == usize::MAX {
            return;
        }
        let size = self.layout.size(d);
        let was_out = self.index[d] >= size;
        self.index[d] = self.index[d] - from * self.div[p] + to * self.div[p];
        let is_out = self.index[d] >= size;
        if is_out && !was_out {
            self.violations += 1;
        } else if was_out && !is_out {
            self.violations -= 1;
        }
    }
}

impl Iterator for Slots {
    /// What the slot holds.
    type Item = Slot;

    #[inline]
    fn next(&mut self) -> Option<Slot> {
        let buffer_len = self.layout.buffer_len();
        if self.offset >= buffer_len {
            return None;
        }
        let offset = self.offset;
        self.offset += 1;
        if !self.exact {
            return self.layout.try_slot(offset).ok();
        }
        if offset >= self.tiled_len {
            return Some(Slot::Padding); // the `L(n)` tail
        }
        let slot = if self.violations == 0 {
            Slot::Element(DimVec::from_slice(
                self.index.split_at(self.layout.rank()).0,
            ))
        } else {
            Slot::Padding
        };
        if offset + 1 < self.tiled_len {
            self.advance();
        }
        Some(slot)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.layout.buffer_len() - self.offset;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Slots {}
impl core::iter::FusedIterator for Slots {}

impl ArrayLayout {
    /// The elements in logical (row-major index) order, each with its
    /// offset. The offset is counted digit by digit as the index moves, not
    /// recomputed; layouts whose digits form no exact chain (see
    /// [`LoopNest::logical`]) fall back to the engine's offset per element.
    ///
    /// ```
    /// use tessera::ArrayLayout;
    /// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    /// let offsets: Vec<usize> = a.elements().map(|(_, o)| o).take(5).collect();
    /// assert_eq!(offsets, [0, 1, 4, 5, 8]);
    /// ```
    pub const fn elements(&self) -> Elements {
        Elements::new(self)
    }

    /// Every slot of the buffer in memory order: the element it holds, or
    /// padding. Counted incrementally, like [`ArrayLayout::elements`].
    ///
    /// ```
    /// use tessera::{ArrayLayout, Slot};
    /// let a: ArrayLayout = "f32[3]{0:T(2)}".parse().unwrap();
    /// let slots: Vec<Slot> = a.slots().collect();
    /// assert_eq!(slots.len(), 4);
    /// assert_eq!(slots[3], Slot::Padding);
    /// ```
    pub const fn slots(&self) -> Slots {
        Slots::new(self)
    }
}
