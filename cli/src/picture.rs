//! The picture that `show` and `svg` draw, as data: 2-D grids of the
//! logical array (each cell an offset, tile and padding marked) and the
//! memory strip (each slot's element or padding). Every number comes from
//! the engine ([`ArrayLayout::offset`], [`ArrayLayout::slot`]).

use std::collections::HashMap;

use layout_core::{ArrayLayout, DimVec, Slot};

use crate::tiles::{self, Tiler};

/// How much of a large array to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most rows per grid.
    pub(crate) rows: usize,
    /// Most columns per grid.
    pub(crate) cols: usize,
    /// Most 2-D slices of a higher-rank array.
    pub(crate) slices: usize,
    /// Most slots of the memory strip.
    pub(crate) slots: usize,
}

impl Limits {
    /// Enough for a screen.
    pub(crate) const SCREEN: Limits = Limits {
        rows: 32,
        cols: 24,
        slices: 4,
        slots: 192,
    };
    /// Everything (`--full`).
    pub(crate) const FULL: Limits = Limits {
        rows: usize::MAX,
        cols: usize::MAX,
        slices: usize::MAX,
        slots: usize::MAX,
    };
}

/// One cell of a grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    /// The slot's offset in the buffer.
    pub(crate) offset: usize,
    /// Whether the cell is padding past a dimension's end.
    pub(crate) padding: bool,
    /// The first-level tile holding the slot.
    pub(crate) tile: Option<usize>,
}

/// A 2-D slice of the logical array: rows along one dimension, columns
/// along another, the other dimensions fixed.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    /// The dimension along the rows (`None` for rank 0 and 1).
    pub(crate) row_dim: Option<usize>,
    /// The dimension along the columns (`None` for rank 0).
    pub(crate) col_dim: Option<usize>,
    /// The other dimensions and their index in this slice.
    pub(crate) fixed: Vec<(usize, usize)>,
    /// Rows and columns including the padding past the ends.
    pub(crate) padded: (usize, usize),
    /// Rows and columns drawn (fewer when cut).
    pub(crate) shown: (usize, usize),
    /// `shown.0 * shown.1` cells, row by row.
    pub(crate) cells: Vec<Cell>,
}

impl Grid {
    /// The cell at row `r`, column `c`.
    pub(crate) fn cell(&self, r: usize, c: usize) -> &Cell {
        &self.cells[r * self.shown.1 + c]
    }

    /// Whether rows or columns were left out.
    pub(crate) fn is_cut(&self) -> bool {
        self.shown != self.padded
    }

    /// Whether a tile boundary runs left of cell `(r, c)`: the edges
    /// (`c == 0`, `c == shown.1`) and between cells of different tiles.
    pub(crate) fn v(&self, r: usize, c: usize) -> bool {
        c == 0 || c == self.shown.1 || self.cell(r, c - 1).tile != self.cell(r, c).tile
    }

    /// Whether a tile boundary runs above cell `(r, c)` (`r == shown.0`:
    /// the bottom edge).
    pub(crate) fn h(&self, r: usize, c: usize) -> bool {
        r == 0 || r == self.shown.0 || self.cell(r - 1, c).tile != self.cell(r, c).tile
    }
}

/// One slot of the memory strip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StripSlot {
    /// The offset.
    pub(crate) offset: usize,
    /// What it holds.
    pub(crate) slot: Slot,
    /// Its first-level tile, when known.
    pub(crate) tile: Option<usize>,
}

/// The buffer in memory order.
#[derive(Clone, Debug)]
pub(crate) struct Strip {
    /// The slots drawn, from offset 0.
    pub(crate) slots: Vec<StripSlot>,
    /// The buffer length.
    pub(crate) buffer_len: usize,
    /// Slots per first-level tile when each tile is one run of slots.
    pub(crate) run: Option<usize>,
}

/// Everything `show` and `svg` draw.
#[derive(Clone, Debug)]
pub(crate) struct Picture {
    /// The layout drawn.
    pub(crate) layout: ArrayLayout,
    /// The grids drawn.
    pub(crate) grids: Vec<Grid>,
    /// How many 2-D slices the array has.
    pub(crate) slices_total: usize,
    /// The memory strip.
    pub(crate) strip: Strip,
    /// Colour number of each tile: tiles that touch get different ones.
    pub(crate) colours: HashMap<usize, usize>,
}

/// Colours the palettes have.
pub(crate) const PALETTE_LEN: usize = 6;

impl Picture {
    /// The picture of `layout` with rows along `dims.0` and columns along
    /// `dims.1` (ignored below rank 2), cut to `limits`.
    pub(crate) fn new(layout: &ArrayLayout, dims: Option<(usize, usize)>, limits: Limits) -> Self {
        // Narrow enough for a screen: columns of the widest offset.
        let digits = layout.buffer_len().saturating_sub(1).to_string().len();
        let limits = if limits == Limits::FULL {
            limits
        } else {
            Limits {
                cols: limits.cols.min((96 / (digits + 1)).max(4)),
                ..limits
            }
        };
        let (row_dim, col_dim) = match layout.rank() {
            0 => (None, None),
            1 => (None, Some(0)),
            _ => {
                let (r, c) = dims.unwrap_or((0, 1));
                (Some(r), Some(c))
            }
        };
        let fixed_dims: Vec<usize> = (0..layout.rank())
            .filter(|d| Some(*d) != row_dim && Some(*d) != col_dim)
            .collect();
        let fixed_sizes: Vec<usize> = fixed_dims.iter().map(|&d| layout.size(d)).collect();
        let slices_total = fixed_sizes.iter().product();
        let slices: Vec<Vec<usize>> = Odometer::new(&fixed_sizes).take(limits.slices).collect();
        let build = |extend: bool| -> Option<Vec<Grid>> {
            let (ext, padded) = extended(layout, row_dim, col_dim, extend);
            let tiler = Tiler::new(&ext);
            slices
                .iter()
                .map(|fixed| {
                    let fixed = fixed_dims
                        .iter()
                        .copied()
                        .zip(fixed.iter().copied())
                        .collect();
                    grid(
                        layout,
                        &ext,
                        &tiler,
                        (row_dim, col_dim),
                        fixed,
                        padded,
                        limits,
                    )
                })
                .collect()
        };
        let grids = build(true).or_else(|| build(false)).unwrap_or_default();
        let strip = strip(layout, limits.slots);
        let colours = colour_tiles(&grids, &strip);
        Picture {
            layout: *layout,
            grids,
            slices_total,
            strip,
            colours,
        }
    }
}

/// The size of `dim`, or 1 for no dimension.
fn size_of(layout: &ArrayLayout, dim: Option<usize>) -> usize {
    dim.map_or(1, |d| layout.size(d))
}

/// The layout grown over the padding past the ends of the drawn
/// dimensions (when `extend`), and the padded rows and columns.
fn extended(
    layout: &ArrayLayout,
    row_dim: Option<usize>,
    col_dim: Option<usize>,
    extend: bool,
) -> (ArrayLayout, (usize, usize)) {
    let logical = (size_of(layout, row_dim), size_of(layout, col_dim));
    if !extend || layout.element_count() == 0 {
        return (*layout, logical);
    }
    let mut ext = *layout;
    let mut padded = logical;
    if let Some(r) = row_dim {
        (ext, padded.0) = tiles::grow(layout, &ext, r);
    }
    if let Some(c) = col_dim {
        (ext, padded.1) = tiles::grow(layout, &ext, c);
    }
    (ext, padded)
}

/// One grid, or `None` when the grown layout `ext` disagrees with
/// `layout` on a cell (then the caller draws no padding cells).
fn grid(
    layout: &ArrayLayout,
    ext: &ArrayLayout,
    tiler: &Tiler,
    (row_dim, col_dim): (Option<usize>, Option<usize>),
    fixed: Vec<(usize, usize)>,
    padded: (usize, usize),
    limits: Limits,
) -> Option<Grid> {
    let logical = (size_of(layout, row_dim), size_of(layout, col_dim));
    let shown = (padded.0.min(limits.rows), padded.1.min(limits.cols));
    let mut index = vec![0usize; layout.rank()];
    for &(d, i) in &fixed {
        index[d] = i;
    }
    let mut cells = Vec::with_capacity(shown.0 * shown.1);
    for r in 0..shown.0 {
        for c in 0..shown.1 {
            if let Some(d) = row_dim {
                index[d] = r;
            }
            if let Some(d) = col_dim {
                index[d] = c;
            }
            let padding = r >= logical.0 || c >= logical.1;
            let offset = ext.try_offset(&index).ok()?;
            let agrees = if padding {
                layout.try_slot(offset) == Ok(Slot::Padding)
            } else {
                layout.try_offset(&index) == Ok(offset)
            };
            if !agrees {
                return None;
            }
            cells.push(Cell {
                offset,
                padding,
                tile: tiler.tile_of(&index),
            });
        }
    }
    Some(Grid {
        row_dim,
        col_dim,
        fixed,
        padded,
        shown,
        cells,
    })
}

/// The first `limit` slots of the buffer. A padding slot is given the
/// tile of its run when every element drawn sits in the run
/// `offset / volume` of its tile.
fn strip(layout: &ArrayLayout, limit: usize) -> Strip {
    let tiler = Tiler::new(layout);
    let count = layout.buffer_len().min(limit);
    let mut slots: Vec<StripSlot> = (0..count)
        .map(|offset| {
            let slot = layout.try_slot(offset).unwrap_or(Slot::Padding);
            let tile = match slot {
                Slot::Element(index) => tiler.tile_of(&index),
                Slot::Padding => None,
            };
            StripSlot { offset, slot, tile }
        })
        .collect();
    let volume = tiler.volume();
    let runs = tiler.is_tiled()
        && slots
            .iter()
            .all(|s| s.tile.is_none_or(|t| t == s.offset / volume));
    let tiled_len: usize = layout.physical_shape().dims().iter().product();
    if runs {
        for s in slots
            .iter_mut()
            .filter(|s| s.tile.is_none() && s.offset < tiled_len)
        {
            s.tile = Some(s.offset / volume);
        }
    }
    Strip {
        slots,
        buffer_len: layout.buffer_len(),
        run: runs.then_some(volume),
    }
}

/// Gives each tile a colour number below [`PALETTE_LEN`]: its own when
/// there are few tiles, else one different from the tiles it touches in a
/// grid or follows in the strip where the palette allows (greedy, in
/// order of first appearance).
fn colour_tiles(grids: &[Grid], strip: &Strip) -> HashMap<usize, usize> {
    let mut neighbours: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    let mut touch = |a: Option<usize>, b: Option<usize>, order: &mut Vec<usize>| {
        for t in [a, b].into_iter().flatten() {
            if let std::collections::hash_map::Entry::Vacant(e) = neighbours.entry(t) {
                e.insert(Vec::new());
                order.push(t);
            }
        }
        if let (Some(a), Some(b)) = (a, b)
            && a != b
        {
            neighbours.entry(a).or_default().push(b);
            neighbours.entry(b).or_default().push(a);
        }
    };
    for g in grids {
        for r in 0..g.shown.0 {
            for c in 0..g.shown.1 {
                let t = g.cell(r, c).tile;
                let right = (c + 1 < g.shown.1).then(|| g.cell(r, c + 1).tile).flatten();
                let down = (r + 1 < g.shown.0).then(|| g.cell(r + 1, c).tile).flatten();
                touch(t, right, &mut order);
                touch(t, down, &mut order);
            }
        }
    }
    for pair in strip.slots.windows(2) {
        touch(pair[0].tile, pair[1].tile, &mut order);
    }
    if let Some(s) = strip.slots.first() {
        touch(s.tile, None, &mut order);
    }
    if order.len() <= PALETTE_LEN {
        return order.iter().enumerate().map(|(n, &t)| (t, n)).collect();
    }
    let mut colours: HashMap<usize, usize> = HashMap::new();
    for (n, t) in order.iter().enumerate() {
        let taken: Vec<usize> = neighbours[t]
            .iter()
            .filter_map(|u| colours.get(u).copied())
            .collect();
        let free = (0..PALETTE_LEN)
            .find(|c| !taken.contains(c))
            .unwrap_or(n % PALETTE_LEN);
        colours.insert(*t, free);
    }
    colours
}

/// All indices of a box of `sizes`, in row-major order (none when a size
/// is 0; one, empty, when there are no sizes).
pub(crate) struct Odometer {
    sizes: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Odometer {
    /// Starts at all zeros.
    pub(crate) fn new(sizes: &[usize]) -> Odometer {
        let next = (!sizes.contains(&0)).then(|| vec![0; sizes.len()]);
        Odometer {
            sizes: sizes.to_vec(),
            next,
        }
    }
}

impl Iterator for Odometer {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        let mut n = current.clone();
        let mut d = n.len();
        loop {
            if d == 0 {
                break;
            }
            d -= 1;
            n[d] += 1;
            if n[d] < self.sizes[d] {
                self.next = Some(n);
                break;
            }
            n[d] = 0;
        }
        Some(current)
    }
}

/// `index` written `2,3` (empty for rank 0).
pub(crate) fn index_text(index: &DimVec) -> String {
    index
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::Odometer;

    #[test]
    fn odometer_is_row_major() {
        let all: Vec<Vec<usize>> = Odometer::new(&[2, 3]).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[1], vec![0, 1]);
        assert_eq!(all[3], vec![1, 0]);
        assert_eq!(Odometer::new(&[]).count(), 1);
        assert_eq!(Odometer::new(&[2, 0]).count(), 0);
    }
}
