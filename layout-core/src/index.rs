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
use crate::limits::{MAX_DIM_SIZE, MAX_PHYSICAL_RANK, MAX_RANK, MAX_TILE_LEVELS};
use crate::model::layout::Layout;
use crate::model::shape::Shape;
use crate::model::tile::Tile;

/// A shape and an index in physical order during the transform.
#[derive(Clone, Copy)]
pub(crate) struct Work {
    pub(crate) rank: usize,
    pub(crate) dims: [usize; MAX_PHYSICAL_RANK],
    pub(crate) idx: [usize; MAX_PHYSICAL_RANK],
}

const fn overflow() -> Error {
    Error::new(ErrorKind::Overflow {
        what: "the buffer length",
    })
}

const fn layout_of(shape: &Shape) -> &Layout {
    match shape.layout() {
        Some(l) => l,
        None => panic!("index math needs a shape with a layout"),
    }
}

/// Whether `index` has one entry per dimension, each below its size: the
/// yes/no form of [`check_index`], which hot paths use and only then ask
/// [`check_index`] which entry is wrong.
#[inline(always)]
pub(crate) const fn in_bounds(sizes: &[usize], index: &[usize]) -> bool {
    if index.len() != sizes.len() {
        return false;
    }
    let mut i = 0;
    while i < index.len() {
        if index[i] >= sizes[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Checks that `index` has one entry per dimension, each below its size.
/// The one bounds check: every checked offset and index helper uses it.
pub(crate) const fn check_index(sizes: &[usize], index: &[usize]) -> Result<(), Error> {
    if index.len() != sizes.len() {
        return Err(Error::new(ErrorKind::IndexRankMismatch {
            expected: sizes.len(),
            found: index.len(),
        }));
    }
    let mut i = 0;
    while i < index.len() {
        if index[i] >= sizes[i] {
            return Err(Error::at(
                ErrorKind::IndexOutOfBounds {
                    dim: i,
                    index: index[i],
                    bound: sizes[i],
                },
                crate::error::Locus::Dim(i),
            ));
        }
        i += 1;
    }
    Ok(())
}

/// Steps 1 and 2: padded physical dims, and `index` permuted likewise.
/// Unbounded dims count as 0 (callers reject them first).
const fn start(shape: &Shape, index: &[usize]) -> Work {
    let layout = layout_of(shape);
    let n = shape.rank();
    let m2m = layout.minor_to_major();
    let padding = layout.padding();
    let mut w = Work {
        rank: n,
        dims: [0; MAX_PHYSICAL_RANK],
        idx: [0; MAX_PHYSICAL_RANK],
    };
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
        w.idx[i] = if logical < index.len() {
            index[logical]
        } else {
            0
        };
        i += 1;
    }
    w
}

/// Step 3 for one tile level on the numbers alone: [`tile_step`] without
/// digits, for the per-element paths.
const fn apply_tile(w: &mut Work, tile: &Tile) -> Result<(), Error> {
    tile_step(w, None, tile)
}

/// Step 3 for one tile level, the one definition of it: prepend 1-dims
/// when the tile has more entries than the shape, merge each `*` entry's
/// dim into the next kept one (row-major), and split every merged region
/// into its tile-grid and in-tile dims. Dims are computed with overflow
/// checks; the index with wrapping arithmetic, so an out-of-range index
/// (unchecked APIs) gives a meaningless number but never a panic. With
/// `digits`, the same step is replayed on the [`Digit`] each position
/// holds (see [`digit_map`]). Inlined into each caller, so the numeric
/// path carries no digit work.
#[inline(always)]
const fn tile_step(
    w: &mut Work,
    mut digits: Option<&mut Digits>,
    tile: &Tile,
) -> Result<(), Error> {
    let t = tile.raw();
    let k = t.len();
    if k > w.rank {
        let shift = k - w.rank;
        let mut i = w.rank;
        while i > 0 {
            i -= 1;
            w.dims[i + shift] = w.dims[i];
            w.idx[i + shift] = w.idx[i];
            if let Some(g) = &mut digits {
                g.digits[i + shift] = g.digits[i];
            }
        }
        let mut i = 0;
        while i < shift {
            w.dims[i] = 1;
            w.idx[i] = 0;
            if let Some(g) = &mut digits {
                g.digits[i] = Digit::ZERO;
            }
            i += 1;
        }
        w.rank = k;
    }
    let base = w.rank - k;
    let mut region_dims = [0usize; MAX_RANK];
    let mut region_idx = [0usize; MAX_RANK];
    let mut region_digit = [Digit::ZERO; MAX_RANK];
    let mut region_tile = [0usize; MAX_RANK];
    let mut m = 0;
    let mut pending_dim = 1usize;
    let mut pending_idx = 0usize;
    let mut pending_digit = Digit::ZERO;
    let mut j = 0;
    while j < k {
        let d = w.dims[base + j];
        let e = w.idx[base + j];
        let merged_dim = match pending_dim.checked_mul(d) {
            Some(v) => v,
            None => return Err(overflow()),
        };
        let merged_idx = pending_idx.wrapping_mul(d).wrapping_add(e);
        let merged_digit = match &digits {
            Some(g) => g.merge(pending_digit, d, g.digits[base + j]),
            None => Digit::ZERO,
        };
        if t[j] == 0 {
            pending_dim = merged_dim;
            pending_idx = merged_idx;
            pending_digit = merged_digit;
        } else {
            region_dims[m] = merged_dim;
            region_idx[m] = merged_idx;
            region_digit[m] = merged_digit;
            region_tile[m] = t[j];
            m += 1;
            pending_dim = 1;
            pending_idx = 0;
            pending_digit = Digit::ZERO;
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
        if let Some(g) = &mut digits {
            let (q, r) = region_digit[i].split(tt, g.sizes);
            g.digits[base + i] = q;
            g.digits[base + m + i] = r;
        }
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
/// dims checked for overflow. The product is taken in `u128`, saturating,
/// so that a zero dim anywhere makes it 0 whatever the order of the dims,
/// as [`Shape::element_count`] counts.
pub(crate) const fn physical_dims(shape: &Shape) -> Result<Work, Error> {
    let w = match transform(shape, &[]) {
        Ok(w) => w,
        Err(e) => return Err(e),
    };
    let mut product: u128 = 1;
    let mut i = 0;
    while i < w.rank {
        product = product.saturating_mul(w.dims[i] as u128);
        i += 1;
    }
    if product > usize::MAX as u128 {
        return Err(overflow());
    }
    Ok(w)
}

/// Number of slots the offsets need: the product of the physical dims,
/// rounded up to `L(n)`; at most [`MAX_DIM_SIZE`] (XLA's `int64`).
pub(crate) const fn buffer_len(shape: &Shape) -> Result<usize, Error> {
    let w = match physical_dims(shape) {
        Ok(w) => w,
        Err(e) => return Err(e),
    };
    let product = product_of(&w);
    let align = layout_of(shape).tail_padding_alignment_in_elements();
    match product.checked_next_multiple_of(align) {
        // XLA's sizes are `int64`: no buffer holds more slots.
        Some(n) if n <= MAX_DIM_SIZE => Ok(n),
        _ => Err(overflow()),
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
            let mut e = idx[base + kept]
                .wrapping_mul(tt)
                .wrapping_add(idx[base + m + kept]);
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

/// What one physical position holds, as a function of the logical index:
/// `floor(e[var] / div) % modulus` (`modulus == 0` for no modulus), a
/// constant 0, or something of several variables.
#[derive(Clone, Copy)]
pub(crate) struct Digit {
    pub(crate) var: usize,
    pub(crate) div: usize,
    pub(crate) modulus: usize,
}

pub(crate) const CONSTANT: usize = usize::MAX;
pub(crate) const MIXED: usize = usize::MAX - 1;

impl Digit {
    const ZERO: Digit = Digit {
        var: CONSTANT,
        div: 1,
        modulus: 0,
    };
    const MIXED: Digit = Digit {
        var: MIXED,
        div: 1,
        modulus: 0,
    };

    /// How many values the digit takes over the logical index range.
    const fn range(self, sizes: &[usize]) -> usize {
        match self.var {
            CONSTANT => 1,
            MIXED => usize::MAX,
            v => {
                let r = sizes[v].div_ceil(self.div);
                if self.modulus != 0 && self.modulus < r {
                    self.modulus
                } else {
                    r
                }
            }
        }
    }

    /// `self / t` and `self % t`.
    const fn split(self, t: usize, sizes: &[usize]) -> (Digit, Digit) {
        let range = self.range(sizes);
        if t == 1 || range <= 1 {
            return (self, Digit::ZERO);
        }
        if range <= t {
            return (Digit::ZERO, self);
        }
        if self.var == MIXED || (self.modulus != 0 && !self.modulus.is_multiple_of(t)) {
            return (Digit::MIXED, Digit::MIXED);
        }
        let q = Digit {
            var: self.var,
            div: self.div.saturating_mul(t),
            modulus: if self.modulus == 0 {
                0
            } else {
                self.modulus / t
            },
        };
        (
            q,
            Digit {
                var: self.var,
                div: self.div,
                modulus: t,
            },
        )
    }
}

/// The [`Digit`] each physical position holds while [`tile_step`] runs,
/// with the logical sizes that say how many values each digit takes.
pub(crate) struct Digits<'a> {
    digits: [Digit; MAX_PHYSICAL_RANK],
    sizes: &'a [usize],
}

impl Digits<'_> {
    /// The digit of `pending * size + cur` (a `*` merge): a plain digit
    /// only when one side never varies and the other is not scaled.
    const fn merge(&self, pending: Digit, size: usize, cur: Digit) -> Digit {
        if pending.range(self.sizes) <= 1 {
            cur
        } else if cur.range(self.sizes) <= 1 && size == 1 {
            pending
        } else {
            Digit::MIXED
        }
    }
}

/// The logical dimension sizes (a bounded dimension's bound; 0 for `?`,
/// which callers reject first).
const fn logical_sizes(shape: &Shape) -> [usize; MAX_RANK] {
    let mut sizes = [0usize; MAX_RANK];
    let mut i = 0;
    while i < shape.rank() {
        sizes[i] = match shape.dims()[i].size() {
            Some(s) => s,
            None => 0,
        };
        i += 1;
    }
    sizes
}

/// The physical (tiled) dims with the [`Digit`] each one holds and its
/// stride: for every element, `offset = sum(stride[p] * digit[p](index))`.
#[derive(Clone, Copy)]
pub(crate) struct DigitMap {
    pub(crate) rank: usize,
    pub(crate) dims: [usize; MAX_PHYSICAL_RANK],
    pub(crate) strides: [usize; MAX_PHYSICAL_RANK],
    pub(crate) digits: [Digit; MAX_PHYSICAL_RANK],
}

/// Replays the transform on [`Digit`]s: each physical position starts as
/// the whole index of one logical dimension; `*` merges keep a plain
/// digit only when one side never varies; a tile splits a digit into
/// quotient and remainder digits. Digits that take a single value become
/// constants.
pub(crate) const fn digit_map(shape: &Shape) -> DigitMap {
    let layout = layout_of(shape);
    let n = shape.rank();
    let sizes = logical_sizes(shape);
    let mut w = start(shape, &[]);
    let mut g = Digits {
        digits: [Digit::ZERO; MAX_PHYSICAL_RANK],
        sizes: sizes.split_at(n).0,
    };
    let m2m = layout.minor_to_major();
    let mut i = 0;
    while i < n {
        let d = Digit {
            var: m2m[n - 1 - i] as usize,
            div: 1,
            modulus: 0,
        };
        g.digits[i] = if d.range(g.sizes) <= 1 {
            Digit::ZERO
        } else {
            d
        };
        i += 1;
    }
    let tiles = layout.tiles();
    let mut level = 0;
    while level < tiles.len() {
        if tile_step(&mut w, Some(&mut g), &tiles[level]).is_err() {
            break; // unreachable for layouts ArrayLayout accepted
        }
        level += 1;
    }
    let digits = g.digits;
    let mut strides = [0usize; MAX_PHYSICAL_RANK];
    let mut acc = 1usize;
    let mut p = w.rank;
    while p > 0 {
        p -= 1;
        strides[p] = acc;
        acc = acc.saturating_mul(w.dims[p]);
    }
    DigitMap {
        rank: w.rank,
        dims: w.dims,
        strides,
        digits,
    }
}

/// Whether the offset is linear in the index, `sum(index[d] * stride[d])`:
/// each dimension's varying digits in the [`DigitMap`] must form a
/// mixed-radix chain (`div` of each is the previous `div * modulus`, the
/// last never wraps) whose physical strides grow by the same radices.
/// Exact for layouts without `*`; a `*` that merges two varying
/// dimensions into one that is then cut counts as not strided.
pub(crate) const fn is_strided(shape: &Shape) -> bool {
    let n = shape.rank();
    let sizes = logical_sizes(shape);
    let sizes = sizes.split_at(n).0;
    let map = digit_map(shape);
    let w = Work {
        rank: map.rank,
        dims: map.dims,
        idx: [0; MAX_PHYSICAL_RANK],
    };
    let digits = map.digits;
    let strides = map.strides;
    let mut p = 0;
    while p < w.rank {
        if digits[p].var == MIXED && w.dims[p] > 1 {
            return false;
        }
        p += 1;
    }
    let mut v = 0;
    while v < n {
        // Walk the chain from div 1 upwards.
        let mut div = 1usize;
        let mut stride = 0usize;
        let mut first = true;
        loop {
            if div >= sizes[v] {
                break; // covers the whole range
            }
            let mut found = usize::MAX;
            let mut p = 0;
            while p < w.rank {
                let g = digits[p];
                if g.var == v && g.div == div && g.range(sizes) > 1 {
                    if found != usize::MAX {
                        return false;
                    }
                    found = p;
                }
                p += 1;
            }
            if found == usize::MAX {
                return false;
            }
            let g = digits[found];
            if !first && strides[found] != stride {
                return false;
            }
            first = false;
            if g.modulus == 0 {
                break;
            }
            stride = strides[found].saturating_mul(g.modulus);
            div = div.saturating_mul(g.modulus);
        }
        // Every varying digit of v must have been on the chain.
        let mut count = 0;
        let mut p = 0;
        while p < w.rank {
            if digits[p].var == v && digits[p].range(sizes) > 1 {
                count += 1;
            }
            p += 1;
        }
        let mut chain = 0;
        let mut div = 1usize;
        while div < sizes[v] {
            let mut p = 0;
            let mut next = 0;
            while p < w.rank {
                let g = digits[p];
                if g.var == v && g.div == div && g.range(sizes) > 1 {
                    next = g.modulus;
                }
                p += 1;
            }
            chain += 1;
            if next == 0 {
                break;
            }
            div = div.saturating_mul(next);
        }
        if count != chain {
            return false;
        }
        v += 1;
    }
    true
}
