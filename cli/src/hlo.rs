//! `tessera hlo`: the memory report of an HLO module. The shapes come from
//! the engine's [`layout_core::hlo::items`]; every size from the engine
//! too (XLA's `ByteSizeOf` and `ArraySize`, tessera's buffer).
//!
//! The JSON schema is documented in `docs/hlo-report.md` and kept stable.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use layout_core::hlo::{self, Item, Role};
use layout_core::text::{TreeEvent, parse_shape_tree};
use layout_core::xla::{layout_util, shape_util};
use layout_core::{ArrayLayout, ByteSpan, Shape};
use serde_json::{Value, json};

use crate::commands::Output;
use crate::spec::CliError;

/// XLA's pointer size on CPU and GPU, for tuple index tables and opaques.
const POINTER_SIZE: usize = 8;

/// One buffer of an instruction: an array, or a tuple's index table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Leaf {
    /// XLA's `ShapeIndex`: `[]` for an array result or the outer tuple.
    pub(crate) index: Vec<usize>,
    /// The shape, as XLA's buffer assignment prints it.
    pub(crate) shape: String,
    /// Logical elements (0 for a tuple's index table); `None` for `?`.
    pub(crate) elements: Option<usize>,
    /// XLA's `ShapeUtil::ByteSizeOf` (the CPU/GPU allocation).
    pub(crate) xla_bytes: Option<usize>,
    /// XLA's `ShapeUtil::ArraySize`, padded for the first tile (TPU).
    pub(crate) xla_tiled_bytes: Option<usize>,
    /// Tessera's buffer, every tile level's padding included.
    pub(crate) bytes: Option<usize>,
}

impl Leaf {
    /// Tessera's buffer bytes beyond the elements' own.
    fn padding(&self) -> Option<usize> {
        Some(self.bytes?.saturating_sub(self.xla_bytes?))
    }
}

/// An instruction (or an entry-layout shape) and its buffers.
#[derive(Clone, Debug)]
pub(crate) struct Instruction {
    /// Its computation, without `%` (empty for the entry layout).
    pub(crate) computation: String,
    /// Its name, without `%` (empty for the entry layout).
    pub(crate) name: String,
    /// Its opcode (empty for the entry layout).
    pub(crate) opcode: String,
    /// Whether it is in the ENTRY computation.
    pub(crate) is_entry: bool,
    /// Whether it is its computation's ROOT.
    pub(crate) is_root: bool,
    /// Its line, from 1.
    pub(crate) line: usize,
    /// Its shape, canonical.
    pub(crate) shape: String,
    /// Its buffers.
    pub(crate) leaves: Vec<Leaf>,
    /// `N` of a `parameter(N)` instruction.
    pub(crate) parameter: Option<usize>,
}

/// Sums over a set of leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    xla_bytes: usize,
    xla_tiled_bytes: usize,
    bytes: usize,
    padding: usize,
    /// Leaves with a `?` dimension, left out of the sums.
    unknown: usize,
}

impl Totals {
    fn add(&mut self, leaf: &Leaf) {
        match (leaf.xla_bytes, leaf.bytes) {
            (Some(x), Some(b)) => {
                self.xla_bytes = self.xla_bytes.saturating_add(x);
                self.bytes = self.bytes.saturating_add(b);
                self.padding = self.padding.saturating_add(leaf.padding().unwrap_or(0));
                let tiled = leaf.xla_tiled_bytes.unwrap_or(x);
                self.xla_tiled_bytes = self.xla_tiled_bytes.saturating_add(tiled);
            }
            _ => self.unknown += 1,
        }
    }

    fn of<'a>(leaves: impl IntoIterator<Item = &'a Leaf>) -> Totals {
        let mut t = Totals::default();
        for l in leaves {
            t.add(l);
        }
        t
    }

    fn json(&self) -> Value {
        json!({
            "xla_bytes": self.xla_bytes,
            "xla_tiled_bytes": self.xla_tiled_bytes,
            "bytes": self.bytes,
            "padding_bytes": self.padding,
            "unknown_leaves": self.unknown,
        })
    }
}

/// A line that could not be read.
#[derive(Clone, Debug)]
pub(crate) struct Unreadable {
    pub(crate) line: usize,
    /// The engine's report: message, the line, a caret.
    pub(crate) report: String,
    pub(crate) message: String,
    /// The column (from 1, in characters) and the bytes of the whole text
    /// the error points at.
    pub(crate) at: Option<(usize, ByteSpan)>,
}

/// A leaf with the instruction it belongs to.
type LeafOf<'a> = (&'a Instruction, &'a Leaf);

/// Everything `tessera hlo` reports.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    pub(crate) module: String,
    /// Computations in the order of the text, with whether each is ENTRY.
    pub(crate) computations: Vec<(String, bool)>,
    pub(crate) instructions: Vec<Instruction>,
    /// `entry_computation_layout`'s parameters, then its result (if any).
    pub(crate) entry_parameters: Vec<Instruction>,
    pub(crate) entry_result: Option<Instruction>,
    pub(crate) unreadable: Vec<Unreadable>,
}

/// A tuple being read: its leaf's position and its elements' texts.
struct OpenTuple {
    leaf: usize,
    parts: Vec<String>,
}

/// The buffers of `text`, a shape the engine has accepted, walking its
/// tree: one leaf per array and one per tuple (its index table), in
/// XLA's order (a tuple before its elements).
///
/// # Errors
/// The engine's error for the shape text or an array leaf's sizes.
pub(crate) fn leaves(text: &str) -> Result<Vec<Leaf>, layout_core::Error> {
    let mut out: Vec<Leaf> = Vec::new();
    let mut open: Vec<OpenTuple> = Vec::new();
    let mut path: Vec<usize> = Vec::new();
    parse_shape_tree(text, &mut |event| match event {
        TreeEvent::TupleStart => {
            out.push(Leaf {
                index: path.clone(),
                shape: String::new(),
                elements: Some(0),
                xla_bytes: None,
                xla_tiled_bytes: None,
                bytes: None,
            });
            open.push(OpenTuple {
                leaf: out.len() - 1,
                parts: Vec::new(),
            });
            path.push(0);
        }
        TreeEvent::TupleEnd => {
            if let Some(t) = open.pop() {
                path.pop();
                let shape = format!("({})", t.parts.join(", "));
                let table = shape_util::byte_size_of_tuple_index_table(t.parts.len(), POINTER_SIZE);
                let leaf = &mut out[t.leaf];
                leaf.shape.clone_from(&shape);
                leaf.xla_bytes = table;
                leaf.xla_tiled_bytes = table;
                leaf.bytes = table;
                finish_part(&mut open, &mut path, shape);
            }
        }
        TreeEvent::BufferStart | TreeEvent::BufferEnd => {}
        TreeEvent::Leaf(shape) => {
            let leaf = array_leaf(&shape, path.clone());
            finish_part(&mut open, &mut path, leaf.shape.clone());
            out.push(leaf);
        }
    })?;
    Ok(out)
}

/// Records a finished element of the innermost open tuple.
fn finish_part(open: &mut [OpenTuple], path: &mut [usize], text: String) {
    if let (Some(t), Some(last)) = (open.last_mut(), path.last_mut()) {
        t.parts.push(text);
        *last += 1;
    }
}

/// The sizes of one array (or token/opaque) leaf. A `?` dimension leaves
/// the sizes unknown.
fn array_leaf(shape: &Shape, index: Vec<usize>) -> Leaf {
    let xla_bytes = shape_util::byte_size_of(shape, POINTER_SIZE);
    let (elements, bytes, xla_tiled_bytes) = if shape.is_array() {
        match ArrayLayout::new(*shape) {
            Ok(a) => (
                Some(a.element_count()),
                Some(a.physical_byte_size()),
                layout_util::xla_array_size_bytes(shape),
            ),
            Err(_) => (None, None, None),
        }
    } else {
        (Some(0), xla_bytes, xla_bytes)
    };
    Leaf {
        index,
        shape: shape.to_string(),
        elements,
        xla_bytes,
        xla_tiled_bytes,
        bytes,
    }
}

/// Reads HLO `text` into a report. Unreadable lines are collected, never
/// fatal.
///
/// # Errors
/// Text with no `HloModule` line, computation or instruction: not HLO.
pub(crate) fn report(text: &str) -> Result<Report, CliError> {
    let mut r = Report {
        module: String::new(),
        computations: Vec::new(),
        instructions: Vec::new(),
        entry_parameters: Vec::new(),
        entry_result: None,
        unreadable: Vec::new(),
    };
    let mut seen_module = false;
    for item in hlo::items(text) {
        match item {
            Item::Module { name, .. } => {
                seen_module = true;
                r.module = name.to_string();
            }
            Item::Computation { name, is_entry, .. } => {
                r.computations.push((name.to_string(), is_entry));
            }
            Item::Unreadable { line, error } => r.unreadable.push(unreadable(text, line, &error)),
            Item::Shape(site) => {
                let built = crate::spec::canonical(site.text)
                    .and_then(|shape| Ok((shape, leaves(site.text)?)));
                let (shape, leaves) = match built {
                    Ok(x) => x,
                    Err(e) => {
                        // Spans of the shape text, moved onto the whole text.
                        let at = site.span.start;
                        let e = match e.span() {
                            Some(sp) => e.with_span(ByteSpan::new(at + sp.start, at + sp.end)),
                            None => e.with_span(site.span),
                        };
                        r.unreadable.push(unreadable(text, site.line, &e));
                        continue;
                    }
                };
                let ins = Instruction {
                    computation: site.computation.to_string(),
                    name: site.name.to_string(),
                    opcode: site.opcode.to_string(),
                    is_entry: site.is_entry,
                    is_root: site.is_root,
                    line: site.line,
                    shape,
                    leaves,
                    parameter: parameter_number(text, &site),
                };
                match site.role {
                    Role::Instruction => r.instructions.push(ins),
                    Role::EntryParameter(_) => r.entry_parameters.push(ins),
                    Role::EntryResult => r.entry_result = Some(ins),
                }
            }
        }
    }
    if !seen_module && r.computations.is_empty() && r.instructions.is_empty() {
        return Err(CliError::msg(
            "this is not HLO text: it has no `HloModule` line, no computation \
             (`[ENTRY] %name (..) -> .. {`) and no instruction (`%name = SHAPE op(..)`)",
        ));
    }
    if r.entry_parameters.is_empty() && r.entry_result.is_none() {
        // No entry_computation_layout: the ENTRY computation's parameters
        // and ROOT stand for it (a ROOT parameter is both), the
        // parameters in the order of their numbers.
        for ins in r.instructions.iter().filter(|i| i.is_entry) {
            if ins.opcode == "parameter" {
                r.entry_parameters.push(ins.clone());
            }
            if ins.is_root {
                r.entry_result = Some(ins.clone());
            }
        }
        r.entry_parameters
            .sort_by_key(|p| p.parameter.unwrap_or(usize::MAX));
    }
    Ok(r)
}

/// `N` of the `parameter(N)` after `site`'s shape: the number its entry
/// parameter has.
fn parameter_number(text: &str, site: &hlo::ShapeSite<'_>) -> Option<usize> {
    if site.opcode != "parameter" {
        return None;
    }
    let after = text.get(site.span.end..)?.trim_start();
    let digits = after.strip_prefix("parameter(")?.split(')').next()?;
    digits.trim().parse().ok()
}

fn unreadable(text: &str, line: usize, error: &layout_core::Error) -> Unreadable {
    // `get`: a span that is not on character boundaries of `text` (none
    // should be) has no column rather than a panic.
    let at = error.span().and_then(|sp| {
        let before = text.get(..sp.start)?;
        text.get(sp.start..sp.end)?;
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        Some((before[line_start..].chars().count() + 1, sp))
    });
    Unreadable {
        line,
        report: error.report(text).to_string(),
        message: error.to_string(),
        at,
    }
}

/// An unreadable line in the JSON report: its line, column and byte span
/// (`null` when the error has no place) and the message.
fn unreadable_json(u: &Unreadable) -> Value {
    let (column, span) = match u.at {
        Some((column, sp)) => (json!(column), json!([sp.start, sp.end])),
        None => (Value::Null, Value::Null),
    };
    json!({"line": u.line, "column": column, "span": span, "message": u.message})
}

impl Report {
    fn entry_parameter_totals(&self) -> Totals {
        Totals::of(self.entry_parameters.iter().flat_map(|i| &i.leaves))
    }

    fn entry_result_totals(&self) -> Totals {
        Totals::of(self.entry_result.iter().flat_map(|i| &i.leaves))
    }

    /// Per computation, in the order of the text: name, ENTRY or not,
    /// instruction count and totals.
    fn computation_totals(&self) -> Vec<(&str, bool, usize, Totals)> {
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        let mut out: Vec<(&str, bool, usize, Totals)> = Vec::new();
        for (name, entry) in &self.computations {
            index.entry(name).or_insert_with(|| {
                out.push((name, *entry, 0, Totals::default()));
                out.len() - 1
            });
        }
        for ins in &self.instructions {
            let k = *index.entry(&ins.computation).or_insert_with(|| {
                out.push((&ins.computation, ins.is_entry, 0, Totals::default()));
                out.len() - 1
            });
            out[k].2 += 1;
            for l in &ins.leaves {
                out[k].3.add(l);
            }
        }
        out
    }

    /// Every leaf of every instruction, with its instruction.
    fn all_leaves(&self) -> impl Iterator<Item = (&Instruction, &Leaf)> {
        self.instructions
            .iter()
            .flat_map(|i| i.leaves.iter().map(move |l| (i, l)))
    }

    /// The `n` largest leaves by tessera's bytes, and the `n` with the
    /// most padding (only those with some), largest first; ties in text
    /// order.
    fn top(&self, n: usize) -> (Vec<LeafOf<'_>>, Vec<LeafOf<'_>>) {
        let mut largest: Vec<_> = self
            .all_leaves()
            .filter(|(_, l)| l.bytes.is_some())
            .collect();
        largest.sort_by_key(|(_, l)| std::cmp::Reverse(l.bytes));
        largest.truncate(n);
        let mut padded: Vec<_> = self
            .all_leaves()
            .filter(|(_, l)| l.padding().is_some_and(|p| p > 0))
            .collect();
        padded.sort_by_key(|(_, l)| std::cmp::Reverse(l.padding()));
        padded.truncate(n);
        (largest, padded)
    }
}

// ------------------------------------------------------------------ JSON

fn leaf_json(l: &Leaf) -> Value {
    json!({
        "index": l.index,
        "shape": l.shape,
        "elements": l.elements,
        "xla_bytes": l.xla_bytes,
        "xla_tiled_bytes": l.xla_tiled_bytes,
        "bytes": l.bytes,
        "padding_bytes": l.padding(),
    })
}

fn instruction_json(i: &Instruction) -> Value {
    json!({
        "computation": i.computation,
        "name": i.name,
        "opcode": i.opcode,
        "line": i.line,
        "shape": i.shape,
        "leaves": i.leaves.iter().map(leaf_json).collect::<Vec<_>>(),
    })
}

fn top_json(list: &[LeafOf<'_>]) -> Value {
    Value::Array(
        list.iter()
            .map(|(i, l)| {
                let mut v = leaf_json(l);
                v["computation"] = json!(i.computation);
                v["name"] = json!(i.name);
                v
            })
            .collect(),
    )
}

/// The report as one JSON document (schema: `docs/hlo-report.md`).
pub(crate) fn to_json(r: &Report, top: Option<usize>) -> String {
    let computations: Vec<Value> = r
        .computation_totals()
        .iter()
        .map(|(name, entry, count, t)| {
            json!({"name": name, "entry": entry, "instructions": count, "totals": t.json()})
        })
        .collect();
    let all = Totals::of(r.all_leaves().map(|(_, l)| l));
    let mut doc = json!({
        "schema": "tessera-hlo-report/1",
        "module": r.module,
        "instructions": r.instructions.iter().map(instruction_json).collect::<Vec<_>>(),
        "computations": computations,
        "entry": {
            "parameters": r.entry_parameters.iter().map(instruction_json).collect::<Vec<_>>(),
            "result": r.entry_result.as_ref().map(instruction_json),
            "parameter_totals": r.entry_parameter_totals().json(),
            "result_totals": r.entry_result_totals().json(),
        },
        "totals": all.json(),
        "unreadable": r.unreadable.iter().map(unreadable_json).collect::<Vec<_>>(),
    });
    if let Some(n) = top {
        let (largest, padded) = r.top(n);
        doc["top"] = json!({"largest": top_json(&largest), "most_padded": top_json(&padded)});
    }
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

// ----------------------------------------------------------------- table

/// At most `max` characters of `s`, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max - 1).collect();
    t.push('…');
    t
}

fn num(n: Option<usize>) -> String {
    n.map_or_else(|| "?".to_string(), |n| n.to_string())
}

const NAME_WIDTH: usize = 28;
const SHAPE_WIDTH: usize = 36;

fn header(out: &mut String) {
    let _ = writeln!(
        out,
        "  {:<NAME_WIDTH$} {:<SHAPE_WIDTH$} {:>10} {:>10} {:>10} {:>10} {:>9}",
        "instruction", "shape", "elements", "xla", "xla tiled", "tessera", "padding"
    );
}

fn row(out: &mut String, name: &str, l: &Leaf) {
    let _ = writeln!(
        out,
        "  {:<NAME_WIDTH$} {:<SHAPE_WIDTH$} {:>10} {:>10} {:>10} {:>10} {:>9}",
        cut(name, NAME_WIDTH),
        cut(&l.shape, SHAPE_WIDTH),
        num(l.elements),
        num(l.xla_bytes),
        num(l.xla_tiled_bytes),
        num(l.bytes),
        num(l.padding()),
    );
}

/// The rows of one instruction: its first leaf under its name, the
/// others under their ShapeIndex.
fn instruction_rows(out: &mut String, i: &Instruction, name: &str) {
    for l in &i.leaves {
        if l.index.is_empty() {
            row(out, name, l);
        } else {
            let idx: Vec<String> = l.index.iter().map(usize::to_string).collect();
            let depth = l.index.len();
            row(
                out,
                &format!("{:w$}{{{}}}", "", idx.join(","), w = 2 * depth),
                l,
            );
        }
    }
}

fn totals_line(out: &mut String, what: &str, t: &Totals) {
    let unknown = if t.unknown > 0 {
        format!(" ({} with `?` dims left out)", t.unknown)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  {:<w$} {:>10} {:>10} {:>10} {:>9}{unknown}",
        what,
        t.xla_bytes,
        t.xla_tiled_bytes,
        t.bytes,
        t.padding,
        w = NAME_WIDTH + SHAPE_WIDTH + 12
    );
}

/// The human table.
pub(crate) fn to_table(r: &Report, top: Option<usize>) -> String {
    let mut out = String::new();
    let name = if r.module.is_empty() {
        "(no HloModule line)"
    } else {
        &r.module
    };
    let _ = writeln!(
        out,
        "HloModule {name}: {} computations, {} instructions",
        r.computations.len(),
        r.instructions.len()
    );
    let _ = writeln!(
        out,
        "bytes: xla = ShapeUtil::ByteSizeOf (CPU/GPU buffer assignment), xla tiled = \
         ShapeUtil::ArraySize (padded for the first tile, TPU), tessera = the buffer with \
         every tile level, padding = tessera - xla; a tuple's own buffer is its table of \
         8-byte pointers"
    );
    let totals = r.computation_totals();
    for (comp, entry, count, t) in &totals {
        let title = if comp.is_empty() {
            "lines outside any computation"
        } else {
            comp
        };
        let _ = writeln!(
            out,
            "\ncomputation {title}{}",
            if *entry { " (ENTRY)" } else { "" }
        );
        header(&mut out);
        for i in r.instructions.iter().filter(|i| i.computation == *comp) {
            let root = if i.is_root { "ROOT " } else { "" };
            instruction_rows(&mut out, i, &format!("{root}{}", i.name));
        }
        totals_line(&mut out, &format!("total of {count} instructions"), t);
    }
    let _ = writeln!(out, "\nentry computation:");
    header(&mut out);
    for (k, p) in r.entry_parameters.iter().enumerate() {
        let number = p.parameter.unwrap_or(k);
        instruction_rows(&mut out, p, &format!("parameter {number}"));
    }
    if let Some(res) = &r.entry_result {
        instruction_rows(&mut out, res, "result");
    }
    totals_line(&mut out, "parameters", &r.entry_parameter_totals());
    totals_line(&mut out, "result", &r.entry_result_totals());
    let all = Totals::of(r.all_leaves().map(|(_, l)| l));
    totals_line(&mut out, "all instructions (buffers are shared)", &all);
    if let Some(n) = top {
        let (largest, padded) = r.top(n);
        for (title, list) in [
            ("largest buffers (tessera bytes)", largest),
            ("most padding", padded),
        ] {
            let _ = writeln!(out, "\n{title}:");
            if list.is_empty() {
                let _ = writeln!(out, "  none");
                continue;
            }
            header(&mut out);
            for (i, l) in list {
                let idx: Vec<String> = l.index.iter().map(usize::to_string).collect();
                let at = if l.index.is_empty() {
                    String::new()
                } else {
                    format!("{{{}}}", idx.join(","))
                };
                row(&mut out, &format!("{}/{}{at}", i.computation, i.name), l);
            }
        }
    }
    if !r.unreadable.is_empty() {
        let _ = writeln!(
            out,
            "\n{} line{} could not be read:",
            r.unreadable.len(),
            if r.unreadable.len() == 1 { "" } else { "s" }
        );
        for u in &r.unreadable {
            let _ = writeln!(out, "line {}: {}", u.line, u.report);
        }
    }
    out
}

/// `tessera hlo FILE|-`: reads the module from `path` (`-`: `stdin`) and
/// prints the table, or JSON.
///
/// # Errors
/// A file that cannot be read, is not UTF-8, or is not HLO.
pub(crate) fn run(
    path: &str,
    json: bool,
    top: Option<usize>,
    mut stdin: impl std::io::Read,
) -> Result<Output, CliError> {
    let bytes = if path == "-" {
        let mut b = Vec::new();
        stdin
            .read_to_end(&mut b)
            .map_err(|e| CliError::msg(format!("cannot read stdin: {e}")))?;
        b
    } else {
        std::fs::read(path).map_err(|e| CliError::msg(format!("cannot read `{path}`: {e}")))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        CliError::msg(format!(
            "this is not HLO text: byte {} is not UTF-8",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let r = report(&text)?;
    let out = if json {
        to_json(&r, top)
    } else {
        to_table(&r, top)
    };
    Ok(Output {
        stdout: out,
        failed: false,
    })
}
