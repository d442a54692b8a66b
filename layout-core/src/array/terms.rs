//! [`OffsetTerms`]: a layout's offset formula as a short list of terms,
//! computed once by the engine and evaluated with a few multiplications
//! per index, for run-time layouts that index many times.

use crate::array::{ArrayLayout, DigitSource};
use crate::limits::MAX_PHYSICAL_RANK;

/// One term of an offset: `stride * ((index[dim] / div) % modulus)`, with
/// no modulus when `modulus == 0`.
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
}

const NO_TERM: Term = Term {
    dim: 0,
    div: 1,
    modulus: 0,
    stride: 0,
};

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
/// assert_eq!(terms.offset(&[2, 3]), 17);
/// let rm: ArrayLayout = "f32[3,5]".parse().unwrap();
/// assert_eq!(OffsetTerms::new(&rm).unwrap().terms().len(), 2); // plain strides
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffsetTerms {
    len: usize,
    all_plain: bool,
    /// Every `div` and `modulus` is a power of two (the usual tiles), so
    /// digits are shifts and masks: `shifts[p]` and `masks[p]` (all ones
    /// for no modulus).
    powers_of_two: bool,
    shifts: [u32; MAX_PHYSICAL_RANK],
    masks: [usize; MAX_PHYSICAL_RANK],
    terms: [Term; MAX_PHYSICAL_RANK],
}

impl core::fmt::Debug for OffsetTerms {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.terms(), f)
    }
}

impl OffsetTerms {
    /// The terms of `layout`, or `None` when its offsets have no digit
    /// formula.
    pub const fn new(layout: &ArrayLayout) -> Option<OffsetTerms> {
        let mut out = OffsetTerms {
            len: 0,
            all_plain: true,
            powers_of_two: true,
            shifts: [0; MAX_PHYSICAL_RANK],
            masks: [usize::MAX; MAX_PHYSICAL_RANK],
            terms: [NO_TERM; MAX_PHYSICAL_RANK],
        };
        if let Some(strides) = layout.strides() {
            let s = strides.as_slice();
            let mut d = 0;
            while d < s.len() {
                if layout.size(d) > 1 {
                    out.terms[out.len] = Term {
                        dim: d,
                        div: 1,
                        modulus: 0,
                        stride: s[d],
                    };
                    out.len += 1;
                }
                d += 1;
            }
            return Some(out);
        }
        let dims = layout.physical_dims();
        if !dims.is_separable() {
            return None;
        }
        let dims = dims.as_slice();
        let mut p = 0;
        while p < dims.len() {
            if let DigitSource::Logical { dim, div, modulus } = dims[p].source {
                let modulus = match modulus {
                    Some(m) => m,
                    None => 0,
                };
                if div != 1 || modulus != 0 {
                    out.all_plain = false;
                }
                out.terms[out.len] = Term {
                    dim,
                    div,
                    modulus,
                    stride: dims[p].stride,
                };
                if div.is_power_of_two() && (modulus == 0 || modulus.is_power_of_two()) {
                    out.shifts[out.len] = div.trailing_zeros();
                    if modulus != 0 {
                        out.masks[out.len] = modulus - 1;
                    }
                } else {
                    out.powers_of_two = false;
                }
                out.len += 1;
            }
            p += 1;
        }
        Some(out)
    }

    /// The terms.
    pub const fn terms(&self) -> &[Term] {
        self.terms.split_at(self.len).0
    }

    /// The offset of `index`: exact for an index in bounds; meaningless
    /// (but never a panic) otherwise. `index` must have an entry for every
    /// dimension a term names.
    ///
    /// # Panics
    /// If `index` is shorter than the layout's rank.
    #[inline]
    pub const fn offset(&self, index: &[usize]) -> usize {
        self.offset_inlined(index)
    }

    /// [`OffsetTerms::offset`], always inlined: for terms that are a
    /// constant ([`TileOf`](crate::TileOf)), whose loops then unroll into
    /// immediates. Run-time terms keep the inliner's choice.
    #[inline(always)]
    pub(crate) const fn offset_inlined(&self, index: &[usize]) -> usize {
        let mut offset = 0usize;
        let mut p = 0;
        if self.all_plain {
            while p < self.len {
                let t = &self.terms[p];
                offset = offset.wrapping_add(index[t.dim].wrapping_mul(t.stride));
                p += 1;
            }
            return offset;
        }
        if self.powers_of_two {
            while p < self.len {
                let t = &self.terms[p];
                let digit = (index[t.dim] >> self.shifts[p]) & self.masks[p];
                offset = offset.wrapping_add(digit.wrapping_mul(t.stride));
                p += 1;
            }
            return offset;
        }
        while p < self.len {
            let t = &self.terms[p];
            let q = index[t.dim] / t.div;
            let digit = if t.modulus == 0 { q } else { q % t.modulus };
            offset = offset.wrapping_add(digit.wrapping_mul(t.stride));
            p += 1;
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both evaluation paths (shifts for powers of two, division
    /// otherwise) give the engine's offsets.
    #[test]
    fn terms_give_engine_offsets() {
        for text in [
            "f32[19,300]{1,0:T(8,128)}",
            "bf16[19,300]{1,0:T(8,128)(2,1)}",
            "f32[7,10]{0,1:T(3,5)}",
            "f32[7,10]{1,0:T(4)(2)}",
            "f32[7,10]{1,0:pad(9,12)}",
        ] {
            let a: ArrayLayout = text.parse().unwrap();
            let t = OffsetTerms::new(&a).unwrap();
            for (index, offset) in a.elements() {
                assert_eq!(t.offset(&index), offset, "{text} {index:?}");
            }
        }
    }
}
