//! The memory strip as terminal text: the buffer's slots in offset order,
//! each showing the logical index it holds (`·` for padding), tiles
//! separated by `│` and painted, one line per run of whole tiles where
//! they fit.

use std::collections::HashMap;

use layout_core::Slot;

use crate::picture::{Strip, StripSlot, index_text};
use crate::render::{PADDING_MARK, cell_style, centre, paint, right, width};

/// Widest line of slots aimed for, in columns.
const LINE_WIDTH: usize = 80;

/// What slot `s` shows: its element's logical index, or `·`.
pub(crate) fn label(s: &StripSlot) -> String {
    match s.slot {
        Slot::Element(index) if index.is_empty() => "[]".to_string(),
        Slot::Element(index) => index_text(&index),
        Slot::Padding => PADDING_MARK.to_string(),
    }
}

/// Slots per line: whole tiles when a tile is one run and fits, as many
/// on each line as evens out the lines; else as many as fit in
/// [`LINE_WIDTH`].
pub(crate) fn slots_per_line(strip: &Strip, slot_width: usize) -> usize {
    let fit = (LINE_WIDTH / (slot_width + 1)).max(1);
    match strip.run {
        Some(v) if v * (slot_width + 1) + 2 <= LINE_WIDTH => {
            let tiles = strip.slots.len().div_ceil(v).max(1);
            let most = LINE_WIDTH / (v * (slot_width + 1) + 2);
            let lines = tiles.div_ceil(most);
            v * tiles.div_ceil(lines)
        }
        _ => fit,
    }
}

/// The text of `strip`, tiles coloured after `colours`.
pub(crate) fn render(strip: &Strip, colours: &HashMap<usize, usize>) -> Vec<String> {
    let labels: Vec<String> = strip.slots.iter().map(label).collect();
    let sw = labels.iter().map(|l| width(l)).max().unwrap_or(1);
    let per_line = slots_per_line(strip, sw);
    let ow = strip.slots.last().map_or(1, |s| s.offset.to_string().len());
    let mut lines = Vec::new();
    for (chunk, chunk_labels) in strip.slots.chunks(per_line).zip(labels.chunks(per_line)) {
        let mut line = format!("{} │", right(&chunk[0].offset.to_string(), ow));
        for (i, (s, l)) in chunk.iter().zip(chunk_labels).enumerate() {
            if i > 0 && chunk[i - 1].tile != s.tile {
                line.push_str(" │");
            }
            let colour = s.tile.and_then(|t| colours.get(&t).copied());
            let padding = s.slot == Slot::Padding;
            let text = if padding { centre(l, sw) } else { right(l, sw) };
            line.push_str(&paint(cell_style(colour, padding), &format!(" {text}")));
        }
        line.push_str(" │");
        lines.push(line);
    }
    lines
}
