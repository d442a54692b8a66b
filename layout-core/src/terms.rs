//! [`OffsetTerms`]: a layout's offset formula as a short list of terms,
//! computed once by the engine and evaluated with a few multiplications
//! per index, for run-time layouts that index many times.

use crate::MAX_PHYSICAL_RANK;
use crate::runtime::{ArrayLayout, DigitSource};

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
/// use layout_core::{terms::OffsetTerms, ArrayLayout};
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
