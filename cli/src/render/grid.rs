//! A [`Grid`] as terminal text: each cell its offset (`·` for padding),
//! first-level tiles boxed with line-drawing characters and, on a colour
//! terminal, painted.

use std::collections::HashMap;

use crate::dims;
use crate::picture::Grid;
use crate::render::{PADDING_MARK, cell_style, paint, right, width};

/// The text of `grid` of a rank-`rank` array, one line per entry, tiles
/// coloured after `colours`.
pub(crate) fn render(grid: &Grid, rank: usize, colours: &HashMap<usize, usize>) -> Vec<String> {
    let (rows, cols) = grid.shown;
    if rows == 0 || cols == 0 {
        return vec!["(no elements)".to_string()];
    }
    let b = Boundaries::new(grid);
    let label = |r: usize, c: usize| {
        let cell = grid.cell(r, c);
        if cell.padding {
            PADDING_MARK.to_string()
        } else {
            cell.offset.to_string()
        }
    };
    let w = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| width(&label(r, c)))
        .chain((0..cols).map(|c| grid.col_label(c).len()))
        .max()
        .unwrap_or(1);
    let corner = match (grid.row_dim, grid.col_dim) {
        (Some(r), Some(c)) => format!("{}\\{}", dims::name(rank, r), dims::name(rank, c)),
        (None, Some(c)) => dims::name(rank, c),
        _ => String::new(),
    };
    let margin = (if grid.has_row_labels() {
        grid.row_label(rows.saturating_sub(1)).len()
    } else {
        0
    })
    .max(width(&corner))
        + 1;
    let mut lines = Vec::new();
    if grid.col_dim.is_some() {
        let mut line = format!("{} ", right(&corner, margin - 1));
        for c in 0..cols {
            line.push_str(&" ".repeat(b.col_width(c)));
            line.push_str(&right(&grid.col_label(c), w + 1));
        }
        lines.push(line.trim_end().to_string());
    }
    for r in 0..=rows {
        if b.row_present(r) {
            let mut line = " ".repeat(margin);
            for c in 0..=cols {
                if b.col_width(c) > 0 {
                    if c > 0 {
                        line.push(if b.h(r, c - 1) { '─' } else { ' ' });
                    }
                    line.push(b.junction(r, c));
                }
                if c < cols {
                    line.push_str(&(if b.h(r, c) { "─" } else { " " }).repeat(w + 1));
                }
            }
            lines.push(line.trim_end().to_string());
        }
        if r == rows {
            break;
        }
        let mut line = if grid.has_row_labels() {
            format!("{} ", right(&grid.row_label(r), margin - 1))
        } else {
            " ".repeat(margin)
        };
        for c in 0..=cols {
            match b.col_width(c) {
                0 => {}
                1 => line.push(if b.v(r, c) { '│' } else { ' ' }),
                _ => line.push_str(if b.v(r, c) { " │" } else { "  " }),
            }
            if c < cols {
                let cell = grid.cell(r, c);
                let colour = cell.tile.and_then(|t| colours.get(&t).copied());
                let text = format!(" {}", right(&label(r, c), w));
                line.push_str(&paint(cell_style(colour, cell.padding), &text));
            }
        }
        lines.push(line);
    }
    lines
}

/// Where tile boundaries run between the cells of a grid.
struct Boundaries<'a> {
    grid: &'a Grid,
}

impl Boundaries<'_> {
    fn new(grid: &Grid) -> Boundaries<'_> {
        Boundaries { grid }
    }

    fn v(&self, r: usize, c: usize) -> bool {
        self.grid.v(r, c)
    }

    fn h(&self, r: usize, c: usize) -> bool {
        self.grid.h(r, c)
    }

    /// Whether boundary row `r` draws any horizontal line.
    fn row_present(&self, r: usize) -> bool {
        (0..self.grid.shown.1).any(|c| self.h(r, c))
    }

    /// Columns taken by the boundary left of column `c`: the left edge
    /// takes 1; a boundary with a line somewhere takes 2 (space, line);
    /// one with none takes 0.
    fn col_width(&self, c: usize) -> usize {
        if c == 0 {
            1
        } else if (0..self.grid.shown.0).any(|r| self.v(r, c)) {
            2
        } else {
            0
        }
    }

    /// The line-drawing character where boundary row `r` meets boundary
    /// column `c`.
    fn junction(&self, r: usize, c: usize) -> char {
        let (rows, cols) = self.grid.shown;
        let up = r > 0 && self.v(r - 1, c);
        let down = r < rows && self.v(r, c);
        let left = c > 0 && self.h(r, c - 1);
        let right = c < cols && self.h(r, c);
        match (up, down, left, right) {
            (true, true, true, true) => '┼',
            (true, true, true, false) => '┤',
            (true, true, false, true) => '├',
            (true, false, true, true) => '┴',
            (false, true, true, true) => '┬',
            (false, true, false, true) => '┌',
            (false, true, true, false) => '┐',
            (true, false, false, true) => '└',
            (true, false, true, false) => '┘',
            (true, _, false, false) | (_, true, false, false) => '│',
            (false, false, _, _) if left || right => '─',
            _ => ' ',
        }
    }
}
