//! The index math: one definition of where every element goes, as
//! `const fn`s over a validated [`Shape`] with a layout.
//!
//! The definition follows XLA's tiled-layout doc and
//! `LayoutUtil::LinearIndexForNestedTiling`:
//!
//! 1. pad each logical dimension to its `pad(..)` width (tessera's
//!    extension; no-op without it),
//! 2. permute dimensions and index into physical order, major to minor
//!    (`minor_to_major` read backwards),
//! 3. for each tile level in turn: if the tile has more entries than the
//!    current shape, prepend dimensions of size 1; merge every `*` entry's
//!    dimension into the next more-minor one (row-major); then a tile
//!    `(t_1..t_k)` turns the `k` most-minor dimensions `(d_1..d_k)` and
//!    index `(e_1..e_k)` into dimensions
//!    `(ceil(d_1/t_1)..ceil(d_k/t_k), t_1..t_k)` and index
//!    `(e_1/t_1..e_k/t_k, e_1%t_1..e_k%t_k)`,
//! 4. the offset is the row-major linearization of the final index in the
//!    final ("physical") shape, whose element count, rounded up to `L(n)`,
//!    is the buffer length.
//!
//! Every other figure (inverse, strides, sizes) is derived from the same
//! [`Work`] transform; nothing here is written twice.

use crate::error::{Error, ErrorKind};
use crate::layout::Layout;
use crate::shape::Shape;
use crate::tile::Tile;
use crate::{MAX_PHYSICAL_RANK, MAX_RANK, MAX_TILE_LEVELS};

/// A shape and an index in physical order during the transform.
#[derive(Clone, Copy)]
pub(crate) struct Work {
    pub(crate) rank: usize,
    pub(crate) dims: [usize; MAX_PHYSICAL_RANK],
    pub(crate) idx: [usize; MAX_PHYSICAL_RANK],
}

const fn overflow() -> Error {
    Error::new(ErrorKind::Overflow { what: "the buffer length" })
}

const fn layout_of(shape: &Shape) -> &Layout {
    match shape.layout() {
        Some(l) => l,
        None => panic!("index math needs a shape with a layout"),
    }
}

/// Steps 1 and 2: padded physical dims, and `index` permuted likewise.
/// Unbounded dims count as 0 (callers reject them first).
const fn start(shape: &Shape, index: &[usize]) -> Work {
    let layout = layout_of(shape);
    let n = shape.rank();
    let m2m = layout.minor_to_major();
    let padding = layout.padding();
    let mut w = Work { rank: n, dims: [0; MAX_PHYSICAL_RANK], idx: [0; MAX_PHYSICAL_RANK] };
    let mut i = 0;
    while i < n {
        let logical = m2m[n - 1 - i] as usize;
        w.dims[i] = match padding {
            Some(p) => p.padded_dims()[logical],
            None => match shape.dims()[logical].size() {
                Some(s) => s,
                None => 0,
            },
        };
        w.idx[i] = if logical < index.len() { index[logical] } else { 0 };
        i += 1;
    }
    w
}

/// Step 3 for one tile level. Dims are computed with overflow checks; the
/// index with wrapping arithmetic, so an out-of-range index (unchecked
/// APIs) gives a meaningless number but never a panic.
const fn apply_tile(w: &mut Work, tile: &Tile) -> Result<(), Error> {
    let t = tile.raw();
    let k = t.len();
    if k > w.rank {
        let shift = k - w.rank;
        let mut i = w.rank;
        while i > 0 {
            i -= 1;
            w.dims[i + shift] = w.dims[i];
            w.idx[i + shift] = w.idx[i];
        }
        let mut i = 0;
        while i < shift {
            w.dims[i] = 1;
            w.idx[i] = 0;
            i += 1;
        }
        w.rank = k;
    }
    let base = w.rank - k;
    let mut region_dims = [0usize; MAX_RANK];
    let mut region_idx = [0usize; MAX_RANK];
    let mut region_tile = [0usize; MAX_RANK];
    let mut m = 0;
    let mut pending_dim = 1usize;
    let mut pending_idx = 0usize;
    let mut j = 0;
    while j < k {
        let d = w.dims[base + j];
        let e = w.idx[base + j];
        let merged_dim = match pending_dim.checked_mul(d) {
            Some(v) => v,
            None => return Err(overflow()),
        };
        let merged_idx = pending_idx.wrapping_mul(d).wrapping_add(e);
        if t[j] == 0 {
            pending_dim = merged_dim;
            pending_idx = merged_idx;
        } else {
            region_dims[m] = merged_dim;
            region_idx[m] = merged_idx;
            region_tile[m] = t[j];
            m += 1;
            pending_dim = 1;
            pending_idx = 0;
        }
        j += 1;
    }
    let mut i = 0;
    while i < m {
        let tt = region_tile[i];
        w.dims[base + i] = region_dims[i].div_ceil(tt);
        w.idx[base + i] = region_idx[i] / tt;
        w.dims[base + m + i] = tt;
        w.idx[base + m + i] = region_idx[i] % tt;
        i += 1;
    }
    w.rank = base + 2 * m;
    Ok(())
}

/// Steps 1 to 3 for `index`.
const fn transform(shape: &Shape, index: &[usize]) -> Result<Work, Error> {
    let mut w = start(shape, index);
    let tiles = layout_of(shape).tiles();
    let mut level = 0;
    while level < tiles.len() {
        if let Err(e) = apply_tile(&mut w, &tiles[level]) {
            return Err(e);
        }
        level += 1;
    }
    Ok(w)
}

/// The physical (tiled) shape, major to minor, with the product of its
/// dims checked for overflow.
pub(crate) const fn physical_dims(shape: &Shape) -> Result<Work, Error> {
    let w = match transform(shape, &[]) {
        Ok(w) => w,
        Err(e) => return Err(e),
    };
    let mut product: usize = 1;
    let mut i = 0;
    while i < w.rank {
        product = match product.checked_mul(w.dims[i]) {
            Some(p) => p,
            None => return Err(overflow()),
        };
        i += 1;
    }
    Ok(w)
}

/// Number of slots the offsets need: the product of the physical dims,
/// rounded up to `L(n)`.
pub(crate) const fn buffer_len(shape: &Shape) -> Result<usize, Error> {
    let w = match physical_dims(shape) {
        Ok(w) => w,
        Err(e) => return Err(e),
    };
    let product = product_of(&w);
    let align = layout_of(shape).tail_padding_alignment_in_elements();
    match product.checked_next_multiple_of(align) {
        Some(n) => Ok(n),
        None => Err(overflow()),
    }
}

/// Product of the dims of `w` (callers have checked it fits).
pub(crate) const fn product_of(w: &Work) -> usize {
    let mut product: usize = 1;
    let mut i = 0;
    while i < w.rank {
        product = product.wrapping_mul(w.dims[i]);
        i += 1;
    }
    product
}

/// The offset of `index` without bounds checks (step 4). For an index in
/// bounds this is exact; otherwise the result is meaningless but the call
/// neither panics nor overflows.
pub(crate) const fn linear_index(shape: &Shape, index: &[usize]) -> usize {
    let w = match transform(shape, index) {
        Ok(w) => w,
        // Unreachable for shapes accepted by `ArrayLayout::new`, which
        // checks the same transform.
        Err(_) => return 0,
    };
    let mut offset: usize = 0;
    let mut i = 0;
    while i < w.rank {
        offset = offset.wrapping_mul(w.dims[i]).wrapping_add(w.idx[i]);
        i += 1;
    }
    offset
}

/// The logical index stored at `offset`, or `None` for a padding slot.
/// `offset` must be below [`buffer_len`].
pub(crate) const fn delinearize(shape: &Shape, offset: usize) -> Option<[usize; MAX_RANK]> {
    let layout = layout_of(shape);
    let tiles = layout.tiles();
    // Dims before each level (snapshots[i] is the input of level i), and
    // after the last.
    let mut snapshots = [start(shape, &[]); MAX_TILE_LEVELS + 1];
    let mut level = 0;
    while level < tiles.len() {
        let mut next = snapshots[level];
        if apply_tile(&mut next, &tiles[level]).is_err() {
            return None;
        }
        snapshots[level + 1] = next;
        level += 1;
    }
    let fin = snapshots[tiles.len()];
    if offset >= product_of(&fin) {
        return None; // tail padding from L(n)
    }
    let mut idx = [0usize; MAX_PHYSICAL_RANK];
    let mut rest = offset;
    let mut i = fin.rank;
    while i > 0 {
        i -= 1;
        idx[i] = rest % fin.dims[i];
        rest /= fin.dims[i];
    }
    let mut level = tiles.len();
    while level > 0 {
        level -= 1;
        match untile(&snapshots[level], &tiles[level], &idx) {
            Some(prev) => idx = prev,
            None => return None,
        }
    }
    // idx is now in padded physical order.
    let n = shape.rank();
    let m2m = layout.minor_to_major();
    let mut logical = [0usize; MAX_RANK];
    let mut i = 0;
    while i < n {
        let d = m2m[n - 1 - i] as usize;
        let size = match shape.dims()[d].size() {
            Some(s) => s,
            None => 0,
        };
        if idx[i] >= size {
            return None; // pad(..) padding
        }
        logical[d] = idx[i];
        i += 1;
    }
    Some(logical)
}

/// Undoes one tile level: `idx` indexes the level's output; `before` holds
/// the level's input dims. `None` when the slot is tile padding.
const fn untile(
    before: &Work,
    tile: &Tile,
    idx: &[usize; MAX_PHYSICAL_RANK],
) -> Option<[usize; MAX_PHYSICAL_RANK]> {
    let t = tile.raw();
    let k = t.len();
    let r = before.rank;
    let shift = k.saturating_sub(r);
    let r1 = r + shift;
    let base = r1 - k;
    // Input dims with the prepended 1s.
    let mut dims = [1usize; MAX_PHYSICAL_RANK];
    let mut i = 0;
    while i < r {
        dims[i + shift] = before.dims[i];
        i += 1;
    }
    let mut m = 0;
    let mut j = 0;
    while j < k {
        if t[j] != 0 {
            m += 1;
        }
        j += 1;
    }
    let mut out = [0usize; MAX_PHYSICAL_RANK];
    let mut i = 0;
    while i < base {
        out[i] = idx[i];
        i += 1;
    }
    // Walk the kept entries; each owns the group of positions from the
    // first `*` before it up to itself.
    let mut kept = 0;
    let mut group_start = 0;
    let mut j = 0;
    while j < k {
        if t[j] != 0 {
            let tt = t[j];
            let mut merged = 1usize;
            let mut p = group_start;
            while p <= j {
                merged = merged.wrapping_mul(dims[base + p]);
                p += 1;
            }
            let mut e = idx[base + kept].wrapping_mul(tt).wrapping_add(idx[base + m + kept]);
            if e >= merged {
                return None;
            }
            let mut p = j + 1;
            while p > group_start {
                p -= 1;
                let d = dims[base + p];
                out[base + p] = e % d;
                e /= d;
            }
            kept += 1;
            group_start = j + 1;
        }
        j += 1;
    }
    // Drop the prepended dims (their index is 0, checked above).
    let mut result = [0usize; MAX_PHYSICAL_RANK];
    let mut i = 0;
    while i < r {
        result[i] = out[i + shift];
        i += 1;
    }
    Some(result)
}

/// Whether every tile level keeps row-major order (so each logical index
/// lands in one physical position and the offset is linear in the index).
/// Each level is checked on its own, treating its input positions as
/// independent (sufficient, and exact for the layouts people write).
pub(crate) const fn is_strided(shape: &Shape) -> bool {
    let mut w = start(shape, &[]);
    let tiles = layout_of(shape).tiles();
    let mut level = 0;
    while level < tiles.len() {
        let t = tiles[level].raw();
        let k = t.len();
        // Merged dims of this level, as apply_tile forms them.
        let mut probe = w;
        let shift = k.saturating_sub(probe.rank);
        let r1 = probe.rank + shift;
        let base = r1 - k;
        let mut dims = [1usize; MAX_PHYSICAL_RANK];
        let mut i = 0;
        while i < probe.rank {
            dims[i + shift] = probe.dims[i];
            i += 1;
        }
        // Each kept entry is a "one" (t = 1: the index moves whole to the
        // tile-count dim), "whole" (d <= t: it moves whole into the tile) or
        // a "cut" (split across both). Order survives iff there is no cut,
        // or one cut with only ones before it and only wholes after it.
        let mut kinds = [0u8; MAX_RANK]; // 0 = never varies, 1 = one, 2 = whole, 3 = cut
        let mut m = 0;
        let mut cut_at = usize::MAX;
        let mut pending = 1usize;
        let mut j = 0;
        while j < k {
            let d = pending.saturating_mul(dims[base + j]);
            if t[j] == 0 {
                pending = d;
            } else {
                pending = 1;
                let tt = t[j];
                kinds[m] = if d <= 1 {
                    0
                } else if tt == 1 {
                    1
                } else if d <= tt {
                    2
                } else {
                    if cut_at != usize::MAX {
                        return false;
                    }
                    cut_at = m;
                    3
                };
                m += 1;
            }
            j += 1;
        }
        if cut_at != usize::MAX {
            let mut i = 0;
            while i < m {
                if (i < cut_at && kinds[i] == 2) || (i > cut_at && kinds[i] == 1) {
                    return false;
                }
                i += 1;
            }
        }
        if apply_tile(&mut probe, &tiles[level]).is_err() {
            return false;
        }
        w = probe;
        level += 1;
    }
    true
}
