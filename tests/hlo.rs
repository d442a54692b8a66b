//! `tessera::hlo`, the shapes of HLO text: the facade re-exports it, it
//! agrees with the shape grammar, and it never panics on any text.

use proptest::prelude::*;
use tessera::hlo::{Item, Role, items};
use tessera::text::parse_shape_tree;

/// Pieces of HLO lines, so that generated text often looks like HLO.
const PIECES: &[&str] = &[
    "HloModule m, entry_computation_layout={(",
    ")->",
    "}",
    "{",
    "\n",
    "ENTRY ",
    "%main ",
    "(p: f32[2]) -> f32[2] {\n",
    "  ROOT ",
    "%x.1",
    " = ",
    "f32[2,3]{1,0:T(2,2)}",
    "(s32[], /*index=1*/bf16[4]{0})",
    "f32[?,<=3]{0,1}",
    " parameter(0)",
    " add(%a, %b), metadata={op_name=\"jit(f)/add\"}",
    ", ",
    "/*",
    "*/",
    "é",
    "\r\n",
    "}\n",
];

fn hlo_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(PIECES).prop_map(str::to_string),
            any::<String>(),
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_extractor_never_panics_and_spans_point_into_the_text(text in hlo_like()) {
        let lines = text.split('\n').count();
        for item in items(&text) {
            match item {
                Item::Shape(site) => {
                    prop_assert_eq!(text.get(site.span.start..site.span.end), Some(site.text));
                    let parsed = parse_shape_tree(site.text, &mut |_| {});
                    prop_assert!(parsed.is_ok());
                    prop_assert!(site.line >= 1 && site.line <= lines);
                }
                Item::Unreadable { line, error } => {
                    let span = error.span().expect("spanned");
                    prop_assert!(span.start <= span.end && span.end <= text.len());
                    prop_assert!(line >= 1 && line <= lines);
                    let _ = error.report(&text).to_string();
                }
                Item::Module { line, .. } | Item::Computation { line, .. } => {
                    prop_assert!(line >= 1 && line <= lines);
                }
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        for item in items(&text) {
            if let Item::Unreadable { error, .. } = item {
                let _ = error.report(&text).to_string();
            }
        }
    }
}

#[test]
fn the_facade_reexports_the_extractor() {
    let text = "HloModule m, entry_computation_layout={(bf16[8,128]{1,0:T(8,128)(2,1)})->()}\n";
    let roles: Vec<(Role, &str)> = items(text)
        .filter_map(|i| match i {
            Item::Shape(s) => Some((s.role, s.text)),
            _ => None,
        })
        .collect();
    assert_eq!(
        roles,
        [
            (Role::EntryParameter(0), "bf16[8,128]{1,0:T(8,128)(2,1)}"),
            (Role::EntryResult, "()"),
        ]
    );
}

#[test]
fn every_shape_of_the_real_dumps_is_read() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hlo");
    let mut shapes = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "hlo") {
            let text = std::fs::read_to_string(&path).unwrap();
            for item in items(&text) {
                match item {
                    Item::Unreadable { line, error } => {
                        panic!("{}:{line}: {}", path.display(), error.report(&text))
                    }
                    Item::Shape(_) => shapes += 1,
                    _ => {}
                }
            }
        }
    }
    assert!(shapes > 500, "{shapes}");
}
