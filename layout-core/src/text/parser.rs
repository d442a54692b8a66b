//! THE grammar of XLA shape text (see the [module docs](super)).

use core::fmt;

use super::lexer::{Lexer, Token, TokenKind};
use crate::element::PrimitiveType;
use crate::error::{ByteSpan, Error, ErrorKind, Locus};
use crate::limits::{
    MAX_DIM_SIZE, MAX_RANK, MAX_SPLIT_CONFIGS, MAX_SPLIT_INDICES, MAX_TILE_LEVELS, MAX_TUPLE_DEPTH,
};
use crate::model::layout::{Layout, Padding, PaddingValue, SparsePhysicalShape, SplitConfig};
use crate::model::shape::{Dim, Shape};
use crate::model::tile::Tile;

/// Byte spans of the parts of a parsed shape, so that a rule broken by the
/// shape can point at the offending text.
///
/// ```
/// use tessera::text::parse_shape;
/// let text = "f32[3,5]{1,0:T(2,2)}";
/// let spans = parse_shape(text)?.spans;
/// assert_eq!(&text[spans.dim[1].start..spans.dim[1].end], "5"); // x
/// assert_eq!(&text[spans.tile[0].start..spans.tile[0].end], "(2,2)");
/// # Ok::<(), tessera::Error>(())
/// ```
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
    /// `error` with the span of its [`Locus`] in this table, unless it
    /// already has a span.
    ///
    /// ```
    /// use tessera::{text::parse_shape, ArrayLayout};
    /// let p = parse_shape("f32[2,?]").unwrap();
    /// let e = p.spans.locate(ArrayLayout::new(p.shape).unwrap_err());
    /// assert_eq!(e.span().map(|s| (s.start, s.end)), Some((6, 7)));
    /// ```
    pub fn locate(&self, error: Error) -> Error {
        match error.span() {
            Some(_) => error,
            None => error.with_span(self.span_of(error.locus())),
        }
    }

    /// The span of `locus`, falling back to the enclosing part, then to
    /// the whole shape.
    pub fn span_of(&self, locus: Locus) -> ByteSpan {
        let s = match locus {
            Locus::Whole => self.whole,
            Locus::ElementType => self.element_type,
            Locus::Dims => self.dims,
            Locus::Dim(i) => self.dim.get(i).copied().unwrap_or(self.dims),
            Locus::MinorToMajor => self.minor_to_major,
            Locus::MinorToMajorEntry(i) => self
                .minor_to_major_entry
                .get(i)
                .copied()
                .unwrap_or(self.minor_to_major),
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
        if s.end > s.start || s.start != 0 {
            s
        } else {
            self.whole
        }
    }
}

/// A parsed shape with the spans of its parts.
///
/// ```
/// use tessera::text::{ParsedShape, parse_shape};
/// let text = "bf16[8,128]{1,0:T(8,128)(2,1)}";
/// let p: ParsedShape = parse_shape(text)?;
/// assert_eq!(p.shape.to_string(), text);
/// assert_eq!(&text[p.spans.layout.start..p.spans.layout.end], "{1,0:T(8,128)(2,1)}");
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedShape {
    /// The shape, with its layout (the default one when the text has none).
    pub shape: Shape,
    /// Where each part of it stands in the text.
    pub spans: SpanTable,
}

/// One step of walking a possibly nested shape ([`parse_shape_tree`]).
///
/// ```
/// use tessera::text::{TreeEvent, parse_shape_tree};
/// let mut events = Vec::new();
/// parse_shape_tree("(f32[2]{0}, b(s32[]))", &mut |e| events.push(e))?;
/// assert_eq!(events.len(), 6);
/// assert_eq!(events[0], TreeEvent::TupleStart);
/// assert_eq!(events[2], TreeEvent::BufferStart);
/// assert!(matches!(events[1], TreeEvent::Leaf(s) if s.to_string() == "f32[2]{0}"));
/// # Ok::<(), tessera::Error>(())
/// ```
#[allow(
    clippy::large_enum_variant,
    reason = "events are handed to the visitor one at a time; boxing would need an allocator"
)]
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
/// ```
/// use tessera::text::parse_shape;
/// let p = parse_shape("f32[3,5]<1,0:T(2,2)>").unwrap();
/// assert_eq!(p.shape.to_string(), "f32[3,5]{1,0:T(2,2)}");
/// let e = parse_shape("f32[3,5]{1,0:T(2,0)}").unwrap_err();
/// assert_eq!(e.to_string(), "a tile entry must be at least 1");
/// assert_eq!(e.span().map(|s| (s.start, s.end)), Some((17, 18)));
/// ```
///
/// # Errors
/// The first syntax error or broken rule, spanned on the offending text.
pub fn parse_shape(text: &str) -> Result<ParsedShape, Error> {
    let mut lx = Lexer::new(text);
    let t = lx.peek()?;
    if t.kind == TokenKind::Punct(b'(') {
        return Err(Error::spanned(
            ErrorKind::NotASingleShape { what: "tuple" },
            t.span,
        ));
    }
    if is_buffer_start(&lx)? {
        return Err(Error::spanned(
            ErrorKind::NotASingleShape { what: "buffer" },
            t.span,
        ));
    }
    let parsed = parse_array(&mut lx)?;
    expect_end(&mut lx)?;
    Ok(parsed)
}

/// Parses a layout on its own, `{1,0:T(2,2)}` or `<1,0:T(2,2)>`, checking
/// only what needs no shape. Unlike [`parse_shape`], it reads the sparse
/// attributes `#(..)`, `*(..)` and `P(..)` that a [`Layout`] can hold, so
/// that any XLA layout round-trips; putting such a layout on a shape fails.
///
/// ```
/// use tessera::text::parse_layout;
/// assert_eq!(parse_layout("{0,1:T(8,128)S(1)}").unwrap().to_string(), "{0,1:T(8,128)S(1)}");
/// assert!(parse_layout("{0,1:S(1)T(8,128)}").is_err());
/// ```
///
/// # Errors
/// A syntax error, spanned.
pub fn parse_layout(text: &str) -> Result<Layout, Error> {
    let mut lx = Lexer::new(text);
    let mut spans = SpanTable::default();
    let open = lx.next_token()?;
    let close = match open.kind {
        TokenKind::Punct(b'{') => b'}',
        TokenKind::Punct(b'<') => b'>',
        _ => return Err(unexpected(&lx, open, "`{` or `<`")),
    };
    let layout = parse_layout_body(&mut lx, open, close, &mut spans, true)?;
    expect_end(&mut lx)?;
    Ok(layout)
}

/// Parses a shape that may be a tuple `(a, b)` or a buffer `b(a)`,
/// calling `visit` for each part in order, without allocating. Tuples nest
/// at most [`MAX_TUPLE_DEPTH`] deep.
///
/// ```
/// use tessera::text::{parse_shape_tree, TreeEvent};
/// let mut leaves = 0;
/// parse_shape_tree("(f32[2], (token[], b(s32[])))", &mut |e| {
///     if let TreeEvent::Leaf(_) = e { leaves += 1 }
/// }).unwrap();
/// assert_eq!(leaves, 3);
/// ```
///
/// # Errors
/// The first syntax error or broken rule, spanned.
pub fn parse_shape_tree(text: &str, visit: &mut dyn FnMut(TreeEvent)) -> Result<(), Error> {
    let mut lx = Lexer::new(text);
    // Kind of each open group: true for a tuple, false for a buffer.
    let mut stack = [false; MAX_TUPLE_DEPTH];
    let mut depth = 0usize;
    loop {
        // Expecting a shape.
        let t = lx.peek()?;
        let in_buffer = depth > 0 && !stack[depth - 1];
        if t.kind == TokenKind::Punct(b'(') || is_buffer_start(&lx)? {
            let is_tuple = t.kind == TokenKind::Punct(b'(');
            if in_buffer {
                let what = if is_tuple { "tuple" } else { "buffer" };
                return Err(Error::spanned(ErrorKind::NotASingleShape { what }, t.span));
            }
            if depth == MAX_TUPLE_DEPTH {
                return Err(Error::spanned(
                    ErrorKind::NestingTooDeep {
                        max: MAX_TUPLE_DEPTH,
                    },
                    t.span,
                ));
            }
            lx.next_token()?;
            if !is_tuple {
                lx.next_token()?; // the `(` after `b`
            }
            stack[depth] = is_tuple;
            depth += 1;
            visit(if is_tuple {
                TreeEvent::TupleStart
            } else {
                TreeEvent::BufferStart
            });
            if is_tuple && lx.peek()?.kind == TokenKind::Punct(b')') {
                lx.next_token()?;
                depth -= 1;
                visit(TreeEvent::TupleEnd);
            } else {
                continue;
            }
        } else {
            let leaf = parse_array(&mut lx)?;
            visit(TreeEvent::Leaf(leaf.shape));
        }
        // After a complete shape: close groups or move to the next element.
        loop {
            if depth == 0 {
                return expect_end(&mut lx);
            }
            let t = lx.next_token()?;
            if stack[depth - 1] {
                match t.kind {
                    TokenKind::Punct(b',') => break,
                    TokenKind::Punct(b')') => {
                        depth -= 1;
                        visit(TreeEvent::TupleEnd);
                    }
                    _ => return Err(unexpected(&lx, t, "`,` or `)`")),
                }
            } else if t.kind == TokenKind::Punct(b')') {
                depth -= 1;
                visit(TreeEvent::BufferEnd);
            } else {
                return Err(unexpected(&lx, t, "`)` closing the buffer shape"));
            }
        }
    }
}

/// Writes the canonical form of a possibly nested shape text, as XLA
/// prints it: `(f32[1]{0}, (f32[2]{0}, token[]), b(s32[]))`, with
/// `/*index=N*/` before tuple elements whose index is a nonzero multiple
/// of 5.
///
/// ```
/// let mut out = String::new();
/// tessera::text::write_canonical("(f32[1], s8[2,3]<0,1>)", &mut out).unwrap();
/// assert_eq!(out, "(f32[1]{0}, s8[2,3]{0,1})");
/// ```
///
/// # Errors
/// As [`parse_shape_tree`]. Output already written stays written.
pub fn write_canonical(text: &str, out: &mut dyn fmt::Write) -> Result<(), Error> {
    // Elements written so far in each open group.
    let mut counts = [0usize; MAX_TUPLE_DEPTH + 1];
    let mut depth = 0usize;
    let mut result = Ok(());
    parse_shape_tree(text, &mut |event| {
        let mut write = |args: fmt::Arguments<'_>| {
            if result.is_ok() {
                result = out.write_fmt(args);
            }
        };
        if matches!(
            event,
            TreeEvent::TupleStart | TreeEvent::BufferStart | TreeEvent::Leaf(_)
        ) && depth > 0
        {
            let n = counts[depth];
            if n > 0 {
                write(format_args!(", "));
                if n % 5 == 0 {
                    write(format_args!("/*index={n}*/"));
                }
            }
            counts[depth] += 1;
        }
        match event {
            TreeEvent::TupleStart | TreeEvent::BufferStart => {
                let open = if event == TreeEvent::TupleStart {
                    "("
                } else {
                    "b("
                };
                write(format_args!("{open}"));
                depth += 1;
                counts[depth] = 0;
            }
            TreeEvent::TupleEnd | TreeEvent::BufferEnd => {
                write(format_args!(")"));
                depth -= 1;
            }
            TreeEvent::Leaf(shape) => write(format_args!("{shape}")),
        }
    })?;
    result.map_err(|_| Error::new(ErrorKind::WriteFailed))
}

fn is_buffer_start(lx: &Lexer<'_>) -> Result<bool, Error> {
    let t = lx.peek()?;
    Ok(t.kind == TokenKind::Ident
        && lx.slice(t.span) == "b"
        && lx.peek2()?.kind == TokenKind::Punct(b'('))
}

fn expect_end(lx: &mut Lexer<'_>) -> Result<(), Error> {
    let t = lx.next_token()?;
    if t.kind == TokenKind::End {
        Ok(())
    } else {
        Err(Error::spanned(
            ErrorKind::TrailingInput { found: lx.quote(t) },
            t.span,
        ))
    }
}

fn unexpected(lx: &Lexer<'_>, t: Token, expected: &'static str) -> Error {
    if t.kind == TokenKind::End {
        Error::spanned(ErrorKind::UnexpectedEnd { expected }, t.span)
    } else {
        Error::spanned(
            ErrorKind::UnexpectedToken {
                expected,
                found: lx.quote(t),
            },
            t.span,
        )
    }
}

fn expect_punct(lx: &mut Lexer<'_>, c: u8, expected: &'static str) -> Result<Token, Error> {
    let t = lx.next_token()?;
    if t.kind == TokenKind::Punct(c) {
        Ok(t)
    } else {
        Err(unexpected(lx, t, expected))
    }
}

/// An integer token's value, at most `max`.
fn expect_int(
    lx: &mut Lexer<'_>,
    what: &'static str,
    expected: &'static str,
    max: u64,
) -> Result<(u64, ByteSpan), Error> {
    let t = lx.next_token()?;
    match t.kind {
        TokenKind::Int(Some(v)) if v <= max => Ok((v, t.span)),
        TokenKind::Int(_) => Err(Error::spanned(
            ErrorKind::IntegerTooLarge { what, max },
            t.span,
        )),
        _ => Err(unexpected(lx, t, expected)),
    }
}

/// `Ok` while a list of dims holding `len` entries has room for one more;
/// else the error for a rank above [`MAX_RANK`], at the entry's `span`.
fn room_for_dim(len: usize, span: ByteSpan) -> Result<(), Error> {
    if len == MAX_RANK {
        return Err(Error::spanned(
            ErrorKind::RankTooLarge {
                rank: len + 1,
                max: MAX_RANK,
            },
            span,
        ));
    }
    Ok(())
}

fn parse_array(lx: &mut Lexer<'_>) -> Result<ParsedShape, Error> {
    let mut spans = SpanTable::default();
    let t = lx.next_token()?;
    if t.kind != TokenKind::Ident {
        return Err(unexpected(lx, t, "an element type such as `f32`"));
    }
    let element_type = PrimitiveType::from_name(lx.slice(t.span)).ok_or_else(|| {
        Error::spanned(ErrorKind::UnknownElementType { name: lx.quote(t) }, t.span)
    })?;
    spans.element_type = t.span;
    let open = expect_punct(lx, b'[', "`[`")?;
    let mut dims = [Dim::Static(0); MAX_RANK];
    let mut rank = 0usize;
    let close = if lx.peek()?.kind == TokenKind::Punct(b']') {
        lx.next_token()?
    } else {
        loop {
            let (dim, span) = parse_dim(lx, rank)?;
            room_for_dim(rank, span)?;
            dims[rank] = dim;
            spans.dim[rank] = span;
            rank += 1;
            let t = lx.next_token()?;
            match t.kind {
                TokenKind::Punct(b',') => {}
                TokenKind::Punct(b']') => break t,
                _ => return Err(unexpected(lx, t, "`,` or `]`")),
            }
        }
    };
    spans.dims = open.span.to(close.span);
    spans.whole = t.span.to(close.span);
    let shape = Shape::without_layout_from_dims(element_type, &dims[..rank])
        .map_err(|e| spans.locate(e))?;

    // `{` or `<` starts a layout only when an integer or `:` follows (XLA).
    let next = lx.peek()?;
    let close_char = match next.kind {
        TokenKind::Punct(b'{') => Some(b'}'),
        TokenKind::Punct(b'<') => Some(b'>'),
        _ => None,
    };
    let starts_layout = close_char.is_some()
        && matches!(
            lx.peek2()?.kind,
            TokenKind::Int(_) | TokenKind::Punct(b':') | TokenKind::Punct(b'-')
        );
    // A bracket that starts no layout: empty (`f32[]{}`), or the last
    // token (`f32[3,5]{`), each its own error rather than text after the
    // shape.
    if let Some(close) = close_char
        && !starts_layout
    {
        let after = lx.peek2()?;
        if after.kind == TokenKind::Punct(close) {
            return Err(Error::spanned(
                ErrorKind::EmptyLayout,
                next.span.to(after.span),
            ));
        }
        if after.kind == TokenKind::End {
            lx.next_token()?;
            return Err(unexpected(lx, after, "a dimension number or `:`"));
        }
    }
    let shape = match (starts_layout, close_char) {
        (true, Some(close)) => {
            let open = lx.next_token()?;
            let layout = parse_layout_body(lx, open, close, &mut spans, false)?;
            spans.whole = spans.whole.to(spans.layout);
            shape.with_layout(layout).map_err(|e| spans.locate(e))?
        }
        _ => shape.with_default_layout(),
    };
    Ok(ParsedShape { shape, spans })
}

fn parse_dim(lx: &mut Lexer<'_>, index: usize) -> Result<(Dim, ByteSpan), Error> {
    let t = lx.next_token()?;
    let max = MAX_DIM_SIZE as u64;
    let size = |v: Option<u64>, span: ByteSpan| match v {
        Some(v) if v <= max => Ok(v as usize),
        _ => Err(Error::spanned(
            ErrorKind::IntegerTooLarge {
                what: "dimension size",
                max,
            },
            span,
        )),
    };
    match t.kind {
        TokenKind::Int(v) => Ok((Dim::Static(size(v, t.span)?), t.span)),
        TokenKind::Punct(b'?') => Ok((Dim::Unbounded, t.span)),
        TokenKind::LessEq => {
            let n = lx.next_token()?;
            match n.kind {
                TokenKind::Int(v) => Ok((Dim::Bounded(size(v, n.span)?), t.span.to(n.span))),
                _ => Err(unexpected(lx, n, "the bound of `<=`")),
            }
        }
        TokenKind::Punct(b'-') => {
            let n = lx.next_token()?;
            match n.kind {
                TokenKind::Int(_) => Err(Error::spanned(
                    ErrorKind::NegativeDimension { dim: index },
                    t.span.to(n.span),
                )),
                _ => Err(unexpected(lx, n, "a dimension size")),
            }
        }
        _ => Err(unexpected(lx, t, "a dimension size, `<=N` or `?`")),
    }
}

/// Attribute order: XLA's D T L # * E S SC P M, then tessera's pad.
const ORDER: [&str; 11] = ["D", "T", "L", "#", "*", "E", "S", "SC", "P", "M", "pad"];

fn attribute_rank(name: &str) -> Option<usize> {
    ORDER.iter().position(|n| *n == name)
}

fn record_attribute(spans: &mut SpanTable, name: &'static str, span: ByteSpan) {
    if let Some(slot) = spans
        .attribute
        .iter_mut()
        .find(|(n, _)| n.is_empty() || *n == name)
    {
        *slot = (name, span);
    }
}

/// Parses after the opening `{`/`<` (already consumed) through the
/// closing one.
fn parse_layout_body(
    lx: &mut Lexer<'_>,
    open: Token,
    close: u8,
    spans: &mut SpanTable,
    allow_sparse: bool,
) -> Result<Layout, Error> {
    let close_str = if close == b'}' { "`}`" } else { "`>`" };
    let mut m2m = [0usize; MAX_RANK];
    let mut n = 0usize;
    let mut t = lx.next_token()?;
    let mut m2m_end = open.span;
    if matches!(t.kind, TokenKind::Int(_) | TokenKind::Punct(b'-')) {
        loop {
            let span;
            let value = match t.kind {
                TokenKind::Int(Some(v)) => {
                    span = t.span;
                    v
                }
                TokenKind::Int(None) => {
                    return Err(Error::spanned(
                        ErrorKind::IntegerTooLarge {
                            what: "minor_to_major entry",
                            max: u64::MAX,
                        },
                        t.span,
                    ));
                }
                TokenKind::Punct(b'-') => {
                    let num = lx.next_token()?;
                    let TokenKind::Int(v) = num.kind else {
                        return Err(unexpected(lx, num, "a dimension number"));
                    };
                    let _ = v;
                    return Err(Error::spanned(
                        ErrorKind::NegativeMinorToMajorEntry,
                        t.span.to(num.span),
                    ));
                }
                _ => return Err(unexpected(lx, t, "a dimension number")),
            };
            room_for_dim(n, span)?;
            m2m[n] = usize::try_from(value).unwrap_or(usize::MAX);
            spans.minor_to_major_entry[n] = span;
            n += 1;
            m2m_end = span;
            t = lx.next_token()?;
            if t.kind == TokenKind::Punct(b',') {
                t = lx.next_token()?;
                continue;
            }
            break;
        }
    }
    spans.minor_to_major = open.span.to(m2m_end);
    let mut layout = Layout::new(&m2m[..n]).map_err(|e| spans.locate(e))?;
    if t.kind == TokenKind::Punct(b':') {
        layout = parse_attributes(lx, layout, close, close_str, spans, allow_sparse)?;
        t = lx.next_token()?;
    }
    if t.kind != TokenKind::Punct(close) {
        let expected = match (n > 0 && t.kind != TokenKind::End, close) {
            (true, b'}') => "`,`, `:` or `}`",
            (true, _) => "`,`, `:` or `>`",
            (false, _) => close_str,
        };
        return Err(unexpected(lx, t, expected));
    }
    spans.layout = open.span.to(t.span);
    Ok(layout)
}

fn parse_attributes(
    lx: &mut Lexer<'_>,
    mut layout: Layout,
    close: u8,
    close_str: &'static str,
    spans: &mut SpanTable,
    allow_sparse: bool,
) -> Result<Layout, Error> {
    let mut last: Option<usize> = None;
    loop {
        let t = lx.peek()?;
        let name: &'static str = match t.kind {
            TokenKind::Punct(c) if c == close => return Ok(layout),
            TokenKind::Punct(b'#') => "#",
            TokenKind::Punct(b'*') => "*",
            TokenKind::Ident => match attribute_rank(lx.slice(t.span)) {
                Some(r) => ORDER[r],
                None => {
                    return Err(Error::spanned(
                        ErrorKind::UnknownAttribute { name: lx.quote(t) },
                        t.span,
                    ));
                }
            },
            TokenKind::End => {
                return Err(Error::spanned(
                    ErrorKind::UnexpectedEnd {
                        expected: close_str,
                    },
                    t.span,
                ));
            }
            _ => {
                let expected = if close == b'}' {
                    "a layout attribute (T, L, E, S, SC, M, pad) or `}`"
                } else {
                    "a layout attribute (T, L, E, S, SC, M, pad) or `>`"
                };
                return Err(unexpected(lx, t, expected));
            }
        };
        let rank = attribute_rank(name).unwrap_or(0);
        if let Some(prev) = last {
            if prev == rank {
                return Err(Error::spanned(
                    ErrorKind::DuplicateAttribute { attribute: name },
                    t.span,
                ));
            }
            if prev > rank {
                return Err(Error::spanned(
                    ErrorKind::AttributeOutOfOrder {
                        attribute: name,
                        before: ORDER[prev],
                    },
                    t.span,
                ));
            }
        }
        last = Some(rank);
        lx.next_token()?;
        layout = match name {
            "#" | "*" if allow_sparse => {
                expect_punct(lx, b'(', "`(`")?;
                let type_span = lx.peek()?.span;
                let ty = parse_type_name(lx)?;
                if !ty.is_integral() {
                    return Err(Error::spanned(
                        ErrorKind::NonIntegralIndexType {
                            attribute: if name == "#" {
                                "`#(...)` (index_primitive_type)"
                            } else {
                                "`*(...)` (pointer_primitive_type)"
                            },
                            found: ty,
                        },
                        type_span,
                    ));
                }
                expect_punct(lx, b')', "`)`")?;
                if name == "#" {
                    layout.with_index_primitive_type(Some(ty))
                } else {
                    layout.with_pointer_primitive_type(Some(ty))
                }
            }
            "P" if allow_sparse => {
                expect_punct(lx, b'(', "`(`")?;
                let physical = parse_sparse_physical_shape(lx)?;
                expect_punct(lx, b')', "`)`")?;
                layout.with_sparse_physical_shape(Some(physical))
            }
            "D" | "#" | "*" | "P" => {
                let attribute = match name {
                    "D" => "`D(...)` (dim level types)",
                    "#" => "`#(...)` (index_primitive_type)",
                    "*" => "`*(...)` (pointer_primitive_type)",
                    _ => "`P(...)` (physical_shape)",
                };
                return Err(Error::spanned(
                    ErrorKind::SparseLayout { attribute },
                    t.span,
                ));
            }
            "T" => parse_tiles(lx, layout, t, spans)?,
            "SC" => parse_split_configs(lx, layout, t, spans)?,
            "pad" => parse_padding(lx, layout, t, spans)?,
            _ => {
                expect_punct(lx, b'(', "`(`")?;
                // XLA's fields are `int64` (`E` fits 32 bits); `S` is
                // read whole and checked by `with_memory_space`.
                let max = match name {
                    "E" => u64::from(u32::MAX),
                    "S" => u64::MAX,
                    _ => (i64::MAX as u64).min(usize::MAX as u64),
                };
                let (v, _) = expect_int(lx, attribute_value_name(name), "an integer", max)?;
                let end = expect_punct(lx, b')', "`)`")?;
                let span = t.span.to(end.span);
                record_attribute(spans, name, span);
                let built = match name {
                    "L" => layout.with_tail_padding_alignment(v as usize),
                    "E" => Ok(layout.with_element_size_in_bits(v as u32)),
                    "S" => layout.with_memory_space(u32::try_from(v).unwrap_or(u32::MAX)),
                    _ => Ok(layout.with_dynamic_shape_metadata_prefix_bytes(v as usize)),
                };
                built.map_err(|e| e.with_span(span))?
            }
        };
    }
}

fn parse_type_name(lx: &mut Lexer<'_>) -> Result<PrimitiveType, Error> {
    let t = lx.next_token()?;
    if t.kind != TokenKind::Ident {
        return Err(unexpected(lx, t, "an element type such as `u32`"));
    }
    PrimitiveType::from_name(lx.slice(t.span))
        .ok_or_else(|| Error::spanned(ErrorKind::UnknownElementType { name: lx.quote(t) }, t.span))
}

/// `type[dims]{minor_to_major}` inside `P(..)`: static dims and no
/// attributes (so `P` cannot nest).
fn parse_sparse_physical_shape(lx: &mut Lexer<'_>) -> Result<SparsePhysicalShape, Error> {
    let start = lx.peek()?.span;
    let ty = parse_type_name(lx)?;
    let list = |lx: &mut Lexer<'_>, close: u8| -> Result<([usize; MAX_RANK], usize), Error> {
        let mut v = [0usize; MAX_RANK];
        let mut n = 0;
        if lx.peek()?.kind == TokenKind::Punct(close) {
            lx.next_token()?;
            return Ok((v, 0));
        }
        loop {
            let (x, span) = expect_int(lx, "dimension", "an integer", MAX_DIM_SIZE as u64)?;
            room_for_dim(n, span)?;
            v[n] = x as usize;
            n += 1;
            let sep = lx.next_token()?;
            match sep.kind {
                TokenKind::Punct(b',') => {}
                TokenKind::Punct(c) if c == close => return Ok((v, n)),
                _ => return Err(unexpected(lx, sep, "`,` or the closing bracket")),
            }
        }
    };
    expect_punct(lx, b'[', "`[`")?;
    let (dims, rank) = list(lx, b']')?;
    let (m2m, n) = if lx.peek()?.kind == TokenKind::Punct(b'{') {
        lx.next_token()?;
        list(lx, b'}')?
    } else {
        let d = Layout::descending(rank);
        let mut v = [0usize; MAX_RANK];
        for (slot, &x) in v.iter_mut().zip(d.minor_to_major()) {
            *slot = x as usize;
        }
        (v, rank)
    };
    let end = lx.peek()?.span;
    SparsePhysicalShape::new(ty, &dims[..rank], &m2m[..n]).map_err(|e| e.with_span(start.to(end)))
}

fn attribute_value_name(name: &str) -> &'static str {
    match name {
        "L" => "tail padding alignment `L`",
        "E" => "element size `E`",
        "S" => "memory space `S`",
        _ => "dynamic shape metadata prefix bytes `M`",
    }
}

fn parse_tiles(
    lx: &mut Lexer<'_>,
    layout: Layout,
    letter: Token,
    spans: &mut SpanTable,
) -> Result<Layout, Error> {
    let mut tiles =
        [Tile::from_sizes(&[1]).map_err(|e| e.with_span(letter.span))?; MAX_TILE_LEVELS];
    let mut levels = 0usize;
    while lx.peek()?.kind == TokenKind::Punct(b'(') || levels == 0 {
        let open = expect_punct(lx, b'(', "`(` starting a tile")?;
        if levels == MAX_TILE_LEVELS {
            return Err(Error::spanned(
                ErrorKind::TooManyTileLevels {
                    max: MAX_TILE_LEVELS,
                },
                open.span,
            ));
        }
        let mut raw = [0usize; MAX_RANK];
        let mut k = 0usize;
        let close = if lx.peek()?.kind == TokenKind::Punct(b')') {
            let close = lx.next_token()?;
            return Err(Error::spanned(
                ErrorKind::EmptyTile,
                open.span.to(close.span),
            ));
        } else {
            loop {
                let t = lx.next_token()?;
                let value = match t.kind {
                    TokenKind::Punct(b'*') => 0,
                    TokenKind::Int(Some(0)) => {
                        return Err(Error::spanned(ErrorKind::ZeroTileDim, t.span));
                    }
                    TokenKind::Int(Some(v)) if v <= usize::MAX as u64 => v as usize,
                    TokenKind::Int(_) => {
                        return Err(Error::spanned(
                            ErrorKind::IntegerTooLarge {
                                what: "tile entry",
                                max: usize::MAX as u64,
                            },
                            t.span,
                        ));
                    }
                    TokenKind::Punct(b'-') | TokenKind::Punct(b'?') => {
                        return Err(Error::spanned(ErrorKind::NegativeTileDim, t.span));
                    }
                    _ => return Err(unexpected(lx, t, "a tile size or `*`")),
                };
                if k == MAX_RANK {
                    return Err(Error::spanned(
                        ErrorKind::TileRankTooLarge {
                            rank: k + 1,
                            max: MAX_RANK,
                        },
                        t.span,
                    ));
                }
                raw[k] = value;
                spans.tile_entry[levels][k] = t.span;
                k += 1;
                let sep = lx.next_token()?;
                match sep.kind {
                    TokenKind::Punct(b',') => {}
                    TokenKind::Punct(b')') => break sep,
                    _ => return Err(unexpected(lx, sep, "`,` or `)`")),
                }
            }
        };
        spans.tile[levels] = open.span.to(close.span);
        tiles[levels] = Tile::from_raw(&raw[..k]).map_err(|e| e.with_span(spans.tile[levels]))?;
        levels += 1;
    }
    layout
        .with_tiles(&tiles[..levels])
        .map_err(|e| e.with_span(letter.span))
}

fn parse_split_configs(
    lx: &mut Lexer<'_>,
    layout: Layout,
    letter: Token,
    spans: &mut SpanTable,
) -> Result<Layout, Error> {
    let mut configs =
        [SplitConfig::new(0, &[]).map_err(|e| e.with_span(letter.span))?; MAX_SPLIT_CONFIGS];
    let mut count = 0usize;
    let mut end = letter.span;
    while lx.peek()?.kind == TokenKind::Punct(b'(') || count == 0 {
        let open = expect_punct(lx, b'(', "`(` starting a split config")?;
        if count == MAX_SPLIT_CONFIGS {
            return Err(Error::spanned(
                ErrorKind::TooManySplits {
                    max: MAX_SPLIT_CONFIGS,
                },
                open.span,
            ));
        }
        let (dim, _) = expect_int(lx, "split dimension", "a dimension number", MAX_RANK as u64)?;
        expect_punct(lx, b':', "`:`")?;
        let mut idx = [0u64; MAX_SPLIT_INDICES];
        let mut k = 0usize;
        let close = loop {
            let (v, span) = expect_int(lx, "split index", "a split index", i64::MAX as u64)?;
            if k == MAX_SPLIT_INDICES {
                return Err(Error::spanned(
                    ErrorKind::TooManySplits {
                        max: MAX_SPLIT_INDICES,
                    },
                    span,
                ));
            }
            idx[k] = v;
            k += 1;
            let sep = lx.next_token()?;
            match sep.kind {
                TokenKind::Punct(b',') => {}
                TokenKind::Punct(b')') => break sep,
                _ => return Err(unexpected(lx, sep, "`,` or `)`")),
            }
        };
        spans.split_config[count] = open.span.to(close.span);
        configs[count] = SplitConfig::new(dim as usize, &idx[..k])
            .map_err(|e| e.with_span(spans.split_config[count]))?;
        count += 1;
        end = close.span;
    }
    record_attribute(spans, "SC", letter.span.to(end));
    layout
        .with_split_configs(&configs[..count])
        .map_err(|e| e.with_span(letter.span.to(end)))
}

fn parse_padding(
    lx: &mut Lexer<'_>,
    layout: Layout,
    word: Token,
    spans: &mut SpanTable,
) -> Result<Layout, Error> {
    expect_punct(lx, b'(', "`(`")?;
    let mut widths = [0usize; MAX_RANK];
    let mut k = 0usize;
    let mut value = PaddingValue::Unspecified;
    let close = loop {
        let (v, span) = expect_int(lx, "padded width", "a padded width", MAX_DIM_SIZE as u64)?;
        room_for_dim(k, span)?;
        widths[k] = v as usize;
        spans.padding_entry[k] = span;
        k += 1;
        let sep = lx.next_token()?;
        match sep.kind {
            TokenKind::Punct(b',') => {}
            TokenKind::Punct(b')') => break sep,
            TokenKind::Punct(b':') => {
                let w = lx.next_token()?;
                value = match w.kind {
                    TokenKind::Ident => PaddingValue::from_name(lx.slice(w.span)),
                    _ => None,
                }
                .ok_or_else(|| unexpected(lx, w, "`zero`, `one`, `lowest` or `highest`"))?;
                break expect_punct(lx, b')', "`)`")?;
            }
            _ => return Err(unexpected(lx, sep, "`,`, `:` or `)`")),
        }
    };
    let span = word.span.to(close.span);
    record_attribute(spans, "pad", span);
    let padding = Padding::new(&widths[..k], value).map_err(|e| e.with_span(span))?;
    Ok(layout.with_padding(Some(padding)))
}

impl core::str::FromStr for Shape {
    type Err = Error;
    /// [`parse_shape`]: one array shape (or `token[]`/`opaque[]`).
    fn from_str(s: &str) -> Result<Shape, Error> {
        parse_shape(s).map(|p| p.shape)
    }
}

impl core::str::FromStr for Layout {
    type Err = Error;
    /// [`parse_layout`]: a layout on its own, `{1,0:T(2,2)}`.
    fn from_str(s: &str) -> Result<Layout, Error> {
        parse_layout(s)
    }
}

impl core::str::FromStr for PrimitiveType {
    type Err = Error;
    /// An XLA element type name, `f32`, `bf16`, `s4`, ...
    fn from_str(s: &str) -> Result<PrimitiveType, Error> {
        PrimitiveType::from_name(s).ok_or_else(|| {
            Error::spanned(
                ErrorKind::UnknownElementType {
                    name: crate::error::message::Snippet::new(s),
                },
                ByteSpan::new(0, s.len()),
            )
        })
    }
}
