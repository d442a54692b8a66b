//! `show` and `svg` for everything XLA prints: tuples, `?` dims with
//! `--extent`, whole TPU tiles (the tile grid and `--tile`), wrapped rank-1
//! arrays and XLA's allocation; and one acceptance rule for `check`,
//! `canon`, `show`, `svg` and `offsets`.

mod common;

use common::{engine_offsets, stdout_of, tessera};
use predicates::str::contains;

/// The `(offset, class)` of every grid cell of an SVG document.
fn svg_cells(doc: &str) -> Vec<(usize, String)> {
    let doc = roxmltree::Document::parse(doc).expect("well-formed XML");
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("rect") && n.attribute("class").is_some_and(|c| c.starts_with("cell "))
        })
        .map(|n| {
            (
                n.attribute("data-offset").unwrap().parse().unwrap(),
                n.attribute("class").unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn tuples_are_drawn_leaf_by_leaf_titled_by_shape_index() {
    let out = stdout_of(&["show", "(f32[4,4]{1,0}, (s32[], token[]))"]);
    let titles: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("tuple element"))
        .collect();
    assert_eq!(
        titles,
        [
            "tuple element {0}: f32[4,4]{1,0}",
            "tuple element {1,0}: s32[]",
            "tuple element {1,1}: token[]"
        ]
    );
    assert!(out.contains("token[] has no elements to draw"), "{out}");
    assert!(out.contains("    3 │ 12 13 14 15 │"), "{out}");
    let doc = stdout_of(&["svg", "(f32[4,4]{1,0}, s32[])", "-o", "-"]);
    assert_eq!(svg_cells(&doc).len(), 16 + 1);
    assert!(doc.contains("tuple element {1}: s32[]"));
}

#[test]
fn unknown_dims_are_drawn_at_a_given_extent() {
    tessera()
        .args(["show", "f32[?,512]{1,0}"])
        .assert()
        .code(2)
        .stderr(
            "error: dimension `0` is unbounded (`?`), so its size is not known\n  f32[?,512]{1,0}\n      ^\n  (draw it at a size with `--extent y=N`)\n",
        );
    let out = stdout_of(&["show", "f32[?,512]{1,0}", "--extent", "0=37"]);
    assert!(out.contains("rank            2 (y=37 x=512)"), "{out}");
    let by_name = stdout_of(&["show", "f32[?,512]{1,0}", "--extent", "y=37"]);
    assert_eq!(out, by_name);
    // `<=N` takes its bound's room, as in XLA.
    let bounded = stdout_of(&["show", "f32[<=3,2]"]);
    assert!(bounded.contains("rank            2 (y=3 x=2)"), "{bounded}");
    tessera()
        .args(["show", "f32[3,5]", "--extent", "0=4"])
        .assert()
        .code(2)
        .stderr(contains("`--extent` gives the size of a `?` dimension"));
    tessera()
        .args(["svg", "f32[?,5]", "-o", "-", "--extent", "x"])
        .assert()
        .code(2)
        .stderr(contains("`--extent` takes DIM=N entries"));
    tessera()
        .args(["show", "f32[?,5]", "--extent", "0=99999999999999999999999"])
        .assert()
        .code(2)
        .stderr(contains(
            "`--extent` entry `0=99999999999999999999999`: the size is larger than the largest",
        ));
    let doc = stdout_of(&["svg", "f32[?,5]{1,0:T(2,2)}", "-o", "-", "--extent", "0=3"]);
    let cells = svg_cells(&doc);
    assert_eq!(cells.iter().filter(|c| c.1 == "cell element").count(), 15);
}

#[test]
fn a_tile_larger_than_a_screen_is_drawn_as_a_grid_of_tiles() {
    let spec = "bf16[20,300]{1,0:T(8,128)(2,1)}";
    let out = stdout_of(&["show", spec]);
    assert!(
        out.contains("one tile (8x128 elements) is larger than a screen"),
        "{out}"
    );
    let grid: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("y\\x"))
        .take(4)
        .collect();
    assert_eq!(
        grid,
        [
            "     y\\x    0..128  128..256  256..384",
            "    0..8        #0        #1    #2 66%",
            "   8..16        #3        #4    #5 66%",
            "  16..24    #6 50%    #7 50%    #8 83%",
        ],
        "{out}"
    );
    let doc = stdout_of(&["svg", spec, "-o", "-"]);
    let xml = roxmltree::Document::parse(&doc).unwrap();
    let tiles: Vec<(String, String)> = xml
        .descendants()
        .filter(|n| n.attribute("class") == Some("tile"))
        .map(|n| {
            (
                n.attribute("data-tile").unwrap().to_string(),
                n.attribute("data-padding-percent").unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(tiles.len(), 9);
    assert_eq!(tiles[8], ("8".to_string(), "83".to_string()));
}

#[test]
fn one_tile_is_drawn_whole_on_request() {
    let spec = "bf16[20,300]{1,0:T(8,128)(2,1)}";
    let doc = stdout_of(&["svg", spec, "-o", "-", "--tile", "2,1"]);
    let cells = svg_cells(&doc);
    assert_eq!(cells.len(), 8 * 128, "the whole tile");
    // Rows 16..20 hold elements, 20..24 are padding; every element's
    // offset is the engine's for index (y, x) in the tile.
    let (offsets, _) = engine_offsets(spec);
    let mut want: Vec<usize> = (16..20)
        .flat_map(|y| (128..256).map(move |x| (y, x)))
        .map(|(y, x)| offsets[y * 300 + x])
        .collect();
    let mut got: Vec<usize> = cells
        .iter()
        .filter(|c| c.1 == "cell element")
        .map(|c| c.0)
        .collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    // The strip holds that tile's run of slots: tile 7 of 1024 slots.
    let xml = roxmltree::Document::parse(&doc).unwrap();
    let slots: Vec<usize> = xml
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("slot ")))
        .map(|n| n.attribute("data-offset").unwrap().parse().unwrap())
        .collect();
    assert_eq!(slots, (7 * 1024..8 * 1024).collect::<Vec<_>>());
    let out = stdout_of(&["show", spec, "--tile", "2,1"]);
    assert!(
        out.contains("… one tile, whole: 8 rows from 16 and 128 columns from 128"),
        "{out}"
    );
    tessera()
        .args(["show", spec, "--tile", "3,0"])
        .assert()
        .code(2)
        .stderr("error: tile `3,0` is outside the 3x3 tiles along y,x\n");
    tessera()
        .args([
            "show",
            "u8[1,1]{1,0:T(1000000000000000000,1)}",
            "--tile",
            "0,0",
        ])
        .assert()
        .code(2)
        .stderr(contains("too large to draw whole"));
    // Its tile grid says the one tile is almost all padding.
    let huge = stdout_of(&["show", "u8[1,1]{1,0:T(1000000000000000000,1)}"]);
    assert!(huge.contains("#0 100%"), "{huge}");
    tessera()
        .args(["show", "f32[4,4]", "--tile", "0,0"])
        .assert()
        .code(2)
        .stderr(contains("`--tile` needs a layout with tiles"));
}

#[test]
fn tiled_rank_1_arrays_wrap_at_the_tile_size() {
    // Rows of whole 8-element tiles: 13 rows for the 104 slots.
    let out = stdout_of(&["show", "f32[100]{0:T(8)}", "--full"]);
    let rows: Vec<&str> = out
        .lines()
        .take_while(|l| !l.starts_with("memory order"))
        .filter(|l| l.contains('│'))
        .filter(|l| l.trim_start().starts_with(char::is_numeric))
        .collect();
    assert_eq!(rows.len(), 13, "{out}");
    assert_eq!(rows[1].trim_start(), "8 │  8  9 10 11 12 13 14 15 │");
    assert_eq!(rows[12].matches('·').count(), 4, "{out}");
    // A 1024-element tile is a grid of one tile; `--tile 0` draws it
    // whole, 64 rows of 16.
    let one = stdout_of(&["show", "f32[1024]{0:T(1024)}"]);
    assert!(
        one.contains("one tile (1024 elements) is larger than a screen"),
        "{one}"
    );
    let doc = stdout_of(&["svg", "f32[1024]{0:T(1024)}", "-o", "-", "--tile", "0"]);
    let mut cells: Vec<usize> = svg_cells(&doc).iter().map(|c| c.0).collect();
    cells.sort_unstable();
    assert_eq!(cells, (0..1024).collect::<Vec<_>>());
}

#[test]
fn show_gives_xlas_allocation_where_it_differs_with_the_reason() {
    let out = stdout_of(&["show", "f32[6,8]{1,0:T(3,4)(2,1)}"]);
    assert!(
        out.contains(
            "xla allocation  192 bytes, not 256 (ShapeUtil::ArraySize): XLA pads for the first tile level only; tessera's buffer holds every level's padding\n"
        ),
        "{out}"
    );
    let same = stdout_of(&["show", "f32[3,5]{1,0:T(2,2)}"]);
    assert!(!same.contains("xla allocation"), "{same}");
    let aligned = stdout_of(&["show", "f32[3]{0:L(4)}"]);
    assert!(
        aligned.contains("xla allocation  12 bytes, not 16 (ShapeUtil::ArraySize): without tiles XLA ignores `L(n)`"),
        "{aligned}"
    );
}

/// Whether `tessera ARGS..` succeeds.
fn ok(args: &[&str]) -> bool {
    tessera()
        .args(args)
        .output()
        .expect("runs")
        .status
        .success()
}

#[test]
fn check_canon_show_svg_and_offsets_agree_on_what_is_valid() {
    let arrays = [
        ("f32[3,5]{1,0:T(2,2)}", true),
        ("s8[9223372036854775807]", true),
        ("f32[9223372036854775807]", false),
        ("f32[2305843009213693951]{0:T(2)}", false),
        (
            "u8[3000000000,3000000000]{1,0:T(4294967296,4294967296)}",
            false,
        ),
        ("f32[2]{1}", false),
        ("f32[2,2]{1,0:T(2,0)}", false),
    ];
    for (spec, valid) in arrays {
        assert_eq!(ok(&["check", spec]), valid, "check {spec}");
        assert_eq!(ok(&["canon", spec]), valid, "canon {spec}");
        assert_eq!(ok(&["show", spec]), valid, "show {spec}");
        assert_eq!(ok(&["svg", spec, "-o", "-"]), valid, "svg {spec}");
        if valid && spec.starts_with("s8[9") {
            continue; // too many offsets to list
        }
        assert_eq!(ok(&["offsets", spec]), valid, "offsets {spec}");
        assert_eq!(
            layout_core::ArrayLayout::parse(spec).is_ok(),
            valid,
            "library {spec}"
        );
        if !valid {
            // Every error carries its caret.
            for cmd in ["check", "show", "offsets"] {
                let out = tessera().args([cmd, spec]).output().unwrap();
                let err = String::from_utf8(out.stderr).unwrap();
                assert!(
                    err.lines().nth(2).is_some_and(|l| l.contains('^')),
                    "{cmd} {spec}: {err}"
                );
            }
        }
    }
    // Shapes that are valid but not one array: check and canon accept
    // them, and so do show and svg.
    for spec in ["(f32[4,4]{1,0}, s32[])", "(f32[2]{0}, /*index=1*/token[])"] {
        assert!(ok(&["check", spec]) && ok(&["canon", spec]), "{spec}");
        assert!(
            ok(&["show", spec]) && ok(&["svg", spec, "-o", "-"]),
            "{spec}"
        );
    }
    assert!(ok(&["check", "f32[?,512]{1,0}"]));
    assert!(ok(&["show", "f32[?,512]{1,0}", "--extent", "0=2"]));
    assert!(ok(&[
        "svg",
        "f32[?,512]{1,0}",
        "-o",
        "-",
        "--extent",
        "0=2"
    ]));
}
