//! A layout's offset as a short list of [`Term`]s, computed once by the
//! engine, and the one loop that evaluates them: `sum(stride *
//! ((index[dim] / div) % modulus))`. Run-time layouts keep an
//! [`OffsetTerms`] ([`PreparedLayout`](crate::PreparedLayout)); a
//! [`StaticLayout`](crate::StaticLayout) evaluates the same type from a
//! `const`, with its [`OffsetPlan`]; a [`MixedLayout`](crate::MixedLayout)
//! evaluates the same loop after scaling strides by its run-time tile
//! counts.

use crate::array::{ArrayLayout, DigitSource, PhysicalDim};
use crate::index;
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK};

/// One term of an offset: `stride * ((index[dim] / div) % modulus)`, with
/// no modulus when `modulus == 0`. Made by the engine ([`OffsetTerms`]) or
/// with [`Term::new`].
///
/// ```
/// use tessera::terms::Term;
/// let t = Term::new(1, 2, 4, 8); // 8 * ((index[1] / 2) % 4)
/// assert_eq!((t.dim, t.div, t.modulus, t.stride), (1, 2, 4, 8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// The logical dimension.
    pub dim: usize,
    /// The divisor (1 for a plain stride).
    pub div: usize,
    /// The modulus, or 0 for none.
    pub modulus: usize,
    /// Elements per unit of the digit.
    pub stride: usize,
    /// `div` as a shift, for [`Arithmetic::ShiftMask`].
    shift: u32,
    /// `modulus - 1` (all ones for no modulus), for
    /// [`Arithmetic::ShiftMask`].
    mask: usize,
}

const NO_TERM: Term = Term::new(0, 1, 0, 0);

impl Term {
    /// The term `stride * ((index[dim] / div) % modulus)` (no modulus when
    /// `modulus == 0`).
    pub const fn new(dim: usize, div: usize, modulus: usize, stride: usize) -> Term {
        Term {
            dim,
            div,
            modulus,
            stride,
            shift: div.trailing_zeros(),
            mask: modulus.wrapping_sub(1),
        }
    }

    /// The term of one physical dim of the engine's digit map, or `None`
    /// when its index is constant or mixed.
    pub(crate) const fn of_physical_dim(p: &PhysicalDim) -> Option<Term> {
        match p.source {
            DigitSource::Logical { dim, div, modulus } => Some(Term::new(
                dim,
                div,
                match modulus {
                    Some(m) => m,
                    None => 0,
                },
                p.stride,
            )),
            _ => None,
        }
    }
}

/// How [`evaluate`] computes each term's digit; chosen once per term list
/// so the loop holds one kind of arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Arithmetic {
    /// Every `div` is 1 and there is no modulus: the digit is the index.
    Plain,
    /// Every `div` and `modulus` is a power of two (the usual tiles): a
    /// shift and a mask.
    ShiftMask,
    /// A division and a remainder (constants fold them to shifts).
    DivMod,
}

impl Arithmetic {
    /// The cheapest arithmetic exact for all of `terms`.
    pub(crate) const fn of(terms: &[Term]) -> Arithmetic {
        let mut plain = true;
        let mut p = 0;
        while p < terms.len() {
            let t = &terms[p];
            if t.div != 1 || t.modulus != 0 {
                plain = false;
            }
            if !t.div.is_power_of_two() || !(t.modulus == 0 || t.modulus.is_power_of_two()) {
                return Arithmetic::DivMod;
            }
            p += 1;
        }
        if plain {
            Arithmetic::Plain
        } else {
            Arithmetic::ShiftMask
        }
    }
}

/// The offset `sum(term.stride * digit(term))` of `index`: the one
/// evaluator of offset terms, for static, mixed and run-time layouts.
/// Wrapping arithmetic: exact for an index in bounds, meaningless (but
/// never a panic from overflow) otherwise. Inlined, so over constant terms
/// every divisor and stride is an immediate.
///
/// # Panics
/// If a term's `dim` is not an entry of `index`.
#[inline(always)]
pub(crate) const fn evaluate(terms: &[Term], index: &[usize], arithmetic: Arithmetic) -> usize {
    let mut offset = 0usize;
    let mut p = 0;
    while p < terms.len() {
        let t = &terms[p];
        let x = index[t.dim];
        let digit = match arithmetic {
            Arithmetic::Plain => x,
            Arithmetic::ShiftMask => (x >> t.shift) & t.mask,
            Arithmetic::DivMod => {
                let q = x / t.div;
                if t.modulus == 0 { q } else { q % t.modulus }
            }
        };
        offset = offset.wrapping_add(digit.wrapping_mul(t.stride));
        p += 1;
    }
    offset
}

/// A layout's offset as `sum(term.stride * digit(term))`: one term per
/// dimension (`index[d] * stride[d]`) when the layout has strides, else one
/// per physical dim that holds a digit of the index. `None` from
/// [`OffsetTerms::new`] when the layout has no such formula
/// ([`PhysicalDims::is_separable`](crate::PhysicalDims::is_separable) is
/// false); use [`ArrayLayout::offset`] then.
///
/// ```
/// use tessera::{terms::OffsetTerms, ArrayLayout};
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
/// let terms = OffsetTerms::new(&a).unwrap();
/// assert_eq!(terms.terms().len(), 4);
/// assert_eq!(terms.offset_in_bounds(&[2, 3]), 17);
/// let rm: ArrayLayout = "f32[3,5]".parse().unwrap();
/// assert_eq!(OffsetTerms::new(&rm).unwrap().terms().len(), 2); // plain strides
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffsetTerms {
    len: usize,
    arithmetic: Arithmetic,
    terms: [Term; MAX_PHYSICAL_RANK],
}

impl core::fmt::Debug for OffsetTerms {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.terms(), f)
    }
}

impl OffsetTerms {
    /// No terms: the offset is always 0.
    pub(crate) const EMPTY: OffsetTerms = OffsetTerms {
        len: 0,
        arithmetic: Arithmetic::Plain,
        terms: [NO_TERM; MAX_PHYSICAL_RANK],
    };

    /// The terms of `layout`, or `None` when its offsets have no digit
    /// formula.
    pub const fn new(layout: &ArrayLayout) -> Option<OffsetTerms> {
        let mut out = OffsetTerms::EMPTY;
        if let Some(strides) = layout.strides() {
            let s = strides.as_slice();
            let mut d = 0;
            while d < s.len() {
                if layout.size(d) > 1 {
                    out.terms[out.len] = Term::new(d, 1, 0, s[d]);
                    out.len += 1;
                }
                d += 1;
            }
            return Some(out);
        }
        OffsetTerms::of_digits(layout)
    }

    /// The terms of `layout` from the engine's digit map
    /// ([`ArrayLayout::physical_dims`] without building that list): one
    /// per physical dim that holds a digit of the index, in memory order
    /// (major to minor); `None` when a dim has no digit formula.
    pub(crate) const fn of_digits(layout: &ArrayLayout) -> Option<OffsetTerms> {
        let map = index::digit_map(&layout.shape);
        let mut out = OffsetTerms::EMPTY;
        let mut p = 0;
        while p < map.rank {
            let g = map.digits[p];
            match g.var {
                index::MIXED => return None,
                index::CONSTANT => {}
                dim => {
                    out.terms[out.len] = Term::new(dim, g.div, g.modulus, map.strides[p]);
                    out.len += 1;
                }
            }
            p += 1;
        }
        out.arithmetic = Arithmetic::of(out.terms());
        Some(out)
    }

    /// The terms.
    #[inline]
    pub const fn terms(&self) -> &[Term] {
        self.terms.split_at(self.len).0
    }

    /// The offset of `index`, an index the caller has bounded: exact for
    /// an index in bounds; meaningless (but never a panic) otherwise, as
    /// `offset_in_bounds` is on every layout type. `index` must have an
    /// entry for every dimension a term names.
    ///
    /// # Panics
    /// If `index` is shorter than the layout's rank.
    #[inline]
    pub const fn offset_in_bounds(&self, index: &[usize]) -> usize {
        self.offset_inlined(index)
    }

    /// [`OffsetTerms::offset_in_bounds`], always inlined: for terms that are a
    /// constant ([`TileOf`](crate::TileOf)), whose loops then unroll into
    /// immediates. Run-time terms keep the inliner's choice.
    #[inline(always)]
    pub(crate) const fn offset_inlined(&self, index: &[usize]) -> usize {
        evaluate(self.terms(), index, self.arithmetic)
    }
}

/// Entries in a static layout's offset table ([`OffsetPlan::Table`]); a
/// power of two.
pub const OFFSET_TABLE_CAPACITY: usize = 512;

/// The offsets of a layout in which every physical coordinate comes from
/// one logical dimension ([`OffsetPlan::Table`]): the offset is the sum
/// of each dimension's part, `table[bases[d] + index[d]]`, each part the
/// engine's offset of the index that is `index[d]` in dimension `d` and 0
/// elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OffsetTable {
    rank: usize,
    bases: [usize; MAX_RANK],
    table: [usize; OFFSET_TABLE_CAPACITY],
}

impl OffsetTable {
    /// No dimensions.
    pub(crate) const EMPTY: OffsetTable = OffsetTable {
        rank: 0,
        bases: [0; MAX_RANK],
        table: [0; OFFSET_TABLE_CAPACITY],
    };

    /// The table of `layout`.
    ///
    /// # Panics
    /// If the dims add up to more than [`OFFSET_TABLE_CAPACITY`]
    /// ([`OffsetPlan::of`] picks the table only when they do not).
    pub(crate) const fn new(layout: &ArrayLayout) -> OffsetTable {
        let mut out = OffsetTable::EMPTY;
        out.rank = layout.rank();
        let mut unit = [0usize; MAX_RANK];
        let mut base = 0;
        let mut d = 0;
        while d < out.rank {
            out.bases[d] = base;
            let mut x = 0;
            while x < layout.size(d) {
                unit[d] = x;
                out.table[base + x] = layout.offset_in_bounds(unit.split_at(out.rank).0);
                x += 1;
            }
            unit[d] = 0;
            base += layout.size(d);
            d += 1;
        }
        out
    }

    /// The offset of an in-bounds `index`.
    ///
    /// # Panics
    /// If an entry is past its dimension's part of the table.
    #[inline(always)]
    pub(crate) const fn offset(&self, index: &[usize]) -> usize {
        let mut offset = 0usize;
        let mut d = 0;
        while d < self.rank {
            offset = offset.wrapping_add(self.table[self.bases[d] + index[d]]);
            d += 1;
        }
        offset
    }
}

/// How a [`StaticLayout`](crate::StaticLayout) computes run-time offsets.
/// Every plan evaluates numbers the engine computed at compile time, so
/// the run-time cost is that of hand-written arithmetic, while the
/// engine's general transform (which the optimiser does not fold) is the
/// fallback.
///
/// ```
/// use tessera::{layout, static_layout::OffsetPlan};
/// type RowMajor = layout!(f32[3,5]);
/// type Tiled = layout!(f32[3,5]{1,0:T(2,2)});
/// assert_eq!(RowMajor::OFFSET_PLAN, OffsetPlan::Strided);
/// assert_eq!(Tiled::OFFSET_PLAN, OffsetPlan::Digits);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OffsetPlan {
    /// Offsets are linear in the index ([`ArrayLayout::strides`] is
    /// `Some`): `sum(index[d] * STRIDES[d])`, as [`OffsetTerms`] of plain
    /// terms.
    Strided,
    /// Every physical dimension holds a digit `(index[d] / div) % modulus`
    /// of one logical index ([`ArrayLayout::physical_dims`] is
    /// separable): `sum(stride[p] * digit[p])` over [`OffsetTerms`], the
    /// arithmetic one writes by hand for tiled layouts.
    Digits,
    /// No tile combines dimensions (`*`), so every physical coordinate
    /// comes from one logical dimension and the offset is the sum of each
    /// dimension's part: a lookup per dimension in a table of the engine's
    /// offsets. Used when the dims add up to at most
    /// [`OFFSET_TABLE_CAPACITY`].
    Table,
    /// The engine's transform at run time.
    Engine,
}

impl OffsetPlan {
    /// The plan for `layout`.
    pub(crate) const fn of(layout: &ArrayLayout) -> OffsetPlan {
        if layout.strides().is_some() {
            return OffsetPlan::Strided;
        }
        if layout.physical_dims().is_separable() {
            return OffsetPlan::Digits;
        }
        let tiles = layout.layout().tiles();
        let mut t = 0;
        while t < tiles.len() {
            if tiles[t].has_combined_dims() {
                return OffsetPlan::Engine;
            }
            t += 1;
        }
        let mut sum = 0usize;
        let mut d = 0;
        while d < layout.rank() {
            sum = sum.saturating_add(layout.size(d));
            d += 1;
        }
        if sum <= OFFSET_TABLE_CAPACITY {
            OffsetPlan::Table
        } else {
            OffsetPlan::Engine
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every arithmetic (plain, shifts for powers of two, division
    /// otherwise) gives the engine's offsets.
    #[test]
    fn terms_give_engine_offsets() {
        for (text, arithmetic) in [
            ("f32[19,300]{1,0:T(8,128)}", Arithmetic::ShiftMask),
            ("bf16[19,300]{1,0:T(8,128)(2,1)}", Arithmetic::ShiftMask),
            ("f32[7,10]{0,1:T(3,5)}", Arithmetic::DivMod),
            ("f32[7,10]{1,0:T(4)(2)}", Arithmetic::Plain),
            ("f32[7,10]{1,0:pad(9,12)}", Arithmetic::Plain),
            ("f32[7,6,10]{0,2,1:T(6,4)}", Arithmetic::DivMod),
        ] {
            let a: ArrayLayout = text.parse().unwrap();
            let t = OffsetTerms::new(&a).unwrap();
            assert_eq!(t.arithmetic, arithmetic, "{text}");
            for (index, offset) in a.elements() {
                assert_eq!(t.offset_in_bounds(&index), offset, "{text} {index:?}");
            }
        }
    }
}
