//! `tessera codegen`: a standalone C99 or Rust function computing the
//! offset of a logical index for one layout, every constant folded in.
//!
//! The code is the engine's offset terms ([`OffsetTerms`]: the offset is
//! `sum(stride * ((index[dim] / div) % modulus))`, one term per physical
//! dim that holds a digit of the index): one temporary per digit that is
//! not a whole index, then their sum weighted by the strides. Only layouts
//! without terms (a physical dim that is [`DigitSource::Mixed`]: a `*`
//! merged two varying dims into one the tile then cuts, or a tile that
//! does not divide the one before it, `T(3)(2)`) take the symbolic path,
//! [`walk`]: the engine's documented transform (`layout_core`'s index
//! module: pad, permute by `minor_to_major`, each tile level with `*`
//! merges and leading 1-dims, row-major linearization) replayed on
//! expressions, a temporary only where a value is not known. Tests
//! compile the output and compare it with [`ArrayLayout::offset`] on
//! every index of layouts of both kinds.
//!
//! [`DigitSource::Mixed`]: layout_core::DigitSource::Mixed

use std::fmt;

use layout_core::ArrayLayout;
use layout_core::array::terms::{OffsetTerms, Term};

use crate::dims;
use crate::spec::CliError;

/// The language of the generated function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Lang {
    /// A `pub const fn` taking `[usize; RANK]`.
    Rust,
    /// A C99 `static inline` function of `size_t`s, `__host__ __device__`
    /// under CUDA.
    C,
}

/// A value during the walk: known, or held in a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Const(usize),
    Var(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Const(n) => write!(f, "{n}"),
            Value::Var(v) => f.write_str(v),
        }
    }
}

/// The statements of the function body, as `(name, expression)`.
#[derive(Default)]
struct Body {
    lets: Vec<(String, String)>,
}

impl Body {
    fn bind(&mut self, expr: String) -> Value {
        let name = format!("t{}", self.lets.len());
        self.lets.push((name.clone(), expr));
        Value::Var(name)
    }

    /// `p * d + e`, folded; `None` when a folded constant overflows.
    fn merge(&mut self, p: &Value, d: usize, e: &Value) -> Option<Value> {
        Some(match (p, e) {
            (Value::Const(0), e) => e.clone(),
            (Value::Const(a), Value::Const(b)) => Value::Const(a.checked_mul(d)?.checked_add(*b)?),
            (p, Value::Const(0)) => self.bind(format!("{p} * {d}")),
            (p, e) => self.bind(format!("{p} * {d} + {e}")),
        })
    }

    /// `(m / t, m % t)` for `m < d`, folded.
    fn split(&mut self, m: &Value, d: usize, t: usize) -> (Value, Value) {
        match m {
            Value::Const(v) => (Value::Const(v / t), Value::Const(v % t)),
            _ if t == 1 => (m.clone(), Value::Const(0)),
            _ if d <= t => (Value::Const(0), m.clone()),
            _ => (
                self.bind(format!("{m} / {t}")),
                self.bind(format!("{m} % {t}")),
            ),
        }
    }
}

/// The symbolic path, for layouts without [`OffsetTerms`]: the engine's
/// transform replayed on [`Value`]s, giving the final physical dims and
/// index values, and the body; `None` when a merged dim overflows (only
/// possible when the array has no elements, as the engine bounds every
/// product of a buffer's dims).
fn walk(a: &ArrayLayout) -> Option<(Vec<usize>, Vec<Value>, Body)> {
    let n = a.rank();
    let layout = a.layout();
    let m2m = layout.minor_to_major();
    let padding = layout.padding();
    let mut body = Body::default();
    let mut dims = Vec::new();
    let mut idx = Vec::new();
    for i in 0..n {
        let logical = usize::from(m2m[n - 1 - i]);
        dims.push(padding.map_or(a.size(logical), |p| p.padded_dims()[logical]));
        idx.push(if a.size(logical) <= 1 {
            Value::Const(0)
        } else {
            Value::Var(format!("i{logical}"))
        });
    }
    for tile in layout.tiles() {
        let t = tile.raw();
        let k = t.len();
        if k > dims.len() {
            let extra = k - dims.len();
            dims.splice(0..0, std::iter::repeat_n(1, extra));
            idx.splice(0..0, std::iter::repeat_n(Value::Const(0), extra));
        }
        let base = dims.len() - k;
        let mut regions = Vec::new();
        let (mut pending_dim, mut pending_idx) = (1usize, Value::Const(0));
        for j in 0..k {
            let d = dims[base + j];
            let merged_dim = pending_dim.checked_mul(d)?;
            let merged_idx = body.merge(&pending_idx, d, &idx[base + j])?;
            if t[j] == 0 {
                (pending_dim, pending_idx) = (merged_dim, merged_idx);
            } else {
                regions.push((merged_dim, merged_idx, t[j]));
                (pending_dim, pending_idx) = (1, Value::Const(0));
            }
        }
        dims.truncate(base);
        idx.truncate(base);
        let mut inner_dims = Vec::new();
        let mut inner_idx = Vec::new();
        for (d, m, tt) in regions {
            let (q, r) = body.split(&m, d, tt);
            dims.push(d.div_ceil(tt));
            idx.push(q);
            inner_dims.push(tt);
            inner_idx.push(r);
        }
        dims.extend(inner_dims);
        idx.extend(inner_idx);
    }
    Some((dims, idx, body))
}

/// The body and offset expression from the engine's `terms`: a
/// temporary per digit that is not a whole index (by logical index, most
/// significant digit first), and the sum of every digit times its stride,
/// major to minor. `None` when a stride saturated (only for arrays with no
/// elements whose dims multiply past `usize`).
fn from_terms(terms: &[Term]) -> Option<(Body, String)> {
    // Major to minor: the engine lists plain strides by logical dim.
    let mut terms: Vec<&Term> = terms.iter().filter(|t| t.stride != 0).collect();
    terms.sort_by_key(|t| std::cmp::Reverse(t.stride));
    if terms.iter().any(|t| t.stride == usize::MAX) {
        return None;
    }
    let mut body = Body::default();
    let mut names: Vec<String> = terms.iter().map(|t| format!("i{}", t.dim)).collect();
    let mut digits: Vec<usize> = (0..terms.len())
        .filter(|&p| terms[p].div != 1 || terms[p].modulus != 0)
        .collect();
    digits.sort_by_key(|&p| (terms[p].dim, std::cmp::Reverse(terms[p].div)));
    for p in digits {
        let (i, div, modulus) = (&names[p], terms[p].div, terms[p].modulus);
        let expr = match (div, modulus) {
            (1, m) => format!("{i} % {m}"),
            (d, 0) => format!("{i} / {d}"),
            (d, m) => format!("{i} / {d} % {m}"),
        };
        names[p] = body.bind(expr).to_string();
    }
    let sum: Vec<String> = terms
        .iter()
        .zip(&names)
        .map(|(t, name)| match t.stride {
            1 => name.clone(),
            s => format!("{name} * {s}"),
        })
        .collect();
    let result = if sum.is_empty() {
        "0".to_string()
    } else {
        sum.join(" + ")
    };
    Some((body, result))
}

/// The body and offset expression of `a`: from its terms when it has
/// them, else by the symbolic [`walk`]; `None` when a constant overflows.
fn offset_code(a: &ArrayLayout) -> Option<(Body, String)> {
    match OffsetTerms::new(a) {
        Some(terms) => from_terms(terms.terms()),
        None => {
            let (dims, idx, body) = walk(a)?;
            Some((body, linearize(&dims, &idx)?))
        }
    }
}

/// The offset expression: the row-major linearization of `idx` in `dims`;
/// `None` when a stride or the constant overflows.
fn linearize(dims: &[usize], idx: &[Value]) -> Option<String> {
    let mut stride = Some(1usize);
    let mut constant = 0usize;
    let mut terms = Vec::new();
    for (d, e) in dims.iter().zip(idx).rev() {
        // A stride past `usize` is only an error where a term uses it.
        match e {
            Value::Const(0) => {}
            Value::Const(v) => constant = constant.checked_add(v.checked_mul(stride?)?)?,
            Value::Var(v) if stride == Some(1) => terms.push(v.clone()),
            Value::Var(v) => terms.push(format!("{v} * {}", stride?)),
        }
        stride = stride.and_then(|s| s.checked_mul(*d));
    }
    terms.reverse();
    if constant != 0 || terms.is_empty() {
        terms.push(constant.to_string());
    }
    Some(terms.join(" + "))
}

/// Rust's keywords, strict and reserved (edition 2024), and `_`.
const RUST_RESERVED: &[&str] = &[
    "_", "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// C's keywords (C99 to C23), and the names the generated header itself
/// uses or includes (`size_t`, `TESSERA_FN`, `<stddef.h>`'s macros).
const C_RESERVED: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "alignas",
    "alignof",
    "bool",
    "constexpr",
    "false",
    "nullptr",
    "static_assert",
    "thread_local",
    "true",
    "typeof",
    "typeof_unqual",
    "main",
    "size_t",
    "ptrdiff_t",
    "wchar_t",
    "max_align_t",
    "nullptr_t",
    "NULL",
    "offsetof",
    "unreachable",
    "TESSERA_FN",
];

/// Why `name` cannot name the function in `lang`, or `None` when it can:
/// an ASCII identifier that is no keyword of the language (nor, in C, a
/// reserved `__x`/`_X` name or one the header uses).
pub(crate) fn name_problem(name: &str, lang: Lang) -> Option<String> {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Some(format!(
            "`{name}` is not a valid function name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    let (language, reserved) = match lang {
        Lang::Rust => ("Rust", RUST_RESERVED),
        Lang::C => ("C", C_RESERVED),
    };
    let c_reserved = lang == Lang::C
        && (name.starts_with("__")
            || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase())));
    (reserved.contains(&name) || c_reserved)
        .then(|| format!("`{name}` is reserved in {language}; pick another `--name`"))
}

/// The logical index described for the doc comment: `i0: y < 3, i1: x < 5`.
fn describe_index(a: &ArrayLayout) -> String {
    let rank = a.rank();
    (0..rank)
        .map(|d| format!("i{d}: {} < {}", dims::name(rank, d), a.size(d)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The function named `name` in `lang` for layout `a`.
///
/// # Errors
/// A constant of the function past `usize` (only for arrays with no
/// elements but dims whose product overflows, such as `f32[0,2^40,2^40]`).
pub(crate) fn generate(a: &ArrayLayout, lang: Lang, name: &str) -> Result<String, CliError> {
    let overflow = || {
        CliError::msg(format!(
            "`{a}` has no elements, and its dims multiply past 2^64: no offset function to generate"
        ))
    };
    let (body, result) = offset_code(a).ok_or_else(overflow)?;
    let rank = a.rank();
    let uses = |d: usize| {
        let v = format!("i{d}");
        body.lets
            .iter()
            .any(|(_, e)| e.split([' ', '*', '/', '%', '+']).any(|w| w == v))
            || result.split([' ', '*', '+']).any(|w| w == v)
    };
    let index_doc = if rank == 0 {
        "no index (a scalar)".to_string()
    } else {
        describe_index(a)
    };
    let mut out = String::new();
    match lang {
        Lang::C => {
            let params: Vec<String> = (0..rank).map(|d| format!("size_t i{d}")).collect();
            let params = if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            };
            out.push_str(&format!(
                "/* Generated by `tessera codegen --lang c` from {a}.\n \
                 * {name} returns the offset, in elements, of the element at a logical index\n \
                 * ({index_doc}) in a buffer of {} elements.\n \
                 * Indices are not checked: out-of-bounds ones give a meaningless offset.\n \
                 * C99; usable from CUDA C kernels. */\n\
                 #include <stddef.h>\n\n\
                 #ifndef TESSERA_FN\n\
                 #if defined(__CUDACC__)\n\
                 #define TESSERA_FN static inline __host__ __device__\n\
                 #else\n\
                 #define TESSERA_FN static inline\n\
                 #endif\n\
                 #endif\n\n\
                 TESSERA_FN size_t {name}({params}) {{\n",
                a.buffer_len()
            ));
            for d in (0..rank).filter(|&d| !uses(d)) {
                out.push_str(&format!("    (void)i{d};\n"));
            }
            for (v, e) in &body.lets {
                out.push_str(&format!("    const size_t {v} = {e};\n"));
            }
            out.push_str(&format!("    return {result};\n}}\n"));
        }
        Lang::Rust => {
            let pattern: Vec<String> = (0..rank)
                .map(|d| if uses(d) { format!("i{d}") } else { "_".into() })
                .collect();
            out.push_str(&format!(
                "/// The offset, in elements, of the element at a logical index of\n\
                 /// `{a}` ({index_doc}) in a buffer of {} elements.\n\
                 ///\n\
                 /// Generated by `tessera codegen --lang rust`. Indices are not checked:\n\
                 /// out-of-bounds ones give a meaningless offset (or overflow).\n\
                 #[inline]\n\
                 pub const fn {name}(index: [usize; {rank}]) -> usize {{\n",
                a.buffer_len()
            ));
            if pattern.iter().all(|p| p == "_") {
                out.push_str("    let _ = index;\n");
            } else {
                out.push_str(&format!("    let [{}] = index;\n", pattern.join(", ")));
            }
            for (v, e) in &body.lets {
                out.push_str(&format!("    let {v} = {e};\n"));
            }
            out.push_str(&format!("    {result}\n}}\n"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_linearization() {
        let t = |s: &str| Value::Var(s.to_string());
        let lin = |d: &[usize], i: &[Value]| linearize(d, i).unwrap();
        assert_eq!(lin(&[3, 5], &[t("a"), t("b")]), "a * 5 + b");
        assert_eq!(lin(&[3, 5], &[Value::Const(1), t("b")]), "b + 5");
        assert_eq!(lin(&[3, 5], &[Value::Const(0), Value::Const(0)]), "0");
        let huge = 1 << 40;
        assert_eq!(linearize(&[2, huge, huge], &[t("a"), t("b"), t("c")]), None);
    }

    /// A layout with terms gets one temporary per digit, from the
    /// engine's terms; one without (a `*` merging two varying dims) the
    /// symbolic walk.
    #[test]
    fn code_from_the_engine_terms() {
        let a: ArrayLayout = "bf16[8,16]{1,0:T(4,8)(2,1)}".parse().unwrap();
        let (body, result) = offset_code(&a).unwrap();
        let lets: Vec<String> = body
            .lets
            .iter()
            .map(|(v, e)| format!("{v} = {e}"))
            .collect();
        assert_eq!(
            lets,
            [
                "t0 = i0 / 4",
                "t1 = i0 / 2 % 2",
                "t2 = i0 % 2",
                "t3 = i1 / 8",
                "t4 = i1 % 8"
            ]
        );
        assert_eq!(result, "t0 * 64 + t3 * 32 + t1 * 16 + t4 * 2 + t2");
        let merged: ArrayLayout = "f32[3,5]{1,0:T(*,4)}".parse().unwrap();
        assert!(OffsetTerms::new(&merged).is_none());
        let (body, result) = offset_code(&merged).unwrap();
        assert_eq!(body.lets[0].1, "i0 * 5 + i1");
        assert!(result.starts_with("t"), "{result}");
    }

    #[test]
    fn identifiers() {
        for lang in [Lang::Rust, Lang::C] {
            assert_eq!(name_problem("tessera_offset", lang), None);
            assert_eq!(name_problem("_x1", lang), None);
            for bad in ["1x", "a-b", "", "é"] {
                assert!(name_problem(bad, lang).is_some(), "{bad}");
            }
        }
        for rust_only in ["fn", "gen", "_", "Self", "try"] {
            assert!(name_problem(rust_only, Lang::Rust).is_some(), "{rust_only}");
        }
        assert_eq!(name_problem("int", Lang::Rust), None);
        for c_only in ["int", "bool", "size_t", "__x", "_Bool", "TESSERA_FN"] {
            assert!(name_problem(c_only, Lang::C).is_some(), "{c_only}");
        }
        assert_eq!(name_problem("fn", Lang::C), None);
    }
}
