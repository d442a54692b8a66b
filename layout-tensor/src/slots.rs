//! Every slot of a tensor's buffer in memory order, with the index it
//! holds: [`Slots`] and [`SlotsMut`].
//!
//! The index is counted, not recomputed. `next` steps a cursor: the
//! buffer goes in runs of its innermost physical dim ([`SlotRuns`]), the
//! first slot of a run is read from the physical dims (or asked of a
//! run-time layout), and the rest of the run is additions. A `fold`
//! (`for_each`, `sum`, `count`...) from the start walks the engine's
//! memory-order loop nest instead: stretches of elements with their
//! indices counted along each row, the padding between them as plain
//! slices.

use layout_core::walk::SlotRuns;
use layout_core::{AnyLayout, DimVec, LayoutIndex, MAX_RANK, PhysicalDims, Slot};

use crate::runs::{fold_by_next, for_each_slot_stretch};

/// Where a slot walk is: shared by [`Slots`], [`SlotsMut`] and
/// [`PackedSlots`](crate::packed::PackedSlots).
pub(crate) struct SlotCursor<'a, L: AnyLayout> {
    pub(crate) layout: &'a L,
    runs: SlotRuns,
    /// The next slot.
    pub(crate) offset: usize,
    /// The end of the current run.
    run_end: usize,
    /// Slots of the current run before this hold elements.
    elements_end: usize,
    /// The index of the element at `offset`, when it is one.
    index: L::Index,
}

impl<L: AnyLayout> Clone for SlotCursor<'_, L> {
    fn clone(&self) -> Self {
        SlotCursor {
            layout: self.layout,
            ..*self
        }
    }
}

impl<'a, L: AnyLayout> SlotCursor<'a, L> {
    #[inline]
    pub(crate) fn new(layout: &'a L) -> Self {
        let runs: &'static Option<SlotRuns> = &const {
            match L::FIXED_LAYOUT {
                Some(l) => Some(SlotRuns::of(&l)),
                None => None,
            }
        };
        let runs = match runs {
            Some(r) => *r,
            None => SlotRuns::of(&layout.to_array_layout()),
        };
        SlotCursor {
            layout,
            runs,
            offset: 0,
            run_end: 0,
            elements_end: 0,
            index: L::Index::from_slice(&[0; MAX_RANK][..layout.rank()]),
        }
    }

    /// The runs: a constant for a static layout.
    #[inline(always)]
    fn runs(&self) -> SlotRuns {
        let fixed: &'static Option<SlotRuns> = &const {
            match L::FIXED_LAYOUT {
                Some(l) => Some(SlotRuns::of(&l)),
                None => None,
            }
        };
        match fixed {
            Some(r) => *r,
            None => self.runs,
        }
    }

    /// The next slot of a `len`-slot buffer and the index it holds
    /// (`None` for padding); `None` after the last.
    ///
    /// The hot path is an element inside the current run: one comparison,
    /// the index handed out and stepped. Padding and the start of a run
    /// are [`SlotCursor::next_past_elements`].
    #[inline]
    pub(crate) fn next(&mut self, len: usize) -> Option<(Option<L::Index>, usize)> {
        let offset = self.offset;
        if offset < self.elements_end {
            return Some((Some(self.step_element(offset)), offset));
        }
        self.next_past_elements(len)
    }

    /// The element at `offset` (`< elements_end`): its index, with the
    /// cursor moved past it.
    #[inline(always)]
    fn step_element(&mut self, offset: usize) -> L::Index {
        self.offset = offset + 1;
        let index = self.index;
        let runs = self.runs();
        if runs.dim() != usize::MAX {
            self.index.as_mut()[runs.dim()] += runs.div();
        }
        index
    }

    /// [`SlotCursor::next`] once the current run's elements are handed
    /// out: its padding, or the next run's first slot.
    #[inline]
    fn next_past_elements(&mut self, len: usize) -> Option<(Option<L::Index>, usize)> {
        let offset = self.offset;
        if offset >= self.run_end {
            if offset >= len {
                return None;
            }
            self.start_run(offset, len);
            if offset < self.elements_end {
                return Some((Some(self.step_element(offset)), offset));
            }
        }
        self.offset = offset + 1;
        Some((None, offset))
    }

    /// Moves to the run starting at `offset` ([`SlotCursor::run_at`]).
    #[inline(always)]
    fn start_run(&mut self, offset: usize, len: usize) {
        let (run_end, elements_end, index) = Self::run_at(self.layout, self.runs, offset, len);
        (self.run_end, self.elements_end) = (run_end, elements_end);
        if elements_end > offset {
            self.index = index;
        }
    }

    /// What the run starting at `offset` holds: where it ends, where its
    /// elements end, and the index of its first slot (when that is an
    /// element). From the physical dims, constants, for a static layout;
    /// by asking the layout otherwise.
    ///
    /// Out of line, once per run, and by value: inlined, the compiler
    /// computed part of it speculatively for every slot; through `&mut
    /// self`, the cursor lived in memory instead of registers.
    #[inline(never)]
    fn run_at(layout: &L, runs: SlotRuns, offset: usize, len: usize) -> (usize, usize, L::Index) {
        let fixed: &'static Option<(SlotRuns, PhysicalDims, DimVec)> = &const {
            match L::FIXED_LAYOUT {
                Some(l) => Some((SlotRuns::of(&l), l.physical_dims(), l.sizes())),
                None => None,
            }
        };
        let run_end = len.min(offset.saturating_add(runs.len()));
        let mut index = L::Index::from_slice(&[0; MAX_RANK][..layout.rank()]);
        let elements_end = match fixed {
            Some((runs, dims, sizes)) if runs.counts_runs() => {
                match runs.first_of_run(dims, sizes, offset / runs.len(), index.as_mut()) {
                    true => offset + runs.elements_in_run(index.as_ref()),
                    false => offset,
                }
            }
            _ => match layout.try_slot(offset) {
                Ok(Slot::Element(i)) => {
                    index = L::Index::from_slice(&i);
                    offset + runs.elements_in_run(&i)
                }
                _ => offset,
            },
        };
        (run_end, elements_end, index)
    }
}

/// Every slot of a tensor's buffer in memory order, padding included:
/// `(Some(index), &value)` for an element, `(None, &value)` for padding
/// ([`TensorBase::slots`](crate::TensorBase::slots)).
///
/// The index is `[usize; R]` for static and mixed layouts
/// ([`AnyLayout::Index`]), so `if let Some([y, x]) = index` names the
/// dims.
///
/// What it costs (`BENCHMARKS.md`): a `fold` from the start (`for_each`,
/// `sum`, `count`...) walks the layout's memory-order loop nest, the
/// padding between stretches of elements as plain slices: within 1.1× of
/// the hand-written tile loops, on a static layout and on a run-time
/// one alike (whose index, a [`DimVec`], is built
/// afresh for each element, so the compiler keeps only the entries the
/// closure reads). `next` (a `for` loop, `zip`, and `all`/`any`/`find`, which
/// stable Rust routes through it) is a scalar step per slot, about 2×
/// a hand-written loop that vectorises (one comparison and an addition
/// per element; the run's start out of line): the buffer goes in runs of its
/// innermost physical dim, what the first slot of a run holds is read
/// from the physical dims (constants for a static layout; one
/// `try_slot` per run for a run-time one), and the rest is additions.
///
/// ```
/// use tessera::{Tensor, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
/// let held: Vec<Option<[usize; 2]>> = t.slots().map(|(i, _)| i).collect();
/// // The first tile: [0,0] [0,1] [1,0] [1,1]; the last column's tiles
/// // hold one column and a column of padding.
/// assert_eq!(held[..4], [Some([0, 0]), Some([0, 1]), Some([1, 0]), Some([1, 1])]);
/// assert_eq!(held[8..10], [Some([0, 4]), None]);
/// assert_eq!(t.slots().filter(|(i, _)| i.is_none()).count(), A::BUFFER_LEN - 15);
/// ```
pub struct Slots<'a, T, L: AnyLayout> {
    data: &'a [T],
    at: SlotCursor<'a, L>,
}

impl<T, L: AnyLayout> Clone for Slots<'_, T, L> {
    fn clone(&self) -> Self {
        Slots {
            data: self.data,
            at: self.at.clone(),
        }
    }
}

impl<'a, T, L: AnyLayout> Slots<'a, T, L> {
    /// `data` holds at least the layout's buffer (the tensor checked it).
    pub(crate) fn new(data: &'a [T], layout: &'a L) -> Self {
        Slots {
            data: &data[..layout.buffer_len()],
            at: SlotCursor::new(layout),
        }
    }
}

impl<'a, T, L: AnyLayout> Iterator for Slots<'a, T, L> {
    type Item = (Option<L::Index>, &'a T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (index, offset) = self.at.next(self.data.len())?;
        Some((index, &self.data[offset]))
    }

    #[inline]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(mut self, init: B, mut f: F) -> B {
        let (data, rank) = (self.data, self.at.layout.rank());
        if self.at.offset == 0 {
            let mut acc = Some(init);
            let walked = for_each_slot_stretch(
                self.at.layout,
                #[inline(always)]
                |start, len, elements| {
                    let Some(mut a) = acc.take() else {
                        unreachable!()
                    };
                    let slots = &data[start..start + len];
                    a = match elements {
                        None => slots.iter().fold(a, |a, v| f(a, (None, v))),
                        Some((first, block)) => {
                            let first = L::Index::from_slice(&first[..rank]);
                            let rows = slots.chunks_exact(block.run.len.max(1));
                            block.fold_block(first, rows, a, |a, i, v| f(a, (Some(*i), v)))
                        }
                    };
                    acc = Some(a);
                },
            );
            let Some(a) = acc else { unreachable!() };
            if walked {
                return a;
            }
            return fold_by_next(&mut self, a, f);
        }
        fold_by_next(&mut self, init, f)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.data.len() - self.at.offset.min(self.data.len());
        (n, Some(n))
    }
}

impl<T, L: AnyLayout> ExactSizeIterator for Slots<'_, T, L> {}
impl<T, L: AnyLayout> core::iter::FusedIterator for Slots<'_, T, L> {}

/// Every slot of a tensor's buffer in memory order, writable: the index
/// each holds (`None` for padding) and the slot
/// ([`TensorBase::slots_mut`](crate::TensorBase::slots_mut)). Costs as
/// [`Slots`].
///
/// ```
/// use tessera::{Tensor, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
/// // Every element its row-major number, every padding slot NaN.
/// t.slots_mut().for_each(|(i, v)| {
///     *v = match i {
///         Some([y, x]) => (y * 5 + x) as f32,
///         None => f32::NAN,
///     }
/// });
/// assert_eq!(t[[2, 3]], 13.0);
/// assert_eq!(t.as_slice().iter().filter(|v| v.is_nan()).count(), A::BUFFER_LEN - 15);
/// ```
pub struct SlotsMut<'a, T, L: AnyLayout> {
    data: &'a mut [T],
    at: SlotCursor<'a, L>,
}

impl<'a, T, L: AnyLayout> SlotsMut<'a, T, L> {
    /// `data` holds at least the layout's buffer (the tensor checked it).
    pub(crate) fn new(data: &'a mut [T], layout: &'a L) -> Self {
        let len = layout.buffer_len();
        SlotsMut {
            data: &mut data[..len],
            at: SlotCursor::new(layout),
        }
    }
}

impl<'a, T, L: AnyLayout> Iterator for SlotsMut<'a, T, L> {
    type Item = (Option<L::Index>, &'a mut T);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        // Slots go in order, so the buffer is handed out by splitting off
        // its first slot: no `unsafe`, no aliasing.
        let (index, offset) = self.at.next(self.at.offset + self.data.len())?;
        let data = core::mem::take(&mut self.data);
        let (first, rest) = data.split_first_mut()?;
        debug_assert_eq!(offset + 1, self.at.offset);
        self.data = rest;
        Some((index, first))
    }

    #[inline]
    fn fold<B, F: FnMut(B, Self::Item) -> B>(mut self, init: B, mut f: F) -> B {
        let rank = self.at.layout.rank();
        if self.at.offset == 0 {
            // Each stretch is split off the front of the buffer in turn.
            let mut rest = Some(core::mem::take(&mut self.data));
            let mut acc = Some(init);
            let walked = for_each_slot_stretch(
                self.at.layout,
                #[inline(always)]
                |_, len, elements| {
                    let (Some(mut a), Some(data)) = (acc.take(), rest.take()) else {
                        unreachable!()
                    };
                    let (slots, tail) = data.split_at_mut(len);
                    a = match elements {
                        None => slots.iter_mut().fold(a, |a, v| f(a, (None, v))),
                        Some((first, block)) => {
                            let first = L::Index::from_slice(&first[..rank]);
                            let rows = slots.chunks_exact_mut(block.run.len.max(1));
                            block.fold_block(first, rows, a, |a, i, v| f(a, (Some(*i), v)))
                        }
                    };
                    (acc, rest) = (Some(a), Some(tail));
                },
            );
            let (Some(a), Some(data)) = (acc, rest) else {
                unreachable!()
            };
            if walked {
                return a;
            }
            self.data = data;
            return fold_by_next(&mut self, a, f);
        }
        fold_by_next(&mut self, init, f)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.data.len(), Some(self.data.len()))
    }
}

impl<T, L: AnyLayout> ExactSizeIterator for SlotsMut<'_, T, L> {}
impl<T, L: AnyLayout> core::iter::FusedIterator for SlotsMut<'_, T, L> {}
