//! Reading a spec argument: XLA shape text parsed by the engine, with
//! errors turned into the command's error type (message, input, caret).

use layout_core::ArrayLayout;
use layout_core::error::message::Escaped;

/// An error the command reports on stderr before exiting with status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CliError {
    /// The full text to print, possibly several lines.
    pub(crate) text: String,
}

impl CliError {
    /// An error with a one-line message, printed as `error: MESSAGE`, with
    /// control and bidirectional-control characters escaped (`\u{1b}`), as
    /// the message may quote what the user typed.
    pub(crate) fn msg(message: impl core::fmt::Display) -> CliError {
        CliError {
            text: format!("error: {}", Escaped(&message.to_string())),
        }
    }

    /// The engine's error shown with its input and a caret line; for a
    /// line of HLO (`%p = f32[2]{0} parameter(0)`), a hint to `tessera hlo`.
    pub(crate) fn report(error: &layout_core::Error, input: &str) -> CliError {
        let mut text = error.report(input).to_string();
        if input.trim_start().starts_with('%') && input.contains('=') {
            text.push_str("\n  (a line of HLO: `tessera hlo -` reads it, or give the shape alone)");
        }
        CliError { text }
    }
}

/// Parses `text` as one array shape with the engine.
///
/// # Errors
/// The engine's error, reported with the input and a caret line.
pub(crate) fn parse(text: &str) -> Result<ArrayLayout, CliError> {
    ArrayLayout::parse(text).map_err(|e| CliError::report(&e, text))
}

/// The canonical XLA text of `text`, which may also be a tuple or buffer
/// shape: the engine's [`layout_core::text::write_canonical`].
///
/// # Errors
/// The engine's error.
pub(crate) fn canonical(text: &str) -> Result<String, layout_core::Error> {
    let mut out = String::new();
    layout_core::text::write_canonical(text, &mut out)?;
    Ok(out)
}
