//! What each subcommand does, given its parsed arguments: output text on
//! success, a [`CliError`] otherwise. Printing and exit codes are left to
//! `main`.

use std::fmt::Write as _;
use std::io::BufRead;

use layout_core::Slot;

use crate::codegen::{self, Lang};
use crate::dims;
use crate::picture::{Limits, Odometer, Picture};
use crate::render::svg;
use crate::show;
use crate::spec::{self, CliError};

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

/// The picture of `text`, with `--dims` and `--full` applied.
fn picture(text: &str, dims_arg: Option<&str>, full: bool) -> Result<Picture, CliError> {
    let a = spec::parse(text)?;
    let pair = match dims_arg {
        Some(d) => Some(dims::parse_pair(a.rank(), d)?),
        None => dims::default_pair(a.layout().minor_to_major()),
    };
    Ok(Picture::new(
        &a,
        pair,
        if full { Limits::FULL } else { Limits::SCREEN },
    ))
}

/// `show`.
pub(crate) fn show(text: &str, dims_arg: Option<&str>, full: bool) -> Result<Output, CliError> {
    Ok(Output::ok(show::render(&picture(text, dims_arg, full)?)))
}

/// `svg`: writes the image to `path` (`-` for stdout).
pub(crate) fn svg(
    text: &str,
    dims_arg: Option<&str>,
    full: bool,
    path: &std::path::Path,
) -> Result<Output, CliError> {
    let doc = svg::render(&picture(text, dims_arg, full)?);
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
        for line in stdin.lines() {
            let line = line.map_err(|e| CliError::msg(format!("cannot read stdin: {e}")))?;
            answer(line.trim_end_matches('\r'), &mut out);
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
/// or one per line.
pub(crate) fn offsets(text: &str, json: bool) -> Result<Output, CliError> {
    let a = spec::parse(text)?;
    let sizes = a.sizes();
    let mut list = Vec::with_capacity(a.element_count());
    for i in Odometer::new(&sizes) {
        list.push(a.try_offset(&i).map_err(CliError::msg)?);
    }
    let out = if json {
        let canonical = serde_json::to_string(&a.to_string()).map_err(CliError::msg)?;
        let items: Vec<String> = list.iter().map(usize::to_string).collect();
        format!(
            "{{\"canonical\":{canonical},\"buffer_len\":{},\"offsets\":[{}]}}\n",
            a.buffer_len(),
            items.join(",")
        )
    } else {
        list.iter().map(|o| format!("{o}\n")).collect()
    };
    Ok(Output::ok(out))
}

/// `codegen`.
pub(crate) fn codegen(text: &str, lang: Lang, name: &str) -> Result<Output, CliError> {
    if !codegen::is_identifier(name) {
        return Err(CliError::msg(format!(
            "`{name}` is not a valid function name"
        )));
    }
    let a = spec::parse(text)?;
    Ok(Output::ok(codegen::generate(&a, lang, name)))
}
