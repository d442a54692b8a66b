//! Drawing a [`Picture`](crate::picture::Picture): as terminal text
//! ([`grid`], [`strip`]) or as an SVG image ([`svg`]).

pub(crate) mod grid;
pub(crate) mod strip;
pub(crate) mod svg;

use anstyle::{AnsiColor, Color, Style};

use crate::picture::PALETTE_LEN;

/// Terminal background colours of the tiles, light enough for black text.
const TERMINAL_PALETTE: [AnsiColor; PALETTE_LEN] = [
    AnsiColor::BrightCyan,
    AnsiColor::BrightYellow,
    AnsiColor::BrightGreen,
    AnsiColor::BrightMagenta,
    AnsiColor::BrightBlue,
    AnsiColor::BrightRed,
];

/// The terminal style of a cell of tile colour `colour`; padding is
/// greyed. The output stream drops styles on non-terminals and under
/// `NO_COLOR`.
pub(crate) fn cell_style(colour: Option<usize>, padding: bool) -> Style {
    let fg = if padding {
        AnsiColor::BrightBlack
    } else {
        AnsiColor::Black
    };
    match colour {
        Some(c) => Style::new()
            .bg_color(Some(Color::Ansi(TERMINAL_PALETTE[c % PALETTE_LEN])))
            .fg_color(Some(Color::Ansi(fg))),
        None if padding => Style::new().fg_color(Some(Color::Ansi(AnsiColor::BrightBlack))),
        None => Style::new(),
    }
}

/// `text` in `style` (plain when the style is empty).
pub(crate) fn paint(style: Style, text: &str) -> String {
    if style == Style::new() {
        text.to_string()
    } else {
        format!("{style}{text}{style:#}")
    }
}

/// What a padding slot shows.
pub(crate) const PADDING_MARK: &str = "·";

/// Display width of `text` (its characters; the marks used are one
/// column each).
pub(crate) fn width(text: &str) -> usize {
    text.chars().count()
}

/// `text` right-aligned in `w` columns.
pub(crate) fn right(text: &str, w: usize) -> String {
    format!("{}{text}", " ".repeat(w.saturating_sub(width(text))))
}

/// `text` centred in `w` columns (any odd column goes right).
pub(crate) fn centre(text: &str, w: usize) -> String {
    let gap = w.saturating_sub(width(text));
    format!("{}{text}{}", " ".repeat(gap - gap / 2), " ".repeat(gap / 2))
}
