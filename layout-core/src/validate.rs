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
//!     dimension's size, and pads no `?` dimension,
//! 11. the buffer's byte size, with every tile's padding and `E(n)`
//!     (`?` dimensions counted as 0), fits XLA's `int64` ("size may
//!     overflow int64_t"), so that a valid shape always has an
//!     [`ArrayLayout`](crate::ArrayLayout) once its `?` dimensions are
//!     given (on targets with a 64-bit `usize`). The shape itself, elements
//!     times byte width, is checked when it is built, as XLA's
//!     `ShapeUtil::ValidateShapeSize` does
//!     ([`Shape::without_layout_from_dims`]).

use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind, Locus};
use crate::model::layout::{Layout, SparsePhysicalShape};
use crate::model::shape::{Dim, Shape};

/// Checks `layout` against `shape` (whose own layout, if any, is ignored).
/// Token and opaque shapes accept only the empty layout.
///
/// # Errors
/// The first rule broken, in the order of the [module docs](self), with
/// the [`Locus`] of the offending part.
///
/// ```
/// use tessera::{validate::validate_layout_for_shape, Layout, PrimitiveType, Shape};
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
    if let Err(e) = padding_rule(layout, shape) {
        return Err(e);
    }
    size_rule(layout, shape)
}

/// Rule 10, `pad(..)`.
const fn padding_rule(layout: &Layout, shape: &Shape) -> Result<(), Error> {
    let rank = shape.rank();
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

const fn too_large(what: &'static str, locus: Locus) -> Result<(), Error> {
    Err(Error::at(ErrorKind::SizeMayOverflowInt64 { what }, locus))
}

/// Rule 11: the buffer's byte size fits XLA's `int64`. Runs last, when the layout
/// is known to fit the shape, because it measures the tiled buffer.
///
/// The shape's own byte size was checked when it was built, so a buffer
/// past `int64` comes from the layout: the error points at the part
/// that takes it there. Without `L` and `pad` still too large: the tiles'
/// padding (the first tile); else `L`, when the buffer fits without it;
/// else `pad`.
const fn size_rule(layout: &Layout, shape: &Shape) -> Result<(), Error> {
    if !shape.is_array() {
        return Ok(());
    }
    // `?` dims count as 0 and every other error is the engine's: only
    // an overflow is this rule's.
    match buffer_fits(layout, shape) {
        Ok(true) => return Ok(()),
        Ok(false) => {}
        Err(e) => return Err(e),
    }
    // Which part to blame: the same layout without some of it.
    let without_tail = match layout.with_tail_padding_alignment(1) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    if !matches!(
        buffer_fits(&without_tail.with_padding(None), shape),
        Ok(true)
    ) {
        return match layout.tiles().is_empty() {
            true => too_large("the buffer's byte size", Locus::Dims),
            false => too_large("the buffer's byte size, with tile padding,", Locus::Tile(0)),
        };
    }
    if layout.tail_padding_alignment_in_elements() > 1
        && matches!(buffer_fits(&without_tail, shape), Ok(true))
    {
        return too_large(
            "the buffer's byte size, with the tail padding of `L`,",
            Locus::Attribute("L"),
        );
    }
    too_large(
        "the buffer's byte size, with `pad`,",
        Locus::Attribute("pad"),
    )
}

/// Whether `shape`'s buffer under `layout`, in bytes, fits XLA's `int64`
/// (`Ok(false)` when counting it overflows); the engine's other errors as
/// they are.
const fn buffer_fits(layout: &Layout, shape: &Shape) -> Result<bool, Error> {
    let with_layout = shape.with_layout_before_size_rule(*layout);
    match crate::index::buffer_len(&with_layout) {
        Ok(slots) => Ok(
            match crate::element::bytes_of_slots(
                shape.element_type(),
                layout.element_size_in_bits(),
                slots,
            ) {
                Some(bytes) => bytes as u128 <= i64::MAX as u128,
                None => false,
            },
        ),
        Err(e) => match e.kind() {
            ErrorKind::Overflow { .. } => Ok(false),
            _ => Err(e),
        },
    }
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

// The constructors that put a layout on a shape, with the rules they apply,
// so that the data model below needs no rules of its own.

impl Shape {
    /// The same shape with `layout`, checked by
    /// [`validate_layout_for_shape`].
    ///
    /// A `token` or `opaque` shape accepts only the empty layout and keeps
    /// none, as XLA prints none (so `token[]{:}` reads as `token[]`).
    ///
    /// # Errors
    /// The first rule the layout breaks.
    pub const fn with_layout(self, layout: Layout) -> Result<Shape, Error> {
        match validate_layout_for_shape(&layout, &self) {
            Ok(()) => Ok(self.with_valid_layout(layout)),
            Err(e) => Err(e),
        }
    }

    /// The same shape with another element type; `E(n)` is kept only when
    /// the new type is sub-byte and not `pred`, as
    /// `ShapeUtil::ChangeElementType` does.
    ///
    /// # Errors
    /// A non-array `element_type`, or a kept `E(n)` the new type rejects.
    pub const fn with_element_type(self, element_type: PrimitiveType) -> Result<Shape, Error> {
        if !element_type.is_array() || !self.is_array() {
            return Err(Error::at(
                ErrorKind::NotAnArrayType { element_type },
                Locus::ElementType,
            ));
        }
        let layout = self.layout();
        let retyped = self.retyped(element_type);
        if let Some(&l) = layout {
            let keep = element_type.is_sub_byte() && !matches!(element_type, PrimitiveType::Pred);
            let l = if keep {
                l
            } else {
                l.with_element_size_in_bits(0)
            };
            return retyped.with_layout(l);
        }
        Ok(retyped)
    }

    /// Rebuilds the shape with new dims and layout, checking both; used by
    /// the dimension-editing helpers.
    pub(crate) const fn rebuild(
        element_type: PrimitiveType,
        dims: &[Dim],
        layout: Option<Layout>,
    ) -> Result<Shape, Error> {
        match Shape::without_layout_from_dims(element_type, dims) {
            Ok(s) => match layout {
                Some(l) => s.with_layout(l),
                None => Ok(s),
            },
            Err(e) => Err(e),
        }
    }
}

impl SparsePhysicalShape {
    /// A physical shape of static `dims` with `minor_to_major`.
    ///
    /// # Errors
    /// A rank above [`MAX_RANK`](crate::MAX_RANK), or a `minor_to_major`
    /// that is not a permutation of the dimensions.
    pub const fn new(
        element_type: PrimitiveType,
        dims: &[usize],
        minor_to_major: &[usize],
    ) -> Result<SparsePhysicalShape, Error> {
        let shape = match Shape::new(element_type, dims) {
            Ok(s) => s,
            Err(e) => return Err(e),
        };
        let layout = match Layout::new(minor_to_major) {
            Ok(l) => l,
            Err(e) => return Err(e),
        };
        if let Err(e) = validate_layout_for_shape(&layout, &shape) {
            return Err(e);
        }
        Ok(SparsePhysicalShape::from_valid_parts(
            element_type,
            dims,
            layout.minor_to_major(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::text::parse_shape;
    use crate::{ArrayLayout, ErrorKind};

    fn size_error(text: &str) -> Option<(&'static str, usize, usize)> {
        match parse_shape(text) {
            Ok(_) => None,
            Err(e) => match e.kind() {
                ErrorKind::SizeMayOverflowInt64 { what } => {
                    let s = e.span().unwrap();
                    Some((what, s.start, s.end))
                }
                other => panic!("{text}: unexpected {other:?}"),
            },
        }
    }

    #[test]
    fn byte_sizes_past_int64_are_rejected_like_xla() {
        // Element count fits i64, bytes do not: XLA's ValidateShapeSize.
        assert_eq!(
            size_error("f32[9223372036854775807]"),
            Some(("the byte size", 3, 24))
        );
        assert_eq!(
            size_error("f64[1152921504606846976]"),
            Some(("the byte size", 3, 24))
        );
        assert_eq!(size_error("f64[1152921504606846975]"), None);
        assert_eq!(size_error("s8[9223372036854775807]"), None);
        assert_eq!(size_error("f32[2305843009213693951]"), None);
        // `?` is left out, as XLA's ExtentProduct<true> does.
        assert_eq!(size_error("f32[2305843009213693951,?]"), None);
        // Tile padding pushes the buffer past i64 while the elements fit:
        // the error points at the tile.
        assert_eq!(
            size_error("f32[2305843009213693951]{0:T(2)}"),
            Some(("the buffer's byte size, with tile padding,", 28, 31))
        );
        // So do `L` and `pad`, each where the rest fits without it.
        assert_eq!(
            size_error("f32[3,5]{1,0:L(9223372036854775807)}"),
            Some((
                "the buffer's byte size, with the tail padding of `L`,",
                13,
                35
            ))
        );
        assert_eq!(
            size_error("f32[3,5]{1,0:pad(9223372036854775807,16)}"),
            Some(("the buffer's byte size, with `pad`,", 13, 40))
        );
        // `E(4)` packs two per byte, so twice as many s4 elements fit.
        assert_eq!(size_error("s4[9223372036854775807]{0:E(4)}"), None);
    }

    #[test]
    fn a_valid_shape_always_has_an_array_layout() {
        for text in [
            "s8[9223372036854775807]",
            "f32[2305843009213693951]",
            "s4[9223372036854775807]{0:E(4)}",
        ] {
            let s = parse_shape(text).unwrap().shape;
            assert!(ArrayLayout::new(s).is_ok(), "{text}");
        }
        let e = parse_shape("f32[9223372036854775807]").unwrap_err();
        assert_eq!(e.to_string(), "the byte size may overflow int64_t");
    }
}
