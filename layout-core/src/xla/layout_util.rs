//! XLA's `LayoutUtil` helpers, and XLA's own size figures
//! (`ShapeUtil::ArraySize`, `ArrayDataSize`, `UnpackedByteStrides`).
//!
//! Tessera's own sizes and offsets ([`ArrayLayout`])
//! apply every tile level. XLA's figures here follow XLA exactly, which
//! for some layouts means different numbers (see
//! [`xla_array_size_bytes`]); they exist to compare with XLA.
//!
//! ```
//! use tessera::{layout_util, Layout, PrimitiveType, Shape, Tile};
//! let tiled = Shape::new(PrimitiveType::F32, &[6, 8]).unwrap().with_layout(
//!     Layout::new(&[1, 0]).unwrap().with_tiles(&[
//!         Tile::from_sizes(&[3, 4]).unwrap(),
//!         Tile::from_sizes(&[2, 1]).unwrap(),
//!     ]).unwrap(),
//! ).unwrap();
//! // XLA pads for the first tile only: 48 elements. Tessera's buffer,
//! // which every offset fits in, has 64.
//! assert_eq!(layout_util::xla_array_size_bytes(&tiled), Some(48 * 4));
//! assert_eq!(tessera::ArrayLayout::new(tiled).unwrap().buffer_len(), 64);
//! ```

use crate::array::{ArrayLayout, DimVec};
use crate::element::PrimitiveType;
use crate::error::{Error, ErrorKind};
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK};
use crate::model::layout::{Layout, LayoutEquality};
use crate::model::shape::Shape;
use crate::model::tile::Tile;
use crate::text::TreeEvent;
use crate::xla::index_util::{layout_or_default, sizes_of};

const fn overflow() -> Error {
    Error::new(ErrorKind::Overflow { what: "the size" })
}

const fn out_of_range(dim: usize, rank: usize) -> Error {
    Error::new(ErrorKind::DimensionOutOfRange {
        dim: if dim > i64::MAX as usize {
            i64::MAX
        } else {
            dim as i64
        },
        rank,
    })
}

/// The position of logical `dim` in `layout`'s `minor_to_major`.
const fn position_of(layout: &Layout, dim: usize) -> Option<usize> {
    let m = layout.minor_to_major();
    let mut i = 0;
    while i < m.len() {
        if m[i] as usize == dim {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `layout` with logical `dim` moved to the most major position
/// (`LayoutUtil::MoveDimToMajor`). Other attributes are kept.
///
/// # Errors
/// `dim` not in `minor_to_major`.
pub const fn move_dim_to_major(layout: &Layout, dim: usize) -> Result<Layout, Error> {
    let Some(pos) = position_of(layout, dim) else {
        return Err(out_of_range(dim, layout.rank()));
    };
    let m = layout.minor_to_major();
    let mut out = [0usize; MAX_RANK];
    let mut n = 0;
    let mut i = 0;
    while i < m.len() {
        if i != pos {
            out[n] = m[i] as usize;
            n += 1;
        }
        i += 1;
    }
    out[n] = dim;
    layout.with_minor_to_major_and_padding(out.split_at(m.len()).0, layout.padding())
}

/// `layout` with logical `dim` moved to the most minor position
/// (`LayoutUtil::MoveDimToMinor`). Other attributes are kept.
///
/// # Errors
/// `dim` not in `minor_to_major`.
pub const fn move_dim_to_minor(layout: &Layout, dim: usize) -> Result<Layout, Error> {
    let Some(pos) = position_of(layout, dim) else {
        return Err(out_of_range(dim, layout.rank()));
    };
    let m = layout.minor_to_major();
    let mut out = [0usize; MAX_RANK];
    out[0] = dim;
    let mut n = 1;
    let mut i = 0;
    while i < m.len() {
        if i != pos {
            out[n] = m[i] as usize;
            n += 1;
        }
        i += 1;
    }
    layout.with_minor_to_major_and_padding(out.split_at(m.len()).0, layout.padding())
}

/// Whether applying `tiles` (outermost first) to an array whose physical
/// dims, major to minor, are `physical_dims_major_to_minor` leaves every
/// element where a plain row-major layout puts it: each tile divides its
/// dims with no padding and without reordering (`LayoutUtil::IsUntiledLayout`).
///
/// A level keeps the order when its entries are `1` up to one entry that
/// divides its dim exactly, followed by entries equal to their dims. `*`
/// entries merge their dim into the next, as everywhere in tessera.
pub const fn is_untiled_layout(tiles: &[Tile], physical_dims_major_to_minor: &[usize]) -> bool {
    if physical_dims_major_to_minor.len() > MAX_PHYSICAL_RANK {
        return false;
    }
    let mut dims = [0usize; MAX_PHYSICAL_RANK];
    let mut rank = physical_dims_major_to_minor.len();
    let mut i = 0;
    while i < rank {
        dims[i] = physical_dims_major_to_minor[i];
        i += 1;
    }
    let mut level = 0;
    while level < tiles.len() {
        let t = tiles[level].raw();
        let k = t.len();
        if k > rank {
            let shift = k - rank;
            let mut i = rank;
            while i > 0 {
                i -= 1;
                dims[i + shift] = dims[i];
            }
            let mut i = 0;
            while i < shift {
                dims[i] = 1;
                i += 1;
            }
            rank = k;
        }
        let base = rank - k;
        // Merge `*` entries into the next kept one.
        let mut merged = [0usize; MAX_RANK];
        let mut kept = [0usize; MAX_RANK];
        let mut m = 0;
        let mut pending = 1usize;
        let mut j = 0;
        while j < k {
            let Some(d) = pending.checked_mul(dims[base + j]) else {
                return false;
            };
            if t[j] == 0 {
                pending = d;
            } else {
                merged[m] = d;
                kept[m] = t[j];
                m += 1;
                pending = 1;
            }
            j += 1;
        }
        if pending != 1 {
            return false; // a trailing `*` has nothing to merge into
        }
        // Leading ones, one exact cut, then whole entries.
        let mut p = 0;
        while p < m && kept[p] == 1 {
            p += 1;
        }
        if p < m {
            if merged[p] % kept[p] != 0 {
                return false;
            }
            let mut q = p + 1;
            while q < m {
                if kept[q] != merged[q] {
                    return false;
                }
                q += 1;
            }
        }
        if base + 2 * m > MAX_PHYSICAL_RANK {
            return false;
        }
        let mut q = 0;
        while q < m {
            dims[base + q] = merged[q] / kept[q];
            dims[base + m + q] = kept[q];
            q += 1;
        }
        rank = base + 2 * m;
        level += 1;
    }
    true
}

/// The largest piece logical dimension `dim` is split into by the
/// layout's `SC(..)` (`LayoutUtil::MaxSplitSize`); the dimension's size
/// when it is not split. A split config names a physical dimension
/// counted from the major end.
///
/// # Errors
/// A non-array shape, `dim >= rank`, or an unbounded dimension.
pub const fn max_split_size(shape: &Shape, dim: usize) -> Result<usize, Error> {
    let sizes = match sizes_of(shape) {
        Ok(s) => s,
        Err(e) => return Err(e),
    };
    if dim >= shape.rank() {
        return Err(out_of_range(dim, shape.rank()));
    }
    let size = sizes.as_slice()[dim];
    let Some(layout) = shape.layout() else {
        return Ok(size);
    };
    let configs = layout.split_configs();
    let mut c = 0;
    while c < configs.len() {
        let d = configs[c].dimension();
        if d < layout.rank() && layout.major(d) == dim {
            let idx = configs[c].split_indices();
            let mut max = 0usize;
            let mut last = 0usize;
            let mut k = 0;
            while k < idx.len() {
                let at = if idx[k] > usize::MAX as u64 {
                    usize::MAX
                } else {
                    idx[k] as usize
                };
                let piece = at.saturating_sub(last);
                if piece > max {
                    max = piece;
                }
                last = at;
                k += 1;
            }
            let tail = size.saturating_sub(last);
            return Ok(if tail > max { tail } else { max });
        }
        c += 1;
    }
    Ok(size)
}

/// The product of [`max_split_size`] over all dimensions
/// (`LayoutUtil::MaxElementsInPerSplit`).
///
/// # Errors
/// As [`max_split_size`], or overflow.
pub const fn max_elements_in_per_split(shape: &Shape) -> Result<usize, Error> {
    let mut product: usize = 1;
    let mut d = 0;
    while d < shape.rank() {
        let s = match max_split_size(shape, d) {
            Ok(s) => s,
            Err(e) => return Err(e),
        };
        product = match product.checked_mul(s) {
            Some(p) => p,
            None => return Err(overflow()),
        };
        d += 1;
    }
    Ok(product)
}

/// Bytes for `elements` elements of `shape` (`E(n)` packing or the type's
/// byte width).
const fn bytes_of(shape: &Shape, layout: &Layout, elements: usize) -> Option<usize> {
    crate::element::bytes_of_slots(
        shape.element_type(),
        layout.element_size_in_bits(),
        elements,
    )
}

/// XLA's physical size of an array, in bytes (`ShapeUtil::ArraySize`).
///
/// Without tiles it is the logical byte size (`ByteSizeOf`), and `L(n)`
/// is ignored. With tiles XLA pads for **the first tile only**: physical
/// position `k` (0 = most minor) of the shape is rounded up to entry
/// `last - k` of the first tile (positions past the rank count as 1;
/// [`max_split_size`] is used for split dims), the element count is
/// rounded up to `L(n)`, then packed by `E(n)` or multiplied by the byte
/// width. Later tiles are assumed to add no padding, which is not always
/// so: for `f32[6,8]{1,0:T(3,4)(2,1)}` XLA says 48 elements while the
/// offsets need 64 ([`ArrayLayout::buffer_len`](crate::ArrayLayout::buffer_len)
/// is tessera's figure).
///
/// `None` when the first tile has a `*` entry (XLA's linearizers do not
/// implement them), for a non-array shape, a `?` dimension, or on overflow
/// (of XLA's `int64`: [`MAX_DIM_SIZE`](crate::limits::MAX_DIM_SIZE)). A shape without a
/// layout uses the default one.
pub const fn xla_array_size_bytes(shape: &Shape) -> Option<usize> {
    let Ok(sizes) = sizes_of(shape) else {
        return None;
    };
    let layout = layout_or_default(shape);
    let tiles = layout.tiles();
    if tiles.is_empty() {
        let Ok(count) = shape.element_count() else {
            return None;
        };
        return bytes_of(shape, &layout, count);
    }
    let tile = tiles[0].raw();
    if tiles[0].has_combined_dims() {
        return None;
    }
    let m2m = layout.minor_to_major();
    let rank = sizes.as_slice().len();
    let mut count: usize = 1;
    let mut pos = 0;
    while pos < tile.len() || pos < rank {
        let size = if pos < rank {
            match max_split_size(shape, m2m[pos] as usize) {
                Ok(s) => s,
                Err(_) => return None,
            }
        } else {
            1
        };
        let padded = if pos < tile.len() {
            match size.checked_next_multiple_of(tile[tile.len() - 1 - pos]) {
                Some(p) => p,
                None => return None,
            }
        } else {
            size
        };
        count = match count.checked_mul(padded) {
            Some(c) => c,
            None => return None,
        };
        pos += 1;
    }
    let align = layout.tail_padding_alignment_in_elements();
    if align != 1 {
        count = match count.checked_next_multiple_of(align) {
            Some(c) => c,
            None => return None,
        };
    }
    bytes_of(shape, &layout, count)
}

/// XLA's `LayoutUtil::LinearIndex`: the offset of `index` using **only
/// the first tile** (sub-tiles ignored), and, as in XLA, `index[0]`
/// unchanged for any rank-1 shape even when tiled. For tessera's offsets,
/// which apply every tile level, use
/// [`ArrayLayout::offset`](crate::ArrayLayout::offset).
///
/// # Errors
/// A non-array shape, a `?` dimension, an index of the wrong rank or out of
/// bounds, a `*` entry in the first tile
/// ([`ErrorKind::CombinedDimUnsupported`]), or overflow.
pub const fn linear_index_top_tile_only(shape: &Shape, index: &[usize]) -> Result<usize, Error> {
    let layout = layout_or_default(shape);
    // XLA's formula is the engine's transform with only the first tile
    // level and no padding.
    let tiles = layout.tiles();
    if !tiles.is_empty() && tiles[0].has_combined_dims() {
        return Err(Error::new(ErrorKind::CombinedDimUnsupported {
            operation: "`linear_index_top_tile_only`",
        }));
    }
    let first = tiles.split_at(if tiles.is_empty() { 0 } else { 1 }).0;
    let top = match layout.minor_to_major_only().with_tiles(first) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    let array = match shape.without_layout().with_layout(top) {
        Ok(s) => match ArrayLayout::new(s) {
            Ok(a) => a,
            Err(e) => return Err(e),
        },
        Err(e) => return Err(e),
    };
    if let Err(e) = array.check_index(index) {
        return Err(e);
    }
    if index.len() == 1 {
        // XLA returns a rank-1 index unchanged, even when tiled.
        return Ok(index[0]);
    }
    Ok(array.offset_in_bounds(index))
}

/// XLA's `ShapeUtil::ArrayDataSize`: bytes up to and including the last
/// element by [`linear_index_top_tile_only`] (so tile padding after the
/// last element is not counted), packed by `E(n)`. 0 for an array with no
/// elements. `None` as for [`linear_index_top_tile_only`]'s errors.
pub const fn xla_array_data_size(shape: &Shape) -> Option<usize> {
    let Ok(sizes) = sizes_of(shape) else {
        return None;
    };
    if shape.is_zero_element_array() {
        return Some(0);
    }
    let sizes = sizes.as_slice();
    let mut last = [0usize; MAX_RANK];
    let mut i = 0;
    while i < sizes.len() {
        last[i] = sizes[i] - 1;
        i += 1;
    }
    let Ok(lin) = linear_index_top_tile_only(shape, last.split_at(sizes.len()).0) else {
        return None;
    };
    let layout = layout_or_default(shape);
    let Some(count) = lin.checked_add(1) else {
        return None;
    };
    bytes_of(shape, &layout, count)
}

/// Byte strides per logical dimension of the dense layout, one byte per
/// element for sub-byte types whatever `E(n)` says, tiles ignored
/// (`ShapeUtil::UnpackedByteStrides`). `None` for a non-array shape, a
/// shape without a layout, a `?` dimension or on overflow.
pub const fn unpacked_byte_strides(shape: &Shape) -> Option<DimVec> {
    let Some(layout) = shape.layout() else {
        return None;
    };
    let Ok(sizes) = sizes_of(shape) else {
        return None;
    };
    let m2m = layout.minor_to_major();
    let mut out = [0usize; MAX_RANK];
    let mut stride = shape.element_type().byte_width();
    let mut k = 0;
    while k < m2m.len() {
        let d = m2m[k] as usize;
        out[d] = stride;
        stride = match stride.checked_mul(sizes.as_slice()[d]) {
            Some(s) => s,
            None => {
                // The stride after the most major dim is never used.
                if k + 1 == m2m.len() {
                    0
                } else {
                    return None;
                }
            }
        };
        k += 1;
    }
    Some(DimVec::from_array(shape.rank(), out))
}

/// Whether `byte_strides` are those of a dense row-major array of `dims`
/// of `element_type` (`LayoutUtil::ByteStridesIsMajorToMinor`). `false`
/// when the lengths differ.
pub const fn byte_strides_is_major_to_minor(
    byte_strides: &[usize],
    dims: &[usize],
    element_type: PrimitiveType,
) -> bool {
    if byte_strides.len() != dims.len() {
        return false;
    }
    let mut stride = element_type.byte_width();
    let mut i = dims.len();
    while i > 0 {
        i -= 1;
        if byte_strides[i] != stride {
            return false;
        }
        stride = match stride.checked_mul(dims[i]) {
            Some(s) => s,
            None => {
                if i == 0 {
                    0
                } else {
                    return false;
                }
            }
        };
    }
    true
}

/// Whether `shape` has a layout as XLA counts it (`LayoutUtil::HasLayout`):
/// arrays must have one; `token` and `opaque` always count as having one.
pub const fn has_layout(shape: &Shape) -> bool {
    !shape.is_array() || shape.layout().is_some()
}

/// Whether the array's layout sets `E(n)`, even to the natural width
/// (`LayoutUtil::HasCustomElementSizeInBits`; `false` for token/opaque).
pub const fn has_custom_element_size_in_bits(shape: &Shape) -> bool {
    match shape.layout() {
        Some(l) => shape.is_array() && l.element_size_in_bits() != 0,
        None => false,
    }
}

/// Whether two shapes have equal layouts (`LayoutUtil::LayoutsInShapesEqual`
/// on array leaves): the ranks must match and the layouts be equal by
/// XLA's `Layout::Equal`, or both be missing. Dimensions and element types
/// are ignored; token/opaque layouts are ignored.
pub fn layouts_in_shapes_equal(lhs: &Shape, rhs: &Shape) -> bool {
    if !lhs.is_array() {
        return true;
    }
    if lhs.rank() != rhs.rank() {
        return false;
    }
    match (lhs.layout(), rhs.layout()) {
        (None, None) => true,
        (Some(a), Some(b)) => a.equal_ignoring(b, LayoutEquality::XLA),
        _ => false,
    }
}

/// [`layouts_in_shapes_equal`] on possibly nested shapes given as the
/// events of [`parse_shape_tree`](crate::text::parse_shape_tree): the
/// tuple structure must match and every pair of leaves compare equal.
pub fn layouts_in_tree_shapes_equal(lhs: &[TreeEvent], rhs: &[TreeEvent]) -> bool {
    lhs.len() == rhs.len()
        && lhs.iter().zip(rhs).all(|(a, b)| match (a, b) {
            (TreeEvent::Leaf(x), TreeEvent::Leaf(y)) => layouts_in_shapes_equal(x, y),
            (x, y) => x == y,
        })
}

/// `dst` with `src`'s layout (`LayoutUtil::CopyLayoutBetweenShapes` on
/// leaves): an array `src` without a layout clears `dst`'s; token/opaque
/// `src` leaves `dst` as it is.
///
/// # Errors
/// [`ErrorKind::ShapeStructureMismatch`] when the ranks differ or an array
/// meets a non-array, or the first rule `src`'s layout breaks on `dst`.
pub const fn copy_layout_between_shapes(src: &Shape, dst: &Shape) -> Result<Shape, Error> {
    if !src.is_array() {
        return Ok(*dst);
    }
    if !dst.is_array() || src.rank() != dst.rank() {
        return Err(Error::new(ErrorKind::ShapeStructureMismatch));
    }
    match src.layout() {
        Some(l) => dst.without_layout().with_layout(*l),
        None => Ok(dst.without_layout()),
    }
}

/// [`copy_layout_between_shapes`] on possibly nested shapes given as the
/// events of [`parse_shape_tree`](crate::text::parse_shape_tree); `dst`
/// is updated in place, and left unchanged on error.
///
/// # Errors
/// [`ErrorKind::ShapeStructureMismatch`] when the tuple structures differ,
/// or what [`copy_layout_between_shapes`] reports for a pair of leaves.
pub fn copy_layout_between_trees(src: &[TreeEvent], dst: &mut [TreeEvent]) -> Result<(), Error> {
    if src.len() != dst.len() {
        return Err(Error::new(ErrorKind::ShapeStructureMismatch));
    }
    for (a, b) in src.iter().zip(dst.iter()) {
        let same_kind = match (a, b) {
            (TreeEvent::Leaf(_), TreeEvent::Leaf(_)) => true,
            (x, y) => x == y,
        };
        if !same_kind {
            return Err(Error::new(ErrorKind::ShapeStructureMismatch));
        }
    }
    // Check every leaf before writing any, so an error changes nothing.
    for (a, b) in src.iter().zip(dst.iter()) {
        if let (TreeEvent::Leaf(x), TreeEvent::Leaf(y)) = (a, b) {
            copy_layout_between_shapes(x, y)?;
        }
    }
    for (a, b) in src.iter().zip(dst.iter_mut()) {
        if let (TreeEvent::Leaf(x), TreeEvent::Leaf(y)) = (a, &*b) {
            *b = TreeEvent::Leaf(copy_layout_between_shapes(x, y)?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::layout::SplitConfig;

    fn shape(ty: PrimitiveType, dims: &[usize], layout: Layout) -> Shape {
        Shape::new(ty, dims).unwrap().with_layout(layout).unwrap()
    }

    fn tiled(m2m: &[usize], tiles: &[&[usize]]) -> Layout {
        let t: [Tile; 2] = [
            Tile::from_sizes(tiles[0]).unwrap(),
            Tile::from_sizes(tiles.get(1).copied().unwrap_or(&[1])).unwrap(),
        ];
        Layout::new(m2m)
            .unwrap()
            .with_tiles(&t[..tiles.len()])
            .unwrap()
    }

    #[test]
    fn xla_sizes_stay_within_int64() {
        // Found by the `xla_util` fuzz target: the first tile pads this to
        // 2^60 elements, 2^63 bytes of `f64`, past XLA's `int64`: the text
        // is refused, and the byte count is `None` past `int64`.
        let e =
            crate::text::parse_shape("f64[2,3]{1,0:T(2,227,26,58,7,30,8883682034)}").unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::SizeMayOverflowInt64 { .. }),
            "{e}"
        );
        let s = shape(PrimitiveType::U8, &[2], tiled(&[0], &[&[1 << 40]]));
        assert_eq!(xla_array_size_bytes(&s), Some(1 << 40));
        assert_eq!(
            bytes_of(&s, s.layout().unwrap(), (i64::MAX as usize) + 1),
            None
        );
    }

    #[test]
    fn move_dims() {
        let l = Layout::new(&[2, 1, 0]).unwrap();
        assert_eq!(
            move_dim_to_major(&l, 1).unwrap().minor_to_major(),
            &[2, 0, 1]
        );
        assert_eq!(
            move_dim_to_major(&l, 0).unwrap().minor_to_major(),
            &[2, 1, 0]
        );
        let l = Layout::new(&[2, 0, 3, 1]).unwrap();
        assert_eq!(
            move_dim_to_minor(&l, 3).unwrap().minor_to_major(),
            &[3, 2, 0, 1]
        );
        assert!(move_dim_to_minor(&l, 7).is_err());
    }

    /// Moving a dim keeps every other attribute: tiles, `pad(..)` and the
    /// sparse `P(..)`, which the field-by-field rebuild used to drop.
    #[test]
    fn move_dims_keeps_the_attributes() {
        use crate::model::layout::{Padding, PaddingValue, SparsePhysicalShape};
        let physical = SparsePhysicalShape::new(PrimitiveType::S32, &[10, 20], &[1, 0]).unwrap();
        let l = tiled(&[2, 1, 0], &[&[2, 4]])
            .with_padding(Some(Padding::new(&[3, 6, 8], PaddingValue::Zero).unwrap()))
            .with_sparse_physical_shape(Some(physical));
        for moved in [move_dim_to_major(&l, 1), move_dim_to_minor(&l, 0)] {
            let moved = moved.unwrap();
            assert_ne!(moved.minor_to_major(), l.minor_to_major());
            assert_eq!(moved.sparse_physical_shape(), Some(physical));
            assert_eq!(moved.padding(), l.padding());
            assert_eq!(moved.tiles(), l.tiles());
        }
    }

    #[test]
    fn untiled_layouts() {
        let t = |s: &[usize]| Tile::from_sizes(s).unwrap();
        assert!(is_untiled_layout(&[t(&[8, 128])], &[24, 128]));
        assert!(is_untiled_layout(&[t(&[1, 128])], &[4, 256]));
        assert!(!is_untiled_layout(&[t(&[8, 128])], &[2, 3, 4]));
        assert!(!is_untiled_layout(&[t(&[2, 2])], &[4, 4]));
        assert!(is_untiled_layout(&[], &[3, 5]));
    }

    #[test]
    fn splits() {
        let l = Layout::new(&[0, 1, 2])
            .unwrap()
            .with_split_configs(&[
                SplitConfig::new(0, &[30]).unwrap(),
                SplitConfig::new(1, &[40, 130]).unwrap(),
            ])
            .unwrap();
        let s = shape(PrimitiveType::F32, &[150, 200, 100], l);
        assert_eq!(max_split_size(&s, 0), Ok(150));
        assert_eq!(max_split_size(&s, 1), Ok(90));
        assert_eq!(max_split_size(&s, 2), Ok(70));
        assert_eq!(max_elements_in_per_split(&s), Ok(945_000));
    }

    #[test]
    fn xla_sizes() {
        let f32_t = shape(PrimitiveType::F32, &[3, 5], tiled(&[1, 0], &[&[2, 2]]));
        assert_eq!(xla_array_size_bytes(&f32_t), Some(96));
        assert_eq!(linear_index_top_tile_only(&f32_t, &[2, 3]), Ok(17));
        let bf = shape(
            PrimitiveType::Bf16,
            &[2, 3],
            tiled(&[1, 0], &[&[8, 128], &[2, 1]]),
        );
        assert_eq!(xla_array_size_bytes(&bf), Some(2048));
        let aligned = shape(
            PrimitiveType::F32,
            &[3],
            Layout::new(&[0])
                .unwrap()
                .with_tail_padding_alignment(8)
                .unwrap(),
        );
        assert_eq!(xla_array_size_bytes(&aligned), Some(12));
        let packed = shape(
            PrimitiveType::S4,
            &[9216, 6144],
            tiled(&[1, 0], &[&[64, 128], &[8, 1]]).with_element_size_in_bits(4),
        );
        assert_eq!(xla_array_size_bytes(&packed), Some(28_311_552));
        assert_eq!(xla_array_data_size(&packed), Some(28_311_552));
        let empty = shape(
            PrimitiveType::S4,
            &[0, 63, 127],
            Layout::new(&[2, 1, 0])
                .unwrap()
                .with_element_size_in_bits(4),
        );
        assert_eq!(xla_array_data_size(&empty), Some(0));
        assert_eq!(xla_array_size_bytes(&empty), Some(0));
        let rank1 = shape(PrimitiveType::F32, &[8], tiled(&[0], &[&[4]]));
        assert_eq!(linear_index_top_tile_only(&rank1, &[5]), Ok(5));
        assert!(linear_index_top_tile_only(&rank1, &[8]).is_err());
    }

    #[test]
    fn strides() {
        let s = shape(
            PrimitiveType::S4,
            &[2, 4],
            Layout::new(&[1, 0]).unwrap().with_element_size_in_bits(4),
        );
        assert_eq!(unpacked_byte_strides(&s).unwrap().as_slice(), &[4, 1]);
        assert!(byte_strides_is_major_to_minor(
            &[3960, 440, 44, 4],
            &[8, 9, 10, 11],
            PrimitiveType::F32
        ));
        assert!(!byte_strides_is_major_to_minor(
            &[1880, 440, 44, 4],
            &[8, 9, 10, 11],
            PrimitiveType::F32
        ));
    }

    #[test]
    fn layouts_between_shapes() {
        let col = shape(PrimitiveType::F32, &[2, 3], Layout::new(&[0, 1]).unwrap());
        let row = Shape::new(PrimitiveType::F32, &[2, 3]).unwrap();
        assert_eq!(copy_layout_between_shapes(&col, &row).unwrap(), col);
        let big = Shape::new(PrimitiveType::F32, &[1, 2, 3]).unwrap();
        assert_eq!(
            copy_layout_between_shapes(&big, &row).unwrap_err().kind(),
            ErrorKind::ShapeStructureMismatch
        );
        assert!(!layouts_in_shapes_equal(&col, &row));
        let src = [
            TreeEvent::TupleStart,
            TreeEvent::Leaf(col),
            TreeEvent::TupleEnd,
        ];
        let mut dst = [
            TreeEvent::TupleStart,
            TreeEvent::Leaf(row),
            TreeEvent::TupleEnd,
        ];
        copy_layout_between_trees(&src, &mut dst).unwrap();
        assert!(layouts_in_tree_shapes_equal(&src, &dst));
        let mut short = [TreeEvent::Leaf(row)];
        assert!(copy_layout_between_trees(&src, &mut short).is_err());
        assert!(has_layout(&Shape::token()));
        assert!(!has_custom_element_size_in_bits(&row));
    }
}
