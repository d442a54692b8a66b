//! Finding the shapes in XLA's HLO text: a module as XLA prints it
//! (`--xla_dump_to` dumps before and after optimization,
//! `jax.jit(f).lower(..).compile().as_text()`), without allocating.
//!
//! Only the line structure of HLO is read here; every shape goes to the
//! one grammar, [`parse_shape_tree`], so a shape is valid in HLO exactly
//! when `tessera check` accepts it. The lines read:
//!
//! ```text
//! HloModule NAME, ..., entry_computation_layout={(P0, P1, ...)->RESULT}, ...
//! [ENTRY] [%]COMPUTATION [(PARAMS) -> SHAPE] {
//!   [ROOT] [%]NAME = SHAPE OPCODE(OPERANDS), ATTRIBUTES...
//! }
//! ```
//!
//! `SHAPE` is an array (`f32[8,128]{1,0:T(8,128)}`), a tuple, possibly
//! with XLA's `/*index=5*/` comments, or a buffer; attributes
//! (`metadata={..}`, `backend_config=..`, `calls=..`) are skipped. Outside
//! computations, a line starting with `%NAME =` is read as an instruction
//! (of no computation: a line pasted on its own); other lines than
//! `HloModule` (the `FileNames` and `StackFrames` tables of newer dumps)
//! are skipped, and so are comments that open a line (`// ..` lines,
//! `/* .. */` over one line or several), as XLA's lexer skips them. A
//! line inside a
//! computation that is not an instruction, or whose shape breaks a rule,
//! is an [`Item::Unreadable`] with the error spanned over the whole text.
//!
//! ```
//! use tessera::hlo::{items, Item, Role};
//! let text = "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}
//!
//! ENTRY %main (p: f32[4]) -> f32[4] {
//!   %p = f32[4]{0} parameter(0), metadata={op_name=\"p\"}
//!   ROOT %neg = f32[4]{0} negate(%p)
//! }
//! ";
//! let mut names = Vec::new();
//! for item in items(text) {
//!     if let Item::Shape(site) = item {
//!         if site.role == Role::Instruction {
//!             names.push((site.computation, site.name, site.opcode, site.text));
//!         }
//!     }
//! }
//! assert_eq!(names, [
//!     ("main", "p", "parameter", "f32[4]{0}"),
//!     ("main", "neg", "negate", "f32[4]{0}"),
//! ]);
//! ```

use crate::error::message::Snippet;
use crate::error::{ByteSpan, Error, ErrorKind};
use crate::text::parse_shape_tree;

/// What a shape in HLO text belongs to.
///
/// ```
/// use tessera::hlo::{items, Item, Role};
/// let text = "HloModule m, entry_computation_layout={(f32[4]{0}, s32[])->f32[4]{0}}\n";
/// let roles: Vec<Role> = items(text)
///     .filter_map(|i| if let Item::Shape(s) = i { Some(s.role) } else { None })
///     .collect();
/// assert_eq!(roles, [Role::EntryParameter(0), Role::EntryParameter(1), Role::EntryResult]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The result of an instruction.
    Instruction,
    /// Parameter `N` of the module's `entry_computation_layout`.
    EntryParameter(usize),
    /// The result in the module's `entry_computation_layout`.
    EntryResult,
}

/// A shape found in HLO text, already checked by [`parse_shape_tree`].
///
/// ```
/// use tessera::hlo::{items, Item};
/// let text = "ENTRY %main {\n  ROOT %t = f32[8,128]{0,1} transpose(%p)\n}\n";
/// let Some(Item::Shape(site)) = items(text).nth(1) else { panic!() };
/// assert_eq!((site.computation, site.name, site.opcode), ("main", "t", "transpose"));
/// assert_eq!((site.is_root, site.line), (true, 2));
/// assert_eq!(&text[site.span.start..site.span.end], "f32[8,128]{0,1}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeSite<'a> {
    /// What the shape belongs to.
    pub role: Role,
    /// The computation holding the instruction, without `%` (empty for
    /// the entry computation layout).
    pub computation: &'a str,
    /// Whether that computation is the `ENTRY` one (true for the entry
    /// computation layout).
    pub is_entry: bool,
    /// The instruction's name without `%` (empty for the entry layout).
    pub name: &'a str,
    /// The instruction's opcode, e.g. `fusion` (empty for the entry layout).
    pub opcode: &'a str,
    /// Whether the instruction is its computation's `ROOT`.
    pub is_root: bool,
    /// The line, counted from 1.
    pub line: usize,
    /// The shape's text.
    pub text: &'a str,
    /// Where that text stands in the whole input.
    pub span: ByteSpan,
}

/// One thing found in HLO text, in the order of the text.
///
/// ```
/// use tessera::hlo::{items, Item};
/// let text = "HloModule m\n\nENTRY %main {\n  ROOT %c = f32[] constant(1)\n}\n";
/// let mut it = items(text);
/// assert_eq!(it.next(), Some(Item::Module { name: "m", line: 1 }));
/// assert_eq!(it.next(), Some(Item::Computation { name: "main", is_entry: true, line: 3 }));
/// assert!(matches!(it.next(), Some(Item::Shape(s)) if s.text == "f32[]"));
/// assert_eq!(it.next(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// `HloModule NAME, ...`.
    Module {
        /// The module's name.
        name: &'a str,
        /// The line, counted from 1.
        line: usize,
    },
    /// The header of a computation, `[ENTRY] %NAME (..) -> .. {`.
    Computation {
        /// The computation's name without `%`.
        name: &'a str,
        /// Whether it is the `ENTRY` computation.
        is_entry: bool,
        /// The line, counted from 1.
        line: usize,
    },
    /// A shape: an instruction's result or part of the entry layout.
    Shape(ShapeSite<'a>),
    /// A line that could not be read, and why; the error's span is over
    /// the whole input.
    Unreadable {
        /// The line, counted from 1.
        line: usize,
        /// What is wrong, spanned.
        error: Error,
    },
}

/// The items of HLO `text`, in order. Never panics, whatever the text.
///
/// ```
/// use tessera::hlo::{items, Item};
/// let bad = "c {\n  %x = f32[2]{1} parameter(0)\n}\n";
/// let Some(Item::Unreadable { line, error }) = items(bad).nth(1) else { panic!() };
/// assert_eq!(line, 2);
/// assert_eq!(error.to_string(), "dimension `1` in minor_to_major is out of range for rank 1");
/// assert_eq!(&bad[error.span().unwrap().start..][..1], "1");
/// ```
pub fn items(text: &str) -> Items<'_> {
    Items {
        text,
        pos: 0,
        line: 0,
        computation: None,
        entry_layout: None,
        in_comment: false,
    }
}

/// The iterator of [`items`].
///
/// ```
/// use tessera::hlo::{items, Item, Items};
/// let it: Items<'_> = items("%x = f32[2]{0} parameter(0)\n%y = f32[2]{1} negate(%x)\n");
/// // One item per line, in order; a bad line does not stop the rest.
/// assert_eq!(it.clone().count(), 2);
/// assert!(matches!(it.last(), Some(Item::Unreadable { line: 2, .. })));
/// ```
#[derive(Clone, Debug)]
pub struct Items<'a> {
    text: &'a str,
    /// Start of the next line.
    pos: usize,
    /// Number of the last line read.
    line: usize,
    /// The open computation: its name and whether it is the entry one.
    computation: Option<(&'a str, bool)>,
    /// Where the rest of `entry_computation_layout` is still to be read.
    entry_layout: Option<EntryCursor>,
    /// Whether a `/* .. */` comment runs on past the last line read.
    in_comment: bool,
}

/// A place in `entry_computation_layout={(..)->..}`.
#[derive(Clone, Copy, Debug)]
struct EntryCursor {
    /// Next byte to read.
    pos: usize,
    /// The parameter to read next, or `None` for the result.
    parameter: Option<usize>,
    /// The line.
    line: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = Item<'a>;

    fn next(&mut self) -> Option<Item<'a>> {
        if let Some(cursor) = self.entry_layout
            && let Some(item) = self.entry_item(cursor)
        {
            return Some(item);
        }
        while self.pos < self.text.len() {
            let start = self.pos;
            let end = self.text[start..]
                .find('\n')
                .map_or(self.text.len(), |n| start + n);
            self.pos = if end < self.text.len() { end + 1 } else { end };
            self.line += 1;
            if let Some(item) = self.read_line(start, end) {
                return Some(item);
            }
        }
        None
    }
}

fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace()
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

impl<'a> Items<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// First non-space byte at or after `pos`, before `end`.
    fn skip_space(&self, mut pos: usize, end: usize) -> usize {
        while pos < end && is_space(self.bytes()[pos]) {
            pos += 1;
        }
        pos
    }

    /// End of the run of name bytes starting at `pos`.
    fn name_end(&self, mut pos: usize, end: usize) -> usize {
        while pos < end && is_name_byte(self.bytes()[pos]) {
            pos += 1;
        }
        pos
    }

    fn unreadable(&self, error: Error) -> Item<'a> {
        Item::Unreadable {
            line: self.line,
            error,
        }
    }

    /// The error for finding something other than `expected` at `pos`.
    fn unexpected(&self, pos: usize, end: usize, expected: &'static str) -> Item<'a> {
        if pos >= end {
            return self.unreadable(Error::spanned(
                ErrorKind::UnexpectedEndOfLine { expected },
                ByteSpan::new(end, end),
            ));
        }
        let word_end = self.name_end(pos, end).max(
            // One character when the text there is not a name.
            pos + self.text[pos..].chars().next().map_or(1, char::len_utf8),
        );
        self.unreadable(Error::spanned(
            ErrorKind::UnexpectedToken {
                expected,
                found: Snippet::new(&self.text[pos..word_end]),
            },
            ByteSpan::new(pos, word_end),
        ))
    }

    /// Reads the line `start..end`; `None` when it holds nothing to report.
    fn read_line(&mut self, start: usize, mut end: usize) -> Option<Item<'a>> {
        while end > start && is_space(self.bytes()[end - 1]) {
            end -= 1;
        }
        let first = self.skip_comments(self.skip_space(start, end), end);
        if first == end {
            return None;
        }
        let line = &self.text[first..end];
        if self.computation.is_some() {
            if line == "}" {
                self.computation = None;
                return None;
            }
            return Some(self.instruction(first, end));
        }
        if let Some(rest) = line.strip_prefix("HloModule")
            && rest.bytes().next().is_some_and(is_space)
        {
            return Some(self.module(first + "HloModule".len(), end));
        }
        if line.ends_with('{') {
            return Some(self.computation_header(first, end));
        }
        // A lone instruction, pasted from a module: `%p = f32[2]{0} ...`.
        if line.starts_with('%') && line.contains('=') {
            return Some(self.instruction(first, end));
        }
        None
    }

    /// The first byte at or after `pos`, before `end`, past the comments
    /// that open the line as XLA's HLO lexer skips them: a `// ..` line
    /// (all of it), `/* .. */` (also one begun on an earlier line); `end`
    /// when nothing else is left.
    fn skip_comments(&mut self, mut pos: usize, end: usize) -> usize {
        loop {
            if self.in_comment {
                let Some(n) = self.text[pos..end].find("*/") else {
                    return end;
                };
                self.in_comment = false;
                pos = self.skip_space(pos + n + 2, end);
            }
            let rest = &self.text[pos..end];
            if rest.starts_with("//") {
                return end;
            }
            if !rest.starts_with("/*") {
                return pos;
            }
            self.in_comment = true;
            pos += 2;
        }
    }

    fn module(&mut self, pos: usize, end: usize) -> Item<'a> {
        let name_start = self.skip_space(pos, end);
        let name_end = self.name_end(name_start, end);
        const KEY: &str = "entry_computation_layout={";
        if let Some(n) = self.text[name_end..end].find(KEY) {
            self.entry_layout = Some(EntryCursor {
                pos: name_end + n + KEY.len(),
                parameter: Some(0),
                line: self.line,
            });
        }
        Item::Module {
            name: &self.text[name_start..name_end],
            line: self.line,
        }
    }

    /// At `pos`: `keyword` (`ENTRY`, `ROOT`) and spaces, if there, then an
    /// optional `%` and a name. Whether the keyword was there, and where
    /// the name starts and ends (equal when there is none).
    fn marked_name(&self, pos: usize, end: usize, keyword: &str) -> (bool, usize, usize) {
        let mut p = pos;
        let marked = self.text[p..end].starts_with(keyword)
            && self
                .bytes()
                .get(p + keyword.len())
                .is_some_and(|&b| is_space(b));
        if marked {
            p = self.skip_space(p + keyword.len(), end);
        }
        if self.bytes().get(p) == Some(&b'%') {
            p += 1;
        }
        (marked, p, self.name_end(p, end))
    }

    fn computation_header(&mut self, pos: usize, end: usize) -> Item<'a> {
        let (is_entry, p, name_end) = self.marked_name(pos, end, "ENTRY");
        if name_end == p {
            return self.unexpected(p, end, "a computation name");
        }
        let name = &self.text[p..name_end];
        self.computation = Some((name, is_entry));
        Item::Computation {
            name,
            is_entry,
            line: self.line,
        }
    }

    /// `[ROOT] [%]NAME = SHAPE OPCODE(...)...` on `pos..end`.
    fn instruction(&mut self, pos: usize, end: usize) -> Item<'a> {
        let (computation, is_entry) = self.computation.unwrap_or(("", false));
        let (is_root, p, name_end) = self.marked_name(pos, end, "ROOT");
        if name_end == p {
            return self.unexpected(
                p,
                end,
                "an instruction name, or `}` closing the computation",
            );
        }
        let eq = self.skip_space(name_end, end);
        if self.bytes().get(eq) != Some(&b'=') || eq >= end {
            return self.unexpected(eq, end, "`=` after the instruction name");
        }
        let shape_start = self.skip_space(eq + 1, end);
        let shape_end = match self.shape_end(shape_start, end, false) {
            Ok(e) => e,
            Err(e) => return self.unreadable(e),
        };
        if shape_end == shape_start {
            return self.unexpected(shape_start, end, "the instruction's shape");
        }
        if let Err(e) = check_shape(self.text, shape_start, shape_end) {
            return self.unreadable(e);
        }
        let op_start = self.skip_space(shape_end, end);
        let op_end = self.name_end(op_start, end);
        if op_end == op_start || self.bytes().get(op_end) != Some(&b'(') || op_end >= end {
            return self.unexpected(op_start, end, "an opcode and `(`, e.g. `add(`");
        }
        Item::Shape(ShapeSite {
            role: Role::Instruction,
            computation,
            is_entry,
            name: &self.text[p..name_end],
            opcode: &self.text[op_start..op_end],
            is_root,
            line: self.line,
            text: &self.text[shape_start..shape_end],
            span: ByteSpan::new(shape_start, shape_end),
        })
    }

    /// End of the shape text starting at `pos`: the first byte outside
    /// brackets that is a space (`in_list` false) or a `,` (`in_list`
    /// true), or a closing bracket that has no opening one. `/* .. */`
    /// comments are skipped.
    fn shape_end(&self, pos: usize, end: usize, in_list: bool) -> Result<usize, Error> {
        let b = self.bytes();
        let mut depth = 0usize;
        let mut p = pos;
        while p < end {
            match b[p] {
                b'/' if b.get(p + 1) == Some(&b'*') => {
                    match self.text[p + 2..end].find("*/") {
                        Some(n) => p += 2 + n + 2,
                        None => {
                            return Err(Error::spanned(
                                ErrorKind::UnexpectedEndOfLine {
                                    expected: "`*/` closing the comment",
                                },
                                ByteSpan::new(p, end),
                            ));
                        }
                    }
                    continue;
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    if depth == 0 {
                        return Ok(p);
                    }
                    depth -= 1;
                }
                c if depth == 0 && ((!in_list && is_space(c)) || (in_list && c == b',')) => {
                    return Ok(p);
                }
                _ => {}
            }
            p += 1;
        }
        if depth > 0 {
            return Err(Error::spanned(
                ErrorKind::UnexpectedEndOfLine {
                    expected: "a closing bracket in the shape",
                },
                ByteSpan::new(pos, end),
            ));
        }
        Ok(end)
    }

    /// The next shape of `entry_computation_layout`, or `None` when it is
    /// all read (or unreadable, after reporting that once).
    fn entry_item(&mut self, cursor: EntryCursor) -> Option<Item<'a>> {
        let end = self.text[cursor.pos..]
            .find('\n')
            .map_or(self.text.len(), |n| cursor.pos + n);
        let saved_line = self.line;
        self.line = cursor.line;
        let item = self.entry_step(cursor, end);
        self.line = saved_line;
        item
    }

    fn entry_step(&mut self, cursor: EntryCursor, end: usize) -> Option<Item<'a>> {
        self.entry_layout = None;
        let b = self.bytes();
        let mut p = self.skip_space(cursor.pos, end);
        let role = match cursor.parameter {
            Some(n) => {
                if n == 0 {
                    if b.get(p) != Some(&b'(') || p >= end {
                        return Some(self.unexpected(p, end, "`(` opening the parameter list"));
                    }
                    p = self.skip_space(p + 1, end);
                    if b.get(p) == Some(&b')') {
                        return self.entry_arrow(p + 1, end, cursor.line);
                    }
                }
                Role::EntryParameter(n)
            }
            None => Role::EntryResult,
        };
        let stop = match self.shape_end(p, end, cursor.parameter.is_some()) {
            Ok(e) => e,
            Err(e) => return Some(self.unreadable(e)),
        };
        let mut shape_end = stop;
        while shape_end > p && is_space(b[shape_end - 1]) {
            shape_end -= 1;
        }
        if shape_end == p {
            return Some(self.unexpected(p, end, "a shape"));
        }
        if let Err(e) = check_shape(self.text, p, shape_end) {
            return Some(self.unreadable(e));
        }
        let after = self.skip_space(stop, end);
        let next = match (role, b.get(after).filter(|_| after < end)) {
            (Role::EntryParameter(n), Some(b',')) => Some(EntryCursor {
                pos: after + 1,
                parameter: Some(n + 1),
                line: cursor.line,
            }),
            (Role::EntryParameter(_), Some(b')')) => {
                let q = self.skip_space(after + 1, end);
                if !self.text[q..end].starts_with("->") {
                    return Some(self.unexpected(q, end, "`->` before the result"));
                }
                Some(EntryCursor {
                    pos: q + 2,
                    parameter: None,
                    line: cursor.line,
                })
            }
            (Role::EntryResult, Some(b'}')) => None,
            _ => return Some(self.unexpected(after, end, "`,`, `)` or `}` after the shape")),
        };
        self.entry_layout = next;
        Some(Item::Shape(ShapeSite {
            role,
            computation: "",
            is_entry: true,
            name: "",
            opcode: "",
            is_root: false,
            line: cursor.line,
            text: &self.text[p..shape_end],
            span: ByteSpan::new(p, shape_end),
        }))
    }

    /// After `()` of an entry layout with no parameters: `->` and the
    /// result.
    fn entry_arrow(&mut self, pos: usize, end: usize, line: usize) -> Option<Item<'a>> {
        let q = self.skip_space(pos, end);
        if !self.text[q..end].starts_with("->") {
            return Some(self.unexpected(q, end, "`->` before the result"));
        }
        self.entry_step(
            EntryCursor {
                pos: q + 2,
                parameter: None,
                line,
            },
            end,
        )
    }
}

/// Checks the shape at `start..end` of `text` with the one grammar,
/// spanning any error over the whole `text`.
fn check_shape(text: &str, start: usize, end: usize) -> Result<(), Error> {
    parse_shape_tree(&text[start..end], &mut |_| {}).map_err(|e| {
        let s = e.span().unwrap_or(ByteSpan::new(0, end - start));
        e.with_span(ByteSpan::new(start + s.start, start + s.end))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// `(role, computation, name, opcode, root, line, text)` of each shape.
    fn shapes(text: &str) -> Vec<(Role, &str, &str, &str, bool, usize, &str)> {
        items(text)
            .filter_map(|i| match i {
                Item::Shape(s) => {
                    assert_eq!(&text[s.span.start..s.span.end], s.text);
                    Some((
                        s.role,
                        s.computation,
                        s.name,
                        s.opcode,
                        s.is_root,
                        s.line,
                        s.text,
                    ))
                }
                _ => None,
            })
            .collect()
    }

    fn unreadable(text: &str) -> Vec<(usize, std::string::String, &str)> {
        items(text)
            .filter_map(|i| match i {
                Item::Unreadable { line, error } => {
                    let s = error.span().expect("every error is spanned");
                    Some((line, error.to_string(), &text[s.start..s.end]))
                }
                _ => None,
            })
            .collect()
    }

    const MODULE: &str = "\
HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[5,3]{1,0}, (s32[], bf16[2]{0}))->(s4[5,3]{1,0:E(4)}, s8[5,3]{1,0})}, allow_spmd_sharding_propagation_to_output={true,true}

FileNames
1 \"/tmp/a b.py\"

StackFrames
1 {file_location_id=1 parent_frame_id=1}

%fused_computation (param_0: f32[5,3]) -> s4[5,3] {
  %param_0 = f32[5,3]{1,0} parameter(0)
  ROOT %convert.0 = s4[5,3]{1,0:E(4)} convert(%param_0), metadata={op_name=\"jit(f)/convert\" stack_frame_id=1}
}

ENTRY %main.1 (x.1: f32[5,3], t: (s32[], bf16[2])) -> (s4[5,3], s8[5,3]) {
  %x.1 = f32[5,3]{1,0} parameter(0), metadata={op_name=\"x\"}
  t = (s32[], /*index=1*/bf16[2]{0}) parameter(1)
  %wrapped = s4[5,3]{1,0:E(4)} fusion(%x.1), kind=kLoop, calls=%fused_computation, backend_config={\"outer_dimension_partitions\":[]}
  %b = s8[5,3]{1,0} convert(%x.1)
  ROOT %tuple.1 = (s4[5,3]{1,0:E(4)}, s8[5,3]{1,0}) tuple(%wrapped, %b)
}
";

    #[test]
    fn a_module_yields_its_entry_layout_computations_and_instructions() {
        let all: Vec<Item<'_>> = items(MODULE).collect();
        assert_eq!(
            all[0],
            Item::Module {
                name: "jit_f",
                line: 1
            }
        );
        let comps: Vec<_> = all
            .iter()
            .filter_map(|i| match i {
                Item::Computation {
                    name,
                    is_entry,
                    line,
                } => Some((*name, *is_entry, *line)),
                _ => None,
            })
            .collect();
        assert_eq!(
            comps,
            [("fused_computation", false, 9), ("main.1", true, 14)]
        );
        let e = Role::Instruction;
        assert_eq!(
            shapes(MODULE),
            [
                (
                    Role::EntryParameter(0),
                    "",
                    "",
                    "",
                    false,
                    1,
                    "f32[5,3]{1,0}"
                ),
                (
                    Role::EntryParameter(1),
                    "",
                    "",
                    "",
                    false,
                    1,
                    "(s32[], bf16[2]{0})"
                ),
                (
                    Role::EntryResult,
                    "",
                    "",
                    "",
                    false,
                    1,
                    "(s4[5,3]{1,0:E(4)}, s8[5,3]{1,0})"
                ),
                (
                    e,
                    "fused_computation",
                    "param_0",
                    "parameter",
                    false,
                    10,
                    "f32[5,3]{1,0}"
                ),
                (
                    e,
                    "fused_computation",
                    "convert.0",
                    "convert",
                    true,
                    11,
                    "s4[5,3]{1,0:E(4)}"
                ),
                (e, "main.1", "x.1", "parameter", false, 15, "f32[5,3]{1,0}"),
                (
                    e,
                    "main.1",
                    "t",
                    "parameter",
                    false,
                    16,
                    "(s32[], /*index=1*/bf16[2]{0})"
                ),
                (
                    e,
                    "main.1",
                    "wrapped",
                    "fusion",
                    false,
                    17,
                    "s4[5,3]{1,0:E(4)}"
                ),
                (e, "main.1", "b", "convert", false, 18, "s8[5,3]{1,0}"),
                (
                    e,
                    "main.1",
                    "tuple.1",
                    "tuple",
                    true,
                    19,
                    "(s4[5,3]{1,0:E(4)}, s8[5,3]{1,0})"
                ),
            ]
        );
        assert!(unreadable(MODULE).is_empty());
        let entry: Vec<bool> = all
            .iter()
            .filter_map(|i| match i {
                Item::Shape(s) if s.role == Role::Instruction => Some(s.is_entry),
                _ => None,
            })
            .collect();
        assert_eq!(entry, [false, false, true, true, true, true, true]);
    }

    #[test]
    fn lines_it_cannot_read_are_reported_with_their_line_and_span() {
        let text = "ENTRY e {\n  %a f32[2]{0} parameter(0)\n  %b = f32[2]{0,0} add(%a)\n  %c = f32[2 add(%a)\n  %d = f32[?]{0} parameter(1)\n  %e = f32[2]{0}\n  garbage\n}\n%x = f32[1]{0} add()\n";
        assert_eq!(
            unreadable(text),
            [
                (
                    2,
                    "expected `=` after the instruction name, found `f32`".into(),
                    "f32"
                ),
                (
                    3,
                    "minor_to_major has 2 entries but the shape has rank 1".into(),
                    "{0,0"
                ),
                (
                    4,
                    "expected a closing bracket in the shape, found the end of the line".into(),
                    "f32[2 add(%a)"
                ),
                (
                    6,
                    "expected an opcode and `(`, e.g. `add(`, found the end of the line".into(),
                    ""
                ),
                (
                    7,
                    "expected `=` after the instruction name, found the end of the line".into(),
                    ""
                ),
            ]
        );
        // `?` dims are valid shapes; the line after `}` is a lone
        // instruction of no computation.
        let s = shapes(text);
        assert_eq!((s.len(), s[1].1, s[1].2), (2, "", "x"));
    }

    /// Comments that open a line are skipped, inside computations too,
    /// and a `/* .. */` over several lines with them; the instruction
    /// after a comment on its line is read.
    #[test]
    fn comments_are_skipped_as_xla_skips_them() {
        let text = "HloModule m\n\
            // a note\n\
            ENTRY %main {\n\
            \x20 // note inside\n\
            \x20 /* x */ %p = f32[2]{0} parameter(0)\n\
            \x20 /* over\n\
            \x20    %q = f32[2]{1} two lines */ ROOT %n = f32[2]{0} negate(%p)\n\
            }\n";
        let s = shapes(text);
        assert_eq!(
            s.iter().map(|x| (x.2, x.4, x.5)).collect::<Vec<_>>(),
            [("p", false, 5), ("n", true, 7)]
        );
        assert_eq!(unreadable(text), []);
    }

    #[test]
    fn a_lone_instruction_line_is_read() {
        let s =
            shapes("%p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), metadata={op_name=\"x\"}");
        assert_eq!(
            s,
            [(
                Role::Instruction,
                "",
                "p0",
                "parameter",
                false,
                1,
                "bf16[8,128]{1,0:T(8,128)(2,1)}"
            )]
        );
    }

    #[test]
    fn shapes_past_int64_are_unreadable_like_in_check() {
        let text = "c {\n  %p = f32[9223372036854775807]{0} parameter(0)\n}\n";
        let u = unreadable(text);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].1, "the byte size may overflow int64_t");
        assert_eq!(u[0].2, "[9223372036854775807]");
    }

    #[test]
    fn an_entry_layout_without_parameters_and_one_that_is_cut() {
        let s = shapes("HloModule m, entry_computation_layout={()->f32[]}\n");
        assert_eq!(s, [(Role::EntryResult, "", "", "", false, 1, "f32[]")]);
        let u = unreadable("HloModule m, entry_computation_layout={(f32[2]{0}\nENTRY x {\n}\n");
        assert_eq!(u.len(), 1, "{u:?}");
        assert_eq!(u[0].0, 1);
        let u = unreadable("HloModule m, entry_computation_layout={(f32[2]{5})->f32[]}\n");
        assert_eq!(u[0].2, "5");
    }
}
