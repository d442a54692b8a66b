//! XLA conformance: runs every case of `tests/data/xla/*.json` (facts taken
//! from XLA's tests, docs and code; schema in `tests/data/xla/README.md`)
//! against tessera and fails if any case fails.
//!
//! Cases are excluded only through [`EXCLUDED`], only when their basis is
//! `code` (read off XLA's implementation, not asserted by XLA), and each
//! with the reason tessera differs. Every case id is either run or
//! excluded; the test checks that too.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};
use tessera::text::{self, TreeEvent};
use tessera::{
    ArrayLayout, Dim, Error, ErrorKind, Layout, LayoutEquality, PrimitiveType, Shape, Slot,
    SparsePhysicalShape, SplitConfig, Tile, TileDim, index_util, layout_util, shape_util, validate,
};

/// `(case id, reason)`: `code`-basis cases tessera deliberately does not
/// follow.
const EXCLUDED: &[(&str, &str)] = &[
    (
        "index_util/47",
        "XLA's IndexInBounds accepts a negative index entry (it only checks the upper bound); \
         tessera's indices are usize, so a negative entry cannot be expressed",
    ),
    (
        "layout_util/53",
        "minor_to_major entry -1: tessera's Layout::new takes usize entries, a negative \
         entry cannot be expressed (out-of-range entries are rejected, see layout_util/52)",
    ),
    (
        "layout_util/58",
        "E(-1): tessera's element_size_in_bits is u32, a negative size cannot be expressed",
    ),
    (
        "layout_util/62",
        "tile entry -5 passes XLA's ValidateLayoutForShape; tessera's tile entries are \
         unsigned and 0 is rejected, so a negative tile entry cannot be expressed",
    ),
    (
        "hlo_parser/32",
        "D(...) is parsed and silently discarded by XLA; tessera rejects every sparse-only \
         attribute (#, *, P, D) with an error by design (docs/xla-layouts.md, Tessera's decisions)",
    ),
    (
        "hlo_parser/37",
        "XLA's parser accepts f32[2,3]{0,0} and leaves the duplicate to a later verifier; \
         tessera applies ValidateLayoutForShape while parsing (docs/xla-layouts.md, Validation)",
    ),
    (
        "primitive_types/30",
        "TUPLE is a PrimitiveType enum value in XLA; tessera models tuples structurally \
         (text::TreeEvent), not as an element type",
    ),
    (
        "primitive_types/33",
        "BUFFER is a PrimitiveType enum value in XLA; tessera models buffers structurally \
         (text::TreeEvent), not as an element type",
    ),
];

// ------------------------------------------------------------------ input

/// Why an input could not be turned into tessera values.
#[derive(Debug)]
enum Build {
    /// The engine rejected it (counts as an error where one is expected).
    Engine(Error),
    /// Tessera's types cannot express it at all (never counts as a pass).
    Unrepresentable(String),
}

impl From<Error> for Build {
    fn from(e: Error) -> Self {
        Build::Engine(e)
    }
}

type R<T> = Result<T, Build>;

fn unrep<T>(what: impl Into<String>) -> R<T> {
    Err(Build::Unrepresentable(what.into()))
}

fn uint(v: &Value) -> R<usize> {
    match v.as_u64() {
        Some(n) => usize::try_from(n).or_else(|_| unrep(format!("{n} exceeds usize"))),
        None => unrep(format!("{v} is not a non-negative integer")),
    }
}

fn uints(v: &Value) -> R<Vec<usize>> {
    v.as_array()
        .ok_or_else(|| Build::Unrepresentable(format!("{v} is not a list")))?
        .iter()
        .map(uint)
        .collect()
}

fn ptype(v: &Value) -> R<PrimitiveType> {
    let name = v.as_str().unwrap_or_default();
    PrimitiveType::from_name(name).map_or_else(|| unrep(format!("element type {name:?}")), Ok)
}

fn layout_from_json(v: &Value) -> R<Layout> {
    let mut l = Layout::new(&uints(&v["minor_to_major"])?)?;
    if let Some(tiles) = v.get("tiles").and_then(Value::as_array) {
        let mut built = Vec::new();
        for t in tiles {
            let mut dims = Vec::new();
            for d in t.as_array().into_iter().flatten() {
                dims.push(if d == "*" {
                    TileDim::Combined
                } else {
                    TileDim::Size(uint(d)?)
                });
            }
            built.push(Tile::new(&dims)?);
        }
        l = l.with_tiles(&built)?;
    }
    if let Some(n) = v.get("tail_padding_alignment_in_elements") {
        l = l.with_tail_padding_alignment(uint(n)?)?;
    }
    if let Some(t) = v.get("index_primitive_type") {
        l = l.with_index_primitive_type(Some(ptype(t)?));
    }
    if let Some(t) = v.get("pointer_primitive_type") {
        l = l.with_pointer_primitive_type(Some(ptype(t)?));
    }
    if let Some(n) = v.get("element_size_in_bits") {
        let bits = u32::try_from(uint(n)?).or_else(|_| unrep("E(n) above u32"))?;
        l = l.with_element_size_in_bits(bits);
    }
    if let Some(n) = v.get("memory_space") {
        let s = u32::try_from(uint(n)?).or_else(|_| unrep("S(n) above u32"))?;
        l = l.with_memory_space(s)?;
    }
    if let Some(scs) = v.get("split_configs").and_then(Value::as_array) {
        let mut built = Vec::new();
        for sc in scs {
            let idx: Vec<u64> = uints(&sc["split_indices"])?
                .into_iter()
                .map(|x| x as u64)
                .collect();
            built.push(SplitConfig::new(uint(&sc["dimension"])?, &idx)?);
        }
        l = l.with_split_configs(&built)?;
    }
    if let Some(n) = v.get("dynamic_shape_metadata_prefix_bytes") {
        l = l.with_dynamic_shape_metadata_prefix_bytes(uint(n)?);
    }
    if let Some(p) = v.get("physical_shape") {
        let m2m = uints(&p["layout"]["minor_to_major"])?;
        let physical =
            SparsePhysicalShape::new(ptype(&p["element_type"])?, &uints(&p["dimensions"])?, &m2m)?;
        l = l.with_sparse_physical_shape(Some(physical));
    }
    Ok(l)
}

fn leaf_from_json(v: &Value) -> R<Shape> {
    let ty = ptype(&v["element_type"])?;
    if !ty.is_array() {
        return Ok(Shape::without_layout_from_dims(ty, &[])?);
    }
    let dims = v["dimensions"].as_array().cloned().unwrap_or_default();
    let dynamic = v.get("dynamic_dimensions").and_then(Value::as_array);
    let mut out = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        let is_dyn = dynamic
            .and_then(|x| x.get(i))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        out.push(match (d, is_dyn) {
            (Value::String(s), _) if s == "?" => Dim::Unbounded,
            (d, true) => Dim::Bounded(uint(d)?),
            (d, false) => Dim::Static(uint(d)?),
        });
    }
    let shape = Shape::without_layout_from_dims(ty, &out)?;
    match v.get("layout") {
        None | Some(Value::Null) => Ok(shape),
        Some(l) => Ok(shape.with_layout(layout_from_json(l)?)?),
    }
}

fn tree_from_json(v: &Value, out: &mut Vec<TreeEvent>) -> R<()> {
    if let Some(items) = v.get("tuple").and_then(Value::as_array) {
        out.push(TreeEvent::TupleStart);
        for item in items {
            tree_from_json(item, out)?;
        }
        out.push(TreeEvent::TupleEnd);
    } else if let Some(b) = v.get("buffer") {
        out.push(TreeEvent::BufferStart);
        tree_from_json(b, out)?;
        out.push(TreeEvent::BufferEnd);
    } else {
        out.push(TreeEvent::Leaf(leaf_from_json(v)?));
    }
    Ok(())
}

fn parse_tree(text: &str) -> Result<Vec<TreeEvent>, Error> {
    let mut events = Vec::new();
    text::parse_shape_tree(text, &mut |e| events.push(e))?;
    Ok(events)
}

/// A shape input: XLA text or a structured shape, possibly nested.
fn input_tree(v: &Value) -> R<Vec<TreeEvent>> {
    match v {
        Value::String(s) => Ok(parse_tree(s)?),
        _ => {
            let mut out = Vec::new();
            tree_from_json(v, &mut out)?;
            Ok(out)
        }
    }
}

/// A single (non-tuple) shape input.
fn input_leaf(v: &Value) -> R<Shape> {
    match v {
        Value::String(s) => Ok(text::parse_shape(s)?.shape),
        _ => leaf_from_json(v),
    }
}

fn leaves(tree: &[TreeEvent]) -> impl Iterator<Item = &Shape> {
    tree.iter().filter_map(|e| {
        if let TreeEvent::Leaf(s) = e {
            Some(s)
        } else {
            None
        }
    })
}

/// XLA's HumanString / HumanStringWithLayout of a possibly nested shape.
fn print_tree(tree: &[TreeEvent], with_layout: bool) -> String {
    let mut out = String::new();
    // One entry per open tuple (`Some(elements so far)`) or buffer (`None`).
    let mut stack: Vec<Option<usize>> = Vec::new();
    for e in tree {
        let starts_element = !matches!(e, TreeEvent::TupleEnd | TreeEvent::BufferEnd);
        if starts_element && let Some(Some(n)) = stack.last_mut() {
            if *n > 0 {
                out.push_str(", ");
                if *n % 5 == 0 {
                    let _ = write!(out, "/*index={n}*/");
                }
            }
            *n += 1;
        }
        match e {
            TreeEvent::TupleStart => {
                out.push('(');
                stack.push(Some(0));
            }
            TreeEvent::BufferStart => {
                out.push_str("b(");
                stack.push(None);
            }
            TreeEvent::TupleEnd | TreeEvent::BufferEnd => {
                out.push(')');
                stack.pop();
            }
            TreeEvent::Leaf(s) if with_layout => {
                let _ = write!(out, "{s}");
            }
            TreeEvent::Leaf(s) => {
                let _ = write!(out, "{}", s.without_layout_display());
            }
        }
    }
    out
}

// ---------------------------------------------------------------- checking

/// Compares a case's expected fields with what tessera computed, and
/// makes sure every expected field was looked at.
struct Check<'a> {
    expected: &'a Value,
    seen: BTreeSet<String>,
    diffs: Vec<String>,
}

impl<'a> Check<'a> {
    fn new(expected: &'a Value) -> Self {
        Check {
            expected,
            seen: BTreeSet::new(),
            diffs: Vec::new(),
        }
    }

    fn has(&self, field: &str) -> bool {
        self.expected.get(field).is_some()
    }

    fn get(&mut self, field: &str) -> &'a Value {
        self.seen.insert(field.to_string());
        &self.expected[field]
    }

    /// Checks `field` if the case has it.
    fn eq(&mut self, field: &str, actual: Value) {
        if self.has(field) {
            let want = self.get(field);
            if *want != actual {
                self.diffs
                    .push(format!("{field}: expected {want}, actual {actual}"));
            }
        }
    }

    fn fail(&mut self, msg: impl Into<String>) {
        self.diffs.push(msg.into());
    }

    /// The case expects an error: checks `result` failed with a kind that
    /// matches the gist of XLA's message.
    fn expect_error<T: std::fmt::Debug>(&mut self, result: R<T>) {
        let gist = self
            .expected
            .get("error_contains")
            .or_else(|| self.expected.get("error_regex"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        for f in ["ok", "error_contains", "error_regex", "fatal"] {
            if self.has(f) {
                self.seen.insert(f.to_string());
            }
        }
        if self.expected.get("ok") == Some(&json!(true)) {
            self.fail("expected both ok and an error");
        }
        match result {
            Ok(v) => self.fail(format!("expected an error like {gist:?}, got Ok({v:?})")),
            Err(Build::Unrepresentable(why)) => {
                self.fail(format!("input not representable: {why}"))
            }
            Err(Build::Engine(e)) => {
                if !gist_matches(&gist, e.kind()) {
                    self.fail(format!(
                        "expected an error like {gist:?}, got {:?}: {e}",
                        e.kind()
                    ));
                }
            }
        }
    }

    /// Whether the case expects an error.
    fn wants_error(&self) -> bool {
        self.expected.get("ok") == Some(&json!(false))
            || self.has("error_contains")
            || self.has("error_regex")
    }

    fn finish(mut self) -> Result<(), String> {
        if let Some(obj) = self.expected.as_object() {
            for k in obj.keys() {
                if !self.seen.contains(k) {
                    self.diffs
                        .push(format!("expected field {k:?} was not checked"));
                }
            }
        }
        if self.diffs.is_empty() {
            Ok(())
        } else {
            Err(self.diffs.join("; "))
        }
    }
}

/// Whether an error kind matches the gist of XLA's message.
fn gist_matches(gist: &str, kind: ErrorKind) -> bool {
    use ErrorKind as K;
    type Rule = (&'static str, fn(&ErrorKind) -> bool);
    let table: &[Rule] = &[
        ("minor to major size is", |k| {
            matches!(k, K::MinorToMajorLength { .. })
        }),
        ("minor_to_major field contains", |k| {
            matches!(k, K::MinorToMajorLength { .. })
        }),
        ("does not have a layout", |k| matches!(k, K::MissingLayout)),
        ("duplicate values", |k| {
            matches!(k, K::MinorToMajorDuplicate { .. })
        }),
        ("out-of-bounds value", |k| {
            matches!(k, K::MinorToMajorOutOfRange { .. })
        }),
        ("invalid tiles", |k| {
            matches!(k, K::EmptyTile | K::ZeroTileDim)
        }),
        ("index_primitive_type", |k| {
            matches!(k, K::SparseLayout { .. })
        }),
        ("pointer_primitive_type", |k| {
            matches!(k, K::SparseLayout { .. })
        }),
        ("physical shape", |k| matches!(k, K::SparseLayout { .. })),
        ("DimLevelType", |k| matches!(k, K::SparseLayout { .. })),
        ("cannot copy layout", |k| {
            matches!(k, K::ShapeStructureMismatch | K::MinorToMajorLength { .. })
        }),
        ("dimension_number >= 0", |k| {
            matches!(k, K::DimensionOutOfRange { .. })
        }),
        ("expected primitive type", |k| {
            matches!(
                k,
                K::UnknownElementType { .. } | K::UnexpectedToken { .. } | K::UnexpectedEnd { .. }
            )
        }),
        ("expects layout to end with", |k| {
            matches!(k, K::AttributeOutOfOrder { .. })
        }),
        // (`f32[2,3]{}`: XLA reads no layout there, then finds `{}` after
        // the shape; tessera says why it is no layout.)
        ("Extra content after shape", |k| {
            matches!(
                k,
                K::TrailingInput { .. } | K::UnexpectedToken { .. } | K::EmptyLayout
            )
        }),
        ("at the end of buffer shape", |k| {
            matches!(
                k,
                K::UnexpectedToken { .. } | K::NotASingleShape { .. } | K::TrailingInput { .. }
            )
        }),
    ];
    // "Syntax error" and the like: any error is the gist.
    table
        .iter()
        .filter(|(needle, _)| gist.contains(needle))
        .all(|(_, ok)| ok(&kind))
}

fn ord(o: std::cmp::Ordering) -> i64 {
    o as i64
}

fn shape_json(r: R<Shape>) -> Value {
    match r {
        Ok(s) => json!(s.to_string()),
        Err(e) => json!(format!("error: {e:?}")),
    }
}

fn m2m_json(l: &Layout) -> Value {
    json!(l.minor_to_major())
}

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or(i64::MIN)
}

// -------------------------------------------------------------------- ops

fn run_case(case: &Value) -> Result<(), String> {
    let op = case["op"].as_str().unwrap_or_default();
    let inp = &case["input"];
    let mut c = Check::new(&case["expected"]);
    run_op(op, inp, &mut c).map_err(|e| format!("input not usable: {e:?}"))?;
    c.finish()
}

fn run_op(op: &str, inp: &Value, c: &mut Check) -> R<()> {
    match op {
        // ---- index_util
        "multidimensional_index_to_linear_index" => {
            let s = input_leaf(&inp["shape"])?;
            let idx = uints(&inp["index"])?;
            c.eq(
                "linear",
                json!(index_util::multidimensional_index_to_linear_index(
                    &s, &idx
                )?),
            );
        }
        "linear_index_to_multidimensional_index" => {
            let s = input_leaf(&inp["shape"])?;
            let idx =
                index_util::linear_index_to_multidimensional_index(&s, uint(&inp["linear"])?)?;
            c.eq("index", json!(idx.as_slice()));
        }
        "linear_multi_linear_roundtrip" => {
            let s = input_leaf(&inp["shape"])?;
            let idx =
                index_util::linear_index_to_multidimensional_index(&s, uint(&inp["linear"])?)?;
            c.eq("index", json!(idx.as_slice()));
            c.eq(
                "roundtrip_linear",
                json!(index_util::multidimensional_index_to_linear_index(
                    &s, &idx
                )?),
            );
        }
        "bump_indices" => {
            let s = input_leaf(&inp["shape"])?;
            let mut idx = uints(&inp["indices"])?;
            c.eq("result", json!(index_util::bump_indices(&s, &mut idx)));
            c.eq("indices", json!(idx));
        }
        "get_dimension_stride" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "stride",
                json!(index_util::dimension_stride(&s, uint(&inp["dimension"])?)?),
            );
        }
        "index_in_bounds" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "result",
                json!(index_util::index_in_bounds(&s, &uints(&inp["index"])?)),
            );
        }
        "compare_indices" => {
            let r = index_util::compare_indices(&uints(&inp["lhs"])?, &uints(&inp["rhs"])?);
            c.eq("result", json!(ord(r)));
        }
        // ---- layout
        "layout_to_string" => c.eq(
            "string",
            json!(layout_from_json(&inp["layout"])?.to_string()),
        ),
        "tile_to_string" => {
            let mut dims = Vec::new();
            for d in inp["tile"].as_array().into_iter().flatten() {
                dims.push(if d == "*" {
                    TileDim::Combined
                } else {
                    TileDim::Size(uint(d)?)
                });
            }
            c.eq("string", json!(Tile::new(&dims)?.to_string()));
        }
        "layout_equal" => {
            let (a, b) = (
                layout_from_json(&inp["lhs"])?,
                layout_from_json(&inp["rhs"])?,
            );
            let mut eq = LayoutEquality::XLA;
            for f in inp["ignore"].as_array().into_iter().flatten() {
                match f.as_str().unwrap_or_default() {
                    "tiles" => eq.ignore_tiles = true,
                    "element_size" => eq.ignore_element_size = true,
                    "memory_space" => eq.ignore_memory_space = true,
                    "split_configs" => eq.ignore_split_configs = true,
                    "minor_to_major_only" => eq = LayoutEquality::MINOR_TO_MAJOR_ONLY,
                    other => return unrep(format!("ignore flag {other}")),
                }
            }
            c.eq("equal", json!(a.equal_ignoring(&b, eq)));
        }
        "layout_proto_roundtrip" => {
            // Tessera has no proto; its serialized form is the text.
            let l = layout_from_json(&inp["layout"])?;
            let text = l.to_string();
            let back = text::parse_layout(&text)?;
            c.eq("roundtrip_equal", json!(back == l));
            c.eq("string", json!(text));
        }
        "layout_delete_dimension" => {
            let l = layout_from_json(&inp["layout"])?.delete_dimension(uint(&inp["dimension"])?)?;
            c.eq("minor_to_major", m2m_json(&l));
        }
        // ---- layout_util
        "layouts_in_shapes_equal" => {
            let (a, b) = (input_tree(&inp["lhs"])?, input_tree(&inp["rhs"])?);
            c.eq(
                "equal",
                json!(layout_util::layouts_in_tree_shapes_equal(&a, &b)),
            );
        }
        "copy_layout_between_shapes" => copy_layout(inp, c)?,
        "has_layout" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq("has_layout", json!(layout_util::has_layout(&s)));
            c.eq(
                "has_layout_after_clear",
                json!(layout_util::has_layout(&s.without_layout())),
            );
        }
        "default_layout_for_rank" | "make_descending_layout" => {
            c.eq(
                "minor_to_major",
                m2m_json(&Layout::descending(uint(&inp["rank"])?)),
            );
        }
        "make_ascending_layout" => {
            c.eq(
                "minor_to_major",
                m2m_json(&Layout::ascending(uint(&inp["rank"])?)),
            );
        }
        "default_layout_for_shape" => {
            let s = input_leaf(&inp["shape"])?.with_default_layout();
            c.eq(
                "minor_to_major",
                json!(s.layout().map(|l| l.minor_to_major().to_vec())),
            );
        }
        "shape_to_string_with_layout" => {
            c.eq("string", json!(input_leaf(&inp["shape"])?.to_string()))
        }
        "validate_layout_in_shape" => {
            let allow = inp["allow_missing_layouts"].as_bool().unwrap_or(false);
            let result = input_tree(&inp["shape"]).and_then(|t| {
                for s in leaves(&t) {
                    validate::validate_layout_in_shape(s, allow)?;
                }
                Ok(())
            });
            if c.wants_error() {
                c.expect_error(result);
            } else {
                c.eq("ok", json!(true));
                result?;
            }
        }
        "move_dim_to_major" | "move_dim_to_minor" => {
            let l = layout_from_json(&inp["layout"])?;
            let d = uint(&inp["dimension"])?;
            let moved = if op == "move_dim_to_major" {
                layout_util::move_dim_to_major(&l, d)?
            } else {
                layout_util::move_dim_to_minor(&l, d)?
            };
            c.eq("minor_to_major", m2m_json(&moved));
        }
        "byte_strides_is_major_to_minor" => {
            let r = layout_util::byte_strides_is_major_to_minor(
                &uints(&inp["byte_strides"])?,
                &uints(&inp["dimensions"])?,
                ptype(&inp["element_type"])?,
            );
            c.eq("result", json!(r));
        }
        "has_custom_element_size_in_bits" => {
            let t = input_tree(&inp["shape"])?;
            c.eq(
                "result",
                json!(leaves(&t).any(layout_util::has_custom_element_size_in_bits)),
            );
        }
        "max_split_size" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "result",
                json!(layout_util::max_split_size(&s, uint(&inp["dimension"])?)?),
            );
        }
        "max_elements_in_per_split" => {
            c.eq(
                "result",
                json!(layout_util::max_elements_in_per_split(&input_leaf(
                    &inp["shape"]
                )?)?),
            );
        }
        "linear_index_for_nested_tiling" => {
            let a = ArrayLayout::new(input_leaf(&inp["shape"])?)?;
            let idx = uints(&inp["index"])?;
            let off = a.try_offset(&idx)?;
            c.eq("linear", json!(off));
            let phys = a.physical_shape().dims().to_vec();
            c.eq("tiled_bounds", json!(phys));
            let mut coords = vec![0; phys.len()];
            let mut rest = off;
            for (k, d) in phys.iter().enumerate().rev() {
                coords[k] = rest % d;
                rest /= d;
            }
            let n = phys.len() / 2;
            c.eq("tiled_coordinates", json!(coords));
            c.eq("tile_index", json!(coords[..n]));
            c.eq("within_tile_index", json!(coords[n..]));
        }
        "delinearize_index_for_nested_tiling" => {
            let a = ArrayLayout::new(input_leaf(&inp["shape"])?)?;
            match a.try_slot(uint(&inp["linear"])?)? {
                Slot::Element(idx) => c.eq("index", json!(idx.as_slice())),
                Slot::Padding => c.eq("index", json!("padding")),
            }
        }
        "tiled_linear_index_table" => {
            let a = ArrayLayout::new(input_leaf(&inp["shape"])?)?;
            let (rows, cols) = (a.size(0), a.size(1));
            let mut table = Vec::new();
            for r in 0..rows {
                table.push(
                    (0..cols)
                        .map(|col| a.try_offset(&[r, col]))
                        .collect::<Result<Vec<_>, _>>()?,
                );
            }
            c.eq("table_row_major_logical", json!(table));
            c.eq(
                "physical_shape_major_to_minor",
                json!(a.physical_shape().dims()),
            );
            c.eq("allocated_elements", json!(a.buffer_len()));
        }
        "is_untiled_layout" => {
            let mut tiles = Vec::new();
            for t in inp["tiles"].as_array().into_iter().flatten() {
                tiles.push(Tile::from_sizes(&uints(t)?)?);
            }
            let dims = uints(&inp["physical_dimensions_major_to_minor"])?;
            c.eq(
                "result",
                json!(layout_util::is_untiled_layout(&tiles, &dims)),
            );
        }
        "linear_index_top_tile_only" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "linear",
                json!(layout_util::linear_index_top_tile_only(
                    &s,
                    &uints(&inp["index"])?
                )?),
            );
        }
        // ---- shape
        "shape_to_string" => {
            let t = input_tree(&inp["shape"])?;
            c.eq("string", json!(print_tree(&t, false)));
            c.eq("string_with_layout", json!(print_tree(&t, true)));
        }
        "delete_dimensions" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "shape",
                shape_json(Ok(shape_util::delete_dimensions(
                    &s,
                    &uints(&inp["dimensions"])?,
                )?)),
            );
        }
        "shape_equal" => {
            let (a, b) = (input_tree(&inp["lhs"])?, input_tree(&inp["rhs"])?);
            let x = shape_util::ShapeEquality::XLA;
            let eq = |e| shape_util::equal_trees(&a, &b, e);
            c.eq("equal", json!(eq(x)));
            c.eq(
                "compatible",
                json!(eq(shape_util::ShapeEquality::COMPATIBLE)),
            );
            c.eq(
                "equal_ignoring_buffer",
                json!(eq(shape_util::ShapeEquality {
                    ignore_buffer: true,
                    ..x
                })),
            );
            c.eq(
                "equal_ignoring_buffer_and_layout",
                json!(eq(shape_util::ShapeEquality {
                    ignore_buffer: true,
                    ignore_layout: true,
                    ..x
                })),
            );
            let no_split = LayoutEquality {
                ignore_split_configs: true,
                ..LayoutEquality::XLA
            };
            c.eq(
                "equal_ignoring_split_config",
                json!(eq(shape_util::ShapeEquality {
                    layout: no_split,
                    ..x
                })),
            );
        }
        "is_static" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq("is_static", json!(s.is_static()));
            c.eq("is_dynamic", json!(!s.is_static()));
            c.eq("is_unbounded_dynamic", json!(s.is_unbounded_dynamic()));
        }
        "program_shape_to_string" => {
            let mut out = String::from("(");
            for (k, p) in inp["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                let name = p[0]
                    .as_str()
                    .filter(|n| !n.is_empty())
                    .unwrap_or("(unknown)");
                if k > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{name}: {}", print_tree(&input_tree(&p[1])?, false));
            }
            let _ = write!(
                out,
                ") -> {}",
                print_tree(&input_tree(&inp["result"])?, false)
            );
            c.eq("string", json!(out));
        }
        // ---- shape_util
        "get_dimension" => {
            let s = input_leaf(&inp["shape"])?;
            let r = s.dim(i(&inp["dimension"]));
            if c.wants_error() {
                c.expect_error(r.map_err(Build::Engine));
            } else {
                c.eq("result", json!(r?.size()));
            }
        }
        "make_shape" => {
            let s = Shape::new(ptype(&inp["element_type"])?, &uints(&inp["dimensions"])?)?;
            c.eq("has_layout", json!(s.layout().is_some()));
            c.eq(
                "minor_to_major",
                json!(s.layout().map(|l| l.minor_to_major().to_vec())),
            );
            c.eq("string_with_layout", json!(s.to_string()));
        }
        "byte_size_of" => {
            c.eq(
                "bytes",
                json!(ArrayLayout::new(input_leaf(&inp["shape"])?)?.logical_byte_size()),
            );
        }
        "byte_size_of_primitive_type" => {
            c.eq("bytes", json!(ptype(&inp["element_type"])?.byte_width()))
        }
        "byte_size_of_elements_recursive" => {
            let mut total = 0;
            for s in leaves(&input_tree(&inp["shape"])?) {
                if s.is_array() {
                    total += ArrayLayout::new(*s)?.logical_byte_size();
                }
            }
            c.eq("bytes", json!(total));
        }
        "unpacked_byte_strides" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "strides",
                json!(layout_util::unpacked_byte_strides(&s).map(|v| v.to_vec())),
            );
        }
        "byte_strides" => {
            let a = ArrayLayout::new(input_leaf(&inp["shape"])?)?;
            c.eq("strides", json!(a.byte_strides().map(|v| v.to_vec())));
        }
        "elements_in" => c.eq(
            "elements",
            json!(input_leaf(&inp["shape"])?.element_count()?),
        ),
        "is_zero_element_array" => {
            let t = input_tree(&inp["shape"])?;
            let r = matches!(t.as_slice(), [TreeEvent::Leaf(s)] if s.is_zero_element_array());
            c.eq("result", json!(r));
        }
        "has_degenerate_dimensions" => {
            c.eq(
                "result",
                json!(shape_util::has_degenerate_dimensions(&input_leaf(
                    &inp["shape"]
                )?)),
            );
        }
        "permute_dimensions" | "permute_dimensions_ignoring_layout" => {
            let s = input_leaf(&inp["shape"])?;
            let p = uints(&inp["permutation"])?;
            let r = if op == "permute_dimensions" {
                shape_util::permute_dimensions(&p, &s)
            } else {
                shape_util::permute_dimensions_ignoring_layout(&p, &s)
            };
            c.eq("shape", shape_json(r.map_err(Build::Engine)));
        }
        "permute_dimensions_is_bitcast" => {
            let dims = uints(&inp["shape_dims"])?;
            let perms = permutations(dims.len());
            let mut all = true;
            for l in &perms {
                let s = Shape::new(PrimitiveType::F32, &dims)?.with_layout(Layout::new(l)?)?;
                for p in &perms {
                    let t = shape_util::permute_dimensions(p, &s)?;
                    all &= shape_util::transpose_is_bitcast(&s, &t, p, false);
                }
            }
            c.eq("transpose_is_bitcast", json!(all));
        }
        "prepend_major_dimension" | "append_minor_dimension" => {
            let s = input_leaf(&inp["shape"])?;
            let b = uint(&inp["bound"])?;
            let r = if op == "prepend_major_dimension" {
                shape_util::prepend_major_dimension(b, &s)
            } else {
                shape_util::append_minor_dimension(b, &s)
            };
            c.eq("shape", shape_json(r.map_err(Build::Engine)));
        }
        "insert_dimension_at_index" | "insert_dimensions_at_index" => {
            let s = input_leaf(&inp["shape"])?;
            let bounds = if op == "insert_dimension_at_index" {
                vec![uint(&inp["bound"])?]
            } else {
                uints(&inp["bounds"])?
            };
            let r = shape_util::insert_dimensions_at_index(&s, uint(&inp["index"])?, &bounds);
            c.eq("shape", shape_json(r.map_err(Build::Engine)));
        }
        "shape_move_dim_to_major" => {
            let mut t = input_tree(&inp["shape"])?;
            let d = uint(&inp["dimension"])?;
            for e in &mut t {
                if let TreeEvent::Leaf(s) = e {
                    *s = shape_util::move_dim_to_major(s, d)?;
                }
            }
            c.eq("shape", json!(print_tree(&t, true)));
        }
        "make_shape_with_descending_layout_and_same_physical_layout" => {
            let s = input_leaf(&inp["shape"])?;
            let r = shape_util::make_shape_with_descending_layout_and_same_physical_layout(&s);
            c.eq("shape", shape_json(r.map_err(Build::Engine)));
        }
        "deduce_transpose_dimensions_for_bitcast" => {
            let (a, b) = (input_leaf(&inp["input"])?, input_leaf(&inp["output"])?);
            let r = shape_util::deduce_transpose_dimensions_for_bitcast(&a, &b);
            c.eq("permutation", json!(r.map(|p| p.to_vec())));
        }
        "reshape_is_bitcast" | "transpose_is_bitcast" => {
            let (a, b) = (input_leaf(&inp["input"])?, input_leaf(&inp["output"])?);
            let ignore = inp["ignore_element_type"].as_bool().unwrap_or(false);
            let r = if op == "reshape_is_bitcast" {
                shape_util::reshape_is_bitcast(&a, &b, ignore)
            } else {
                shape_util::transpose_is_bitcast(&a, &b, &uints(&inp["permutation"])?, ignore)
            };
            c.eq("result", json!(r));
        }
        "is_reshape_or_transpose_bitcast" => {
            let (a, b) = (input_leaf(&inp["a"])?, input_leaf(&inp["b"])?);
            c.eq(
                "result",
                json!(shape_util::is_reshape_or_transpose_bitcast(&a, &b, false)),
            );
        }
        "is_effectively_most_major_dimension" => {
            let s = input_leaf(&inp["shape"])?;
            let r = shape_util::is_effectively_most_major_dimension(&s, uint(&inp["dimension"])?);
            c.eq("result", json!(r));
        }
        "last_dim_is_minor_most" => {
            c.eq(
                "result",
                json!(shape_util::last_dim_is_minor_most(&input_leaf(
                    &inp["shape"]
                )?)),
            );
        }
        "array_data_size" => c.eq(
            "bytes",
            json!(layout_util::xla_array_data_size(&input_leaf(
                &inp["shape"]
            )?)),
        ),
        "array_size" => c.eq(
            "bytes",
            json!(layout_util::xla_array_size_bytes(&input_leaf(
                &inp["shape"]
            )?)),
        ),
        "byte_size_vs_array_size" => {
            let s = input_leaf(&inp["shape"])?;
            c.eq(
                "byte_size_of",
                json!(ArrayLayout::new(s)?.logical_byte_size()),
            );
            c.eq("array_size", json!(layout_util::xla_array_size_bytes(&s)));
        }
        "change_element_type" => {
            let s = input_leaf(&inp["shape"])?.with_element_type(ptype(&inp["element_type"])?)?;
            c.eq(
                "element_size_in_bits",
                json!(s.layout().map(Layout::element_size_in_bits)),
            );
        }
        "device_shape_to_host_shape" => {
            let s = input_leaf(&inp["shape"])?;
            let host = shape_util::device_shape_to_host_shape(&s)?;
            c.eq(
                "device_shape_is_host_shape",
                json!(shape_util::device_shape_is_host_shape(&s)),
            );
            c.eq(
                "host_element_size_in_bits",
                json!(host.layout().map(Layout::element_size_in_bits)),
            );
        }
        "reorder_logical_dimensions" => {
            let s = input_leaf(&inp["shape"])?;
            let r = shape_util::reorder_logical_dimensions(&s, &uints(&inp["permutation"])?);
            c.eq("string", shape_json(r.map_err(Build::Engine)));
        }
        "flatten_tuple_shape" => {
            let t = input_tree(&inp["shape"])?;
            let l: Vec<String> = leaves(&t)
                .map(|s| s.without_layout_display().to_string())
                .collect();
            c.eq("leaves_to_string", json!(l));
        }
        "align_layouts" => {
            let a = input_leaf(&inp["input"])?;
            let out = Shape::new(a.element_type(), &uints(&inp["output_dims"])?)?;
            let r = shape_util::align_layouts(&a, &out);
            c.eq(
                "minor_to_major",
                json!(r.map(|s| s.layout().map(|l| l.minor_to_major().to_vec()))),
            );
        }
        // ---- parser
        "parse_shape" => parse_case(inp, c)?,
        "hlo_error_message_shape_printing" => {
            let canon = |v: &Value| -> R<String> {
                let mut s = String::new();
                text::write_canonical(v.as_str().unwrap_or_default(), &mut s)?;
                Ok(s)
            };
            let msg = format!(
                "The declared operand shape {} is not compatible with the shape of the operand instruction {}.",
                canon(&inp["declared"])?,
                canon(&inp["actual"])?
            );
            let want = c.get("error_contains").as_str().unwrap_or_default();
            if !msg.contains(want) {
                c.fail(format!("message {msg:?} lacks {want:?}"));
            }
        }
        // ---- docs
        "combine_dimensions" => combine_dimensions(inp, c)?,
        "tile_description" => tile_description(inp, c)?,
        // ---- primitive types
        "primitive_type" => {
            let t = ptype(&inp["name"])?;
            c.eq("enum_value", json!(t.xla_enum_value()));
            c.eq("array_type", json!(t.is_array()));
            if t.is_array() {
                c.eq("bit_width", json!(t.bit_width()));
                c.eq("byte_width", json!(t.byte_width()));
            }
        }
        other => return unrep(format!("unknown op {other}")),
    }
    Ok(())
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for pos in 0..=p.len() {
            let mut q = p.clone();
            q.insert(pos, n - 1);
            out.push(q);
        }
    }
    out
}

fn copy_layout(inp: &Value, c: &mut Check) -> R<()> {
    let src = input_tree(&inp["src"]);
    // A structured dst may carry a layout that does not fit its dims
    // (layout_util/15). Copying replaces dst's layout without reading it,
    // and a tessera Shape cannot hold a misfit layout, so such a dst is
    // built without its layout.
    let dst = input_tree(&inp["dst"]).or_else(|e| match (&inp["dst"], e) {
        (Value::Object(o), Build::Engine(_)) => {
            let mut bare = Value::Object(o.clone());
            bare["layout"] = Value::Null;
            input_tree(&bare)
        }
        (_, e) => Err(e),
    })?;
    let before = match &src {
        Ok(s) => layout_util::layouts_in_tree_shapes_equal(s, &dst),
        Err(_) => false,
    };
    let result = src.and_then(|s| {
        let mut d = dst.clone();
        layout_util::copy_layout_between_trees(&s, &mut d)?;
        Ok(d)
    });
    if c.wants_error() {
        c.expect_error(result);
        return Ok(());
    }
    let after = result?;
    c.eq("ok", json!(true));
    c.eq("dst_after", json!(print_tree(&after, true)));
    c.eq(
        "dst_has_layout",
        json!(leaves(&after).all(layout_util::has_layout)),
    );
    c.eq("layouts_equal_before", json!(before));
    Ok(())
}

fn parse_case(inp: &Value, c: &mut Check) -> R<()> {
    let text_in = inp["text"].as_str().unwrap_or_default();
    if c.wants_error() {
        c.expect_error(parse_tree(text_in).map_err(Build::Engine));
        return Ok(());
    }
    let events = parse_tree(text_in)?;
    c.eq("ok", json!(true));
    let mut canonical = String::new();
    text::write_canonical(text_in, &mut canonical)?;
    c.eq("canonical", json!(canonical));
    if c.has("canonical") && print_tree(&events, true) != canonical {
        c.fail("write_canonical and the parsed tree print differently");
    }
    // A single array must also parse through parse_shape.
    if let [TreeEvent::Leaf(s)] = events.as_slice()
        && text::parse_shape(text_in)?.shape != *s
    {
        c.fail("parse_shape and parse_shape_tree disagree");
    }
    if c.has("shape") {
        let mut want = Vec::new();
        tree_from_json(c.get("shape"), &mut want)?;
        if want != events {
            c.fail(format!("shape: expected {want:?}, actual {events:?}"));
        }
    }
    Ok(())
}

/// docs/tiled_layout.md: a `*` entry merges its dimension into the next
/// more-minor one. Checks the tiled layout against the combined shape
/// tiled by the remaining entries, element by element.
fn combine_dimensions(inp: &Value, c: &mut Check) -> R<()> {
    let s = input_leaf(&inp["shape"])?;
    let mut entries = Vec::new();
    for d in inp["tile"].as_array().into_iter().flatten() {
        entries.push(if d == "*" {
            TileDim::Combined
        } else {
            TileDim::Size(uint(d)?)
        });
    }
    let layout = s.layout().copied().unwrap_or(Layout::descending(s.rank()));
    let tiled = ArrayLayout::new(s.with_layout(layout.with_tiles(&[Tile::new(&entries)?])?)?)?;
    let want = c
        .get("combined_shape")
        .as_str()
        .unwrap_or_default()
        .to_string();
    let effective = uints(c.get("effective_tile"))?;
    let combined_text = want.trim_end_matches(|ch| ch != '{').trim_end_matches('{');
    let layout_text = &want[combined_text.len()..];
    let combined_tiled = format!(
        "{combined_text}{}:T({})}}",
        layout_text.trim_end_matches('}'),
        effective
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let reference = ArrayLayout::parse(&combined_tiled)?;
    if tiled.physical_shape().dims() != reference.physical_shape().dims() {
        c.fail(format!(
            "physical shape {:?} differs from {combined_tiled}'s {:?}",
            tiled.physical_shape(),
            reference.physical_shape()
        ));
    }
    // Every element lands where the combined shape puts it: the combined
    // index merges each `*` dim into the next one, row-major.
    let dims = tiled.sizes();
    let mut idx = vec![0usize; dims.len()];
    loop {
        let mut merged = Vec::new();
        let mut pending = 0usize;
        for (k, e) in entries.iter().enumerate() {
            let pos = dims.len() - entries.len() + k;
            let v = pending * dims[pos] + idx[pos];
            if matches!(e, TileDim::Combined) {
                pending = v;
            } else {
                merged.push(v);
                pending = 0;
            }
        }
        if tiled.try_offset(&idx)? != reference.try_offset(&merged)? {
            c.fail(format!(
                "element {idx:?} is not where {combined_tiled} puts {merged:?}"
            ));
            break;
        }
        if !index_util::bump_indices(tiled.shape(), &mut idx) {
            break;
        }
    }
    Ok(())
}

/// docs/tiled_layout.md's TPU tilings. The doc's claims, checked on a
/// shape of the format's element type: the second tile packs that many
/// rows into one 32-bit word (adjacent offsets); for small second-minor
/// dims, the single tile covers them with no padding rows beyond the
/// tile and fewer than `T(8,128)` would need.
fn tile_description(inp: &Value, c: &mut Check) -> R<()> {
    let format = inp["format"].as_str().unwrap_or_default();
    let tiles_json = c.get("tiles").clone();
    let mut tiles = Vec::new();
    for t in tiles_json.as_array().into_iter().flatten() {
        tiles.push(Tile::from_sizes(&uints(t)?)?);
    }
    let ty = if format.contains("bf16") {
        PrimitiveType::Bf16
    } else if format.contains("8-bit") {
        PrimitiveType::S8
    } else {
        PrimitiveType::F32
    };
    if let [_, pack] = tiles.as_slice() {
        let rows = pack.raw()[0];
        if rows * ty.bit_width() as usize != 32 {
            c.fail(format!("{rows} rows of {ty} do not fill a 32-bit word"));
        }
        let a = ArrayLayout::new(
            Shape::new(ty, &[16, 256])?.with_layout(Layout::new(&[1, 0])?.with_tiles(&tiles)?)?,
        )?;
        for col in 0..4 {
            let offs: Vec<usize> = (0..rows)
                .map(|r| a.try_offset(&[r, col]))
                .collect::<Result<_, _>>()?;
            if offs.windows(2).any(|w| w[1] != w[0] + 1) || !offs[0].is_multiple_of(rows) {
                c.fail(format!(
                    "rows 0..{rows} of column {col} are not packed: {offs:?}"
                ));
            }
        }
    } else if let [tile] = tiles.as_slice() {
        let t0 = tile.raw()[0];
        // "2nd-minor dim size 1 or 2" / "3 or 4": the sizes named.
        let sizes: Vec<usize> = format
            .split(|ch: char| !ch.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .filter(|&n| n > 0 && n < 8)
            .collect();
        if sizes.is_empty() {
            c.fail(format!("no sizes in {format:?}"));
        }
        for n in sizes {
            let with = |t: &[Tile]| -> R<usize> {
                Ok(ArrayLayout::new(
                    Shape::new(ty, &[n, 256])?.with_layout(Layout::new(&[1, 0])?.with_tiles(t)?)?,
                )?
                .buffer_len())
            };
            let small = with(&tiles)?;
            let big = with(&[Tile::from_sizes(&[8, 128])?])?;
            if n > t0 || small != t0 * 256 || small >= big {
                c.fail(format!(
                    "T{tile} for {n} rows: {small} slots vs T(8,128): {big}"
                ));
            }
        }
    } else {
        c.fail("unexpected tile count");
    }
    Ok(())
}

// ------------------------------------------------------------------- main

#[test]
fn xla_conformance() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xla");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data/xla")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no conformance files in {}",
        dir.display()
    );

    let excluded: BTreeSet<&str> = EXCLUDED.iter().map(|(id, _)| *id).collect();
    assert_eq!(excluded.len(), EXCLUDED.len(), "an id is excluded twice");
    let (mut passed, mut failed, mut skipped) = (0, Vec::new(), 0);
    let mut all_ids = BTreeSet::new();
    let mut accounted = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read json");
        let cases: Vec<Value> = serde_json::from_str(&text).expect("parse json");
        for case in &cases {
            let id = case["id"].as_str().expect("case id").to_string();
            assert!(all_ids.insert(id.clone()), "duplicate case id {id}");
            if excluded.contains(id.as_str()) {
                assert_eq!(
                    case["basis"], "code",
                    "{id}: only code-basis cases may be excluded"
                );
                skipped += 1;
                accounted.insert(id);
                continue;
            }
            match std::panic::catch_unwind(|| run_case(case)) {
                Ok(Ok(())) => passed += 1,
                Ok(Err(why)) => failed.push(format!("{id} [{}]: {why}", case["op"])),
                Err(_) => failed.push(format!("{id} [{}]: panicked", case["op"])),
            }
            accounted.insert(id);
        }
    }
    for id in &excluded {
        assert!(all_ids.contains(*id), "excluded id {id} is not a case");
    }
    assert_eq!(accounted, all_ids, "some case was neither run nor excluded");
    for f in &failed {
        println!("FAIL {f}");
    }
    println!(
        "conformance: {passed} passed, {} failed, {skipped} excluded",
        failed.len()
    );
    assert!(
        failed.is_empty(),
        "{} conformance case(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
