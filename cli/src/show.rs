//! `tessera show`: the summary of a layout and its picture as terminal
//! text.

use std::fmt::Write as _;

use layout_core::xla::layout_util;
use layout_core::{ArrayLayout, DimVec};

use crate::dims;
use crate::picture::{Grid, Picture};
use crate::render::{grid, strip};
use crate::tile_view;

/// `name=value` for each dimension: `y=3 x=5`.
fn per_dim(rank: usize, values: &DimVec) -> String {
    values
        .iter()
        .enumerate()
        .map(|(d, v)| format!("{}={v}", dims::name(rank, d)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The summary lines: canonical form, sizes, physical shape, strides.
pub(crate) fn summary(a: &ArrayLayout) -> String {
    let rank = a.rank();
    let mut s = String::new();
    let mut row = |key: &str, value: String| {
        let _ = writeln!(s, "{key:<15} {value}");
    };
    row("layout", a.to_string());
    let dims_text = if rank == 0 {
        "scalar".to_string()
    } else {
        per_dim(rank, &a.sizes())
    };
    row("rank", format!("{rank} ({dims_text})"));
    row("elements", a.element_count().to_string());
    row("buffer length", format!("{} slots", a.buffer_len()));
    row(
        "padding slots",
        (a.buffer_len() - a.element_count()).to_string(),
    );
    row("logical bytes", a.logical_byte_size().to_string());
    row("physical bytes", a.physical_byte_size().to_string());
    if let Some(line) = xla_allocation(a) {
        row("xla allocation", line);
    }
    let physical: Vec<String> = a
        .physical_shape()
        .dims()
        .iter()
        .map(usize::to_string)
        .collect();
    row(
        "physical shape",
        format!("[{}] (major to minor)", physical.join(",")),
    );
    let strides = match (a.strides(), a.byte_strides()) {
        (Some(_), _) if rank == 0 => "none (scalar)".to_string(),
        (Some(e), Some(b)) => {
            format!(
                "{} elements ({} bytes)",
                per_dim(rank, &e),
                per_dim(rank, &b)
            )
        }
        (Some(e), None) => format!("{} elements (packed below a byte)", per_dim(rank, &e)),
        (None, _) => "not strided (tiling reorders elements)".to_string(),
    };
    row("strides", strides);
    s
}

/// XLA's allocation (`ShapeUtil::ArraySize`) with the reason it differs
/// from tessera's buffer, or `None` when they agree.
fn xla_allocation(a: &ArrayLayout) -> Option<String> {
    let ours = a.physical_byte_size();
    let l = a.layout();
    let Some(xla) = layout_util::xla_array_size_bytes(a.shape()) else {
        return l.is_tiled().then(|| {
            "none: XLA does not size a first tile with `*` (ShapeUtil::ArraySize)".to_string()
        });
    };
    if xla == ours {
        return None;
    }
    let reason = if l.tiles().len() > 1 {
        "XLA pads for the first tile level only; tessera's buffer holds every level's padding"
    } else if l.padding().is_some() {
        "XLA's size leaves out `pad(..)`"
    } else if !l.is_tiled() && l.tail_padding_alignment_in_elements() != 1 {
        "without tiles XLA ignores `L(n)`"
    } else if !l.split_configs().is_empty() {
        "XLA sizes each split dimension by its largest split"
    } else {
        "XLA's size counts the buffer differently"
    };
    Some(format!(
        "{xla} bytes, not {ours} (ShapeUtil::ArraySize): {reason}"
    ))
}

/// A note saying what was left out of a grid, if anything.
fn grid_note(g: &Grid) -> Option<String> {
    if g.windowed {
        let (rows, cols) = (g.row_label(0), g.col_label(0));
        return Some(format!(
            "… one tile, whole: {} rows from {rows} and {} columns from {cols}",
            g.shown.0, g.shown.1
        ));
    }
    if !g.is_cut() {
        return None;
    }
    Some(format!(
        "… showing {} of {} rows and {} of {} columns (--full shows all)",
        g.shown.0, g.padded.0, g.shown.1, g.padded.1
    ))
}

/// The whole `show` output: summary, grids and memory strip.
pub(crate) fn render(picture: &Picture) -> String {
    let a = &picture.layout;
    let rank = a.rank();
    let mut out = summary(a);
    let tiled = !a.layout().tiles().is_empty();
    let boxed = if tiled {
        ", first-level tiles boxed"
    } else {
        ""
    };
    if let Some(tg) = &picture.tile_grid {
        let (th, tw) = tg.extent;
        let tile = match tg.row_dim {
            Some(_) => format!("{th}x{tw}"),
            None => tw.to_string(),
        };
        let _ = writeln!(
            out,
            "\none tile ({tile} elements) is larger than a screen: the first-level tiles,\n\
             each with its number in memory and the share that is padding \
             (--tile {} draws one whole):",
            if tg.row_dim.is_some() { "Y,X" } else { "N" }
        );
        for line in tile_view::render(tg, rank) {
            let _ = writeln!(out, "  {line}");
        }
        if tg.shown != tg.counts {
            let _ = writeln!(
                out,
                "  … showing {} of {} rows and {} of {} columns of tiles",
                tg.shown.0, tg.counts.0, tg.shown.1, tg.counts.1
            );
        }
    } else {
        grids(&mut out, picture, boxed);
    }
    strip_lines(&mut out, picture);
    out
}

/// The grids of the logical array.
fn grids(out: &mut String, picture: &Picture, boxed: &str) {
    let rank = picture.layout.rank();
    let _ = writeln!(
        out,
        "\noffset of each element by logical index (· padding{boxed}):"
    );
    for g in &picture.grids {
        if !g.fixed.is_empty() {
            let at: Vec<String> = g
                .fixed
                .iter()
                .map(|&(d, i)| format!("{}={i}", dims::name(rank, d)))
                .collect();
            let _ = writeln!(out, "\n{}:", at.join(" "));
        }
        for line in grid::render(g, rank, &picture.colours) {
            let _ = writeln!(out, "  {line}");
        }
        if let Some(note) = grid_note(g) {
            let _ = writeln!(out, "  {note}");
        }
    }
    if picture.grids.len() < picture.slices_total {
        let _ = writeln!(
            out,
            "\n… showing {} of {} slices (--full shows all; --dims picks the two dims drawn)",
            picture.grids.len(),
            picture.slices_total
        );
    }
}

/// The memory strip.
fn strip_lines(out: &mut String, picture: &Picture) {
    let rank = picture.layout.rank();
    let names: Vec<String> = (0..rank).map(|d| dims::name(rank, d)).collect();
    let what = if rank == 0 {
        "[] for the scalar".to_string()
    } else {
        names.join(",")
    };
    let _ = writeln!(
        out,
        "\nmemory order: each slot's logical index {what} (· padding):"
    );
    for line in strip::render(&picture.strip, &picture.colours) {
        let _ = writeln!(out, "  {line}");
    }
    if let Some((start, end)) = picture.strip.cut() {
        let _ = writeln!(
            out,
            "  … showing slots {start}..{end} of {} (--full shows all)",
            picture.strip.buffer_len
        );
    }
}
