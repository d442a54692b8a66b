//! What each subcommand does, given its parsed arguments: output text on
//! success, a [`CliError`] otherwise. Printing and exit codes are left to
//! `main`.

use std::fmt::Write as _;
use std::io::{BufRead, Write};

use layout_core::{ArrayLayout, Slot};

use crate::arrays;
use crate::codegen::{self, Lang};
use crate::dims;
use crate::picture::{Limits, Part, Picture, Window};
use crate::render::svg;
use crate::show;
use crate::spec::{self, CliError};
use crate::tile_view;

/// What a command produced.
pub(crate) struct Output {
    /// Text for stdout.
    pub(crate) stdout: String,
    /// Whether any input was invalid (exit status 2 after printing).
    pub(crate) failed: bool,
}

impl Output {
    fn ok(stdout: String) -> Output {
        Output {
            stdout,
            failed: false,
        }
    }
}

/// How `show` and `svg` draw: `--dims`, `--full`, `--extent`, `--tile`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Drawing<'a> {
    /// `--dims`: the two dims drawn.
    pub(crate) dims: Option<&'a str>,
    /// `--full`: everything, however large.
    pub(crate) full: bool,
    /// `--extent`: sizes of `?` dims.
    pub(crate) extent: Option<&'a str>,
    /// `--tile`: one first-level tile drawn whole.
    pub(crate) tile: Option<&'a str>,
}

/// The pictures of `text` (one per array; a tuple has one per leaf), each
/// with its title, or the note of a leaf with nothing to draw.
fn pictures(text: &str, how: Drawing<'_>) -> Result<Vec<Part>, CliError> {
    let extents = arrays::parse_extents(how.extent)?;
    let mut out = Vec::new();
    for drawn in arrays::arrays(text, &extents)? {
        let picture = match drawn.array {
            Ok(a) => Ok(picture(&a, how)?),
            Err(note) => Err(note),
        };
        out.push((drawn.title, picture));
    }
    Ok(out)
}

/// The picture of one array, with `how` applied.
fn picture(a: &ArrayLayout, how: Drawing<'_>) -> Result<Picture, CliError> {
    let pair = match how.dims {
        Some(d) => Some(dims::parse_pair(a.rank(), d)?),
        None => dims::default_pair(a.layout().minor_to_major()),
    };
    let limits = if how.full {
        Limits::FULL
    } else {
        Limits::SCREEN
    };
    let window = match how.tile {
        Some(at) => tile_view::window(a, pair, at)?,
        None => Window::default(),
    };
    let mut p = Picture::new(a, pair, limits, window)?;
    if how.tile.is_none() && !how.full {
        p.tile_grid = tile_view::tile_grid(a, pair, limits);
    }
    Ok(p)
}

/// `show`.
pub(crate) fn show(text: &str, how: Drawing<'_>) -> Result<Output, CliError> {
    let mut out = String::new();
    for (title, picture) in pictures(text, how)? {
        if let Some(t) = title {
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "tuple element {t}");
        }
        match picture {
            Ok(p) => out.push_str(&show::render(&p)),
            Err(note) => {
                let _ = writeln!(out, "{note}");
            }
        }
    }
    Ok(Output::ok(out))
}

/// `svg`: writes the image to `path` (`-` for stdout).
pub(crate) fn svg(
    text: &str,
    how: Drawing<'_>,
    path: &std::path::Path,
) -> Result<Output, CliError> {
    let parts = pictures(text, how)?;
    let doc = svg::render_all(&parts);
    if path.as_os_str() == "-" {
        return Ok(Output::ok(doc));
    }
    std::fs::write(path, doc)
        .map_err(|e| CliError::msg(format!("cannot write `{}`: {e}", path.display())))?;
    Ok(Output::ok(String::new()))
}

/// `canon`: one line per input, `error: MESSAGE` for invalid ones. `-`
/// reads one spec per line from `stdin`.
pub(crate) fn canon(specs: &[String], stdin: impl BufRead) -> Result<Output, CliError> {
    let mut out = Output::ok(String::new());
    let answer = |text: &str, out: &mut Output| {
        match spec::canonical(text) {
            Ok(c) => out.stdout.push_str(&c),
            Err(e) => {
                out.failed = true;
                let _ = write!(out.stdout, "error: {e}");
            }
        }
        out.stdout.push('\n');
    };
    if specs.iter().any(|s| s == "-") {
        if specs.len() > 1 {
            return Err(CliError::msg(
                "`-` (read stdin) cannot be mixed with other specs",
            ));
        }
        // Lines as bytes: one that is not UTF-8 gets its own error line
        // and the others their answers.
        for (n, line) in stdin.split(b'\n').enumerate() {
            let line = line.map_err(|e| CliError::msg(format!("cannot read stdin: {e}")))?;
            match std::str::from_utf8(&line) {
                Ok(text) => answer(text.trim_end_matches('\r'), &mut out),
                Err(e) => {
                    out.failed = true;
                    let _ = writeln!(
                        out.stdout,
                        "error: line {} is not valid UTF-8 (byte {})",
                        n + 1,
                        e.valid_up_to() + 1
                    );
                }
            }
        }
    } else {
        for s in specs {
            answer(s, &mut out);
        }
    }
    Ok(out)
}

/// `check`: the canonical form when valid.
pub(crate) fn check(text: &str) -> Result<Output, CliError> {
    match spec::canonical(text) {
        Ok(c) => Ok(Output::ok(format!("ok: {c}\n"))),
        Err(e) => Err(CliError::report(&e, text)),
    }
}

/// `offset`.
pub(crate) fn offset(text: &str, index: &[usize]) -> Result<Output, CliError> {
    let a = spec::parse(text)?;
    let o = a.try_offset(index).map_err(CliError::msg)?;
    Ok(Output::ok(format!("{o}\n")))
}

/// `index`: the logical index at `offset`, space-separated, or `padding`.
pub(crate) fn index(text: &str, offset: usize) -> Result<Output, CliError> {
    let a = spec::parse(text)?;
    let line = match a.try_slot(offset).map_err(CliError::msg)? {
        Slot::Element(i) => i.iter().map(usize::to_string).collect::<Vec<_>>().join(" "),
        Slot::Padding => "padding".to_string(),
    };
    Ok(Output::ok(format!("{line}\n")))
}

/// `offsets`: every element's offset in logical row-major order, as JSON
/// or one per line, written to `out` as the engine's walker produces them:
/// memory does not grow with the array (a listing of `u8[2^63-1]` runs
/// until the reader stops it).
///
/// # Errors
/// The spec's, or a failed write (a closed pipe included).
pub(crate) fn offsets(text: &str, json: bool, out: &mut dyn Write) -> Result<Output, CliError> {
    let a = spec::parse(text)?;
    let write_error = |e: std::io::Error| CliError::msg(format!("cannot write the offsets: {e}"));
    let mut walk = a.elements();
    if json {
        let canonical = serde_json::to_string(&a.to_string()).map_err(CliError::msg)?;
        write!(
            out,
            "{{\"canonical\":{canonical},\"buffer_len\":{},\"offsets\":[",
            a.buffer_len()
        )
        .map_err(write_error)?;
        let mut first = true;
        while let Some(o) = walk.next_offset() {
            let sep = if first { "" } else { "," };
            write!(out, "{sep}{o}").map_err(write_error)?;
            first = false;
        }
        out.write_all(b"]}\n").map_err(write_error)?;
    } else {
        while let Some(o) = walk.next_offset() {
            writeln!(out, "{o}").map_err(write_error)?;
        }
    }
    out.flush().map_err(write_error)?;
    Ok(Output::ok(String::new()))
}

/// `codegen`.
pub(crate) fn codegen(text: &str, lang: Lang, name: &str) -> Result<Output, CliError> {
    if let Some(problem) = codegen::name_problem(name, lang) {
        return Err(CliError::msg(problem));
    }
    let a = spec::parse(text)?;
    Ok(Output::ok(codegen::generate(&a, lang, name)?))
}
