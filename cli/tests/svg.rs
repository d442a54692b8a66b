//! `tessera svg`: well-formed SVG with one cell per element holding the
//! engine's offset, tiles coloured, and the memory strip.

mod common;

use common::{LAYOUTS, engine_offsets, stdout_of, tessera};

/// The `rect`s of `doc` whose class is `class`, as (offset, fill).
fn rects(doc: &roxmltree::Document<'_>, class: &str) -> Vec<(usize, String)> {
    doc.descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some(class))
        .map(|n| {
            let offset = n
                .attribute("data-offset")
                .expect("data-offset")
                .parse()
                .unwrap();
            (offset, n.attribute("fill").expect("fill").to_string())
        })
        .collect()
}

#[test]
fn one_cell_per_element_with_the_engines_offset() {
    for spec in LAYOUTS.iter().filter(|s| !s.starts_with("f32[2,7")) {
        let text = stdout_of(&["svg", spec, "-o", "-", "--full"]);
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let mut cells: Vec<usize> = rects(&doc, "cell element")
            .into_iter()
            .map(|c| c.0)
            .collect();
        let (mut offsets, buffer_len) = engine_offsets(spec);
        cells.sort_unstable();
        offsets.sort_unstable();
        assert_eq!(cells, offsets, "{spec}");
        let slots = rects(&doc, "slot element").len() + rects(&doc, "slot padding").len();
        assert_eq!(slots, buffer_len, "{spec}");
    }
}

#[test]
fn figure_1_as_an_image() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("figure1.svg");
    tessera()
        .args(["svg", "f32[3,5]{1,0:T(2,2)}", "-o"])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    let text = std::fs::read_to_string(&path).expect("written");
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let cells = rects(&doc, "cell element");
    assert_eq!(cells.len(), 15);
    // Padding cells up to the tile edges: a 4th row and a 6th column.
    assert_eq!(rects(&doc, "cell padding").len(), 24 - 15);
    // Cells of one tile share a fill; the tiles next to each other differ.
    let fill = |o: usize| cells.iter().find(|c| c.0 == o).unwrap().1.clone();
    assert_eq!(fill(0), fill(3));
    assert_ne!(fill(0), fill(4));
    assert_ne!(fill(0), fill(12));
    assert!(text.contains(">17</text>"));
    insta::assert_snapshot!(text);
}

#[test]
fn unwritable_output_fails_with_status_2() {
    tessera()
        .args(["svg", "f32[2]", "-o", "/nonexistent-dir/x.svg"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot write"));
}
