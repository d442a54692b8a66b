//! `canon`, `check`, `offset`, `index`, `offsets` and `--help`: outputs,
//! error reports and exit statuses of the real binary.

mod common;

use common::{LAYOUTS, engine_offsets, stdout_of, tessera};
use predicates::str::contains;

#[test]
fn canon_prints_one_line_per_spec() {
    tessera()
        .args([
            "canon",
            "f32[2,3]",
            "f32[]",
            "(f32[1], s8[2]{0})",
            "bf16[8,16]<1,0:T(4,8)(2,1)>",
        ])
        .assert()
        .success()
        .stdout("f32[2,3]{1,0}\nf32[]\n(f32[1]{0}, s8[2]{0})\nbf16[8,16]{1,0:T(4,8)(2,1)}\n");
}

#[test]
fn canon_reads_stdin_and_marks_invalid_lines() {
    let out = tessera()
        .args(["canon", "-"])
        .write_stdin("f32[2,3]\nf32[2]{1}\n\nf32[ 1, 2]{0, 1 }\n")
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "f32[2,3]{1,0}");
    assert_eq!(
        lines[1],
        "error: dimension `1` in minor_to_major is out of range for rank 1"
    );
    assert!(lines[2].starts_with("error: expected "), "{out}");
    assert_eq!(lines[3], "f32[1,2]{0,1}");
    tessera()
        .args(["canon", "-"])
        .write_stdin("f32[2]\n")
        .assert()
        .success()
        .stdout("f32[2]{0}\n");
    tessera()
        .args(["canon", "-", "f32[2]"])
        .assert()
        .code(2)
        .stderr(contains("cannot be mixed"));
}

#[test]
fn canon_of_canon_is_itself() {
    for spec in LAYOUTS {
        let once = stdout_of(&["canon", spec]);
        assert_eq!(stdout_of(&["canon", once.trim_end()]), once);
    }
}

#[test]
fn check_points_at_the_offending_part() {
    tessera()
        .args(["check", "f32[3,5]{1,1}"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("error: dimension `1` appears twice in minor_to_major\n  f32[3,5]{1,1}\n             ^\n");
    tessera()
        .args(["check", "f32[3,5]{1,0:T(2,2)}"])
        .assert()
        .success()
        .stdout("ok: f32[3,5]{1,0:T(2,2)}\n");
    tessera()
        .args(["check", "f32[3,5]{1,0:T(2,0)}"])
        .assert()
        .code(2)
        .stderr(contains("^"));
}

#[test]
fn offset_and_index_are_inverse() {
    tessera()
        .args(["offset", "f32[3,5]{1,0:T(2,2)}", "2", "3"])
        .assert()
        .success()
        .stdout("17\n");
    tessera()
        .args(["index", "f32[3,5]{1,0:T(2,2)}", "17"])
        .assert()
        .success()
        .stdout("2 3\n");
    tessera()
        .args(["index", "f32[3,5]{1,0:T(2,2)}", "22"])
        .assert()
        .success()
        .stdout("padding\n");
    for spec in [
        "f32[4,8]{1,0:T(2,4)(2,1)}",
        "f32[3,4,5]{0,2,1:T(2,3)}",
        "f32[3,5]{1,0:pad(4,8)}",
    ] {
        let (offsets, buffer_len) = engine_offsets(spec);
        for o in 0..buffer_len {
            let answer = stdout_of(&["index", spec, &o.to_string()]);
            if answer == "padding\n" {
                assert!(!offsets.contains(&o), "{spec}: {o}");
            } else {
                let mut args = vec!["offset", spec];
                args.extend(answer.split_whitespace());
                assert_eq!(stdout_of(&args), format!("{o}\n"), "{spec}: {answer}");
            }
        }
    }
}

#[test]
fn out_of_range_requests_fail_with_status_2() {
    let spec = "f32[3,5]{1,0:T(2,2)}";
    tessera()
        .args(["offset", spec, "3", "0"])
        .assert()
        .code(2)
        .stderr(contains("out of bounds"));
    tessera()
        .args(["offset", spec, "1"])
        .assert()
        .code(2)
        .stderr(contains("error:"));
    tessera()
        .args(["index", spec, "24"])
        .assert()
        .code(2)
        .stderr(contains("out of bounds"));
    tessera()
        .args(["offset", "f32[2", "0"])
        .assert()
        .code(2)
        .stderr(contains("  f32[2\n"));
}

#[test]
fn offsets_json_lists_logical_row_major_offsets() {
    tessera()
        .args(["offsets", "f32[3,5]{1,0:T(2,2)}", "--json"])
        .assert()
        .success()
        .stdout(
            "{\"canonical\":\"f32[3,5]{1,0:T(2,2)}\",\"buffer_len\":24,\
             \"offsets\":[0,1,4,5,8,2,3,6,7,10,12,13,16,17,20]}\n",
        );
    let (offsets, buffer_len) = engine_offsets("f32[4,8]{1,0:T(2,4)(2,1)}");
    assert_eq!(buffer_len, 32);
    assert_eq!(&offsets[..8], &[0, 2, 4, 6, 8, 10, 12, 14]);
    assert_eq!(&offsets[24..], &[17, 19, 21, 23, 25, 27, 29, 31]);
    tessera()
        .args(["offsets", "f32[2,2]{0,1}"])
        .assert()
        .success()
        .stdout("0\n2\n1\n3\n");
}

#[test]
fn every_command_has_help_with_an_example() {
    let commands = [
        "show", "svg", "canon", "check", "offset", "index", "offsets", "codegen",
    ];
    let top = stdout_of(&["--help"]);
    for c in commands {
        assert!(top.contains(c), "{c} missing from --help");
        let help = stdout_of(&[c, "--help"]);
        assert!(
            help.contains("Example:\n  tessera "),
            "{c} --help has no example:\n{help}"
        );
    }
    tessera().assert().code(2);
    tessera().args(["frobnicate"]).assert().code(2);
}
