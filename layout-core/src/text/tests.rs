//! Round trips and error spans of the text module.

use std::string::{String, ToString};

use super::*;
use crate::{ArrayLayout, ErrorKind};

fn canon(text: &str) -> String {
    match parse_shape(text) {
        Ok(p) => p.shape.to_string(),
        Err(e) => panic!("{text}: {}", e.report(text)),
    }
}

/// The error message and the text its span covers.
fn err(text: &str) -> (String, String) {
    let e = match parse_shape(text) {
        Ok(p) => panic!("{text} parsed as {}", p.shape),
        Err(e) => e,
    };
    let span = e.span().expect("text errors carry a span");
    (e.to_string(), text[span.start..span.end].to_string())
}

#[test]
fn canonical_forms() {
    for (input, expected) in [
        ("f32[3,5]", "f32[3,5]{1,0}"),
        ("f32[ 3 , 5 ] < 1 , 0 >", "f32[3,5]{1,0}"),
        ("f32[3,5]{1,0:}", "f32[3,5]{1,0}"),
        ("f32[3,5]{1,0:L(1)E(0)S(0)M(0)}", "f32[3,5]{1,0}"),
        ("f32[]", "f32[]"),
        ("u32[]{:T(128)}", "u32[]{:T(128)}"),
        ("u32[]<:S(2)>", "u32[]{:S(2)}"),
        ("f32[?,784]", "f32[?,784]{1,0}"),
        ("f32[123,<=456]", "f32[123,<=456]{1,0}"),
        ("bf16[8,16]{1,0:T(4,8)(2,1)}", "bf16[8,16]{1,0:T(4,8)(2,1)}"),
        ("f32[2,7,8]{2,1,0:T(*,2,4)}", "f32[2,7,8]{2,1,0:T(*,2,4)}"),
        (
            "f32[2,3]{1,0:T(2,2)L(4)E(32)S(1)M(8)}",
            "f32[2,3]{1,0:T(2,2)L(4)E(32)S(1)M(8)}",
        ),
        (
            "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
            "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
        ),
        ("s4[64,128]{1,0:E(4)}", "s4[64,128]{1,0:E(4)}"),
        ("f32[3,5]{1,0:pad(4,8)}", "f32[3,5]{1,0:pad(4,8)}"),
        (
            "f32[3,5]{1,0:T(2,2)pad(4, 8 : zero)}",
            "f32[3,5]{1,0:T(2,2)pad(4,8:zero)}",
        ),
        ("token[]", "token[]"),
        ("opaque_type[]", "opaque[]"),
        ("f32[1,2]/*comment*/{0,1}", "f32[1,2]{0,1}"),
    ] {
        assert_eq!(canon(input), expected, "{input}");
        // The canonical form parses to itself.
        assert_eq!(canon(expected), expected, "{expected}");
    }
}

#[test]
fn errors_name_the_rule_and_span_the_offending_part() {
    for (input, message, spanned) in [
        (
            "g32[3]",
            "unknown element type `g32` (expected one of XLA's types: pred, s4, s8, s32, u8, bf16, f16, f32, f64, c64, ...)",
            "g32",
        ),
        ("f32[3,-5]", "dimension `1` has a negative size", "-5"),
        (
            "f32[3,5",
            "expected `,` or `]`, found the end of the input",
            "",
        ),
        ("f32[3;5]", "unexpected character `;`", ";"),
        (
            "f32[3usize]",
            "invalid integer `3usize`: expected plain decimal digits",
            "3usize",
        ),
        (
            "f32[3,5]{1}",
            "minor_to_major has 1 entry but the shape has rank 2",
            "{1",
        ),
        (
            "f32[3,5]{1,1}",
            "dimension `1` appears twice in minor_to_major",
            "1",
        ),
        (
            "f32[3,5]{1,2}",
            "dimension `2` in minor_to_major is out of range for rank 2",
            "2",
        ),
        (
            "f32[3,5]{1,-1}",
            "minor_to_major lists dimension numbers, which cannot be negative",
            "-1",
        ),
        (
            "f32[3,5]{1,0:T(2,0)}",
            "a tile entry must be at least 1",
            "0",
        ),
        ("f32[3,5]{1,0:T()}", "a tile needs at least one entry", "()"),
        (
            "f32[3,5]{1,0:T}",
            "expected `(` starting a tile, found `}`",
            "}",
        ),
        (
            "f32[3,5]{1,0:T(2,*)}",
            "`*` cannot be the last entry of a tile: there is no more-minor dimension to combine it into",
            "*",
        ),
        (
            "f32[3,5]{1,0:S(1)T(2,2)}",
            "layout attribute T must come before S (XLA's order is T L # * E S SC P M, then tessera's pad)",
            "T",
        ),
        (
            "f32[3,5]{1,0:E(32)E(32)}",
            "layout attribute E appears twice",
            "E",
        ),
        (
            "f32[3,5]{1,0:#(u32)}",
            "`#(...)` (index_primitive_type) belongs to sparse layouts, which are not supported",
            "#",
        ),
        (
            "f32[3,5]{1,0:D(D,C)}",
            "`D(...)` (dim level types) belongs to sparse layouts, which are not supported",
            "D",
        ),
        (
            "f32[3,5]{1,0:Q(1)}",
            "unknown layout attribute `Q` (expected T, L, E, S, SC, M or pad)",
            "Q",
        ),
        (
            "f32[3,5]{1,0:L(0)}",
            "tail padding alignment `L` must be at least 1",
            "L(0)",
        ),
        (
            "f32[3,5]{1,0:S(128)}",
            "memory space `S` must be between 0 and 127 (XLA stores it in an int8)",
            "S(128)",
        ),
        (
            "s4[8]{0:E(2)}",
            "element size E(2) is narrower than `s4`'s 4 bits",
            "E(2)",
        ),
        (
            "s8[8]{0:E(12)}",
            "element size E(12) must be 1, 2, 4 or a multiple of 8 bits",
            "E(12)",
        ),
        (
            "f32[3,5]{1,0:pad(4)}",
            "pad(...) has 1 entry but the shape has rank 2",
            "pad(4)",
        ),
        (
            "f32[3,5]{1,0:pad(2,8)}",
            "dimension `0` is padded to 2, below its size 3",
            "2",
        ),
        (
            "f32[2]{}",
            "an empty layout: a layout starts with a dimension number or `:`; \
             a scalar's is left out (`f32[]`), an array's lists every dimension (`{1,0}`)",
            "{}",
        ),
        (
            "f32[]<>",
            "an empty layout: a layout starts with a dimension number or `:`; \
             a scalar's is left out (`f32[]`), an array's lists every dimension (`{1,0}`)",
            "<>",
        ),
        (
            "f32[3,5]{",
            "expected a dimension number or `:`, found the end of the input",
            "",
        ),
        (
            "f32[2]{x}",
            "unexpected `{` after the end of the shape",
            "{",
        ),
        (
            "f32[2]{0} x",
            "unexpected `x` after the end of the shape",
            "x",
        ),
        ("f32[2]{0>", "expected `,`, `:` or `}`, found `>`", ">"),
        (
            "f32[2]<0:T(2)}",
            "expected a layout attribute (T, L, E, S, SC, M, pad) or `>`, found `}`",
            "}",
        ),
        (
            "token[2]",
            "`token` is not an array type and takes no dimensions (write `token[]`)",
            "[2]",
        ),
        ("(f32[2])", "expected an array shape, found a tuple", "("),
        (
            "f32[99999999999999999999]",
            "dimension size is too large (the maximum is 9223372036854775807)",
            "99999999999999999999",
        ),
        (
            "f32[1,2,3,4,5,6,7,8,9,10,11,12,13]",
            "rank 13 is above tessera's maximum of 12",
            "13",
        ),
        // XLA's `int64` fields: past `i64::MAX` is an error, not a value.
        (
            "f32[2]{0:M(18446744073709551615)}",
            "dynamic shape metadata prefix bytes `M` is too large (the maximum is 9223372036854775807)",
            "18446744073709551615",
        ),
        (
            "f32[2]{0:L(9223372036854775808)}",
            "tail padding alignment `L` is too large (the maximum is 9223372036854775807)",
            "9223372036854775808",
        ),
    ] {
        let (m, s) = err(input);
        assert_eq!(m, message, "{input}");
        assert_eq!(s, spanned, "{input}");
    }
}

#[test]
fn overflowing_sizes_are_errors() {
    let e = "f32[4294967296,4294967296,4294967296]"
        .parse::<ArrayLayout>()
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Overflow {
            what: "the element count"
        }
    );
    // The tiles push the buffer past `i64`: rejected where the layout is
    // validated, so `parse_shape` (and `check`) reject it too.
    let text = "u8[3000000000,3000000000]{1,0:T(4294967296,4294967296)}";
    let e = text.parse::<ArrayLayout>().unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::SizeMayOverflowInt64 { .. }),
        "{e}"
    );
    assert_eq!(crate::text::parse_shape(text).unwrap_err(), e);
}

#[test]
fn tuples_and_buffers() {
    let mut out = String::new();
    write_canonical("(f32[1],(f32[2], token[]), opaque[], f32[3])", &mut out).unwrap();
    assert_eq!(
        out,
        "(f32[1]{0}, (f32[2]{0}, token[]), opaque[], f32[3]{0})"
    );
    out.clear();
    write_canonical(
        "(f32[1],f32[2],f32[3],f32[4],f32[5],f32[6],f32[7])",
        &mut out,
    )
    .unwrap();
    assert_eq!(
        out,
        "(f32[1]{0}, f32[2]{0}, f32[3]{0}, f32[4]{0}, f32[5]{0}, /*index=5*/f32[6]{0}, f32[7]{0})"
    );
    // The canonical form, comments included, parses back to itself.
    let again = out.clone();
    out.clear();
    write_canonical(&again, &mut out).unwrap();
    assert_eq!(out, again);
    out.clear();
    write_canonical("b(s32[])", &mut out).unwrap();
    assert_eq!(out, "b(s32[])");
    out.clear();
    write_canonical("()", &mut out).unwrap();
    assert_eq!(out, "()");
    assert!(write_canonical("b()", &mut String::new()).is_err());
    assert!(write_canonical("b(s32[], f32[])", &mut String::new()).is_err());
    assert!(write_canonical("(f32[1]", &mut String::new()).is_err());
    let deep = "(".repeat(100) + &")".repeat(100);
    let e = write_canonical(&deep, &mut String::new()).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::NestingTooDeep {
            max: crate::limits::MAX_TUPLE_DEPTH
        }
    );
}

#[test]
fn from_str_on_public_types() {
    let s: crate::Shape = "f32[2,3]<0,1>".parse().unwrap();
    assert_eq!(s.to_string(), "f32[2,3]{0,1}");
    let l: crate::Layout = "{1,0:T(8,128)}".parse().unwrap();
    assert_eq!(l.to_string(), "{1,0:T(8,128)}");
    let t: crate::PrimitiveType = "bf16".parse().unwrap();
    assert_eq!(t, crate::PrimitiveType::Bf16);
    let e = "g32".parse::<crate::PrimitiveType>().unwrap_err();
    assert!(e.to_string().starts_with("unknown element type `g32`"));
}

#[test]
fn standalone_layouts() {
    assert_eq!(
        parse_layout("<1,0:T(8,128)(2,1)>").unwrap().to_string(),
        "{1,0:T(8,128)(2,1)}"
    );
    assert_eq!(parse_layout("{}").unwrap().to_string(), "{}");
    assert!(parse_layout("{1,0:T(8,128)").is_err());
}

#[test]
fn caret_report() {
    let text = "f32[3,5]{1,0:T(2,0)}";
    let e = parse_shape(text).unwrap_err();
    assert_eq!(
        e.report(text).to_string(),
        "error: a tile entry must be at least 1\n  f32[3,5]{1,0:T(2,0)}\n                   ^"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// No input makes the parser panic or loop.
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,40}") {
        let _ = parse_shape(&text);
        let _ = write_canonical(&text, &mut String::new());
    }

    /// Inputs made of the grammar's own pieces never panic either, and
    /// whatever parses prints a canonical form that parses to itself.
    #[test]
    fn grammar_soup_round_trips(parts in proptest::collection::vec(
        proptest::sample::select(&[
            "f32", "s4", "pred", "token", "[", "]", "{", "}", "<", ">", "(", ")", ",", ":",
            "T", "L", "E", "S", "SC", "M", "pad", "*", "?", "<=", "-", "0", "1", "2", "3",
            "8", "128", " ", "b",
        ][..]), 0..24)) {
        let text: String = parts.concat();
        if let Ok(p) = parse_shape(&text) {
            let printed = p.shape.to_string();
            let again = parse_shape(&printed).map(|q| q.shape);
            proptest::prop_assert_eq!(again, Ok(p.shape), "{} -> {}", text, printed);
        }
    }
}

#[test]
fn tail_padding_alignment_keeps_sizes_within_i64() {
    // `L(n)` can round the buffer past XLA's `int64`: that is an overflow,
    // not a `buffer_len` of `usize::MAX`. (An `n` past `int64` is not read
    // at all.)
    let e = "f32[1]{0:L(18446744073709551615)}"
        .parse::<ArrayLayout>()
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::IntegerTooLarge { .. }), "{e}");
    for text in [
        "f32[2]{0:L(9223372036854775807)}",
        "u8[4611686018427387905]{0:L(4611686018427387904)}",
    ] {
        let e = text.parse::<ArrayLayout>().unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Overflow { .. } | ErrorKind::SizeMayOverflowInt64 { .. }
            ),
            "{text}: {e}"
        );
    }
    // The largest byte size that fits is accepted.
    let a = "u8[1]{0:L(9223372036854775807)}"
        .parse::<ArrayLayout>()
        .unwrap();
    assert_eq!(a.buffer_len(), i64::MAX as usize);
    // Bytes are held to `int64` too.
    let e = "f32[2]{0:L(4611686018427387904)}"
        .parse::<ArrayLayout>()
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Overflow { .. } | ErrorKind::SizeMayOverflowInt64 { .. }
        ),
        "{e}"
    );
}

#[test]
fn element_count_does_not_depend_on_the_order_of_dims() {
    for text in [
        "f32[1099511627776,1099511627776,0]",
        "f32[0,1099511627776,1099511627776]",
        "f32[1099511627776,0,1099511627776]",
    ] {
        let shape = parse_shape(text).unwrap().shape;
        assert_eq!(shape.element_count(), Ok(0), "{text}");
        let layout = crate::ArrayLayout::new(shape).unwrap();
        assert_eq!(layout.buffer_len(), 0, "{text}");
    }
}

#[test]
fn every_parsed_layout_prints_text_that_parses_back() {
    // XLA prints a non-integral `#(..)`/`*(..)` as `#(invalid)`: refuse it.
    for (text, spanned) in [("{0:#(f32)}", "f32"), ("{0:*(pred)}", "pred")] {
        let e = parse_layout(text).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::NonIntegralIndexType { .. }),
            "{text}: {e}"
        );
        let span = e.span().unwrap();
        assert_eq!(&text[span.start..span.end], spanned);
    }
    let l = parse_layout("{0:#(s64)*(u32)}").unwrap();
    assert_eq!(parse_layout(&l.to_string()), Ok(l));
    // `token`/`opaque` keep no layout, as none is printed.
    for (text, plain) in [("token[]{:}", "token[]"), ("opaque[]<:>", "opaque[]")] {
        let shape = parse_shape(text).unwrap().shape;
        assert_eq!(shape, parse_shape(plain).unwrap().shape, "{text}");
        assert_eq!(parse_shape(&shape.to_string()).unwrap().shape, shape);
    }
}

#[test]
fn echoed_input_has_controls_escaped() {
    let text = "f32[3\u{1b}[31m,5]";
    let e = parse_shape(text).unwrap_err();
    let report = e.report(text).to_string();
    assert!(!report.contains('\u{1b}'), "{report:?}");
    assert_eq!(
        report,
        "error: unexpected character `\\u{1b}`\n  f32[3\\u{1b}[31m,5]\n       ^^^^^^"
    );
    let e = parse_shape("f32[\0]").unwrap_err();
    assert_eq!(e.to_string(), "unexpected character `\\0`");
    for bad in ["f32[\u{202e}]", "f32[\u{1}]", "g\u{202e}2[1]"] {
        let e = parse_shape(bad).unwrap_err();
        let report = e.report(bad).to_string();
        assert!(
            !report
                .lines()
                .any(|l| l.chars().any(crate::error::message::needs_escape)),
            "{report:?}"
        );
    }
    // Printable text, accents included, is echoed as it is.
    let e = parse_shape("fé2[1]").unwrap_err();
    assert!(e.report("fé2[1]").to_string().contains("fé2[1]"));
}
