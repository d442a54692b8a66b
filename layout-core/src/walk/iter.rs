//! Iterators over one layout: [`Elements`] (index and offset of each
//! element, logical order) and [`Slots`] (what each buffer slot holds).

use crate::array::{ArrayLayout, DigitSource, DimVec, Slot};
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK};
use crate::walk::nest::{LoopNest, MAX_LOOP_LEVELS, chain};

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
