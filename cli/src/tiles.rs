//! Which first-level tile an element or slot belongs to, asked of the
//! engine: the same shape with only its first tile level gives every
//! element an offset whose quotient by the tile's volume numbers the tile
//! (the physical shape of one level is `[tile counts.., tile dims..]`,
//! linearized row-major).

use layout_core::{ArrayLayout, Dim, Shape};

/// First-level tile numbering for one layout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tiler {
    /// The layout with only its first tile level; `None` when untiled.
    first: Option<ArrayLayout>,
    /// Elements in one first-level tile (the product of its sizes; `*`
    /// entries add none).
    volume: usize,
}

impl Tiler {
    /// The numbering for `layout`.
    pub(crate) fn new(layout: &ArrayLayout) -> Tiler {
        let tiles = layout.layout().tiles();
        let first = tiles.first().and_then(|_| {
            let l = layout.layout().with_tiles(&tiles[..1]).ok()?;
            ArrayLayout::new(layout.shape().with_layout(l).ok()?).ok()
        });
        let volume = tiles.first().map_or(1, |t| {
            // Saturating: only a tile of an array with no elements
            // (whose buffer is empty) can be this large.
            t.raw()
                .iter()
                .filter(|&&e| e != 0)
                .fold(1usize, |v, &e| v.saturating_mul(e))
        });
        Tiler { first, volume }
    }

    /// Whether the layout has tiles this numbering can tell apart.
    pub(crate) fn is_tiled(&self) -> bool {
        self.first.is_some()
    }

    /// Elements in one first-level tile.
    pub(crate) fn volume(&self) -> usize {
        self.volume
    }

    /// The tile holding the element at logical `index`.
    pub(crate) fn tile_of(&self, index: &[usize]) -> Option<usize> {
        let first = self.first.as_ref()?;
        first.try_offset(index).ok().map(|o| o / self.volume)
    }

    /// The physical shape of the first level alone.
    fn first_physical(&self) -> Option<Vec<usize>> {
        self.first.map(|f| f.physical_shape().dims().to_vec())
    }
}

/// `layout` on the same shape but with dimension `dim` of size `size`.
fn resized(layout: &ArrayLayout, dim: usize, size: usize) -> Option<ArrayLayout> {
    let mut dims: Vec<Dim> = layout.shape().dims().to_vec();
    dims[dim] = Dim::Static(size);
    let shape = Shape::with_dims(layout.element_type(), &dims).ok()?;
    ArrayLayout::new(shape.with_layout(*layout.layout()).ok()?).ok()
}

/// Whether `a` and `b` have the same buffer: length, physical shape and
/// first-level physical shape.
fn same_buffer(a: &ArrayLayout, b: &ArrayLayout) -> bool {
    a.buffer_len() == b.buffer_len()
        && a.physical_shape().dims() == b.physical_shape().dims()
        && Tiler::new(a).first_physical() == Tiler::new(b).first_physical()
}

/// Most padding rows or columns looked for past a dimension's end.
const MAX_GROWTH: usize = 4096;

/// The largest size dimension `dim` can grow to while the buffer stays the
/// same, and the layout at that size. The extra rows or columns are
/// padding of `layout` (tile or `pad(..)` padding), and the grown layout
/// gives their slots' offsets. Callers check both claims with
/// [`ArrayLayout::offset`] and [`ArrayLayout::slot`] before using them.
pub(crate) fn grow(base: &ArrayLayout, current: &ArrayLayout, dim: usize) -> (ArrayLayout, usize) {
    let mut best = (*current, current.size(dim));
    let start = current.size(dim);
    for size in start + 1..=start + MAX_GROWTH {
        match resized(current, dim, size) {
            Some(bigger) if same_buffer(base, &bigger) => best = (bigger, size),
            _ => break,
        }
    }
    best
}
