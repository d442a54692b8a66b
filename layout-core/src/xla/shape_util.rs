//! XLA's `ShapeUtil` helpers on array shapes: permuting, inserting and
//! deleting dimensions, bitcast checks and comparisons.
//!
//! Every function returns a new [`Shape`] (shapes are `Copy`) whose layout
//! is checked again, so a helper can never produce an invalid shape: where
//! XLA `CHECK`-fails, these return an [`Error`]. Tuples are not shapes in
//! tessera; the functions with `tree` in their name work on the flattened
//! form that [`parse_shape_tree`](crate::text::parse_shape_tree) produces.
//!
//! ```
//! use tessera::{shape_util, Layout, PrimitiveType, Shape};
//! let s = Shape::new(PrimitiveType::F32, &[10, 100, 1000]).unwrap();
//! let t = shape_util::permute_dimensions(&[1, 2, 0], &s).unwrap();
//! assert_eq!(t.to_string(), "f32[100,1000,10]{1,0,2}");
//! assert!(shape_util::transpose_is_bitcast(&s, &t, &[1, 2, 0], false));
//! ```

use crate::array::DimVec;
use crate::error::{Error, ErrorKind, Locus};
use crate::limits::MAX_RANK;
use crate::model::layout::{Layout, LayoutEquality, Padding};
use crate::model::shape::{Dim, Shape};
use crate::text::TreeEvent;
use crate::xla::index_util::{
    layout_or_default, linear_index_to_multidimensional_index,
    multidimensional_index_to_linear_index, sizes_of,
};

// ---------------------------------------------------------------- helpers

/// The `minor_to_major` of `layout` as `usize`s.
const fn m2m_of(layout: &Layout) -> ([usize; MAX_RANK], usize) {
    let m = layout.minor_to_major();
    let mut out = [0usize; MAX_RANK];
    let mut i = 0;
    while i < m.len() {
        out[i] = m[i] as usize;
        i += 1;
    }
    (out, m.len())
}

/// Checks that `p` is a permutation of `0..rank`.
const fn check_permutation(p: &[usize], rank: usize) -> Result<(), Error> {
    let bad = Error::new(ErrorKind::InvalidPermutation { len: p.len(), rank });
    if p.len() != rank {
        return Err(bad);
    }
    let mut seen = [false; MAX_RANK];
    let mut i = 0;
    while i < p.len() {
        if p[i] >= rank || seen[p[i]] {
            return Err(bad);
        }
        seen[p[i]] = true;
        i += 1;
    }
    Ok(())
}

/// The inverse permutation (`InversePermutation`): `inv[p[i]] = i`.
const fn inverse(p: &[usize]) -> [usize; MAX_RANK] {
    let mut inv = [0usize; MAX_RANK];
    let mut i = 0;
    while i < p.len() {
        inv[p[i]] = i;
        i += 1;
    }
    inv
}

const fn not_array(shape: &Shape) -> Error {
    Error::at(
        ErrorKind::NotAnArrayType {
            element_type: shape.element_type(),
        },
        Locus::ElementType,
    )
}

/// `shape`'s padding, permuted like the dims: entry `i` of the result is
/// entry `perm[i]` of the original.
const fn permuted_padding(layout: &Layout, perm: &[usize]) -> Result<Option<Padding>, Error> {
    match layout.padding() {
        None => Ok(None),
        Some(p) => {
            let src = p.padded_dims();
            let mut out = [0usize; MAX_RANK];
            let mut i = 0;
            while i < perm.len() {
                if perm[i] < src.len() {
                    out[i] = src[perm[i]];
                }
                i += 1;
            }
            match Padding::new(out.split_at(perm.len()).0, p.value()) {
                Ok(p) => Ok(Some(p)),
                Err(e) => Err(e),
            }
        }
    }
}

/// The dims of `shape` reordered: entry `i` is `dims[perm[i]]`
/// (XLA's `Permute`).
const fn permuted_dims(shape: &Shape, perm: &[usize]) -> [Dim; MAX_RANK] {
    let mut out = [Dim::Static(0); MAX_RANK];
    let mut i = 0;
    while i < perm.len() {
        out[i] = shape.dims()[perm[i]];
        i += 1;
    }
    out
}

// ------------------------------------------------------------ permutations

/// The shape with its dimensions reordered, `dims'[i] = dims[permutation[i]]`,
/// and the layout copied unchanged (`ShapeUtil::PermuteDimensionsIgnoringLayout`;
/// tessera's `pad(..)` widths move with their dimensions).
///
/// # Errors
/// A non-array shape, a `permutation` that is not one of `0..rank`, or a
/// copied layout that no longer fits (e.g. a split config past a shrunk
/// dimension).
pub const fn permute_dimensions_ignoring_layout(
    permutation: &[usize],
    shape: &Shape,
) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    if let Err(e) = check_permutation(permutation, shape.rank()) {
        return Err(e);
    }
    let dims = permuted_dims(shape, permutation);
    let layout = match shape.layout() {
        None => None,
        Some(l) => {
            let (m2m, n) = m2m_of(l);
            let padding = match permuted_padding(l, permutation) {
                Ok(p) => p,
                Err(e) => return Err(e),
            };
            match l.with_minor_to_major_and_padding(m2m.split_at(n).0, padding) {
                Ok(l) => Some(l),
                Err(e) => return Err(e),
            }
        }
    };
    Shape::rebuild(shape.element_type(), dims.split_at(shape.rank()).0, layout)
}

/// The shape with its dimensions reordered as in
/// [`permute_dimensions_ignoring_layout`] and a layout chosen so that the
/// transpose is a bitcast: `m2m'[i] = inverse(permutation)[m2m[i]]`
/// (`ShapeUtil::PermuteDimensions`). The physical order, tiles and other
/// attributes are unchanged.
///
/// # Errors
/// A non-array shape or a `permutation` that is not one of `0..rank`.
pub const fn permute_dimensions(permutation: &[usize], shape: &Shape) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    if let Err(e) = check_permutation(permutation, shape.rank()) {
        return Err(e);
    }
    let dims = permuted_dims(shape, permutation);
    let layout = match shape.layout() {
        None => None,
        Some(l) => {
            let inv = inverse(permutation);
            let old = l.minor_to_major();
            let mut m2m = [0usize; MAX_RANK];
            let mut i = 0;
            while i < old.len() {
                m2m[i] = inv[old[i] as usize];
                i += 1;
            }
            let padding = match permuted_padding(l, permutation) {
                Ok(p) => p,
                Err(e) => return Err(e),
            };
            match l.with_minor_to_major_and_padding(m2m.split_at(old.len()).0, padding) {
                Ok(l) => Some(l),
                Err(e) => return Err(e),
            }
        }
    };
    Shape::rebuild(shape.element_type(), dims.split_at(shape.rank()).0, layout)
}

/// The shape with its logical dimensions reordered,
/// `dims'[i] = dims[permutation[i]]`, keeping every element where it is
/// in memory (`ShapeUtil::ReorderLogicalDimensions`). The same result as
/// [`permute_dimensions`].
///
/// # Errors
/// As [`permute_dimensions`].
pub const fn reorder_logical_dimensions(
    shape: &Shape,
    permutation: &[usize],
) -> Result<Shape, Error> {
    permute_dimensions(permutation, shape)
}

/// Whether transposing `input` by `dimension_mapping` into `output` moves
/// no element in memory (`ShapeUtil::TransposeIsBitcast`):
/// `dimension_mapping[output.m2m[i]] == input.m2m[i]` for every `i`. As in
/// XLA, tiles are not compared. `false` when either shape is not an array,
/// lacks a layout, the ranks differ or `dimension_mapping` is not a
/// permutation; and, unless `ignore_element_type`, when the element types
/// differ.
pub const fn transpose_is_bitcast(
    input: &Shape,
    output: &Shape,
    dimension_mapping: &[usize],
    ignore_element_type: bool,
) -> bool {
    if !input.is_array() || !output.is_array() {
        return false;
    }
    if !ignore_element_type
        && input.element_type().xla_enum_value() != output.element_type().xla_enum_value()
    {
        return false;
    }
    let (Some(li), Some(lo)) = (input.layout(), output.layout()) else {
        return false;
    };
    if input.rank() != output.rank() || check_permutation(dimension_mapping, input.rank()).is_err()
    {
        return false;
    }
    let mi = li.minor_to_major();
    let mo = lo.minor_to_major();
    let mut i = 0;
    while i < mi.len() {
        if dimension_mapping[mo[i] as usize] != mi[i] as usize {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `input` and `output` (with the default descending layout
/// ignored: their own layouts) have the same physical position for the
/// logical unit index of every dimension of `input` (helper of
/// [`reshape_is_bitcast`]).
const fn unit_indices_agree(input: &Shape, output: &Shape) -> bool {
    let (Ok(in_sizes), Ok(out_sizes)) = (sizes_of(input), sizes_of(output)) else {
        return false;
    };
    let Ok(in_major) = Shape::new(input.element_type(), in_sizes.as_slice()) else {
        return false;
    };
    let Ok(out_major) = Shape::new(output.element_type(), out_sizes.as_slice()) else {
        return false;
    };
    let mut d = 0;
    while d < input.rank() {
        if in_sizes.as_slice()[d] > 1 {
            let mut unit = [0usize; MAX_RANK];
            unit[d] = 1;
            let unit = unit.split_at(input.rank()).0;
            let Ok(logical) = multidimensional_index_to_linear_index(&in_major, unit) else {
                return false;
            };
            let Ok(out_index) = linear_index_to_multidimensional_index(&out_major, logical) else {
                return false;
            };
            let (Ok(a), Ok(b)) = (
                multidimensional_index_to_linear_index(input, unit),
                multidimensional_index_to_linear_index(output, out_index.as_slice()),
            ) else {
                return false;
            };
            if a != b {
                return false;
            }
        }
        d += 1;
    }
    true
}

/// Whether reshaping `input` to `output` keeps every element at the same
/// dense position, i.e. is a bitcast (`ShapeUtil::ReshapeIsBitcast`). As
/// in XLA it is enough that the unit index of every dimension (1 in that
/// dimension, 0 elsewhere) of either shape lands at the same physical
/// position in the other; tiles are ignored, as in XLA's index math.
/// `false` when either shape is not an array, lacks a layout, has a `?`
/// dimension, the element counts differ, or (unless
/// `ignore_element_type`) the element types differ.
pub const fn reshape_is_bitcast(input: &Shape, output: &Shape, ignore_element_type: bool) -> bool {
    if !input.is_array() || !output.is_array() {
        return false;
    }
    if input.layout().is_none() || output.layout().is_none() {
        return false;
    }
    if !ignore_element_type
        && input.element_type().xla_enum_value() != output.element_type().xla_enum_value()
    {
        return false;
    }
    let (Ok(a), Ok(b)) = (input.element_count(), output.element_count()) else {
        return false;
    };
    if a != b {
        return false;
    }
    if a == 0 {
        return true;
    }
    unit_indices_agree(input, output) && unit_indices_agree(output, input)
}

/// The permutation `p` such that transposing `input` by `p` gives
/// `output` as a bitcast, if there is one
/// (`ShapeUtil::DeduceTransposeDimensionsForBitcast`):
/// `p = compose(input.m2m, inverse(output.m2m))`, accepted when
/// `output.dims == permute(input.dims, p)`. `None` when the ranks differ,
/// a shape lacks a layout, or the dims do not match.
pub const fn deduce_transpose_dimensions_for_bitcast(
    input: &Shape,
    output: &Shape,
) -> Option<DimVec> {
    if !input.is_array() || !output.is_array() || input.rank() != output.rank() {
        return None;
    }
    let (Some(li), Some(lo)) = (input.layout(), output.layout()) else {
        return None;
    };
    let (mi, n) = m2m_of(li);
    let (mo, _) = m2m_of(lo);
    let inv_out = inverse(mo.split_at(n).0);
    let mut perm = [0usize; MAX_RANK];
    let mut i = 0;
    while i < n {
        perm[i] = mi[inv_out[i]];
        i += 1;
    }
    let mut i = 0;
    while i < n {
        if !dim_eq(input.dims()[perm[i]], output.dims()[i]) {
            return None;
        }
        i += 1;
    }
    Some(DimVec::from_array(n, perm))
}

/// Whether `a` and `b` are bitcasts of each other by equality, a reshape
/// or a transpose (`ShapeUtil::IsReshapeOrTransposeBitcast`).
pub fn is_reshape_or_transpose_bitcast(a: &Shape, b: &Shape, ignore_element_type: bool) -> bool {
    if !a.is_array() || !b.is_array() {
        return false;
    }
    if !ignore_element_type
        && a.element_type().xla_enum_value() != b.element_type().xla_enum_value()
    {
        return false;
    }
    let eq = ShapeEquality {
        ignore_element_type: true,
        ..ShapeEquality::XLA
    };
    if equal_with(a, b, eq) {
        return true;
    }
    if reshape_is_bitcast(a, b, true) {
        return true;
    }
    match deduce_transpose_dimensions_for_bitcast(a, b) {
        Some(p) => transpose_is_bitcast(b, a, p.as_slice(), true),
        None => false,
    }
}

/// Pairs `(i, j)` where the product of `a[..i]` equals that of `b[..j]`,
/// for dims with no 1s (XLA's `CommonFactors` on such dims). With a 0 in
/// either, only the two ends. Returns the pairs and their count.
const fn common_factors(a: &[usize], b: &[usize]) -> ([(usize, usize); MAX_RANK + 1], usize) {
    let mut out = [(0usize, 0usize); MAX_RANK + 1];
    let mut n = 1;
    let mut has_zero = false;
    let mut k = 0;
    while k < a.len() {
        has_zero |= a[k] == 0;
        k += 1;
    }
    let mut k = 0;
    while k < b.len() {
        has_zero |= b[k] == 0;
        k += 1;
    }
    if has_zero {
        out[1] = (a.len(), b.len());
        return (out, 2);
    }
    // Products stay below the element count, which fits (checked when the
    // shapes were built); saturate anyway.
    let (mut i, mut j, mut pa, mut pb) = (0usize, 0usize, 1usize, 1usize);
    while i < a.len() || j < b.len() {
        if j >= b.len() || (pa <= pb && i < a.len()) {
            pa = pa.saturating_mul(a[i]);
            i += 1;
        } else {
            pb = pb.saturating_mul(b[j]);
            j += 1;
        }
        if pa == pb && n < out.len() {
            out[n] = (i, j);
            n += 1;
        }
    }
    (out, n)
}

/// A layout for `output` that makes the reshape from `input` a bitcast,
/// if one exists (`ShapeUtil::AlignLayouts`). Size-1 dimensions are set
/// aside first and put back as the most major, in descending order, as
/// XLA does. Returns `output` with that layout, or `None` when no layout
/// works (or the shapes are not arrays with static or bounded dims, or
/// `input` has no layout). Tiles and other attributes are not carried
/// over.
pub const fn align_layouts(input: &Shape, output: &Shape) -> Option<Shape> {
    if !input.is_array() || !output.is_array() {
        return None;
    }
    let Some(in_layout) = input.layout() else {
        return None;
    };
    let (Ok(in_sizes), Ok(out_sizes)) = (sizes_of(input), sizes_of(output)) else {
        return None;
    };
    let (Ok(a), Ok(b)) = (input.element_count(), output.element_count()) else {
        return None;
    };
    if a != b {
        return None;
    }
    let in_sizes = in_sizes.as_slice();
    let out_sizes = out_sizes.as_slice();
    // Drop size-1 dims: `in_keep[k]` is the original index of the k-th
    // kept input dim; `in_new[d]` the new index of kept dim `d`.
    let mut in_new = [usize::MAX; MAX_RANK];
    let mut in_dims = [0usize; MAX_RANK];
    let mut ni = 0;
    let mut d = 0;
    while d < in_sizes.len() {
        if in_sizes[d] != 1 {
            in_new[d] = ni;
            in_dims[ni] = in_sizes[d];
            ni += 1;
        }
        d += 1;
    }
    let mut out_keep = [0usize; MAX_RANK];
    let mut out_dims = [0usize; MAX_RANK];
    let mut no = 0;
    let mut d = 0;
    while d < out_sizes.len() {
        if out_sizes[d] != 1 {
            out_keep[no] = d;
            out_dims[no] = out_sizes[d];
            no += 1;
        }
        d += 1;
    }
    // The input layout restricted to kept dims, renumbered.
    let mut in_m2m = [0usize; MAX_RANK];
    let mut k = 0;
    let full = in_layout.minor_to_major();
    let mut p = 0;
    while p < full.len() {
        let d = full[p] as usize;
        if in_new[d] != usize::MAX {
            in_m2m[k] = in_new[d];
            k += 1;
        }
        p += 1;
    }
    let (factors, nf) = common_factors(in_dims.split_at(ni).0, out_dims.split_at(no).0);
    // Each run of input dims forming a factor must be consecutive and in
    // major-to-minor order in the input layout.
    let mut in_to_factor = [0usize; MAX_RANK];
    let mut f = 0;
    while f + 1 < nf {
        let start = factors[f].0;
        let end = factors[f + 1].0;
        if start < end {
            let mut phys = 0;
            while phys < ni && in_m2m[phys] != start {
                phys += 1;
            }
            in_to_factor[start] = f;
            let mut i = start + 1;
            while i < end {
                if phys == 0 || in_m2m[phys - 1] != i {
                    return None;
                }
                phys -= 1;
                in_to_factor[i] = f;
                i += 1;
            }
        }
        f += 1;
    }
    // Walk the input from minor to major, emitting each factor's output
    // dims minor to major.
    let mut out_m2m = [0usize; MAX_RANK];
    let mut len = 0;
    let mut minor = 0;
    while len < no {
        if minor >= ni {
            return None;
        }
        let f = in_to_factor[in_m2m[minor]];
        let (s_in, s_out) = factors[f];
        let (e_in, e_out) = factors[f + 1];
        let mut dim = e_out;
        while dim > s_out {
            dim -= 1;
            out_m2m[len] = out_keep[dim];
            len += 1;
        }
        if e_in == s_in {
            return None;
        }
        minor += e_in - s_in;
    }
    // Size-1 output dims go most major, in descending order.
    let mut d = out_sizes.len();
    while d > 0 {
        d -= 1;
        if out_sizes[d] == 1 {
            out_m2m[len] = d;
            len += 1;
        }
    }
    let Ok(layout) = Layout::new(out_m2m.split_at(len).0) else {
        return None;
    };
    match output.without_layout().with_layout(layout) {
        Ok(s) => Some(s),
        Err(_) => None,
    }
}

// ------------------------------------------------------- dimension editing

/// The shape with `bounds.len()` static dimensions inserted before logical
/// dimension `index` (`ShapeUtil::InsertDimensionsAtIndex`). In the
/// layout, the new dimensions go next-major to the dimension that was at
/// `index`, or most minor when `index == rank`. Tessera's `pad(..)` gets
/// unpadded widths for them.
///
/// # Errors
/// A non-array shape, `index > rank`, or a result above
/// [`MAX_RANK`] or its size limits.
pub const fn insert_dimensions_at_index(
    shape: &Shape,
    index: usize,
    bounds: &[usize],
) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    let rank = shape.rank();
    if index > rank {
        return Err(Error::new(ErrorKind::DimensionOutOfRange {
            dim: if index > i64::MAX as usize {
                i64::MAX
            } else {
                index as i64
            },
            rank,
        }));
    }
    let new_rank = rank + bounds.len();
    if new_rank > MAX_RANK {
        return Err(Error::at(
            ErrorKind::RankTooLarge {
                rank: new_rank,
                max: MAX_RANK,
            },
            Locus::Dims,
        ));
    }
    let k = bounds.len();
    let mut dims = [Dim::Static(0); MAX_RANK];
    let mut i = 0;
    while i < new_rank {
        dims[i] = if i < index {
            shape.dims()[i]
        } else if i < index + k {
            Dim::Static(bounds[i - index])
        } else {
            shape.dims()[i - k]
        };
        i += 1;
    }
    let layout = match shape.layout() {
        None => None,
        Some(l) => {
            let old = l.minor_to_major();
            let mut m2m = [0usize; MAX_RANK];
            let mut n = 0;
            if index == rank {
                let mut j = k;
                while j > 0 {
                    j -= 1;
                    m2m[n] = index + j;
                    n += 1;
                }
            }
            let mut p = 0;
            while p < old.len() {
                let d = old[p] as usize;
                m2m[n] = if d >= index { d + k } else { d };
                n += 1;
                if d == index {
                    let mut j = k;
                    while j > 0 {
                        j -= 1;
                        m2m[n] = index + j;
                        n += 1;
                    }
                }
                p += 1;
            }
            let padding = match l.padding() {
                None => None,
                Some(pd) => {
                    let src = pd.padded_dims();
                    let mut w = [0usize; MAX_RANK];
                    let mut i = 0;
                    while i < new_rank {
                        w[i] = if i < index {
                            src[i]
                        } else if i < index + k {
                            bounds[i - index]
                        } else {
                            src[i - k]
                        };
                        i += 1;
                    }
                    match Padding::new(w.split_at(new_rank).0, pd.value()) {
                        Ok(p) => Some(p),
                        Err(e) => return Err(e),
                    }
                }
            };
            match l.with_minor_to_major_and_padding(m2m.split_at(n).0, padding) {
                Ok(l) => Some(l),
                Err(e) => return Err(e),
            }
        }
    };
    Shape::rebuild(shape.element_type(), dims.split_at(new_rank).0, layout)
}

/// [`insert_dimensions_at_index`] with one dimension of size `bound`
/// (`ShapeUtil::InsertDimensionAtIndex`).
///
/// # Errors
/// As [`insert_dimensions_at_index`].
pub const fn insert_dimension_at_index(
    shape: &Shape,
    index: usize,
    bound: usize,
) -> Result<Shape, Error> {
    insert_dimensions_at_index(shape, index, &[bound])
}

/// The shape with a new most-major dimension 0 of size `bound`
/// (`ShapeUtil::PrependMajorDimension`).
///
/// # Errors
/// As [`insert_dimensions_at_index`].
pub const fn prepend_major_dimension(bound: usize, shape: &Shape) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    let inserted = match insert_dimensions_at_index(&shape.without_layout(), 0, &[bound]) {
        Ok(s) => s,
        Err(e) => return Err(e),
    };
    match shape.layout() {
        None => Ok(inserted),
        Some(l) => {
            let old = l.minor_to_major();
            let mut m2m = [0usize; MAX_RANK];
            let mut i = 0;
            while i < old.len() {
                m2m[i] = old[i] as usize + 1;
                i += 1;
            }
            m2m[old.len()] = 0;
            let padding = match l.padding() {
                None => None,
                Some(pd) => {
                    let src = pd.padded_dims();
                    let mut w = [0usize; MAX_RANK];
                    w[0] = bound;
                    let mut i = 0;
                    while i < src.len() {
                        w[i + 1] = src[i];
                        i += 1;
                    }
                    match Padding::new(w.split_at(src.len() + 1).0, pd.value()) {
                        Ok(p) => Some(p),
                        Err(e) => return Err(e),
                    }
                }
            };
            match l.with_minor_to_major_and_padding(m2m.split_at(old.len() + 1).0, padding) {
                Ok(nl) => inserted.with_layout(nl),
                Err(e) => Err(e),
            }
        }
    }
}

/// The shape with a new last logical dimension of size `bound` that is
/// the most minor in the layout (`ShapeUtil::AppendMinorDimension`).
///
/// # Errors
/// As [`insert_dimensions_at_index`].
pub const fn append_minor_dimension(bound: usize, shape: &Shape) -> Result<Shape, Error> {
    // Inserting at `rank` puts the new dims most minor, as XLA's
    // AppendMinorDimension does.
    insert_dimensions_at_index(shape, shape.rank(), &[bound])
}

/// The shape without logical dimension `dim`; the layout drops it and
/// renumbers the others, leaving tiles untouched as XLA does
/// (`ShapeUtil::DeleteDimension`).
///
/// # Errors
/// A non-array shape, `dim >= rank`, or a layout that no longer fits.
pub const fn delete_dimension(shape: &Shape, dim: usize) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    let rank = shape.rank();
    if dim >= rank {
        return Err(Error::new(ErrorKind::DimensionOutOfRange {
            dim: if dim > i64::MAX as usize {
                i64::MAX
            } else {
                dim as i64
            },
            rank,
        }));
    }
    let mut dims = [Dim::Static(0); MAX_RANK];
    let mut i = 0;
    while i + 1 < rank {
        dims[i] = if i < dim {
            shape.dims()[i]
        } else {
            shape.dims()[i + 1]
        };
        i += 1;
    }
    let layout = match shape.layout() {
        None => None,
        Some(l) => {
            let nl = match l.delete_dimension(dim) {
                Ok(nl) => nl,
                Err(e) => return Err(e),
            };
            let padding = match l.padding() {
                None => None,
                Some(pd) => {
                    let src = pd.padded_dims();
                    let mut w = [0usize; MAX_RANK];
                    let mut i = 0;
                    while i + 1 < src.len() {
                        w[i] = if i < dim { src[i] } else { src[i + 1] };
                        i += 1;
                    }
                    let len = if src.is_empty() { 0 } else { src.len() - 1 };
                    match Padding::new(w.split_at(len).0, pd.value()) {
                        Ok(p) => Some(p),
                        Err(e) => return Err(e),
                    }
                }
            };
            Some(nl.with_padding(padding))
        }
    };
    Shape::rebuild(shape.element_type(), dims.split_at(rank - 1).0, layout)
}

/// The shape without the logical dimensions in `dims` (any order, no
/// repeats) (`ShapeUtil::DeleteDimensions`).
///
/// # Errors
/// A repeated or out-of-range dimension, or as [`delete_dimension`].
pub const fn delete_dimensions(shape: &Shape, dims: &[usize]) -> Result<Shape, Error> {
    let rank = shape.rank();
    let mut del = [false; MAX_RANK];
    let mut i = 0;
    while i < dims.len() {
        if dims[i] >= rank || del[dims[i]] {
            return Err(Error::new(ErrorKind::DimensionOutOfRange {
                dim: if dims[i] > i64::MAX as usize {
                    i64::MAX
                } else {
                    dims[i] as i64
                },
                rank,
            }));
        }
        del[dims[i]] = true;
        i += 1;
    }
    // Delete from the highest so lower numbers stay valid.
    let mut out = *shape;
    let mut d = rank;
    while d > 0 {
        d -= 1;
        if del[d] {
            out = match delete_dimension(&out, d) {
                Ok(s) => s,
                Err(e) => return Err(e),
            };
        }
    }
    Ok(out)
}

/// The shape with logical dimension `dim` made the most major in the
/// layout (`ShapeUtil::MoveDimToMajor` on an array; a shape without a
/// layout gets the default one first).
///
/// # Errors
/// A non-array shape or `dim >= rank`.
pub const fn move_dim_to_major(shape: &Shape, dim: usize) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    let layout = layout_or_default(shape);
    match crate::xla::layout_util::move_dim_to_major(&layout, dim) {
        Ok(l) => shape.without_layout().with_layout(l),
        Err(e) => Err(e),
    }
}

/// A shape with the descending layout whose dims are `shape`'s in
/// major-to-minor order, so that the elements stay where they are
/// (`ShapeUtil::MakeShapeWithDescendingLayoutAndSamePhysicalLayout`).
/// Tiles, `E(n)`, `L(n)` and `S(n)` are kept; tessera's `pad(..)` moves
/// with the dims.
///
/// # Errors
/// A non-array shape.
pub const fn make_shape_with_descending_layout_and_same_physical_layout(
    shape: &Shape,
) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    let layout = layout_or_default(shape);
    let n = shape.rank();
    let mut perm = [0usize; MAX_RANK];
    let mut i = 0;
    while i < n {
        perm[i] = layout.major(i);
        i += 1;
    }
    let perm = perm.split_at(n).0;
    let dims = permuted_dims(shape, perm);
    let desc = Layout::descending(n);
    let (m2m, _) = m2m_of(&desc);
    let padding = match permuted_padding(&layout, perm) {
        Ok(p) => p,
        Err(e) => return Err(e),
    };
    let base = match layout.with_minor_to_major_and_padding(m2m.split_at(n).0, padding) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    // XLA keeps tiles, E, L and S, and starts the rest afresh.
    let l = match base.with_split_configs(&[]) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    let l = l.with_dynamic_shape_metadata_prefix_bytes(0);
    Shape::rebuild(shape.element_type(), dims.split_at(n).0, Some(l))
}

/// The shape as the host sees it: tiles, `S(n)`, `E(n)`, `L(n)` and
/// `M(n)` cleared (`ShapeUtil::DeviceShapeToHostShape`). Tessera's
/// `pad(..)` is kept.
///
/// # Errors
/// A non-array shape.
pub const fn device_shape_to_host_shape(shape: &Shape) -> Result<Shape, Error> {
    if !shape.is_array() {
        return Err(not_array(shape));
    }
    match shape.layout() {
        None => Ok(*shape),
        Some(l) => {
            let (m2m, n) = m2m_of(l);
            let nl = match Layout::new(m2m.split_at(n).0) {
                Ok(nl) => nl,
                Err(e) => return Err(e),
            };
            let nl = match nl.with_split_configs(l.split_configs()) {
                Ok(nl) => nl,
                Err(e) => return Err(e),
            };
            shape
                .without_layout()
                .with_layout(nl.with_padding(l.padding()))
        }
    }
}

/// Whether `shape` needs no device-to-host conversion: no tiles, default
/// `S`, `E`, `L` and `M` (`ShapeUtil::DeviceShapeIsHostShape`).
pub const fn device_shape_is_host_shape(shape: &Shape) -> bool {
    match shape.layout() {
        None => true,
        Some(l) => {
            !l.is_tiled()
                && l.memory_space() == 0
                && l.element_size_in_bits() == 0
                && l.tail_padding_alignment_in_elements() == 1
                && l.dynamic_shape_metadata_prefix_bytes() == 0
        }
    }
}

// ----------------------------------------------------------- predicates

/// Whether some dimension has size 1 (`ShapeUtil::HasDegenerateDimensions`).
pub const fn has_degenerate_dimensions(shape: &Shape) -> bool {
    let mut i = 0;
    while i < shape.rank() {
        if let Some(1) = shape.dims()[i].size() {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `dim` is the most major dimension once size-1 dimensions more
/// major than it are ignored (`ShapeUtil::IsEffectivelyMostMajorDimension`).
/// A shape without a layout uses the default one.
pub const fn is_effectively_most_major_dimension(shape: &Shape, dim: usize) -> bool {
    let layout = layout_or_default(shape);
    let mut i = 0;
    while i < shape.rank() {
        let major = layout.major(i);
        if major == dim {
            return true;
        }
        match shape.dims()[major].size() {
            Some(1) => {}
            _ => return false,
        }
        i += 1;
    }
    false
}

/// Whether the last logical dimension is the most minor in the layout
/// (`ShapeUtil::LastDimIsMinorMost`). `false` for a scalar or a shape
/// without a layout.
pub const fn last_dim_is_minor_most(shape: &Shape) -> bool {
    match shape.layout() {
        Some(l) => shape.rank() > 0 && l.minor(0) == shape.rank() - 1,
        None => false,
    }
}

// ----------------------------------------------------------- comparison

/// What [`equal_with`] compares (XLA's `Shape::Equal` builder).
///
/// ```
/// use tessera::Shape;
/// use tessera::shape_util::{ShapeEquality, equal_with};
/// let rows: Shape = "f32[8,128]{1,0}".parse()?;
/// let cols: Shape = "f32[8,128]{0,1}".parse()?;
/// assert!(!equal_with(&rows, &cols, ShapeEquality::XLA));
/// assert!(equal_with(&rows, &cols, ShapeEquality::COMPATIBLE)); // layouts ignored
/// assert!(equal_with(&rows, &cols, ShapeEquality { ignore_layout: true, ..ShapeEquality::XLA }));
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeEquality {
    /// Ignore the element type (`IgnoreElementType`).
    pub ignore_element_type: bool,
    /// Ignore whether dims are dynamic, and the size of a `?` dim
    /// (`IgnoreDynamicDimension`).
    pub ignore_dynamic_dimensions: bool,
    /// Ignore layouts (`IgnoreLayout`).
    pub ignore_layout: bool,
    /// How layouts are compared when they are not ignored.
    pub layout: LayoutEquality,
    /// In the tree comparisons, treat `b(x)` as `x` (`IgnoreBuffer`).
    pub ignore_buffer: bool,
}

impl ShapeEquality {
    /// XLA's `ShapeUtil::Equal`: everything, layouts by `Layout::Equal`.
    pub const XLA: ShapeEquality = ShapeEquality {
        ignore_element_type: false,
        ignore_dynamic_dimensions: false,
        ignore_layout: false,
        layout: LayoutEquality::XLA,
        ignore_buffer: false,
    };

    /// XLA's `ShapeUtil::Compatible`: layouts and dynamic-ness ignored.
    pub const COMPATIBLE: ShapeEquality = ShapeEquality {
        ignore_element_type: false,
        ignore_dynamic_dimensions: true,
        ignore_layout: true,
        layout: LayoutEquality::XLA,
        ignore_buffer: false,
    };
}

const fn dim_eq(a: Dim, b: Dim) -> bool {
    match (a, b) {
        (Dim::Static(x), Dim::Static(y)) | (Dim::Bounded(x), Dim::Bounded(y)) => x == y,
        (Dim::Unbounded, Dim::Unbounded) => true,
        _ => false,
    }
}

/// XLA's `Shape::Equal` with the given parts ignored, on two array (or
/// token/opaque) shapes. Layouts are compared only when at least one
/// shape has one; then both must.
pub fn equal_with(lhs: &Shape, rhs: &Shape, eq: ShapeEquality) -> bool {
    if !eq.ignore_element_type && lhs.element_type() != rhs.element_type() {
        return false;
    }
    if lhs.is_array() != rhs.is_array() || lhs.rank() != rhs.rank() {
        return false;
    }
    for (a, b) in lhs.dims().iter().zip(rhs.dims()) {
        let same = if eq.ignore_dynamic_dimensions {
            match (a.size(), b.size()) {
                (Some(x), Some(y)) => x == y,
                _ => true,
            }
        } else {
            dim_eq(*a, *b)
        };
        if !same {
            return false;
        }
    }
    if eq.ignore_layout || !lhs.is_array() {
        return true;
    }
    match (lhs.layout(), rhs.layout()) {
        (None, None) => true,
        (Some(a), Some(b)) => a.equal_ignoring(b, eq.layout),
        _ => false,
    }
}

/// `ShapeUtil::Equal`: element type, dims, dynamic-ness and layout
/// (`Layout::Equal`, which leaves `M(n)` out).
pub fn equal(lhs: &Shape, rhs: &Shape) -> bool {
    equal_with(lhs, rhs, ShapeEquality::XLA)
}

/// `ShapeUtil::Compatible`: equal ignoring layouts and dynamic-ness (a `?`
/// dim matches any size).
pub fn compatible(lhs: &Shape, rhs: &Shape) -> bool {
    equal_with(lhs, rhs, ShapeEquality::COMPATIBLE)
}

/// [`equal_with`] on possibly nested shapes given as the events of
/// [`parse_shape_tree`](crate::text::parse_shape_tree): same tuple and
/// buffer structure, and equal leaves. With `eq.ignore_buffer`, `b(x)`
/// compares as `x`.
pub fn equal_trees(lhs: &[TreeEvent], rhs: &[TreeEvent], eq: ShapeEquality) -> bool {
    let keep = |e: &&TreeEvent| {
        !(eq.ignore_buffer && matches!(e, TreeEvent::BufferStart | TreeEvent::BufferEnd))
    };
    let mut a = lhs.iter().filter(keep);
    let mut b = rhs.iter().filter(keep);
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(TreeEvent::Leaf(x)), Some(TreeEvent::Leaf(y))) => {
                if !equal_with(x, y, eq) {
                    return false;
                }
            }
            (Some(x), Some(y)) if !matches!(x, TreeEvent::Leaf(_)) && x == y => {}
            _ => return false,
        }
    }
}

// ------------------------------------------------------------------ sizes

/// The bytes XLA's buffer assignment gives `shape` (`ShapeUtil::ByteSizeOf`
/// with a pointer size): an array's elements times the type's byte width,
/// or `ceil(elements × n / 8)` when packed by `E(n)`, counting bounded
/// dimensions at their bound; 0 for `token[]`; `pointer_size` for
/// `opaque[]`. Tiles add nothing here, as in XLA's CPU and GPU buffer
/// assignment; XLA's size padded for the first tile (`ShapeUtil::ArraySize`,
/// what TPU backends allocate) is
/// [`layout_util::xla_array_size_bytes`](crate::xla::layout_util::xla_array_size_bytes),
/// tessera's buffer [`ArrayLayout::physical_byte_size`](crate::ArrayLayout::physical_byte_size).
/// A tuple's own bytes are its [index table](byte_size_of_tuple_index_table).
///
/// `None` for a `?` dimension, whose size is not known.
///
/// ```
/// use tessera::shape_util::byte_size_of;
/// let s4: tessera::Shape = "s4[5,3]{1,0:E(4)}".parse().unwrap();
/// assert_eq!(byte_size_of(&s4, 8), Some(8));
/// let tiled: tessera::Shape = "f32[5,6]{0,1:T(2,4)}".parse().unwrap();
/// assert_eq!(byte_size_of(&tiled, 8), Some(120));
/// ```
pub const fn byte_size_of(shape: &Shape, pointer_size: usize) -> Option<usize> {
    match shape.element_type() {
        crate::element::PrimitiveType::Token => return Some(0),
        crate::element::PrimitiveType::Opaque => return Some(pointer_size),
        _ => {}
    }
    let Ok(count) = shape.element_count() else {
        return None;
    };
    let bits = match shape.layout() {
        Some(l) => l.element_size_in_bits(),
        None => 0,
    };
    crate::element::bytes_of_slots(shape.element_type(), bits, count)
}

/// The bytes of a tuple's own buffer, its index table of one pointer per
/// element (`ShapeUtil::ByteSizeOfTupleIndexTable`); XLA uses 8-byte
/// pointers on CPU and GPU. `None` on overflow.
///
/// ```
/// assert_eq!(tessera::shape_util::byte_size_of_tuple_index_table(4, 8), Some(32));
/// ```
pub const fn byte_size_of_tuple_index_table(elements: usize, pointer_size: usize) -> Option<usize> {
    elements.checked_mul(pointer_size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PrimitiveType, Tile};

    fn s(dims: &[usize], m2m: &[usize]) -> Shape {
        Shape::new(PrimitiveType::F32, dims)
            .unwrap()
            .with_layout(Layout::new(m2m).unwrap())
            .unwrap()
    }

    fn m2m(shape: &Shape) -> &[u8] {
        shape.layout().unwrap().minor_to_major()
    }

    #[test]
    fn deleting_the_last_padded_dim_prints_text_that_parses() {
        // Found by the `xla_util` fuzz target: `pad()` was left, which
        // does not parse.
        let shape = crate::text::parse_shape("f16[2048]{0:T(1,8)pad(2345)}")
            .unwrap()
            .shape;
        let scalar = delete_dimension(&shape, 0).unwrap();
        assert_eq!(scalar.to_string(), "f16[]{:T(1,8)}");
        let again = crate::text::parse_shape(&scalar.to_string()).unwrap().shape;
        assert_eq!(again, scalar);
    }

    #[test]
    fn permute_keeps_physical_order_for_every_layout() {
        let layouts = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        for l in layouts {
            let shape = s(&[10, 100, 1000], &l);
            for p in layouts {
                let t = permute_dimensions(&p, &shape).unwrap();
                assert!(transpose_is_bitcast(&shape, &t, &p, false), "{l:?} {p:?}");
            }
        }
        let t = permute_dimensions(&[0, 2, 1], &s(&[10, 100, 1000], &[0, 1, 2])).unwrap();
        assert_eq!(t.to_string(), "f32[10,1000,100]{0,2,1}");
        assert!(permute_dimensions(&[0, 0, 1], &t).is_err());
        let ign = permute_dimensions_ignoring_layout(&[1, 2, 0], &s(&[10, 100, 1000], &[2, 1, 0]));
        assert_eq!(ign.unwrap().to_string(), "f32[100,1000,10]{2,1,0}");
    }

    #[test]
    fn reshape_bitcasts() {
        assert!(reshape_is_bitcast(
            &s(&[3, 4], &[1, 0]),
            &s(&[6, 2], &[1, 0]),
            false
        ));
        assert!(!reshape_is_bitcast(
            &s(&[3, 4], &[1, 0]),
            &s(&[6, 2], &[0, 1]),
            false
        ));
        assert!(reshape_is_bitcast(
            &s(&[3, 2, 2], &[1, 0, 2]),
            &s(&[6, 2], &[0, 1]),
            false
        ));
        assert!(!reshape_is_bitcast(
            &s(&[3, 2, 2], &[0, 1, 2]),
            &s(&[6, 2], &[0, 1]),
            false
        ));
        let half = Shape::new(PrimitiveType::F16, &[6, 2])
            .unwrap()
            .with_layout(Layout::new(&[0, 1]).unwrap())
            .unwrap();
        assert!(reshape_is_bitcast(&s(&[3, 2, 2], &[1, 0, 2]), &half, true));
        assert!(!reshape_is_bitcast(
            &s(&[3, 2, 2], &[1, 0, 2]),
            &half,
            false
        ));
    }

    #[test]
    fn transposes_deduced() {
        let p = deduce_transpose_dimensions_for_bitcast(&s(&[5, 3], &[1, 0]), &s(&[3, 5], &[0, 1]));
        assert_eq!(p.unwrap().as_slice(), &[1, 0]);
        assert!(
            deduce_transpose_dimensions_for_bitcast(&s(&[5, 3], &[1, 0]), &s(&[3, 5], &[1, 0]))
                .is_none()
        );
        assert!(is_reshape_or_transpose_bitcast(
            &s(&[10, 5], &[1, 0]),
            &s(&[5, 10], &[0, 1]),
            false
        ));
    }

    #[test]
    fn align_layouts_matches_xla() {
        let input = s(&[3, 8, 5, 7, 11], &[3, 2, 1, 0, 4]);
        let out = |d: &[usize]| Shape::new(PrimitiveType::F32, d).unwrap();
        let a = align_layouts(&input, &out(&[4, 3, 2, 7, 5, 11])).unwrap();
        assert_eq!(m2m(&a), &[4, 3, 2, 1, 0, 5]);
        let b = align_layouts(&input, &out(&[3, 2, 4, 35, 11])).unwrap();
        assert_eq!(m2m(&b), &[3, 2, 1, 0, 4]);
        assert!(
            align_layouts(
                &s(&[3, 8, 5, 7, 11], &[2, 3, 1, 0, 4]),
                &out(&[4, 3, 2, 7, 5, 11])
            )
            .is_none()
        );
        assert!(align_layouts(&input, &out(&[4, 3, 2, 5, 77])).is_none());
        let ones = align_layouts(&s(&[1, 6], &[1, 0]), &out(&[2, 1, 3])).unwrap();
        assert_eq!(m2m(&ones), &[2, 0, 1]);
        assert!(reshape_is_bitcast(&s(&[1, 6], &[1, 0]), &ones, false));
    }

    #[test]
    fn dimension_editing() {
        let base = s(&[10, 20, 30], &[0, 2, 1]);
        assert_eq!(
            insert_dimensions_at_index(&base, 1, &[40, 50])
                .unwrap()
                .to_string(),
            "f32[10,40,50,20,30]{0,4,3,2,1}"
        );
        assert_eq!(
            prepend_major_dimension(40, &base).unwrap().to_string(),
            "f32[40,10,20,30]{1,3,2,0}"
        );
        assert_eq!(
            append_minor_dimension(40, &base).unwrap().to_string(),
            "f32[10,20,30,40]{3,0,2,1}"
        );
        let five = s(&[5, 3, 2, 7, 9], &[2, 0, 1, 4, 3]);
        assert_eq!(
            delete_dimensions(&five, &[3, 1, 2]).unwrap().to_string(),
            "f32[5,9]{0,1}"
        );
        assert!(delete_dimensions(&five, &[1, 1]).is_err());
        assert!(insert_dimension_at_index(&base, 4, 1).is_err());
        assert_eq!(
            move_dim_to_major(&s(&[10, 10, 10], &[0, 2, 1]), 0)
                .unwrap()
                .to_string(),
            "f32[10,10,10]{2,1,0}"
        );
    }

    #[test]
    fn same_physical_layout_keeps_tiles() {
        let tiled = Shape::new(PrimitiveType::F32, &[128, 24, 4, 48, 48])
            .unwrap()
            .with_layout(
                Layout::new(&[2, 4, 3, 1, 0])
                    .unwrap()
                    .with_tiles(&[Tile::from_sizes(&[8, 128]).unwrap()])
                    .unwrap(),
            )
            .unwrap();
        let d = make_shape_with_descending_layout_and_same_physical_layout(&tiled).unwrap();
        assert_eq!(d.to_string(), "f32[128,24,48,48,4]{4,3,2,1,0:T(8,128)}");
        let host = device_shape_to_host_shape(&tiled).unwrap();
        assert!(!device_shape_is_host_shape(&tiled));
        assert!(device_shape_is_host_shape(&host));
    }

    #[test]
    fn predicates_and_equality() {
        assert!(has_degenerate_dimensions(&s(&[3, 1, 2], &[2, 1, 0])));
        assert!(!has_degenerate_dimensions(&s(&[3, 0, 5], &[2, 1, 0])));
        let odd = s(&[1, 1, 16, 1, 279], &[4, 0, 1, 2, 3]);
        assert!(is_effectively_most_major_dimension(&odd, 2));
        assert!(!is_effectively_most_major_dimension(
            &s(&[1, 1, 16, 1, 279], &[0, 1, 2, 3, 4]),
            2
        ));
        assert!(last_dim_is_minor_most(&s(&[3, 4], &[1, 0])));
        assert!(!last_dim_is_minor_most(&s(&[3, 4], &[0, 1])));
        assert!(!equal(&s(&[3, 2], &[0, 1]), &s(&[3, 2], &[1, 0])));
        assert!(compatible(&s(&[3, 2], &[0, 1]), &s(&[3, 2], &[1, 0])));
        let a = [
            TreeEvent::BufferStart,
            TreeEvent::Leaf(s(&[3, 4], &[1, 0])),
            TreeEvent::BufferEnd,
        ];
        let b = [TreeEvent::Leaf(s(&[3, 4], &[1, 0]))];
        assert!(!equal_trees(&a, &b, ShapeEquality::XLA));
        assert!(equal_trees(
            &a,
            &b,
            ShapeEquality {
                ignore_buffer: true,
                ..ShapeEquality::XLA
            }
        ));
    }
}
