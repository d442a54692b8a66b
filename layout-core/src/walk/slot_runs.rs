//! A layout's slots as runs of its innermost physical dim ([`SlotRuns`]):
//! what a slot iterator needs to hand out indices by additions, asking
//! the layout once per run.

use crate::array::{ArrayLayout, DigitSource, PhysicalDims};
use crate::walk::nest::chain;

/// How a layout's buffer goes in runs: stretches of `len` slots (the
/// innermost physical dim), each starting at a multiple of `len`. Along a
/// run the logical index moves by `div` in dimension `dim` per slot; the
/// run's first slots hold elements and the rest is padding
/// ([`SlotRuns::elements_in_run`]). So a walk over the slots asks the
/// layout what the first slot of a run holds and counts the rest.
///
/// Layouts whose index does not move that way along the innermost
/// physical dim (a `*` that merges dims, tiles that cut across each
/// other, physical dims that are not dense) get runs of one slot: the
/// walk asks the layout per slot.
///
/// ```
/// use tessera::ArrayLayout;
/// use tessera::walk::SlotRuns;
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// let runs = SlotRuns::of(&a);
/// assert_eq!((runs.len(), runs.dim(), runs.div()), (2, 1, 1));
/// // The run at slot 8 starts at element [0, 4]: one element, then padding.
/// assert_eq!(runs.elements_in_run(&[0, 4]), 1);
/// assert_eq!(runs.elements_in_run(&[0, 2]), 2);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotRuns {
    len: usize,
    /// The logical dim the innermost physical dim counts; `usize::MAX`
    /// when it counts none (a constant digit: only its first slot can
    /// hold an element).
    dim: usize,
    div: usize,
    /// `dim`'s size.
    size: usize,
    /// Slots of a run the digit's modulus allows to hold elements.
    limit: usize,
    /// Whether a run's first index can be read from the physical dims
    /// ([`SlotRuns::first_of_run`]).
    counted: bool,
}

impl SlotRuns {
    /// The runs of `layout`'s buffer.
    pub const fn of(layout: &ArrayLayout) -> SlotRuns {
        const SINGLE: SlotRuns = SlotRuns {
            len: 1,
            dim: usize::MAX,
            div: 0,
            size: 0,
            limit: 1,
            counted: false,
        };
        let physical = layout.physical_dims();
        let dims = physical.as_slice();
        let Some(last) = dims.len().checked_sub(1) else {
            return SINGLE;
        };
        // Offsets must be the row-major count of the physical index, so
        // that a run is `len` consecutive slots starting at a multiple of
        // `len`, and every dim's digits an exact chain, so that a step of
        // the innermost counter is a step of `div` in `dim`.
        let mut stride = 1usize;
        let mut p = dims.len();
        while p > 0 {
            p -= 1;
            if dims[p].stride != stride {
                return SINGLE;
            }
            stride = stride.saturating_mul(dims[p].size);
        }
        let mut d = 0;
        while d < layout.rank() {
            if chain(layout, &physical, d).is_none() {
                return SINGLE;
            }
            d += 1;
        }
        let len = dims[last].size;
        match dims[last].source {
            DigitSource::Constant => SlotRuns {
                len,
                dim: usize::MAX,
                div: 0,
                size: 0,
                limit: 1,
                counted: true,
            },
            DigitSource::Logical { dim, div, modulus } => SlotRuns {
                len,
                dim,
                div,
                size: layout.size(dim),
                limit: match modulus {
                    Some(m) => m,
                    None => len,
                },
                counted: true,
            },
            DigitSource::Mixed => SINGLE,
        }
    }

    /// Slots per run (at least 1). The last run may be cut short by the
    /// buffer's end (an `L(n)` tail).
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether runs are empty: never (a run has at least one slot); for
    /// the `len`/`is_empty` pair.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The logical dimension the index moves in along a run
    /// (`usize::MAX` when it does not move: a run holds at most one
    /// element, its first slot).
    #[inline]
    pub const fn dim(&self) -> usize {
        self.dim
    }

    /// How far the index moves in [`SlotRuns::dim`] per slot.
    #[inline]
    pub const fn div(&self) -> usize {
        self.div
    }

    /// How many slots hold elements in the run whose first slot holds the
    /// element at `first`: they come first, the rest of the run is
    /// padding. A run whose first slot is padding is padding throughout.
    ///
    /// # Panics
    /// If `first` does not reach [`SlotRuns::dim`].
    #[inline]
    pub const fn elements_in_run(&self, first: &[usize]) -> usize {
        if self.dim == usize::MAX {
            return 1;
        }
        let left = self.size.saturating_sub(first[self.dim]);
        let by_size = left.div_ceil(self.div);
        let mut n = self.limit;
        if self.len < n {
            n = self.len;
        }
        if by_size < n { by_size } else { n }
    }

    /// Whether [`SlotRuns::first_of_run`] applies: the layout's offsets
    /// count its physical index, and every dim's digits form an exact
    /// chain.
    #[inline]
    pub const fn counts_runs(&self) -> bool {
        self.counted
    }

    /// What the first slot of run number `run` (the run at offset `run *
    /// len`) holds, from the layout's physical dims `dims` and dim sizes
    /// `sizes`: `true` with the element's index written to `index` (one
    /// entry per dim), or `false` for padding. The digits of the run
    /// number in the radix of the physical dims are the digits of the
    /// index: for a static layout, a few multiplications by constants
    /// per run. Applies when [`SlotRuns::counts_runs`]; otherwise ask the
    /// layout ([`ArrayLayout::try_slot`]).
    ///
    /// ```
    /// use tessera::ArrayLayout;
    /// use tessera::walk::SlotRuns;
    /// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
    /// let (runs, dims) = (SlotRuns::of(&a), a.physical_dims());
    /// let mut index = [0; 2];
    /// assert!(runs.first_of_run(&dims, &a.sizes(), 4, &mut index)); // slot 8
    /// assert_eq!(index, [0, 4]);
    /// assert!(!runs.first_of_run(&dims, &a.sizes(), 9, &mut index)); // slot 18: row 3
    /// # Ok::<(), tessera::Error>(())
    /// ```
    #[inline]
    pub const fn first_of_run(
        &self,
        dims: &PhysicalDims,
        sizes: &[usize],
        run: usize,
        index: &mut [usize],
    ) -> bool {
        let mut d = 0;
        while d < index.len() {
            index[d] = 0;
            d += 1;
        }
        let dims = dims.as_slice();
        let mut rest = run;
        let mut p = dims.len().saturating_sub(1);
        while p > 0 {
            p -= 1;
            let size = dims[p].size;
            let digit = rest % size;
            rest /= size;
            match dims[p].source {
                DigitSource::Logical { dim, div, modulus } => {
                    if let Some(m) = modulus
                        && digit >= m
                    {
                        return false;
                    }
                    index[dim] += digit * div;
                }
                _ => {
                    if digit > 0 {
                        return false;
                    }
                }
            }
        }
        // Past the tiled buffer: the `L(n)` tail.
        if rest > 0 {
            return false;
        }
        // Past a dimension's size: tile padding.
        crate::index::in_bounds(sizes, index)
    }
}

#[cfg(test)]
mod tests {
    use super::SlotRuns;
    use crate::array::{ArrayLayout, Slot};

    /// Every run's element count and indices agree with the engine's
    /// `try_slot` for every slot.
    fn check(text: &str) {
        let a: ArrayLayout = text.parse().unwrap();
        let runs = SlotRuns::of(&a);
        assert!(!runs.is_empty());
        let mut start = 0;
        while start < a.buffer_len() {
            let end = (start + runs.len()).min(a.buffer_len());
            let elements = match a.slot(start) {
                Slot::Element(i) => Some((i, runs.elements_in_run(&i))),
                Slot::Padding => None,
            };
            if runs.counts_runs() {
                let mut first = [usize::MAX; 12];
                let first = &mut first[..a.rank()];
                let holds =
                    runs.first_of_run(&a.physical_dims(), &a.sizes(), start / runs.len(), first);
                match &elements {
                    Some((i, _)) => {
                        assert!(holds && first == i.as_slice(), "{text} run at {start}")
                    }
                    None => assert!(!holds, "{text} run at {start}"),
                }
            }
            for o in start..end {
                let expected = a.slot(o);
                let counted = match elements {
                    Some((mut i, n)) if o - start < n => {
                        if runs.dim() != usize::MAX {
                            i.as_mut_slice()[runs.dim()] += (o - start) * runs.div();
                        }
                        Slot::Element(i)
                    }
                    _ => Slot::Padding,
                };
                assert_eq!(counted, expected, "{text} slot {o}");
            }
            start = end;
        }
    }

    #[test]
    fn runs_count_what_the_engine_says() {
        for text in [
            "f32[3,5]{1,0:T(2,2)}",
            "f32[3,5]{0,1:T(2,2)}",
            "f32[7,300]{1,0:T(8,128)}",
            "bf16[5,9]{1,0:T(4,4)(2,1)}",
            "s8[9,130]{1,0:T(8,128)(4,1)}",
            "f32[3,4,5]{2,0,1:T(2,3)}",
            "f32[5]{0:T(2)L(9)}",
            "f32[5,3]{1,0:T(2)}",
            "f32[6]{0:T(3)(2)}",
            "f32[5,7]{1,0:T(2,3)(1,2)}",
            "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
            "f32[4,6,8]{2,1,0:T(*,2,4)}",
            "pred[5,7]{1,0:T(3)(2)}",
            "f32[1,5]{1,0:T(4,2)}",
            "f32[0,5]{1,0:T(2,2)}",
            "f32[]",
        ] {
            check(text);
        }
    }

    #[test]
    fn a_merged_or_crossing_layout_walks_slot_by_slot() {
        let a: ArrayLayout = "f32[6]{0:T(3)(2)}".parse().unwrap();
        assert_eq!(SlotRuns::of(&a).len(), 1);
        let t: ArrayLayout = "f32[7,300]{1,0:T(8,128)}".parse().unwrap();
        let runs = SlotRuns::of(&t);
        assert_eq!((runs.len(), runs.dim(), runs.div()), (128, 1, 1));
    }
}
