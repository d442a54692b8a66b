//! `tessera show`: the summary of a layout and its picture as terminal
//! text.

use std::fmt::Write as _;

use layout_core::{ArrayLayout, DimVec};

use crate::dims;
use crate::picture::{Grid, Picture};
use crate::render::{grid, strip};

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

/// A note saying what was left out of a grid, if anything.
fn grid_note(g: &Grid) -> Option<String> {
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
    let shown = picture.strip.slots.len();
    if shown < picture.strip.buffer_len {
        let _ = writeln!(
            out,
            "  … showing slots 0..{} of {} (--full shows all)",
            shown, picture.strip.buffer_len
        );
    }
    out
}
