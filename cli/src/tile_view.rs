//! Whole tiles: a TPU tile such as `T(8,128)` is wider than a screen, so
//! `show` and `svg` draw the grid of first-level tiles instead (each cell
//! a tile: its number and the share of it that is padding), and
//! `--tile Y,X` draws one tile whole, element by element. Tile numbers come
//! from the engine ([`Tiler`]); the tile's extent along each dimension is
//! read from the layout's first tile.

use layout_core::ArrayLayout;

use crate::dims;
use crate::picture::{Limits, Window, axes, wrap_width};
use crate::spec::CliError;
use crate::tiles::Tiler;

/// Elements of one first-level tile along the rows and the columns of the
/// grids (`None` without tiles, or when a `*` entry merges dimensions).
/// For rank 1 the rows are 1.
pub(crate) fn extent(layout: &ArrayLayout, dims: Option<(usize, usize)>) -> Option<(usize, usize)> {
    let tile = layout.layout().tiles().first()?.raw();
    let m2m = layout.layout().minor_to_major();
    let along = |d: Option<usize>| -> Option<usize> {
        let Some(d) = d else { return Some(1) };
        let pos = m2m.iter().position(|&m| m as usize == d)?;
        match tile.len().checked_sub(1 + pos) {
            Some(k) => Some(tile[k]).filter(|&e| e != 0),
            None => Some(1),
        }
    };
    let (r, c) = axes(layout, dims);
    Some((along(r)?, along(c)?))
}

/// Most elements of a tile `--tile` draws (a `T(128,128)` tile has 16384).
const MAX_WHOLE_TILE: usize = 1 << 16;

/// The window of grid rows and columns holding tile `at` (`Y,X`, or one
/// number for rank 1) whole.
///
/// # Errors
/// No first-level tiles, a `*` entry, a tile of more than 65536 elements,
/// or `at` not naming a tile.
pub(crate) fn window(
    layout: &ArrayLayout,
    dims: Option<(usize, usize)>,
    at: &str,
) -> Result<Window, CliError> {
    let Some((th, tw)) = extent(layout, dims) else {
        return Err(CliError::msg(
            "`--tile` needs a layout with tiles (`:T(..)`) that merge no dims with `*`",
        ));
    };
    if th.saturating_mul(tw) > MAX_WHOLE_TILE {
        return Err(CliError::msg(format!(
            "a tile of {th}x{tw} elements is too large to draw whole (at most {MAX_WHOLE_TILE})"
        )));
    }
    let (r, c) = axes(layout, dims);
    let size = |d: Option<usize>| d.map_or(1, |d| layout.size(d));
    let counts = (size(r).div_ceil(th), size(c).div_ceil(tw));
    let parts: Vec<&str> = at.split([',', ' ']).filter(|p| !p.is_empty()).collect();
    let numbers: Vec<usize> = parts
        .iter()
        .map(|p| p.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| CliError::msg(format!("`--tile` takes tile numbers, not `{at}`")))?;
    let (i, j) = match (layout.rank(), &numbers[..]) {
        (1, &[j]) => (0, j),
        (r, &[i, j]) if r >= 2 => (i, j),
        (r, _) => {
            let want = if r == 1 {
                "one number"
            } else {
                "two numbers, `Y,X`"
            };
            return Err(CliError::msg(format!(
                "`--tile` takes {want} for a rank-{r} array, not `{at}`"
            )));
        }
    };
    if i >= counts.0 || j >= counts.1 {
        let rank = layout.rank();
        let names = match (r, c) {
            (Some(r), Some(c)) => format!("{},{}", dims::name(rank, r), dims::name(rank, c)),
            (_, Some(c)) => dims::name(rank, c),
            _ => String::new(),
        };
        return Err(CliError::msg(format!(
            "tile `{at}` is outside the {}x{} tiles along {names}",
            counts.0, counts.1
        )));
    }
    if layout.rank() == 1 {
        let padded = counts.1 * tw;
        let start = j * tw;
        return Ok(match wrap_width(layout, padded) {
            Some(w) if w < tw => Window {
                origin: (start / w, 0),
                size: Some((tw / w, w)),
            },
            Some(w) => Window {
                origin: (start / w, start % w),
                size: Some((1, tw)),
            },
            None => Window {
                origin: (0, start),
                size: Some((1, tw)),
            },
        });
    }
    Ok(Window {
        origin: (i * th, j * tw),
        size: Some((th, tw)),
    })
}

/// One first-level tile in the tile grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileCell {
    /// The tile's number (its place in memory among first-level tiles).
    pub(crate) number: Option<usize>,
    /// Percent of the tile's slots in this slice that are padding.
    pub(crate) padding_percent: usize,
}

/// The grid of first-level tiles of the first slice.
#[derive(Clone, Debug)]
pub(crate) struct TileGrid {
    /// The dimensions along the rows and columns.
    pub(crate) row_dim: Option<usize>,
    /// The column dimension.
    pub(crate) col_dim: Option<usize>,
    /// Elements per tile along the rows and columns.
    pub(crate) extent: (usize, usize),
    /// Tiles along the rows and columns.
    pub(crate) counts: (usize, usize),
    /// Tiles drawn (fewer when cut).
    pub(crate) shown: (usize, usize),
    /// `shown.0 * shown.1` tiles, row by row.
    pub(crate) cells: Vec<TileCell>,
}

impl TileGrid {
    /// The tile in row `r`, column `c`.
    pub(crate) fn cell(&self, r: usize, c: usize) -> &TileCell {
        &self.cells[r * self.shown.1 + c]
    }
}

/// The tile grid of `layout`, when a tile does not fit in `limits` so
/// that the element grid would never show one whole; `None` otherwise.
pub(crate) fn tile_grid(
    layout: &ArrayLayout,
    dims: Option<(usize, usize)>,
    limits: Limits,
) -> Option<TileGrid> {
    let (th, tw) = extent(layout, dims)?;
    let (row_dim, col_dim) = axes(layout, dims);
    let size = |d: Option<usize>| d.map_or(1, |d| layout.size(d));
    let sizes = (size(row_dim), size(col_dim));
    // How the element grid would lay a tile out: wrapped for rank 1.
    let counts = (sizes.0.div_ceil(th), sizes.1.div_ceil(tw));
    let drawn = match wrap_width(layout, counts.1 * tw) {
        Some(w) if w < tw => (tw / w, w),
        _ => (th, tw),
    };
    let digits = layout.buffer_len().saturating_sub(1).to_string().len();
    let screen_cols = limits.cols.min((96 / (digits + 1)).max(4));
    if (drawn.0 <= limits.rows && drawn.1 <= screen_cols) || layout.element_count() == 0 {
        return None;
    }
    let tiler = Tiler::new(layout);
    let shown = (counts.0.min(limits.rows), counts.1.min(limits.cols.min(12)));
    let mut index = vec![0usize; layout.rank()];
    let mut cells = Vec::with_capacity(shown.0 * shown.1);
    for i in 0..shown.0 {
        for j in 0..shown.1 {
            if let Some(d) = row_dim {
                index[d] = i * th;
            }
            if let Some(d) = col_dim {
                index[d] = j * tw;
            }
            let valid = th.min(sizes.0 - i * th) * tw.min(sizes.1 - j * tw);
            let slots = th * tw;
            cells.push(TileCell {
                number: tiler.tile_of(&index),
                // In 128 bits: a tile may hold up to `i64::MAX` slots.
                padding_percent: ((slots - valid) as u128 * 100).div_ceil(slots as u128) as usize,
            });
        }
    }
    Some(TileGrid {
        row_dim,
        col_dim,
        extent: (th, tw),
        counts,
        shown,
        cells,
    })
}

/// The tile grid as terminal text.
pub(crate) fn render(tg: &TileGrid, rank: usize) -> Vec<String> {
    let label = |t: &TileCell| {
        let n = t
            .number
            .map_or_else(|| "?".to_string(), |n| format!("#{n}"));
        if t.padding_percent > 0 {
            format!("{n} {}%", t.padding_percent)
        } else {
            n
        }
    };
    let w = tg
        .cells
        .iter()
        .map(|t| label(t).len())
        .max()
        .unwrap_or(2)
        .max(4);
    let span = |k: usize, e: usize| {
        if e == 1 {
            k.to_string()
        } else {
            format!("{}..{}", k * e, (k + 1) * e)
        }
    };
    let col_heads: Vec<String> = (0..tg.shown.1).map(|j| span(j, tg.extent.1)).collect();
    let row_heads: Vec<String> = (0..tg.shown.0).map(|i| span(i, tg.extent.0)).collect();
    let w = w.max(col_heads.iter().map(String::len).max().unwrap_or(1));
    let corner = match (tg.row_dim, tg.col_dim) {
        (Some(r), Some(c)) => format!("{}\\{}", dims::name(rank, r), dims::name(rank, c)),
        (None, Some(c)) => dims::name(rank, c),
        _ => String::new(),
    };
    let margin = row_heads
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(corner.len());
    let mut lines = vec![format!(
        "{corner:>margin$}{}",
        col_heads
            .iter()
            .map(|h| format!("  {h:>w$}"))
            .collect::<String>()
    )];
    for (i, head) in row_heads.iter().enumerate() {
        let row_dim_shown = if tg.row_dim.is_some() {
            head.as_str()
        } else {
            ""
        };
        let cells: String = (0..tg.shown.1)
            .map(|j| format!("  {:>w$}", label(tg.cell(i, j))))
            .collect();
        lines.push(format!("{row_dim_shown:>margin$}{cells}"));
    }
    lines
}
