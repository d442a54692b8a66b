//! Every text entry point of the engine on arbitrary text: no panic;
//! accepted text prints as text that parses back to the same value
//! (a fixed point); rejected text gets an error whose span lies inside the
//! input and whose report echoes no control character.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera::message::needs_escape;
use tessera::text::{TreeEvent, parse_layout, parse_shape, parse_shape_tree, write_canonical};
use tessera::{ArrayLayout, Error, Layout, PrimitiveType, Shape};

/// The span of `e` lies in `text`, and its report is safe to print.
fn check_error(e: &Error, text: &str) {
    if let Some(span) = e.span() {
        assert!(
            span.start <= span.end && span.end <= text.len(),
            "span {span:?} outside {text:?}"
        );
    }
    let report = e.report(text).to_string();
    for line in report.lines() {
        assert!(!line.chars().any(needs_escape), "unescaped: {report:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_shape(text) {
        Ok(p) => {
            let printed = p.shape.to_string();
            let again = parse_shape(&printed).expect("printed shape parses");
            assert_eq!(again.shape, p.shape, "{text:?} -> {printed:?}");
            assert_eq!(again.shape.to_string(), printed);
            let whole = p.spans.whole;
            assert!(whole.start <= whole.end && whole.end <= text.len());
        }
        Err(e) => check_error(&e, text),
    }
    match parse_layout(text) {
        Ok(l) => {
            let printed = l.to_string();
            assert_eq!(parse_layout(&printed), Ok(l), "{text:?} -> {printed:?}");
        }
        Err(e) => check_error(&e, text),
    }
    let mut out = String::new();
    match write_canonical(text, &mut out) {
        Ok(()) => {
            let mut again = String::new();
            write_canonical(&out, &mut again).expect("canonical text parses");
            assert_eq!(again, out, "{text:?}");
        }
        Err(e) => check_error(&e, text),
    }
    let mut leaves = 0usize;
    if let Err(e) = parse_shape_tree(text, &mut |ev| {
        if let TreeEvent::Leaf(_) = ev {
            leaves += 1;
        }
    }) {
        check_error(&e, text);
    }
    match ArrayLayout::parse(text) {
        Ok(a) => {
            let max = i64::MAX as usize;
            assert!(a.buffer_len() <= max && a.physical_byte_size() <= max);
            assert!(a.element_count() <= a.buffer_len());
            assert_eq!(ArrayLayout::parse(&a.to_string()), Ok(a));
        }
        Err(e) => check_error(&e, text),
    }
    if let Ok(s) = text.parse::<Shape>() {
        assert_eq!(s.to_string().parse::<Shape>(), Ok(s));
    }
    if let Ok(l) = text.parse::<Layout>() {
        assert_eq!(l.to_string().parse::<Layout>(), Ok(l));
    }
    if let Ok(t) = text.parse::<PrimitiveType>() {
        assert_eq!(t.name().parse::<PrimitiveType>(), Ok(t));
    }
});
