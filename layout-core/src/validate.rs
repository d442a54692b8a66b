//! Every rule that relates a [`Layout`] to a [`Shape`], in one place.
//!
//! The rules of XLA's `LayoutUtil::ValidateLayoutForShape`, in XLA's order,
//! then the ones XLA leaves out that would make a layout meaningless (see
//! `docs/xla-layouts.md`, "Tessera's decisions"):
//!
//! 1. `minor_to_major` has one entry per dimension,
//! 2. each entry is a dimension of the shape,
//! 3. no dimension appears twice (the error points at the second),
//! 4. `L(n)` is at least 1 (enforced when the layout is built),
//! 5. no sparse-only attribute (`#(..)`, `*(..)`),
//! 6. tiles are non-empty with no 0 entry (enforced when a tile is built),
//!    and `*` is never a tile's last entry,
//! 7. `E(n)` is at least the element type's width and is 1, 2, 4 or a
//!    multiple of 8,
//! 8. `S(n)` fits XLA's `int8` (enforced when the layout is built),
//! 9. split configs name existing physical dimensions with increasing,
//!    in-range indices,
//! 10. `pad(..)` has one width per dimension, each at least the
//!     dimension's size, and pads no `?` dimension.
//!
//! Sizes (buffer length, byte size) are checked for overflow when an
//! [`ArrayLayout`](crate::ArrayLayout) is built, as they depend on tiling.

use crate::error::{Error, ErrorKind, Locus};
use crate::layout::Layout;
use crate::shape::{Dim, Shape};

/// Checks `layout` against `shape` (whose own layout, if any, is ignored).
/// Token and opaque shapes accept only the empty layout.
///
/// # Errors
/// The first rule broken, in the order of the [module docs](self), with
/// the [`Locus`] of the offending part.
///
/// ```
/// use layout_core::{validate::validate_layout_for_shape, Layout, PrimitiveType, Shape};
/// let s = Shape::new(PrimitiveType::F32, &[2, 3]).unwrap();
/// let bad = Layout::new(&[0, 0]).unwrap();
/// let e = validate_layout_for_shape(&bad, &s).unwrap_err();
/// assert_eq!(e.to_string(), "dimension `0` appears twice in minor_to_major");
/// ```
pub const fn validate_layout_for_shape(layout: &Layout, shape: &Shape) -> Result<(), Error> {
    let rank = shape.rank();
    if !shape.is_array() {
        if layout.is_empty() {
            return Ok(());
        }
        return Err(Error::at(
            ErrorKind::NotAnArrayType {
                element_type: shape.element_type(),
            },
            Locus::Whole,
        ));
    }
    let m2m = layout.minor_to_major();
    if m2m.len() != rank {
        return Err(Error::at(
            ErrorKind::MinorToMajorLength {
                len: m2m.len(),
                rank,
            },
            Locus::MinorToMajor,
        ));
    }
    let mut i = 0;
    while i < rank {
        if m2m[i] as usize >= rank {
            return Err(Error::at(
                ErrorKind::MinorToMajorOutOfRange {
                    value: m2m[i] as i64,
                    rank,
                },
                Locus::MinorToMajorEntry(i),
            ));
        }
        i += 1;
    }
    let mut i = 0;
    while i < rank {
        let mut j = 0;
        while j < i {
            if m2m[j] == m2m[i] {
                return Err(Error::at(
                    ErrorKind::MinorToMajorDuplicate {
                        dim: m2m[i] as usize,
                    },
                    Locus::MinorToMajorEntry(i),
                ));
            }
            j += 1;
        }
        i += 1;
    }
    if layout.index_primitive_type().is_some() {
        return Err(Error::at(
            ErrorKind::SparseLayout {
                attribute: "`#(...)` (index_primitive_type)",
            },
            Locus::Attribute("#"),
        ));
    }
    if layout.pointer_primitive_type().is_some() {
        return Err(Error::at(
            ErrorKind::SparseLayout {
                attribute: "`*(...)` (pointer_primitive_type)",
            },
            Locus::Attribute("*"),
        ));
    }
    if layout.sparse_physical_shape().is_some() {
        return Err(Error::at(
            ErrorKind::SparseLayout {
                attribute: "`P(...)` (physical_shape)",
            },
            Locus::Attribute("P"),
        ));
    }
    let tiles = layout.tiles();
    let mut t = 0;
    while t < tiles.len() {
        let raw = tiles[t].raw();
        if raw[raw.len() - 1] == 0 {
            return Err(Error::at(
                ErrorKind::CombinedDimMostMinor,
                Locus::TileEntry(t, raw.len() - 1),
            ));
        }
        t += 1;
    }
    let bits = layout.element_size_in_bits();
    if bits != 0 {
        let ty = shape.element_type();
        if bits < ty.bit_width() {
            return Err(Error::at(
                ErrorKind::ElementSizeTooSmall {
                    bits,
                    element_type: ty,
                },
                Locus::Attribute("E"),
            ));
        }
        if !(bits == 1 || bits == 2 || bits == 4 || bits.is_multiple_of(8)) {
            return Err(Error::at(
                ErrorKind::ElementSizeUnsupported { bits },
                Locus::Attribute("E"),
            ));
        }
    }
    let splits = layout.split_configs();
    let mut s = 0;
    while s < splits.len() {
        let d = splits[s].dimension();
        if d >= rank {
            return Err(Error::at(
                ErrorKind::SplitDimensionOutOfRange { dim: d, rank },
                Locus::SplitConfig(s),
            ));
        }
        // Physical dimension d counted from the major end.
        let size = shape.dims()[m2m[rank - 1 - d] as usize].size();
        let idx = splits[s].split_indices();
        let mut k = 0;
        while k < idx.len() {
            let increasing = idx[k] > 0 && (k == 0 || idx[k] > idx[k - 1]);
            let in_range = match size {
                Some(n) => idx[k] < n as u64,
                None => true,
            };
            if !increasing || !in_range {
                return Err(Error::at(
                    ErrorKind::SplitIndicesNotIncreasing,
                    Locus::SplitConfig(s),
                ));
            }
            k += 1;
        }
        s += 1;
    }
    if let Some(p) = layout.padding() {
        let padded = p.padded_dims();
        if padded.len() != rank {
            return Err(Error::at(
                ErrorKind::PaddingLength {
                    len: padded.len(),
                    rank,
                },
                Locus::Attribute("pad"),
            ));
        }
        let mut i = 0;
        while i < rank {
            match shape.dims()[i] {
                Dim::Unbounded => {
                    return Err(Error::at(
                        ErrorKind::PaddingOfUnboundedDim { dim: i },
                        Locus::PaddingEntry(i),
                    ));
                }
                Dim::Static(n) | Dim::Bounded(n) => {
                    if padded[i] < n {
                        return Err(Error::at(
                            ErrorKind::PaddedBelowSize {
                                dim: i,
                                padded: padded[i],
                                size: n,
                            },
                            Locus::PaddingEntry(i),
                        ));
                    }
                }
            }
            i += 1;
        }
    }
    Ok(())
}

/// XLA's `LayoutUtil::ValidateLayoutInShape` for one array shape: the
/// shape's layout must be valid, and present unless
/// `allow_missing_layouts`.
///
/// # Errors
/// [`ErrorKind::MissingLayout`], or what [`validate_layout_for_shape`]
/// reports.
pub const fn validate_layout_in_shape(
    shape: &Shape,
    allow_missing_layouts: bool,
) -> Result<(), Error> {
    match shape.layout() {
        Some(l) => validate_layout_for_shape(l, shape),
        None if allow_missing_layouts || !shape.is_array() => Ok(()),
        None => Err(Error::new(ErrorKind::MissingLayout)),
    }
}
