//! A [`Picture`] as an SVG image: the grids with tiles coloured, thick
//! lines between tiles and each cell's offset, then the memory strip with
//! each slot's logical index and offset.

use std::fmt::Write as _;

use layout_core::Slot;

use crate::dims;
use crate::picture::{Grid, PALETTE_LEN, Part, Picture};
use crate::render::strip;
use crate::tile_view::TileGrid;

/// Tile fills, light enough for black text.
const FILLS: [&str; PALETTE_LEN] = [
    "#a6cee3", "#fdbf6f", "#b2df8a", "#cab2d6", "#fb9a99", "#ffff99",
];
/// Fill of cells of an untiled layout.
const PLAIN_FILL: &str = "#dde6f2";
/// Row height of grid cells and strip slots.
const CELL_H: usize = 30;
/// Pixels per character of the 14px monospace labels (a generous guess).
const CHAR_W: usize = 9;
/// Left and right margin.
const MARGIN: usize = 16;

/// Escapes `text` for XML.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Cell width for labels of `chars` characters.
fn cell_w(chars: usize) -> usize {
    (chars * CHAR_W + 14).max(34)
}

/// The fill of tile `tile`.
fn fill(p: &Picture, tile: Option<usize>) -> &'static str {
    tile.and_then(|t| p.colours.get(&t))
        .map_or(PLAIN_FILL, |&c| FILLS[c % PALETTE_LEN])
}

/// A text element.
fn text(out: &mut String, x: usize, y: usize, class: &str, anchor: &str, body: &str) {
    let _ = writeln!(
        out,
        r#"<text class="{class}" x="{x}" y="{y}" text-anchor="{anchor}">{}</text>"#,
        xml(body)
    );
}

/// Draws grid `g` with its top-left corner at `(x0, y0)`; returns its
/// height and width.
fn grid(out: &mut String, p: &Picture, g: &Grid, x0: usize, y0: usize) -> (usize, usize) {
    let rank = p.layout.rank();
    let (rows, cols) = g.shown;
    let labels: Vec<String> = g
        .cells
        .iter()
        .map(|c| {
            if c.padding {
                "·".to_string()
            } else {
                c.offset.to_string()
            }
        })
        .collect();
    let w = cell_w(labels.iter().map(|l| l.chars().count()).max().unwrap_or(1));
    let label_w = if g.has_row_labels() {
        (16 + 8 * g.row_label(rows.saturating_sub(1)).len()).max(40)
    } else {
        0
    };
    let mut y = y0;
    if !g.fixed.is_empty() {
        let at: Vec<String> = g
            .fixed
            .iter()
            .map(|&(d, i)| format!("{}={i}", dims::name(rank, d)))
            .collect();
        text(out, x0, y + 14, "caption", "start", &at.join(" "));
        y += 24;
    }
    let gx = x0 + label_w;
    if let Some(cd) = g.col_dim {
        let corner = match g.row_dim {
            Some(rd) => format!("{}\\{}", dims::name(rank, rd), dims::name(rank, cd)),
            None => dims::name(rank, cd),
        };
        text(out, x0, y + 14, "axis", "start", &corner);
        for c in 0..cols {
            text(
                out,
                gx + c * w + w / 2,
                y + 14,
                "axis",
                "middle",
                &g.col_label(c),
            );
        }
        y += 20;
    }
    for r in 0..rows {
        if g.has_row_labels() {
            text(
                out,
                gx - 8,
                y + r * CELL_H + 20,
                "axis",
                "end",
                &g.row_label(r),
            );
        }
        for c in 0..cols {
            let cell = g.cell(r, c);
            let (x, cy) = (gx + c * w, y + r * CELL_H);
            let kind = if cell.padding { "padding" } else { "element" };
            let _ = writeln!(
                out,
                r#"<rect class="cell {kind}" x="{x}" y="{cy}" width="{w}" height="{CELL_H}" fill="{}" data-offset="{}"/>"#,
                fill(p, cell.tile),
                cell.offset
            );
            text(
                out,
                x + w / 2,
                cy + 20,
                kind,
                "middle",
                &labels[r * cols + c],
            );
        }
    }
    for r in 0..=rows {
        for c in 0..=cols {
            if r < rows && g.v(r, c) {
                let (x, ya) = (gx + c * w, y + r * CELL_H);
                line(out, (x, ya), (x, ya + CELL_H));
            }
            if c < cols && g.h(r, c) {
                let (xa, yy) = (gx + c * w, y + r * CELL_H);
                line(out, (xa, yy), (xa + w, yy));
            }
        }
    }
    (y + rows * CELL_H - y0, label_w + cols * w)
}

/// A tile boundary.
fn line(out: &mut String, (x1, y1): (usize, usize), (x2, y2): (usize, usize)) {
    let _ = writeln!(
        out,
        r#"<line class="tile-edge" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>"#
    );
}

/// Draws the memory strip at `(x0, y0)`; returns its height and width.
fn memory(out: &mut String, p: &Picture, x0: usize, y0: usize) -> (usize, usize) {
    let s = &p.strip;
    let labels: Vec<String> = s.slots.iter().map(strip::label).collect();
    let sw = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    let per_line = strip::slots_per_line(s, sw).min(32);
    let w = cell_w(sw);
    let row_h = CELL_H + 14;
    let lines = s.slots.len().div_ceil(per_line);
    for (i, slot) in s.slots.iter().enumerate() {
        let (x, y) = (x0 + (i % per_line) * w, y0 + (i / per_line) * row_h + 12);
        let kind = if slot.slot == Slot::Padding {
            "padding"
        } else {
            "element"
        };
        let _ = writeln!(
            out,
            r#"<rect class="slot {kind}" x="{x}" y="{y}" width="{w}" height="{CELL_H}" fill="{}" data-offset="{}"/>"#,
            fill(p, slot.tile),
            slot.offset
        );
        text(
            out,
            x + 2,
            y - 2,
            "offset",
            "start",
            &slot.offset.to_string(),
        );
        text(out, x + w / 2, y + 20, kind, "middle", &labels[i]);
        let new_tile = i % per_line == 0 || s.slots[i - 1].tile != slot.tile;
        if new_tile {
            line(out, (x, y), (x, y + CELL_H));
        }
        let last = i + 1 == s.slots.len() || (i + 1) % per_line == 0;
        if last || s.slots[i + 1].tile != slot.tile {
            line(out, (x + w, y), (x + w, y + CELL_H));
        }
        line(out, (x, y), (x + w, y));
        line(out, (x, y + CELL_H), (x + w, y + CELL_H));
    }
    (lines * row_h, per_line.min(s.slots.len()) * w)
}

/// Draws the picture `p` from `y`; returns its width and the `y` below it.
fn draw(body: &mut String, p: &Picture, mut y: usize) -> (usize, usize) {
    text(
        body,
        MARGIN,
        y + 16,
        "title",
        "start",
        &p.layout.to_string(),
    );
    y += 36;
    let mut width = MARGIN + p.layout.to_string().len() * 11;
    if let Some(tg) = &p.tile_grid {
        let (h, w) = tile_grid(body, p, tg, MARGIN, y);
        width = width.max(MARGIN + w);
        y += h + 24;
    }
    for g in p.grids.iter().filter(|_| p.tile_grid.is_none()) {
        let (h, w) = grid(body, p, g, MARGIN, y);
        width = width.max(MARGIN + w);
        y += h + 24;
    }
    if p.tile_grid.is_none() && p.grids.len() < p.slices_total {
        let note = format!("showing {} of {} slices", p.grids.len(), p.slices_total);
        text(body, MARGIN, y, "caption", "start", &note);
        y += 24;
    }
    text(
        body,
        MARGIN,
        y + 14,
        "caption",
        "start",
        "memory order (slot offset, logical index)",
    );
    y += 24;
    let (h, w) = memory(body, p, MARGIN, y);
    width = width.max(MARGIN + w);
    y += h;
    if let Some((start, end)) = p.strip.cut() {
        let note = format!("showing slots {start}..{end} of {}", p.strip.buffer_len);
        text(body, MARGIN, y + 14, "caption", "start", &note);
        y += 24;
    }
    (width, y)
}

/// Draws the grid of whole tiles `tg` at `(x0, y0)`: one cell per tile
/// with its number and padding share; returns its height and width.
fn tile_grid(out: &mut String, p: &Picture, tg: &TileGrid, x0: usize, y0: usize) -> (usize, usize) {
    let (th, tw) = tg.extent;
    let caption = format!(
        "first-level tiles of {} elements (number in memory, padding share)",
        if tg.row_dim.is_some() {
            format!("{th}x{tw}")
        } else {
            tw.to_string()
        }
    );
    text(out, x0, y0 + 14, "caption", "start", &caption);
    let y = y0 + 24;
    let w = 80;
    for r in 0..tg.shown.0 {
        for c in 0..tg.shown.1 {
            let t = tg.cell(r, c);
            let (x, cy) = (x0 + c * w, y + r * CELL_H);
            let _ = writeln!(
                out,
                r#"<rect class="tile" x="{x}" y="{cy}" width="{w}" height="{CELL_H}" fill="{}" data-tile="{}" data-padding-percent="{}"/>"#,
                fill(p, t.number),
                t.number.map_or_else(String::new, |n| n.to_string()),
                t.padding_percent
            );
            let label = match t.number {
                Some(n) if t.padding_percent > 0 => format!("#{n} {}%", t.padding_percent),
                Some(n) => format!("#{n}"),
                None => "?".to_string(),
            };
            text(out, x + w / 2, cy + 20, "element", "middle", &label);
            line(out, (x, cy), (x + w, cy));
            line(out, (x, cy), (x, cy + CELL_H));
        }
    }
    let (h, wd) = (tg.shown.0 * CELL_H, tg.shown.1 * w);
    line(out, (x0, y + h), (x0 + wd, y + h));
    line(out, (x0 + wd, y), (x0 + wd, y + h));
    (24 + h, wd)
}

/// The SVG document of `parts`, one picture per array (a tuple's
/// elements one below the other, titled), or a note for a part with
/// nothing to draw.
pub(crate) fn render_all(parts: &[Part]) -> String {
    let mut body = String::new();
    let mut y = 12;
    let mut width = 0;
    for (k, (title, part)) in parts.iter().enumerate() {
        if k > 0 {
            y += 12;
        }
        if let Some(t) = title {
            text(
                &mut body,
                MARGIN,
                y + 16,
                "title",
                "start",
                &format!("tuple element {t}"),
            );
            y += 36;
        }
        match part {
            Ok(p) => {
                let (w, end) = draw(&mut body, p, y);
                width = width.max(w);
                y = end;
            }
            Err(note) => {
                text(&mut body, MARGIN, y + 14, "caption", "start", note);
                width = width.max(MARGIN + note.len() * CHAR_W);
                y += 36;
            }
        }
    }
    let (width, height) = (width + MARGIN, y + MARGIN);
    format!(
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace">
<style>
text {{ font-size: 14px; fill: #111; }}
.title {{ font-size: 18px; font-weight: bold; }}
.caption {{ font-size: 14px; fill: #333; }}
.axis {{ font-size: 12px; fill: #555; }}
.offset {{ font-size: 9px; fill: #666; }}
text.padding {{ fill: #777; }}
rect.padding {{ fill-opacity: 0.35; }}
rect {{ stroke: #ffffff; stroke-width: 1; }}
.tile-edge {{ stroke: #222; stroke-width: 2.5; stroke-linecap: square; }}
</style>
<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="#ffffff" stroke="none"/>
{body}</svg>
"##
    )
}
