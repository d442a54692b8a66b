//! A layout's padding, or its elements, as boxes of its physical dims
//! ([`SlotBoxes`]), so that filling them costs a loop per box, with
//! constant trip counts and run lengths for a static layout, instead of a
//! visit of every run.
//!
//! A logical dimension's physical digits (`y / 8` and `y % 8` for a
//! `T(8,128)` tiling) count its index in mixed radix. The index is below
//! the dimension's size exactly when its digits, read outermost first,
//! are below the size's own digits: for some digit, the outer digits equal
//! the size's and this one is below the size's, the inner ones anything.
//! The padding is the rest: for some digit, the outer digits equal the
//! size's and this one is past it (at or past it, for the innermost). A
//! physical dim that no index moves past 0 (a tile over a dimension of
//! size one) is 0 in every element and past 0 in a box of padding. Each
//! such choice fixes some physical dims and leaves the others whole, so
//! it is a box: a nest of loops around a run of slots.

use crate::array::{ArrayLayout, DigitSource, PhysicalDims};
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK};
use crate::walk::nest::chain;

/// No outer digit (the outermost digit of its dimension, or a physical dim
/// of no dimension).
const NONE: usize = usize::MAX;

/// One physical dim, as the boxes see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Digit {
    /// Its extent and stride (physical).
    size: usize,
    stride: usize,
    /// The size's digit here (for a physical dim no index moves, 1: its
    /// elements are at 0, its padding past it).
    cut: usize,
    /// The innermost digit of its dimension (`div` 1), or a physical dim
    /// no index moves: its padding starts at `cut`, not past it.
    innermost: bool,
    /// The logical dimension it counts, [`NONE`] for one no index moves.
    dim: usize,
    /// The physical dim of the next outer digit of the same dimension,
    /// [`NONE`] for the outermost.
    outer: usize,
}

const NO_DIGIT: Digit = Digit {
    size: 1,
    stride: 0,
    cut: 0,
    innermost: false,
    dim: NONE,
    outer: NONE,
};

/// A layout's physical dims as digits, with their chains linked.
struct Digits {
    len: usize,
    digits: [Digit; MAX_PHYSICAL_RANK],
    /// Slots the physical dims span (their sizes' product).
    slots: usize,
}

/// `[lo, hi)` per physical dim.
type Ranges = [[usize; MAX_PHYSICAL_RANK]; 2];

impl Digits {
    /// The digits of `layout`, or `None` when a physical dim has no digit
    /// formula, the dims do not lie densely (each stride the slots of the
    /// dims inside it), or a dimension's digits do not count its index
    /// exactly.
    const fn of(layout: &ArrayLayout) -> Option<Digits> {
        let physical = layout.physical_dims();
        let dims = physical.as_slice();
        let mut d = Digits {
            len: dims.len(),
            digits: [NO_DIGIT; MAX_PHYSICAL_RANK],
            slots: 1,
        };
        // Dense, minor to major (dims of size 1 take no room, whatever
        // their stride).
        let mut p = dims.len();
        while p > 0 {
            p -= 1;
            let dim = &dims[p];
            d.digits[p].size = dim.size;
            d.digits[p].stride = dim.stride;
            if dim.size > 1 {
                if dim.stride != d.slots {
                    return None;
                }
                d.slots = match d.slots.checked_mul(dim.size) {
                    Some(s) => s,
                    None => return None,
                };
            }
            match dim.source {
                DigitSource::Mixed => return None,
                DigitSource::Constant => {
                    d.digits[p].cut = 1;
                    d.digits[p].innermost = true;
                }
                DigitSource::Logical { .. } => {}
            }
        }
        if d.slots > layout.buffer_len() {
            return None;
        }
        let mut dim = 0;
        while dim < layout.rank() {
            if !chain_digits(&mut d.digits, layout, &physical, dim) {
                return None;
            }
            dim += 1;
        }
        Some(d)
    }

    /// Every dim whole.
    const fn whole(&self) -> Ranges {
        let mut hi = [0usize; MAX_PHYSICAL_RANK];
        let mut q = 0;
        while q < self.len {
            hi[q] = self.digits[q].size;
            q += 1;
        }
        [[0; MAX_PHYSICAL_RANK], hi]
    }

    /// Fixes the digits outside `p` in its dimension at the size's;
    /// `false` when one of them is past its extent (no slot has it).
    const fn fix_outer(&self, p: usize, ranges: &mut Ranges) -> bool {
        let mut outer = self.digits[p].outer;
        while outer != NONE {
            let cut = self.digits[outer].cut;
            if cut >= self.digits[outer].size {
                return false;
            }
            ranges[0][outer] = cut;
            ranges[1][outer] = cut + 1;
            outer = self.digits[outer].outer;
        }
        true
    }
}

/// Most boxes a [`SlotBoxes`] holds: for padding, a box per digit that
/// pads and the slots past the physical dims; for elements, the product
/// over dimensions of the digits that cut each (2 × 2 for a 2-D tiling
/// with partial tiles in both).
pub const MAX_SLOT_BOXES: usize = 8;

/// Most loops around a box's run: the physical dims outside it that take
/// more than one value.
const MAX_BOX_LOOPS: usize = 6;

/// One box of padding: `run` slots from `at + sum(k[i] * strides[i])` for
/// every `k[i] < counts[i]` (unused loops count 1, outermost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct SpanBox {
    at: usize,
    run: usize,
    counts: [usize; MAX_BOX_LOOPS],
    strides: [usize; MAX_BOX_LOOPS],
}

const NO_BOX: SpanBox = SpanBox {
    at: 0,
    run: 0,
    counts: [1; MAX_BOX_LOOPS],
    strides: [0; MAX_BOX_LOOPS],
};

impl SpanBox {
    /// `f(start, run)` for every run of the box, in memory order.
    #[inline(always)]
    fn walk(&self, f: &mut impl FnMut(usize, usize)) {
        let [c0, c1, c2, c3, c4, c5] = self.counts;
        let [s0, s1, s2, s3, s4, s5] = self.strides;
        let mut a0 = self.at;
        for _ in 0..c0 {
            let mut a1 = a0;
            for _ in 0..c1 {
                let mut a2 = a1;
                for _ in 0..c2 {
                    let mut a3 = a2;
                    for _ in 0..c3 {
                        let mut a4 = a3;
                        for _ in 0..c4 {
                            let mut a5 = a4;
                            for _ in 0..c5 {
                                f(a5, self.run);
                                a5 += s5;
                            }
                            a4 += s4;
                        }
                        a3 += s3;
                    }
                    a2 += s2;
                }
                a1 += s1;
            }
            a0 += s0;
        }
    }
}

/// The padding slots of a layout, or its element slots, as boxes of its
/// physical dims, each a nest of loops around a run of slots: built once
/// ([`SlotBoxes::padding`], [`SlotBoxes::elements`], `const fn`s, so a
/// static layout's are constants), walked as stretches of slots
/// ([`SlotBoxes::for_each_span`]).
///
/// ```
/// use tessera::{walk::SlotBoxes, ArrayLayout};
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
/// let mut spans = Vec::new();
/// SlotBoxes::padding(&a).unwrap().for_each_span(|start, len| spans.push((start, len)));
/// spans.sort();
/// // Row 3 (the second row of the last tile row): (14, 2), (18, 2),
/// // (22, 2); x = 5 (the third tile column's second column) in rows 0,
/// // 1, 2 and 3: (9, 1), (11, 1), (21, 1), (23, 1). Slot 23, padded in
/// // both dimensions, is in a box of each.
/// assert_eq!(spans, [(9, 1), (11, 1), (14, 2), (18, 2), (21, 1), (22, 2), (23, 1)]);
/// let mut elements = 0;
/// SlotBoxes::elements(&a).unwrap().for_each_span(|_, len| elements += len);
/// assert_eq!(elements, 15);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotBoxes {
    len: usize,
    boxes: [SpanBox; MAX_SLOT_BOXES],
}

impl SlotBoxes {
    const EMPTY: SlotBoxes = SlotBoxes {
        len: 0,
        boxes: [NO_BOX; MAX_SLOT_BOXES],
    };

    /// Adds the box of `ranges`; `false` when the boxes are full or the
    /// box needs more loops than a box has.
    const fn push(&mut self, digits: &Digits, ranges: &Ranges) -> bool {
        if self.len == MAX_SLOT_BOXES {
            return false;
        }
        match span_box(digits, ranges) {
            Some(b) => {
                self.boxes[self.len] = b;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The padding of `layout`: every slot no element occupies, each in
    /// one box, except that a slot padded in two dimensions (a corner) is
    /// in a box of each. `None` when it is not such boxes: a `*` merging
    /// two varying dimensions or tiles that do not nest (`T(3)(2)`) leave
    /// a physical dim without a digit formula, the physical dims must lie
    /// densely (each stride the slots of the dims inside it), and there
    /// are at most [`MAX_SLOT_BOXES`] boxes of at most 6 loops each.
    pub const fn padding(layout: &ArrayLayout) -> Option<SlotBoxes> {
        let mut boxes = SlotBoxes::EMPTY;
        if layout.element_count() == 0 {
            // Every slot is padding, whatever the dims.
            if layout.buffer_len() > 0 {
                boxes.len = 1;
                boxes.boxes[0].run = layout.buffer_len();
            }
            return Some(boxes);
        }
        let Some(digits) = Digits::of(layout) else {
            return None;
        };
        let mut p = 0;
        while p < digits.len {
            let own = digits.digits[p];
            let first = own.cut + !own.innermost as usize;
            let mut ranges = digits.whole();
            if first < own.size && digits.fix_outer(p, &mut ranges) {
                ranges[0][p] = first;
                if !boxes.push(&digits, &ranges) {
                    return None;
                }
            }
            p += 1;
        }
        if digits.slots < layout.buffer_len() {
            // A buffer rounded up past the physical dims.
            if boxes.len == MAX_SLOT_BOXES {
                return None;
            }
            boxes.boxes[boxes.len].at = digits.slots;
            boxes.boxes[boxes.len].run = layout.buffer_len() - digits.slots;
            boxes.len += 1;
        }
        Some(boxes)
    }

    /// The elements of `layout`: every slot an element occupies, each in
    /// exactly one box. `None` as for [`SlotBoxes::padding`], and when the
    /// product over dimensions of the digits that cut each is more than
    /// [`MAX_SLOT_BOXES`].
    pub const fn elements(layout: &ArrayLayout) -> Option<SlotBoxes> {
        let mut boxes = SlotBoxes::EMPTY;
        if layout.element_count() == 0 {
            return Some(boxes);
        }
        let Some(digits) = Digits::of(layout) else {
            return None;
        };
        // Per dimension, the digits whose box holds elements: below the
        // size's digit, the outer ones at the size's.
        let mut choices = [[0usize; MAX_PHYSICAL_RANK]; MAX_RANK];
        let mut counts = [0usize; MAX_RANK];
        let rank = layout.rank();
        let mut p = 0;
        while p < digits.len {
            let d = digits.digits[p];
            if d.dim != NONE && d.cut > 0 && digits.fix_outer(p, &mut digits.whole()) {
                choices[d.dim][counts[d.dim]] = p;
                counts[d.dim] += 1;
            }
            p += 1;
        }
        // Every combination of one choice per dimension (a dimension with
        // no digits, of size 1, has no choice to make).
        let mut pick = [0usize; MAX_RANK];
        loop {
            let mut ranges = digits.whole();
            // A physical dim no index moves holds elements at 0 only.
            let mut q = 0;
            while q < digits.len {
                if digits.digits[q].dim == NONE {
                    ranges[1][q] = 1;
                }
                q += 1;
            }
            let mut dim = 0;
            while dim < rank {
                if counts[dim] > 0 {
                    let p = choices[dim][pick[dim]];
                    digits.fix_outer(p, &mut ranges);
                    ranges[1][p] = digits.digits[p].cut;
                }
                dim += 1;
            }
            if !boxes.push(&digits, &ranges) {
                return None;
            }
            // The next combination.
            let mut dim = rank;
            loop {
                if dim == 0 {
                    return Some(boxes);
                }
                dim -= 1;
                if counts[dim] == 0 {
                    continue;
                }
                pick[dim] += 1;
                if pick[dim] < counts[dim] {
                    break;
                }
                pick[dim] = 0;
            }
        }
    }

    /// Calls `f(start, len)` for every stretch of slots
    /// `start..start + len` of the boxes: one per innermost run of each
    /// box, as long as the dims inside the box's cut lie whole (for the
    /// padding of `f32[1000,1000]{1,0:T(8,128)}`, 1,000 stretches of 24
    /// slots: the last tile column's rows), in memory order within a box.
    ///
    /// For a static layout whose `SlotBoxes` is a constant, the loops fold
    /// to the boxes' constant trip counts and run lengths: a fill through
    /// it is the loop a kernel author writes for that layout.
    #[inline(always)]
    pub fn for_each_span(&self, mut f: impl FnMut(usize, usize)) {
        // One copy of the loops per box, each under a test that is a
        // constant for a constant `SlotBoxes`, so the boxes unroll.
        macro_rules! boxes {
            ($($b:literal)*) => {$(
                if $b < self.len {
                    self.boxes[$b].walk(&mut f);
                }
            )*};
        }
        boxes!(0 1 2 3 4 5 6 7);
        const _: () = assert!(MAX_SLOT_BOXES == 8);
    }
}

/// The box of `ranges` (none empty): the innermost dims while they are
/// whole, and the first that is not, as its run; the dims outside it that
/// take more than one value as its loops. `None` when they are more than
/// a box has.
const fn span_box(digits: &Digits, [lo, hi]: &Ranges) -> Option<SpanBox> {
    let digits = digits.digits.split_at(digits.len).0;
    let mut b = NO_BOX;
    b.run = 1;
    let mut inner = digits.len();
    while inner > 0 {
        inner -= 1;
        let d = &digits[inner];
        if d.size > 1 {
            b.at += lo[inner] * d.stride;
            b.run = (hi[inner] - lo[inner]) * d.stride;
            if lo[inner] != 0 || hi[inner] != d.size {
                break;
            }
        }
    }
    let mut loops = 0;
    let mut q = inner;
    while q > 0 {
        q -= 1;
        b.at += lo[q] * digits[q].stride;
        if hi[q] - lo[q] > 1 {
            if loops == MAX_BOX_LOOPS {
                return None;
            }
            loops += 1;
            b.counts[MAX_BOX_LOOPS - loops] = hi[q] - lo[q];
            b.strides[MAX_BOX_LOOPS - loops] = digits[q].stride;
        }
    }
    Some(b)
}

/// Links `dim`'s digits into a chain (each digit's `outer`, `dim`, `cut`,
/// `innermost`) when the engine's [`chain`] finds that they count its
/// index exactly and each digit but the outermost takes all of its
/// physical extent (its modulus that extent); `false` otherwise. A
/// dimension without digits (size 0 or 1) is a chain of none.
const fn chain_digits(
    digits: &mut [Digit; MAX_PHYSICAL_RANK],
    layout: &ArrayLayout,
    physical: &PhysicalDims,
    dim: usize,
) -> bool {
    let Some(c) = chain(layout, physical, dim) else {
        return false;
    };
    let size = layout.size(dim);
    let mut i = 0;
    while i < c.len() {
        let [div, p] = c.digit(i);
        let extent = physical.as_slice()[p].size;
        let outermost = i + 1 == c.len();
        if !outermost && c.digit(i + 1)[0] != div.saturating_mul(extent) {
            return false;
        }
        digits[p].outer = if outermost { NONE } else { c.digit(i + 1)[1] };
        digits[p].dim = dim;
        digits[p].innermost = i == 0;
        digits[p].cut = if outermost {
            size / div
        } else {
            (size / div) % extent
        };
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::SlotBoxes;
    use crate::{ArrayLayout, Slot};
    use std::vec;
    use std::vec::Vec;

    /// How many stretches of `boxes` name each slot.
    fn marks(a: &ArrayLayout, boxes: Option<SlotBoxes>) -> Option<Vec<u8>> {
        let mut marked = vec![0u8; a.buffer_len()];
        boxes?.for_each_span(|start, len| {
            assert!(len > 0, "{a}: empty stretch at {start}");
            for m in &mut marked[start..start + len] {
                *m += 1;
            }
        });
        Some(marked)
    }

    const SPECS: [&str; 12] = [
        "f32[1000,1000]{1,0:T(8,128)}",
        "f32[1001,1000]{1,0:T(8,128)}",
        "f32[13,300]{0,1:T(8,128)}",
        "f32[4,256]{1,0:T(8,128)}",
        "f32[1,5]{1,0:T(2,2)}",
        "bf16[7,9,260]{2,1,0:T(8,128)(2,1)}",
        "s8[33,129]{1,0:T(32,128)(4,1)}",
        "f32[5,6,7]{0,2,1:T(2,4)}",
        "f32[0,7]{1,0:T(2,2)}",
        "f32[3,5]{1,0}",
        "f32[3,1,5]{2,1,0:T(2,2,2)}",
        "f32[9,10,11]{1,2,0:T(2,4)}",
    ];

    #[test]
    fn padding_boxes_are_the_padding_slots() {
        for spec in SPECS {
            let a: ArrayLayout = spec.parse().unwrap();
            let marked =
                marks(&a, SlotBoxes::padding(&a)).unwrap_or_else(|| panic!("{spec}: declined"));
            for (o, m) in marked.iter().enumerate() {
                let padding = a.try_slot(o).unwrap() == Slot::Padding;
                assert_eq!(*m > 0, padding, "{spec}: slot {o}");
            }
        }
    }

    #[test]
    fn element_boxes_name_each_element_once() {
        for spec in SPECS {
            let a: ArrayLayout = spec.parse().unwrap();
            let marked =
                marks(&a, SlotBoxes::elements(&a)).unwrap_or_else(|| panic!("{spec}: declined"));
            for (o, m) in marked.iter().enumerate() {
                let element = a.try_slot(o).unwrap() != Slot::Padding;
                assert_eq!(*m, element as u8, "{spec}: slot {o}");
            }
        }
    }

    #[test]
    fn stretches_are_as_long_as_the_dims_inside_allow() {
        let lens = |boxes: fn(&ArrayLayout) -> Option<SlotBoxes>, spec: &str| {
            let a: ArrayLayout = spec.parse().unwrap();
            let mut lens = vec![];
            boxes(&a).unwrap().for_each_span(|_, len| lens.push(len));
            lens
        };
        let padding = SlotBoxes::padding;
        // The last tile column's 8 rows of each of 125 tile rows, 24 each.
        assert_eq!(
            lens(padding, "f32[1000,1000]{1,0:T(8,128)}"),
            vec![24; 1000]
        );
        // The last tile row: 7 of 8 rows of each of its 8 tiles.
        assert_eq!(
            lens(padding, "f32[1001,1024]{1,0:T(8,128)}"),
            vec![7 * 128; 8]
        );
        // Rows 4..8 of each tile: 4 rows of 128.
        assert_eq!(lens(padding, "f32[4,256]{1,0:T(8,128)}"), vec![4 * 128; 2]);
        // The whole tiles of each band of 8 rows, then the edge tile's rows.
        let mut expected = vec![7 * 1024; 125];
        expected.extend([104; 1000]);
        assert_eq!(
            lens(SlotBoxes::elements, "f32[1000,1000]{1,0:T(8,128)}"),
            expected
        );
    }

    #[test]
    fn declines_what_is_not_boxes() {
        let a: ArrayLayout = "pred[5,7]{1,0:T(3)(2)}".parse().unwrap();
        assert_eq!(SlotBoxes::padding(&a), None);
        assert_eq!(SlotBoxes::elements(&a), None);
        // Partial tiles in each of four dimensions: 2^4 element boxes.
        let a: ArrayLayout = "f32[3,3,3,3]{3,2,1,0:T(2,2,2,2)}".parse().unwrap();
        assert!(SlotBoxes::padding(&a).is_some());
        assert_eq!(SlotBoxes::elements(&a), None);
    }
}
