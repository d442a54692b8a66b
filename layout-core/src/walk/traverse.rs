//! Running a [`LoopNest`]: the odometer over its levels, handing kernels
//! runs, blocks, planes or volumes, with trip counts bounded per level.

use crate::limits::MAX_RANK;
use crate::walk::nest::{Level, LoopNest, MAX_LOOP_LEVELS, NO_LEVEL};

impl LoopNest {
    /// How many steps `level` takes when entered with `index[dim] == base`:
    /// all of them unless the level reaches past the dimension's end (a
    /// partial tile), the only case that divides.
    #[inline(always)]
    pub(super) const fn trips(&self, level: &Level, base: usize) -> usize {
        if level.whole {
            return level.extent;
        }
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

    /// The index in [`LoopNest::levels`] of the level just outside the
    /// volumes (the innermost four levels, [`LoopNest::for_each_volume`]):
    /// the one the walk steps after each volume, along which
    /// [`LoopNest::for_each_volume_band`] hands alike volumes over
    /// together; `None` for a nest of four levels or fewer.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[24,256]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[24,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let band = nest.band_level().unwrap();
    /// // The bands of 8 rows, 2048 elements apart in both layouts.
    /// assert_eq!(nest.levels()[band].strides, [2048, 2048]);
    /// ```
    #[inline(always)]
    pub const fn band_level(&self) -> Option<usize> {
        self.len.checked_sub(5)
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
    pub fn for_each_volume<F: FnMut([usize; 2], [usize; 4])>(&self, f: F) {
        self.volumes::<false, F>(f);
    }

    /// [`LoopNest::for_each_volume`], with the volumes in any order where
    /// that makes them larger: when every block of a volume ends in the
    /// same partial row (the last tile column of a row-major row, in each
    /// of a band's rows), the blocks' full rows come in one call and
    /// their last rows in another, where the nest's order would split
    /// the volume block by block. Likewise, when every plane ends in the
    /// same partial block (the last tile of each band of a transposed
    /// tiling), the planes' other blocks come in one call and their last
    /// blocks in another; and the planes before a last plane that has
    /// fewer (the partial band at the end of the rows) split so on their
    /// own. For kernels that fill a volume in their own order anyway and
    /// gain from long volumes (a row deinterleave handles `factor` blocks
    /// at once, so blocks one at a time leave it nothing to do). Every
    /// element is visited once; padding never.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[16,200]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[16,200]{1,0}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let mut volumes = Vec::new();
    /// nest.for_each_volume_any_order(|start, shape| volumes.push((start, shape)));
    /// // Per band of 8 rows: 4 row pairs of the full tile column, then of
    /// // the partial one (72 columns); in nest order each row pair's
    /// // 128 + 72 columns would come as two calls of one block.
    /// assert_eq!(volumes[..2], [([0, 0], [4, 2, 1, 128]), ([1024, 128], [4, 2, 1, 72])]);
    /// assert_eq!(volumes.len(), 4);
    /// ```
    #[inline(always)]
    pub fn for_each_volume_any_order<F: FnMut([usize; 2], [usize; 4])>(&self, f: F) {
        self.volumes::<true, F>(f);
    }

    /// [`LoopNest::for_each_volume`] a band at a time: calls `f(start,
    /// shape, bands, band_stride)` where volume `b < bands` of the call
    /// starts at `start + b * band_stride` (each `[source, destination]`)
    /// and has `shape`, the same for all of them. The volumes along the
    /// level just outside them come in one call when that level and the
    /// volume's four never meet a partial tile (every band of a matrix's
    /// `T(8,128)` tiles, one after another down its rows), else one call
    /// per volume (`bands == 1`) in the order of
    /// [`LoopNest::for_each_volume`]. For kernels that take many volumes
    /// at once: with a call per volume (its trip counts, the check that
    /// its planes are alike, the kernel's join of the volumes), an `s8`
    /// `T(8,128)(4,1)` unpack of 1 MiB, 128 volumes of 8 KiB, took 8%
    /// longer.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[24,256]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[24,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let mut calls = Vec::new();
    /// nest.for_each_volume_band(|start, shape, bands, stride| {
    ///     calls.push((start, shape, bands, stride))
    /// });
    /// // Three bands of 8 rows, 2048 elements apart in both layouts.
    /// assert_eq!(calls, [([0, 0], [2, 4, 128, 2], 3, [2048, 2048])]);
    /// ```
    #[inline(always)]
    pub fn for_each_volume_band<F: FnMut([usize; 2], [usize; 4], usize, [usize; 2])>(&self, f: F) {
        self.volume_bands::<false, F>(f);
    }

    /// [`LoopNest::for_each_volume_band`], the volumes that are not alike
    /// in the order of [`LoopNest::for_each_volume_any_order`].
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "bf16[16,200]{1,0:T(8,128)(2,1)}".parse().unwrap();
    /// let dst: ArrayLayout = "bf16[16,200]{1,0}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
    /// let mut calls = Vec::new();
    /// nest.for_each_volume_band_any_order(|start, shape, bands, _| {
    ///     calls.push((start, shape, bands))
    /// });
    /// // A partial tile column (72 of 128): volume by volume, as
    /// // `for_each_volume_any_order` hands them over.
    /// assert_eq!(calls[..2], [([0, 0], [4, 2, 1, 128], 1), ([1024, 128], [4, 2, 1, 72], 1)]);
    /// assert_eq!(calls.len(), 4);
    /// ```
    #[inline(always)]
    pub fn for_each_volume_band_any_order<F: FnMut([usize; 2], [usize; 4], usize, [usize; 2])>(
        &self,
        f: F,
    ) {
        self.volume_bands::<true, F>(f);
    }

    /// The walk of [`LoopNest::for_each_volume_band`] (`ANY_ORDER` false)
    /// and [`LoopNest::for_each_volume_band_any_order`] (true).
    #[inline(always)]
    fn volume_bands<const ANY_ORDER: bool, F: FnMut([usize; 2], [usize; 4], usize, [usize; 2])>(
        &self,
        mut f: F,
    ) {
        if let Some(k) = self.band_level()
            && self.element_count > 0
        {
            let band = self.levels[k];
            let cell = [3, 2, 1, 0].map(|k| self.inner_level(k));
            if band.whole && cell.iter().all(|l| l.whole) {
                // Whole levels take all their steps wherever they start,
                // so every volume has the shape of the first.
                let shape = cell.map(|l| l.extent);
                self.for_each_outer(
                    k,
                    #[inline(always)]
                    |offsets, _| f(offsets, shape, band.extent, band.strides),
                );
                return;
            }
        }
        self.volumes::<ANY_ORDER, _>(
            #[inline(always)]
            |start, shape| f(start, shape, 1, [0, 0]),
        );
    }

    /// The walk of [`LoopNest::for_each_volume`] (`ANY_ORDER` false) and
    /// [`LoopNest::for_each_volume_any_order`] (true).
    #[inline(always)]
    fn volumes<const ANY_ORDER: bool, F: FnMut([usize; 2], [usize; 4])>(&self, mut f: F) {
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
            |offsets, base| self.volume::<ANY_ORDER, F>(&cell, offsets, base, &mut f),
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
        // The odometer counts the levels outside the innermost two; the
        // runs of one block (the level around the runs) are a plain loop,
        // so a run costs an addition per buffer and one to the index, not
        // a step of the general odometer.
        let row = self.inner_level(1);
        self.for_each_indexed_block(
            #[inline(always)]
            |base, start, rows, len| {
                let mut at = start;
                for _ in 0..rows {
                    f(base, at, len);
                    at[0] = at[0].wrapping_add(row.strides[0]);
                    at[1] = at[1].wrapping_add(row.strides[1]);
                    base[row.dim] += row.div;
                }
                base[row.dim] -= rows * row.div;
            },
        );
    }

    /// Calls `f(index, start_offsets, rows, len)` for every block of the
    /// innermost two levels, in nest order, `index` the logical index of
    /// the block's first element (`f` may change it but must put it
    /// back). Element `(r, i)` of a block, `r < rows`, `i < len`, is at
    /// `start + r * outer + i * inner` (`[outer, inner] =
    /// block_strides()`), and its index is `index` with `r * div` added
    /// in the row level's dimension and `i * div` in the run level's
    /// (`levels()`' last two). When both levels count the same dimension,
    /// each block is one run (`rows` 1). Every element is visited once;
    /// padding never.
    ///
    /// ```
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let a: ArrayLayout = "f32[16,256]{1,0:T(8,128)}".parse().unwrap();
    /// let nest = LoopNest::relayout(&a, &a).unwrap().unwrap();
    /// let mut tiles = Vec::new();
    /// nest.for_each_indexed_block(|index, [start, _], rows, len| {
    ///     tiles.push(([index[0], index[1]], start, rows, len));
    /// });
    /// // One block per 8 x 128 tile, 1024 slots in a row.
    /// assert_eq!(tiles[..2], [([0, 0], 0, 8, 128), ([0, 128], 1024, 8, 128)]);
    /// assert_eq!(tiles.len(), 4);
    /// ```
    #[inline(always)]
    pub fn for_each_indexed_block<F: FnMut(&mut [usize; MAX_RANK], [usize; 2], usize, usize)>(
        &self,
        mut f: F,
    ) {
        if self.element_count == 0 {
            return;
        }
        if self.len == 0 {
            let mut index = [0usize; MAX_RANK];
            f(&mut index, [0, 0], 1, 1);
            return;
        }
        let run = self.levels[self.len - 1];
        let row = self.inner_level(1);
        self.for_each_outer(
            self.len.saturating_sub(2),
            #[inline(always)]
            |offsets, base| {
                let rows = self.trips(&row, base[row.dim]);
                if row.dim != run.dim {
                    // The run's trip count does not move with the row.
                    f(base, offsets, rows, self.trips(&run, base[run.dim]));
                    return;
                }
                let mut at = offsets;
                for _ in 0..rows {
                    f(base, at, 1, self.trips(&run, base[run.dim]));
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
    /// have the same shape; else the planes that
    /// [`LoopNest::volume_split`] finds alike in one call, or in two
    /// split as it says (`ANY_ORDER`), and plane by plane for the rest.
    #[inline(always)]
    fn volume<const ANY_ORDER: bool, F: FnMut([usize; 2], [usize; 4])>(
        &self,
        levels: &[Level; 4],
        offsets: [usize; 2],
        base: &mut [usize; MAX_RANK],
        f: &mut F,
    ) {
        let [outer, step, row, run] = levels;
        let outers = self.trips(outer, base[outer.dim]);
        let (steps, rows, len) = (
            self.trips(step, base[step.dim]),
            self.trips(row, base[row.dim]),
            self.trips(run, base[run.dim]),
        );
        let counts = [outers, steps, rows, len];
        if self.uniform(levels, base, counts, outers) {
            (*f)(offsets, counts);
            return;
        }
        // How the planes split, out of line: the loop over volumes that
        // are alike (every band of a matrix's tiles) keeps its registers
        // (the matrix's unpacks read 2-3% slower with it inline); the
        // calls of `f` stay inline (out of line, with `f`'s state behind a
        // pointer, a partial-tile `f32` pack read 15% slower).
        let (alike, split) = self.volume_split::<ANY_ORDER>(levels, base, counts);
        if alike > 0 {
            match split {
                Split::None => (*f)(offsets, [alike, steps, rows, len]),
                Split::LastRow(last) => {
                    (*f)(offsets, [alike, steps, rows - 1, len]);
                    let o = [
                        offsets[0].wrapping_add((rows - 1).wrapping_mul(row.strides[0])),
                        offsets[1].wrapping_add((rows - 1).wrapping_mul(row.strides[1])),
                    ];
                    (*f)(o, [alike, steps, 1, last]);
                }
                Split::LastStep([last_rows, last_len]) => {
                    (*f)(offsets, [alike, steps - 1, rows, len]);
                    let o = [
                        offsets[0].wrapping_add((steps - 1).wrapping_mul(step.strides[0])),
                        offsets[1].wrapping_add((steps - 1).wrapping_mul(step.strides[1])),
                    ];
                    (*f)(o, [alike, 1, last_rows, last_len]);
                }
            }
            if alike == outers {
                return;
            }
        }
        // Plane by plane for the rest.
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

    /// Whether the first `k` planes of the volume of `levels` whose first
    /// block has `[outers, steps, rows, len]`, the outer digits having
    /// reached `base`, are alike (see [`LoopNest::volume`]).
    #[inline(always)]
    fn uniform(
        &self,
        [outer, step, row, run]: &[Level; 4],
        base: &[usize; MAX_RANK],
        [_, steps, rows, len]: [usize; 4],
        k: usize,
    ) -> bool {
        // Trip counts only shrink as the index grows, so when the first
        // and the last of the first `k` planes have as many blocks, their
        // first and last block as many rows, and their first and last row
        // the same length, all of them do. The last row's index differs
        // from the first's by the last step of each level above it in the
        // same dimension (no copy of `base`: a copy right after the
        // odometer's stores stalls on store forwarding).
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
    }

    /// How [`LoopNest::volume`] hands a volume whose planes are not all
    /// alike, `[outers, steps, rows, len]` those of its first block: the
    /// first `k` planes in one call (or two, as `Split` says), then the
    /// rest plane by plane; `(0, Split::None)`: all plane by plane.
    #[inline(never)]
    fn volume_split<const ANY_ORDER: bool>(
        &self,
        levels: &[Level; 4],
        base: &[usize; MAX_RANK],
        [outers, steps, rows, len]: [usize; 4],
    ) -> (usize, Split) {
        let [outer, step, row, run] = levels;
        let uniform = |k: usize| self.uniform(levels, base, [outers, steps, rows, len], k);
        // The index, in the row's and in the run's dimension, of block
        // `t - 1` of plane `o - 1` (and of its row `r - 1`): the first
        // with 1s, the last of the first `k` planes with `k`, `steps`.
        let row_at =
            |o: usize, t: usize| base[row.dim] + to_last(row, outer, o) + to_last(row, step, t);
        let run_at = |o: usize, t: usize, r: usize| {
            base[run.dim] + to_last(run, outer, o) + to_last(run, step, t) + to_last(run, row, r)
        };
        let steps_alike =
            |k: usize| steps == self.trips(step, base[step.dim] + to_last(step, outer, k));
        // With `ANY_ORDER`: whether every block of the first `k` planes
        // has the same rows but the last, as long as the first block's
        // first, and every block's last row as long as the first block's
        // (the bounds argument of `uniform`, over those two sets of rows).
        let last = self.trips(run, run_at(1, 1, rows));
        let split = |k: usize| {
            ANY_ORDER
                && rows > 1
                && steps_alike(k)
                && rows == self.trips(row, row_at(k, steps))
                && len == self.trips(run, run_at(k, steps, rows - 1))
                && last == self.trips(run, run_at(k, steps, rows))
        };
        // With `ANY_ORDER`: whether the first `k` planes have the same
        // blocks but each plane's last, alike among themselves: `[rows,
        // len]` of those last blocks when so (a partial tile at the end of
        // the step's dimension, in every plane), by the same argument.
        let last_step = |k: usize| {
            if !ANY_ORDER || steps < 2 {
                return None;
            }
            let last_rows = self.trips(row, row_at(1, steps));
            let last_len = self.trips(run, run_at(1, steps, 1));
            let alike = steps_alike(k)
                && rows == self.trips(row, row_at(k, steps - 1))
                && len == self.trips(run, run_at(k, steps - 1, rows))
                && last_rows == self.trips(row, row_at(k, steps))
                && last_len == self.trips(run, run_at(k, steps, last_rows));
            alike.then_some([last_rows, last_len])
        };
        let how = |k: usize| match split(k) {
            true => Some(Split::LastRow(last)),
            false => last_step(k).map(Split::LastStep),
        };
        if let Some(split) = how(outers) {
            return (outers, split);
        }
        // All planes but the last alike (a partial tile at the end of the
        // outer level's dimension), or split alike.
        if outers > 1 {
            if uniform(outers - 1) {
                return (outers - 1, Split::None);
            }
            if let Some(split) = how(outers - 1) {
                return (outers - 1, split);
            }
        }
        (0, Split::None)
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

/// How [`LoopNest::for_each_volume_any_order`] splits planes whose
/// blocks are not all alike.
#[derive(Clone, Copy)]
enum Split {
    /// Alike: one volume.
    None,
    /// Every block's last row apart, of this length.
    LastRow(usize),
    /// Every plane's last block apart, `[rows, len]`.
    LastStep([usize; 2]),
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
/// destination]` (wrapping, as a stride of 0 or an unused buffer's may):
/// one level of a nest, stepped. The levels of a volume
/// ([`LoopNest::for_each_volume`]) are walked with it, here and in the
/// relayout kernels.
///
/// ```
/// use tessera::walk::for_each_step;
/// let mut starts = Vec::new();
/// for_each_step([1, 10], 3, [4, 100], |o| starts.push(o));
/// assert_eq!(starts, [[1, 10], [5, 110], [9, 210]]);
/// ```
#[inline(always)]
pub fn for_each_step(
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

/// Calls `f(start + o * outer + k * step + r * row)` for every `o <
/// outers`, `k < steps` and `r < rows`, in that order, each `[source,
/// destination]`: the start of every run of a volume that
/// [`LoopNest::for_each_volume`] hands over, with `[outer, step, row, _]
/// = volume_strides()` ([`LoopNest::volume_strides`]). Three levels of
/// [`for_each_step`], inlined into `f`'s caller.
///
/// ```
/// use tessera::{walk::{for_each_run_start, LoopNest}, ArrayLayout};
/// let src: ArrayLayout = "f32[16,256]{1,0}".parse().unwrap();
/// let dst: ArrayLayout = "f32[16,256]{1,0:T(8,128)}".parse().unwrap();
/// let nest = LoopNest::relayout(&src, &dst).unwrap().unwrap();
/// let [outer, step, row, _] = nest.volume_strides();
/// let mut runs = 0;
/// nest.for_each_volume(|start, [outers, steps, rows, len]| {
///     for_each_run_start(start, [outers, steps, rows], [outer, step, row], |[s, d]| {
///         assert_eq!(len, 128); // a tile row, contiguous in both buffers
///         assert_eq!(d, dst.offset(&[s / 256, s % 256]));
///         runs += 1;
///     });
/// });
/// assert_eq!(runs, 16 * 2);
/// ```
#[inline(always)]
pub fn for_each_run_start(
    start: [usize; 2],
    [outers, steps, rows]: [usize; 3],
    [outer, step, row]: [[usize; 2]; 3],
    mut f: impl FnMut([usize; 2]),
) {
    // Plain loops calling `f` itself: nested calls of `for_each_step`
    // pass `f` on as `&mut f` through closures, and the compiler did not
    // always inline that call, one per run (the static f32 pack of
    // `benches/relayout.rs` at 1 MiB took 1.35x the time with it).
    let mut plane = start;
    for _ in 0..outers {
        let mut block = plane;
        for _ in 0..steps {
            let mut at = block;
            for _ in 0..rows {
                f(at);
                at = [at[0].wrapping_add(row[0]), at[1].wrapping_add(row[1])];
            }
            block = [
                block[0].wrapping_add(step[0]),
                block[1].wrapping_add(step[1]),
            ];
        }
        plane = [
            plane[0].wrapping_add(outer[0]),
            plane[1].wrapping_add(outer[1]),
        ];
    }
}
