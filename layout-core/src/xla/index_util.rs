//! XLA's `IndexUtil`: dense index arithmetic over `minor_to_major` only.
//!
//! Like XLA's `IndexUtil`, everything here **ignores tiles, `E(n)`,
//! `L(n)` and tessera's `pad(..)`**: the linear index of an element is its
//! position in a dense array whose dimensions are ordered by
//! `minor_to_major`. For offsets into a real (possibly tiled) buffer use
//! [`ArrayLayout::offset`](crate::ArrayLayout::offset).
//!
//! A shape without a layout is treated as having XLA's default
//! (descending) layout. Bounded dimensions (`<=N`) count at their bound;
//! unbounded ones (`?`) are an error. Unlike XLA (which only `DCHECK`s),
//! every function checks ranks, bounds and overflow.
//!
//! ```
//! use tessera::{index_util, Layout, PrimitiveType, Shape};
//! let s = Shape::new(PrimitiveType::F32, &[10, 20]).unwrap()
//!     .with_layout(Layout::new(&[0, 1]).unwrap()).unwrap();
//! assert_eq!(index_util::multidimensional_index_to_linear_index(&s, &[3, 5]), Ok(53));
//! assert_eq!(index_util::linear_index_to_multidimensional_index(&s, 53).unwrap().as_slice(), &[3, 5]);
//! ```

use core::cmp::Ordering;

use crate::array::{ArrayLayout, DimVec, Slot};
use crate::error::{Error, ErrorKind, Locus};
use crate::limits::MAX_RANK;
use crate::model::layout::Layout;
use crate::model::shape::Shape;

/// The sizes of `shape`'s dimensions (bounds for `<=N`).
///
/// # Errors
/// A non-array shape or an unbounded (`?`) dimension.
pub(crate) const fn sizes_of(shape: &Shape) -> Result<DimVec, Error> {
    if !shape.is_array() {
        return Err(Error::at(
            ErrorKind::NotAnArrayType {
                element_type: shape.element_type(),
            },
            Locus::ElementType,
        ));
    }
    let mut out = [0usize; MAX_RANK];
    let mut i = 0;
    while i < shape.rank() {
        match shape.dims()[i].size() {
            Some(n) => out[i] = n,
            None => {
                return Err(Error::at(
                    ErrorKind::UnboundedDimension { dim: i },
                    Locus::Dim(i),
                ));
            }
        }
        i += 1;
    }
    Ok(DimVec::from_array(shape.rank(), out))
}

/// The shape's layout, or the default (descending) one when it has none.
pub(crate) const fn layout_or_default(shape: &Shape) -> Layout {
    match shape.layout() {
        Some(l) => *l,
        None => Layout::descending(shape.rank()),
    }
}

/// Checks `index` against `sizes` (the engine's one bounds check).
const fn check_index(sizes: &DimVec, index: &[usize]) -> Result<(), Error> {
    crate::index::check_index(sizes.as_slice(), index)
}

/// The shape with only its `minor_to_major` (no tiles, padding or other
/// attributes) as an [`ArrayLayout`]: what IndexUtil's dense
/// linearization means, computed by the engine.
const fn dense(shape: &Shape) -> Result<ArrayLayout, Error> {
    let layout = layout_or_default(shape).minor_to_major_only();
    match shape.without_layout().with_layout(layout) {
        Ok(s) => ArrayLayout::new(s),
        Err(e) => Err(e),
    }
}

/// The dense linear index of the element at logical `index`, following
/// `minor_to_major` and ignoring tiles
/// (`IndexUtil::MultidimensionalIndexToLinearIndex`):
/// `idx[m2m[0]] + d[m2m[0]] * (idx[m2m[1]] + d[m2m[1]] * (...))`.
/// A scalar gives 0.
///
/// # Errors
/// A non-array shape, an unbounded dimension, or an index of the wrong
/// rank or out of bounds.
pub const fn multidimensional_index_to_linear_index(
    shape: &Shape,
    index: &[usize],
) -> Result<usize, Error> {
    match dense(shape) {
        Ok(a) => a.try_offset(index),
        Err(e) => Err(e),
    }
}

/// The logical index of the element at dense linear index `linear`
/// (`IndexUtil::LinearIndexToMultidimensionalIndex`): the inverse of
/// [`multidimensional_index_to_linear_index`].
///
/// # Errors
/// A non-array shape, an unbounded dimension, or `linear` at or past the
/// element count.
pub const fn linear_index_to_multidimensional_index(
    shape: &Shape,
    linear: usize,
) -> Result<DimVec, Error> {
    let count = match shape.element_count() {
        Ok(c) => c,
        Err(e) => return Err(e),
    };
    if linear >= count {
        return Err(Error::new(ErrorKind::OffsetOutOfBounds {
            offset: linear,
            buffer_len: count,
        }));
    }
    match dense(shape) {
        Ok(a) => match a.try_slot(linear) {
            Ok(Slot::Element(index)) => Ok(index),
            // A dense layout has no padding slots.
            Ok(Slot::Padding) => Err(Error::new(ErrorKind::OffsetOutOfBounds {
                offset: linear,
                buffer_len: count,
            })),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Advances `indices` to the next element in logical (row-major) order,
/// the last dimension fastest, independent of the layout
/// (`IndexUtil::BumpIndices`). Returns `false`, leaving `indices`
/// unchanged, when it is already the last element, or when `indices` does
/// not fit the shape (wrong rank, an entry out of bounds, or a `?`
/// dimension).
pub const fn bump_indices(shape: &Shape, indices: &mut [usize]) -> bool {
    let sizes = match sizes_of(shape) {
        Ok(s) => s,
        Err(_) => return false,
    };
    if check_index(&sizes, indices).is_err() {
        return false;
    }
    // Find the most-minor logical dimension that can still grow.
    let mut d = indices.len();
    while d > 0 {
        d -= 1;
        if indices[d] + 1 < sizes.as_slice()[d] {
            indices[d] += 1;
            let mut j = d + 1;
            while j < indices.len() {
                indices[j] = 0;
                j += 1;
            }
            return true;
        }
    }
    false
}

/// The dense stride, in elements, of logical dimension `dim`: the product
/// of the sizes of the dimensions more minor than it in `minor_to_major`
/// (`IndexUtil::GetDimensionStride`). Ignores tiles.
///
/// # Errors
/// A non-array shape, an unbounded dimension, or `dim >= rank`.
pub const fn dimension_stride(shape: &Shape, dim: usize) -> Result<usize, Error> {
    let sizes = match sizes_of(shape) {
        Ok(s) => s,
        Err(e) => return Err(e),
    };
    if dim >= shape.rank() {
        return Err(Error::new(ErrorKind::DimensionOutOfRange {
            dim: if dim > i64::MAX as usize {
                i64::MAX
            } else {
                dim as i64
            },
            rank: shape.rank(),
        }));
    }
    let layout = layout_or_default(shape);
    let m2m = layout.minor_to_major();
    let mut stride: usize = 1;
    let mut k = 0;
    while k < m2m.len() {
        let d = m2m[k] as usize;
        if d == dim {
            return Ok(stride);
        }
        // A product of some dims divides into the element count, which
        // fits, unless a later dim is 0; checked anyway.
        stride = match stride.checked_mul(sizes.as_slice()[d]) {
            Some(s) => s,
            None => return Err(Error::new(ErrorKind::Overflow { what: "the stride" })),
        };
        k += 1;
    }
    // Unreachable for a shape with a valid layout.
    Err(Error::new(ErrorKind::MissingLayout))
}

/// Whether `index` has one entry per dimension and each is below its
/// dimension's size (`IndexUtil::IndexInBounds`). Entries are unsigned,
/// so XLA's acceptance of negative entries cannot arise. `false` for a
/// `?` dimension.
pub const fn index_in_bounds(shape: &Shape, index: &[usize]) -> bool {
    match sizes_of(shape) {
        Ok(sizes) => check_index(&sizes, index).is_ok(),
        Err(_) => false,
    }
}

/// Whether `index` has one entry per size in `sizes`, each below it: the
/// bounds check of [`index_in_bounds`] for callers that keep the sizes
/// (a run-time tensor checks every access against them).
#[inline(always)]
pub const fn index_within(sizes: &[usize], index: &[usize]) -> bool {
    crate::index::in_bounds(sizes, index)
}

/// Lexicographic comparison of two indices (`IndexUtil::CompareIndices`,
/// whose `-1`/`0`/`1` are `Less`/`Equal`/`Greater`; its header comment
/// states the sign backwards). A proper prefix compares `Less`.
pub const fn compare_indices(lhs: &[usize], rhs: &[usize]) -> Ordering {
    let mut i = 0;
    while i < lhs.len() && i < rhs.len() {
        if lhs[i] < rhs[i] {
            return Ordering::Less;
        }
        if lhs[i] > rhs[i] {
            return Ordering::Greater;
        }
        i += 1;
    }
    if lhs.len() < rhs.len() {
        Ordering::Less
    } else if lhs.len() > rhs.len() {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dim, PrimitiveType};

    fn shape(dims: &[usize], m2m: &[usize]) -> Shape {
        Shape::new(PrimitiveType::F32, dims)
            .unwrap()
            .with_layout(Layout::new(m2m).unwrap())
            .unwrap()
    }

    #[test]
    fn linear_index_follows_minor_to_major() {
        let s = shape(&[10, 20, 30], &[1, 2, 0]);
        assert_eq!(
            multidimensional_index_to_linear_index(&s, &[3, 5, 7]),
            Ok(1945)
        );
        assert_eq!(
            multidimensional_index_to_linear_index(&s, &[8, 15, 27]),
            Ok(5355)
        );
        let row = shape(&[10, 20], &[1, 0]);
        assert_eq!(
            multidimensional_index_to_linear_index(&row, &[3, 5]),
            Ok(65)
        );
        let scalar = Shape::scalar(PrimitiveType::F32).unwrap();
        assert_eq!(multidimensional_index_to_linear_index(&scalar, &[]), Ok(0));
    }

    #[test]
    fn linear_index_rejects_bad_indices() {
        let s = shape(&[2, 3], &[1, 0]);
        assert!(multidimensional_index_to_linear_index(&s, &[2, 0]).is_err());
        assert!(multidimensional_index_to_linear_index(&s, &[0]).is_err());
        let dynamic =
            Shape::with_dims(PrimitiveType::F32, &[Dim::Unbounded, Dim::Static(2)]).unwrap();
        assert!(multidimensional_index_to_linear_index(&dynamic, &[0, 0]).is_err());
    }

    #[test]
    fn round_trip_over_every_element() {
        let s = shape(&[3, 4, 5], &[0, 2, 1]);
        for lin in 0..60 {
            let idx = linear_index_to_multidimensional_index(&s, lin).unwrap();
            assert_eq!(multidimensional_index_to_linear_index(&s, &idx), Ok(lin));
        }
        assert!(linear_index_to_multidimensional_index(&s, 60).is_err());
    }

    #[test]
    fn bump_is_a_row_major_odometer() {
        let s = shape(&[2, 2], &[0, 1]);
        let mut idx = [0, 0];
        let mut seen = [[0usize; 2]; 4];
        let mut n = 0;
        loop {
            seen[n] = idx;
            n += 1;
            if !bump_indices(&s, &mut idx) {
                break;
            }
        }
        assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1]]);
        assert_eq!(idx, [1, 1]);
        let mut wrong = [0, 0, 0];
        assert!(!bump_indices(&s, &mut wrong));
        assert_eq!(wrong, [0, 0, 0]);
    }

    #[test]
    fn strides_multiply_more_minor_dims() {
        let s = shape(&[5, 8, 10, 4], &[3, 2, 1, 0]);
        assert_eq!(dimension_stride(&s, 1), Ok(40));
        assert_eq!(dimension_stride(&s, 0), Ok(320));
        assert_eq!(dimension_stride(&s, 3), Ok(1));
        assert!(dimension_stride(&s, 4).is_err());
    }

    #[test]
    fn bounds_and_comparison() {
        let s = shape(&[2, 3], &[1, 0]);
        assert!(index_in_bounds(&s, &[1, 2]));
        assert!(!index_in_bounds(&s, &[0, 3]));
        assert!(!index_in_bounds(&s, &[1]));
        assert_eq!(compare_indices(&[0, 1], &[0, 2]), Ordering::Less);
        assert_eq!(compare_indices(&[1, 0], &[0, 9]), Ordering::Greater);
        assert_eq!(compare_indices(&[3, 4], &[3, 4]), Ordering::Equal);
        assert_eq!(compare_indices(&[3], &[3, 4]), Ordering::Less);
    }
}
