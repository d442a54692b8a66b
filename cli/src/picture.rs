//! The picture that `show` and `svg` draw, as data: 2-D grids of the
//! logical array (each cell an offset, tile and padding marked) and the
//! memory strip (each slot's element or padding). Every number comes from
//! the engine ([`ArrayLayout::offset`], [`ArrayLayout::slot`]).

use std::collections::HashMap;

use layout_core::{ArrayLayout, DimVec, Slot};

use crate::spec::CliError;
use crate::tile_view::TileGrid;
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
    /// Everything (`--full`), as long as it fits the bounds below; a
    /// bigger picture is refused ([`Picture::new`]), not cut.
    pub(crate) const FULL: Limits = Limits {
        rows: MAX_FULL_SIDE,
        cols: MAX_FULL_SIDE,
        slices: MAX_FULL_SLICES,
        slots: MAX_FULL_SLOTS,
    };
}

/// Most grid cells, over all slices, that `--full` draws (padding cells
/// included).
pub(crate) const MAX_FULL_CELLS: usize = 1 << 20;
/// Most rows, or columns, of one grid that `--full` draws.
pub(crate) const MAX_FULL_SIDE: usize = 1 << 12;
/// Most 2-D slices that `--full` draws.
pub(crate) const MAX_FULL_SLICES: usize = 1 << 12;
/// Most buffer slots that `--full` lists in the memory strip.
pub(crate) const MAX_FULL_SLOTS: usize = 1 << 20;

/// The product of `sizes`, or `None` past `usize`.
fn checked_product(sizes: &[usize]) -> Option<usize> {
    if sizes.contains(&0) {
        return Some(0);
    }
    sizes.iter().try_fold(1usize, |p, &s| p.checked_mul(s))
}

/// Refuses a `--full` picture past the bounds: `count` of `what`, at most
/// `max`.
fn check_full(what: &str, count: Option<usize>, max: usize) -> Result<(), CliError> {
    match count {
        Some(n) if n <= max => Ok(()),
        _ => Err(CliError::msg(format!(
            "`--full` would draw {} {what}, more than the {max} it draws; \
             pick two dims with `--dims` or leave out `--full` for a cut picture",
            count.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
        ))),
    }
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
    /// Row and column of the first cell drawn (a tile drawn whole with
    /// `--tile`); `(0, 0)` otherwise.
    pub(crate) origin: (usize, usize),
    /// For a rank-1 array wrapped into rows, the elements per row.
    pub(crate) wrap: Option<usize>,
    /// Whether this is one window drawn whole (`--tile`).
    pub(crate) windowed: bool,
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

    /// Whether rows are labelled (a row dimension, or a wrapped rank-1
    /// array).
    pub(crate) fn has_row_labels(&self) -> bool {
        self.row_dim.is_some() || self.wrap.is_some()
    }

    /// The label of row `r`: its index along the row dimension, or for a
    /// wrapped rank-1 array the index of its first element.
    pub(crate) fn row_label(&self, r: usize) -> String {
        ((self.origin.0 + r) * self.wrap.unwrap_or(1)).to_string()
    }

    /// The label of column `c`: its index along the column dimension.
    pub(crate) fn col_label(&self, c: usize) -> String {
        (self.origin.1 + c).to_string()
    }

    /// The logical position of cell `(r, c)` along the row and column
    /// dimensions (a wrapped rank-1 array has all of it in the column).
    fn position(&self, r: usize, c: usize) -> (usize, usize) {
        match self.wrap {
            Some(w) => (0, (self.origin.0 + r) * w + c),
            None => (self.origin.0 + r, self.origin.1 + c),
        }
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
    /// The slots drawn, in offset order from the first one's.
    pub(crate) slots: Vec<StripSlot>,
    /// The buffer length.
    pub(crate) buffer_len: usize,
    /// Slots per first-level tile when each tile is one run of slots.
    pub(crate) run: Option<usize>,
}

impl Strip {
    /// Whether slots were left out, and if so which were drawn:
    /// `start..end`.
    pub(crate) fn cut(&self) -> Option<(usize, usize)> {
        let start = self.slots.first().map_or(0, |s| s.offset);
        let end = start + self.slots.len();
        (self.slots.len() < self.buffer_len).then_some((start, end))
    }
}

/// Everything `show` and `svg` draw.
#[derive(Clone, Debug)]
pub(crate) struct Picture {
    /// The layout drawn.
    pub(crate) layout: ArrayLayout,
    /// The grids drawn.
    pub(crate) grids: Vec<Grid>,
    /// How many 2-D slices the array has (`usize::MAX` past that).
    pub(crate) slices_total: usize,
    /// The memory strip.
    pub(crate) strip: Strip,
    /// Colour number of each tile: tiles that touch get different ones.
    pub(crate) colours: HashMap<usize, usize>,
    /// The grid of whole tiles, drawn instead of [`Picture::grids`] when
    /// one tile is larger than a screen.
    pub(crate) tile_grid: Option<TileGrid>,
}

/// One part of what `show` and `svg` draw: its title (a tuple element's
/// ShapeIndex and shape) and its picture, or why it has none (`token[]`).
pub(crate) type Part = (Option<String>, Result<Picture, String>);

/// Colours the palettes have.
pub(crate) const PALETTE_LEN: usize = 6;

/// The part of the array the grids draw: all of it (cut to the limits),
/// or one window drawn whole (a tile, `--tile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Window {
    /// First row and column drawn, in grid rows and columns.
    pub(crate) origin: (usize, usize),
    /// Rows and columns drawn; `None` for up to the limits.
    pub(crate) size: Option<(usize, usize)>,
}

/// Columns a screen shows of a wrapped rank-1 array, at most.
const WRAP_COLS: usize = 24;

/// The row length of a tiled rank-1 array of `padded` slots in tiles of
/// `tile` elements: the most whole tiles a screen row holds whose length
/// divides `padded`, or, for a tile wider than a screen, the widest
/// divisor of the tile that fits. `None` when untiled or when neither
/// exists.
pub(crate) fn wrap_width(layout: &ArrayLayout, padded: usize) -> Option<usize> {
    if layout.rank() != 1 {
        return None;
    }
    let tile = *layout.layout().tiles().first()?.raw().last()?;
    if tile < 2 || padded == 0 || !padded.is_multiple_of(tile) {
        return None;
    }
    if tile <= WRAP_COLS {
        (1..=WRAP_COLS / tile)
            .rev()
            .map(|k| k * tile)
            .find(|w| padded.is_multiple_of(*w))
    } else {
        (2..=WRAP_COLS).rev().find(|w| tile.is_multiple_of(*w))
    }
}

impl Picture {
    /// The picture of `layout` with rows along `dims.0` and columns along
    /// `dims.1` (ignored below rank 2), cut to `limits`, of `window`.
    /// A tiled rank-1 array wraps into rows ([`wrap_width`]).
    ///
    /// # Errors
    /// With [`Limits::FULL`], a picture of more than [`MAX_FULL_SLICES`]
    /// slices, [`MAX_FULL_SIDE`] rows or columns, [`MAX_FULL_CELLS`] cells
    /// or [`MAX_FULL_SLOTS`] slots.
    pub(crate) fn new(
        layout: &ArrayLayout,
        dims: Option<(usize, usize)>,
        limits: Limits,
        window: Window,
    ) -> Result<Self, CliError> {
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
        let (row_dim, col_dim) = axes(layout, dims);
        let fixed_dims: Vec<usize> = (0..layout.rank())
            .filter(|d| Some(*d) != row_dim && Some(*d) != col_dim)
            .collect();
        let fixed_sizes: Vec<usize> = fixed_dims.iter().map(|&d| layout.size(d)).collect();
        let slices_total = checked_product(&fixed_sizes);
        if limits == Limits::FULL {
            check_full("buffer slots", Some(layout.buffer_len()), MAX_FULL_SLOTS)?;
            check_full("2-D slices", slices_total, MAX_FULL_SLICES)?;
            let (_, padded) = extended(layout, row_dim, col_dim, true);
            let cells = slices_total
                .and_then(|n| n.checked_mul(padded.0))
                .and_then(|n| n.checked_mul(padded.1));
            check_full("rows", Some(padded.0), MAX_FULL_SIDE)?;
            check_full("columns", Some(padded.1), MAX_FULL_SIDE)?;
            check_full("grid cells", cells, MAX_FULL_CELLS)?;
        }
        let slices_total = slices_total.unwrap_or(usize::MAX);
        let slices: Vec<Vec<usize>> = Odometer::new(&fixed_sizes).take(limits.slices).collect();
        let build = |extend: bool| -> Option<Vec<Grid>> {
            let (ext, padded) = extended(layout, row_dim, col_dim, extend);
            let tiler = Tiler::new(&ext);
            let wrap = wrap_width(layout, padded.1);
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
                        window,
                        wrap,
                    )
                })
                .collect()
        };
        let grids = build(true).or_else(|| build(false)).unwrap_or_default();
        // A tile drawn whole gets its own run of slots in the strip.
        let strip = match (window.size, grids.first()) {
            (Some(_), Some(g)) => {
                let volume = Tiler::new(layout).volume().max(1);
                let first = g.cells.iter().map(|c| c.offset).min().unwrap_or(0);
                strip(layout, first / volume * volume, volume)
            }
            _ => strip(layout, 0, limits.slots),
        };
        let colours = colour_tiles(&grids, &strip);
        Ok(Picture {
            layout: *layout,
            grids,
            slices_total,
            strip,
            colours,
            tile_grid: None,
        })
    }
}

/// The dimensions along the rows and columns of the grids: none for rank
/// 0, columns only for rank 1, `dims` (default `(0, 1)`) above.
pub(crate) fn axes(
    layout: &ArrayLayout,
    dims: Option<(usize, usize)>,
) -> (Option<usize>, Option<usize>) {
    match layout.rank() {
        0 => (None, None),
        1 => (None, Some(0)),
        _ => {
            let (r, c) = dims.unwrap_or((0, 1));
            (Some(r), Some(c))
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
#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the parts of one picture's geometry"
)]
fn grid(
    layout: &ArrayLayout,
    ext: &ArrayLayout,
    tiler: &Tiler,
    (row_dim, col_dim): (Option<usize>, Option<usize>),
    fixed: Vec<(usize, usize)>,
    padded: (usize, usize),
    limits: Limits,
    window: Window,
    wrap: Option<usize>,
) -> Option<Grid> {
    let logical = (size_of(layout, row_dim), size_of(layout, col_dim));
    // Rows and columns of the grid, in its own units.
    let padded = match wrap {
        Some(w) => (padded.1 / w, w),
        None => padded,
    };
    let avail = (
        padded.0.saturating_sub(window.origin.0),
        padded.1.saturating_sub(window.origin.1),
    );
    let want = window.size.unwrap_or((limits.rows, limits.cols));
    let shown = (avail.0.min(want.0), avail.1.min(want.1));
    let mut g = Grid {
        row_dim,
        col_dim,
        fixed,
        padded,
        shown,
        cells: Vec::with_capacity(shown.0 * shown.1),
        origin: window.origin,
        wrap,
        windowed: window.size.is_some(),
    };
    let mut index = vec![0usize; layout.rank()];
    for &(d, i) in &g.fixed {
        index[d] = i;
    }
    for r in 0..shown.0 {
        for c in 0..shown.1 {
            let (pr, pc) = g.position(r, c);
            if let Some(d) = row_dim {
                index[d] = pr;
            }
            if let Some(d) = col_dim {
                index[d] = pc;
            }
            let padding = pr >= logical.0 || pc >= logical.1;
            let offset = ext.try_offset(&index).ok()?;
            let agrees = if padding {
                layout.try_slot(offset) == Ok(Slot::Padding)
            } else {
                layout.try_offset(&index) == Ok(offset)
            };
            if !agrees {
                return None;
            }
            g.cells.push(Cell {
                offset,
                padding,
                tile: tiler.tile_of(&index),
            });
        }
    }
    Some(g)
}

/// Up to `limit` slots of the buffer from offset `start`. A padding slot
/// is given the tile of its run when every element drawn sits in the run
/// `offset / volume` of its tile.
fn strip(layout: &ArrayLayout, start: usize, limit: usize) -> Strip {
    let tiler = Tiler::new(layout);
    let end = layout.buffer_len().min(start.saturating_add(limit));
    let mut slots: Vec<StripSlot> = (start.min(end)..end)
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
    let tiled_len = checked_product(layout.physical_shape().dims()).unwrap_or(usize::MAX);
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
