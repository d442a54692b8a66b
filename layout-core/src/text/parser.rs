//! THE grammar of XLA shape text (see the [module docs](super)).

use core::fmt;

use crate::error::{ByteSpan, Error, ErrorKind, Locus};
use crate::shape::Shape;
use crate::{MAX_RANK, MAX_SPLIT_CONFIGS, MAX_TILE_LEVELS};

/// Byte spans of the parts of a parsed shape, so that a rule broken by the
/// shape can point at the offending text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SpanTable {
    /// The whole shape.
    pub whole: ByteSpan,
    /// The element type name.
    pub element_type: ByteSpan,
    /// `[...]`, brackets included.
    pub dims: ByteSpan,
    /// Each dimension.
    pub dim: [ByteSpan; MAX_RANK],
    /// The layout, braces included (empty when there is none).
    pub layout: ByteSpan,
    /// The `minor_to_major` list (from the opening brace to the `:` or
    /// closing brace).
    pub minor_to_major: ByteSpan,
    /// Each `minor_to_major` entry.
    pub minor_to_major_entry: [ByteSpan; MAX_RANK],
    /// Each tile level `(...)`.
    pub tile: [ByteSpan; MAX_TILE_LEVELS],
    /// Each entry of each tile level.
    pub tile_entry: [[ByteSpan; MAX_RANK]; MAX_TILE_LEVELS],
    /// `L(..)`, `E(..)`, `S(..)`, `M(..)`, `SC..`, `pad(..)`.
    pub attribute: [(&'static str, ByteSpan); 6],
    /// Each `SC` entry `(d:i,...)`.
    pub split_config: [ByteSpan; MAX_SPLIT_CONFIGS],
    /// Each `pad(..)` entry.
    pub padding_entry: [ByteSpan; MAX_RANK],
}

impl SpanTable {
    /// The span of `locus`, falling back to the enclosing part, then to
    /// the whole shape.
    pub fn span_of(&self, locus: Locus) -> ByteSpan {
        let s = match locus {
            Locus::Whole => self.whole,
            Locus::ElementType => self.element_type,
            Locus::Dims => self.dims,
            Locus::Dim(i) => self.dim.get(i).copied().unwrap_or(self.dims),
            Locus::MinorToMajor => self.minor_to_major,
            Locus::MinorToMajorEntry(i) => {
                self.minor_to_major_entry.get(i).copied().unwrap_or(self.minor_to_major)
            }
            Locus::Tile(i) => self.tile.get(i).copied().unwrap_or(self.layout),
            Locus::TileEntry(i, j) => self
                .tile_entry
                .get(i)
                .and_then(|t| t.get(j))
                .copied()
                .unwrap_or(self.layout),
            Locus::Attribute(name) => self
                .attribute
                .iter()
                .find(|(n, s)| *n == name && s.end > s.start)
                .map(|(_, s)| *s)
                .unwrap_or(self.layout),
            Locus::PaddingEntry(i) => self.padding_entry.get(i).copied().unwrap_or(self.layout),
            Locus::SplitConfig(i) => self.split_config.get(i).copied().unwrap_or(self.layout),
        };
        if s.end > s.start || s.start != 0 { s } else { self.whole }
    }
}

/// A parsed shape with the spans of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedShape {
    /// The shape, with its layout (the default one when the text has none).
    pub shape: Shape,
    /// Where each part of it stands in the text.
    pub spans: SpanTable,
}

/// One step of walking a possibly nested shape ([`parse_shape_tree`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeEvent {
    /// `(` of a tuple.
    TupleStart,
    /// `)` of a tuple.
    TupleEnd,
    /// `b(` of a buffer.
    BufferStart,
    /// `)` of a buffer.
    BufferEnd,
    /// An array, `token[]` or `opaque[]`.
    Leaf(Shape),
}

/// Parses one array shape (or `token[]`/`opaque[]`), filling in the
/// default layout when the text has none, and checks every rule.
///
/// # Errors
/// The first syntax error or broken rule, spanned on the offending text.
pub fn parse_shape(text: &str) -> Result<ParsedShape, Error> {
    let _ = text;
    Err(Error::spanned(ErrorKind::UnexpectedEnd { expected: "a shape" }, ByteSpan::new(0, 0)))
}

/// Parses a layout on its own, `{1,0:T(2,2)}`, checking only what needs
/// no shape.
///
/// # Errors
/// A syntax error, spanned.
pub fn parse_layout(text: &str) -> Result<crate::Layout, Error> {
    let _ = text;
    Err(Error::spanned(ErrorKind::UnexpectedEnd { expected: "a layout" }, ByteSpan::new(0, 0)))
}

/// Parses a shape that may be a tuple `(a, b)` or buffer `b(a)`, calling
/// `visit` for each part in order, without allocating.
///
/// # Errors
/// The first syntax error or broken rule, spanned.
pub fn parse_shape_tree(text: &str, visit: &mut dyn FnMut(TreeEvent)) -> Result<(), Error> {
    let _ = (text, visit);
    Err(Error::spanned(ErrorKind::UnexpectedEnd { expected: "a shape" }, ByteSpan::new(0, 0)))
}

/// Writes the canonical form of a possibly nested shape text, as XLA
/// prints it: `(f32[1]{0}, (f32[2]{0}, token[]), /*index=5*/...)`.
///
/// # Errors
/// As [`parse_shape_tree`]; or a formatting error from `out`.
pub fn write_canonical(text: &str, out: &mut dyn fmt::Write) -> Result<(), Error> {
    let _ = (text, out);
    Err(Error::spanned(ErrorKind::UnexpectedEnd { expected: "a shape" }, ByteSpan::new(0, 0)))
}
