//! `tessera show`: snapshots of XLA's tiled-layout doc figures and checks
//! of the picture's structure.

mod common;

use common::{stdout_of, tessera};

#[test]
fn figure_1_of_xlas_tiled_layout_doc() {
    // f32[3,5] in 2x2 tiles: 2 rows of 3 tiles, padding in the last
    // column and row, element (2,3) at 17.
    insta::assert_snapshot!(stdout_of(&["show", "f32[3,5]{1,0:T(2,2)}"]));
}

#[test]
fn repeated_tiling_example_of_xlas_tiled_layout_doc() {
    let out = stdout_of(&["show", "f32[4,8]{1,0:T(2,4)(2,1)}"]);
    let rows: Vec<Vec<String>> = out
        .lines()
        .filter(|l| l.contains('│') && l.trim_start().starts_with(char::is_numeric))
        .take(4)
        .map(|l| {
            let cells = l.split_once('│').expect("row label").1;
            cells
                .split_whitespace()
                .filter(|w| *w != "│")
                .map(String::from)
                .collect()
        })
        .collect();
    let expect = |v: [usize; 8]| v.iter().map(usize::to_string).collect::<Vec<_>>();
    assert_eq!(rows[0], expect([0, 2, 4, 6, 8, 10, 12, 14]));
    assert_eq!(rows[1], expect([1, 3, 5, 7, 9, 11, 13, 15]));
    assert_eq!(rows[2], expect([16, 18, 20, 22, 24, 26, 28, 30]));
    assert_eq!(rows[3], expect([17, 19, 21, 23, 25, 27, 29, 31]));
    insta::assert_snapshot!(out);
}

#[test]
fn higher_rank_is_drawn_as_slices_of_chosen_dims() {
    insta::assert_snapshot!(stdout_of(&["show", "f32[2,3,4]{2,1,0:T(2,2)}"]));
    let zx = stdout_of(&["show", "f32[2,3,4]{2,1,0:T(2,2)}", "--dims", "z,x"]);
    assert!(
        zx.contains("y=0:") && zx.contains("y=2:") && zx.contains("z\\x"),
        "{zx}"
    );
    let numeric = stdout_of(&["show", "f32[2,3,4]{2,1,0:T(2,2)}", "--dims", "0 2"]);
    assert_eq!(zx, numeric);
}

#[test]
fn rank_0_1_and_untiled_layouts() {
    insta::assert_snapshot!("scalar", stdout_of(&["show", "f32[]"]));
    insta::assert_snapshot!("rank_1", stdout_of(&["show", "f32[5]{0:T(2)}"]));
    insta::assert_snapshot!("column_major", stdout_of(&["show", "f32[3,5]{0,1}"]));
}

#[test]
fn pad_padding_is_drawn() {
    let out = stdout_of(&["show", "f32[3,5]{1,0:pad(4,8)}"]);
    assert!(out.contains("padding slots   17"), "{out}");
    // 4 rows of 8 columns: the 4th row and the last 3 columns are padding.
    let grid_rows: Vec<&str> = out
        .lines()
        .filter(|l| l.contains('│') && !l.contains(','))
        .collect();
    assert_eq!(grid_rows.len(), 4, "{out}");
    assert_eq!(grid_rows[3].matches('·').count(), 8, "{out}");
    assert_eq!(grid_rows[0].matches('·').count(), 3, "{out}");
}

#[test]
fn large_arrays_are_cut_with_a_note_unless_full() {
    let out = stdout_of(&["show", "f32[100,100]{1,0:T(8,10)}"]);
    assert!(
        out.contains("… showing 32 of 104 rows and 16 of 100 columns (--full shows all)"),
        "{out}"
    );
    assert!(
        out.contains("… showing slots 0..192 of 10400 (--full shows all)"),
        "{out}"
    );
    assert!(out.lines().count() < 80, "{} lines", out.lines().count());
    let full = stdout_of(&["show", "f32[30,40]{1,0:T(8,128)}", "--full"]);
    assert!(!full.contains("--full shows all"), "{full}");
    let slices = stdout_of(&["show", "f32[9,2,2]"]);
    assert!(slices.contains("… showing 4 of 9 slices"), "{slices}");
}

#[test]
fn colour_only_on_request_or_terminal() {
    let spec = "f32[3,5]{1,0:T(2,2)}";
    let plain = stdout_of(&["show", spec]);
    assert!(!plain.contains('\x1b'), "not a terminal: no escapes");
    let coloured = stdout_of(&["show", spec, "--color", "always"]);
    assert!(coloured.contains("\x1b["), "--color always paints tiles");
    let no_color = tessera()
        .args(["show", spec])
        .env("NO_COLOR", "1")
        .output()
        .expect("runs")
        .stdout;
    assert!(!no_color.contains(&0x1b));
}

#[test]
fn bad_dims_and_specs_fail_with_status_2() {
    tessera()
        .args(["show", "f32[2,3,4]", "--dims", "y,y"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("twice"));
    tessera()
        .args(["show", "f32[3,5]{1,1}"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("  f32[3,5]{1,1}\n             ^"));
}
