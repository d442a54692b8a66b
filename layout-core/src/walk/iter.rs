//! Iterators over one layout: [`Elements`] (index and offset of each
//! element, logical order) and [`Slots`] (what each buffer slot holds).

use crate::array::{ArrayLayout, DimVec, PhysicalDims, Slot};
use crate::limits::MAX_RANK;
use crate::walk::nest::{LoopNest, MAX_LOOP_LEVELS};
use crate::walk::slot_runs::SlotRuns;

/// The elements of a layout in logical order with their offsets, counted
/// incrementally ([`ArrayLayout::elements`]).
///
/// ```
/// use tessera::ArrayLayout;
/// let a: ArrayLayout = "f32[2,3]{0,1}".parse()?;
/// // Row by row (y, then x), in a column-major buffer.
/// let offsets: Vec<usize> = a.elements().map(|(_, offset)| offset).collect();
/// assert_eq!(offsets, [0, 2, 4, 1, 3, 5]);
/// let mut e = a.elements();
/// e.nth(2); // (0, 2)
/// assert_eq!((e.next_offset(), e.index()), (Some(1), &[1, 0][..]));
/// # Ok::<(), tessera::Error>(())
/// ```
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
/// counted incrementally ([`ArrayLayout::slots`]): the buffer goes in
/// runs of the innermost physical dim ([`SlotRuns`]), each run's first
/// index read from the physical dims and the rest of the run counted.
///
/// ```
/// use tessera::{ArrayLayout, DimVec, Slot};
/// let a: ArrayLayout = "f32[3,2]{1,0:T(2,2)}".parse()?;
/// let slots: Vec<Slot> = a.slots().collect();
/// assert_eq!(slots.len(), 8); // two 2x2 tiles
/// assert_eq!(slots[5], Slot::Element(DimVec::from_slice(&[2, 1])));
/// assert_eq!(slots[6..], [Slot::Padding, Slot::Padding]); // y = 3 does not exist
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone)]
pub struct Slots {
    layout: ArrayLayout,
    dims: PhysicalDims,
    runs: SlotRuns,
    /// The next slot, the end of its run, and the end of the run's
    /// elements (the slots from there to `run_end` are padding).
    offset: usize,
    run_end: usize,
    elements_end: usize,
    /// The index of the element at `offset`, when it is one.
    index: [usize; MAX_RANK],
}

impl Slots {
    pub(crate) const fn new(layout: &ArrayLayout) -> Slots {
        Slots {
            layout: *layout,
            dims: layout.physical_dims(),
            runs: SlotRuns::of(layout),
            offset: 0,
            run_end: 0,
            elements_end: 0,
            index: [0; MAX_RANK],
        }
    }

    /// Finds what the run starting at `offset` holds.
    fn start_run(&mut self, offset: usize) {
        self.run_end = self
            .layout
            .buffer_len()
            .min(offset.saturating_add(self.runs.len()));
        let rank = self.layout.rank();
        let index = self.index.split_at_mut(rank).0;
        self.elements_end = if self.runs.counts_runs() {
            let sizes = self.layout.sizes();
            match self
                .runs
                .first_of_run(&self.dims, &sizes, offset / self.runs.len(), index)
            {
                true => offset + self.runs.elements_in_run(index),
                false => offset,
            }
        } else {
            match self.layout.try_slot(offset) {
                Ok(Slot::Element(i)) => {
                    index.copy_from_slice(&i);
                    offset + self.runs.elements_in_run(&i)
                }
                _ => offset,
            }
        };
    }
}

impl Iterator for Slots {
    /// What the slot holds.
    type Item = Slot;

    #[inline]
    fn next(&mut self) -> Option<Slot> {
        let offset = self.offset;
        if offset >= self.run_end {
            if offset >= self.layout.buffer_len() {
                return None;
            }
            self.start_run(offset);
        }
        self.offset = offset + 1;
        if offset >= self.elements_end {
            return Some(Slot::Padding);
        }
        let rank = self.layout.rank();
        let slot = Slot::Element(DimVec::from_slice(self.index.split_at(rank).0));
        if self.runs.dim() != usize::MAX {
            self.index[self.runs.dim()] += self.runs.div();
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
