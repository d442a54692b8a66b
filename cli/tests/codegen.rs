//! `tessera codegen`: the generated C (compiled with `cc`) and Rust
//! (compiled with `rustc`) compute the engine's offset for every index of
//! many layouts.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{LAYOUTS, engine_offsets, stdout_of, tessera};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The logical sizes of `spec`, from `tessera show`'s summary line
/// `rank N (y=3 x=5)`.
fn sizes(spec: &str) -> Vec<usize> {
    let out = stdout_of(&["show", spec]);
    let line = out
        .lines()
        .find(|l| l.starts_with("rank"))
        .expect("rank line");
    let inner = line.split_once('(').expect("(").1.trim_end_matches(')');
    inner
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(_, v)| v.parse().unwrap())
        .collect()
}

/// Runs `program` and parses its stdout as one offset per line.
fn run_offsets(program: &Path) -> Vec<usize> {
    let out = Command::new(program)
        .output()
        .expect("generated program runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// Nested loops over every index of `sizes` in row-major order, calling
/// `visit` with the index variable names; in C or Rust syntax.
fn loops(sizes: &[usize], c: bool, call: &str) -> String {
    let mut s = String::new();
    for (d, n) in sizes.iter().enumerate() {
        if c {
            s += &format!("for (size_t j{d} = 0; j{d} < {n}; j{d}++) {{\n");
        } else {
            s += &format!("for j{d} in 0..{n}usize {{\n");
        }
    }
    let args: Vec<String> = (0..sizes.len()).map(|d| format!("j{d}")).collect();
    let args = args.join(", ");
    if c {
        s += &format!("printf(\"%zu\\n\", {call}({args}));\n");
    } else {
        s += &format!("println!(\"{{}}\", {call}([{args}]));\n");
    }
    s += &"}\n".repeat(sizes.len());
    s
}

#[test]
fn c_output_compiles_and_matches_the_engine() {
    let dir = scratch("codegen_c");
    for (n, spec) in LAYOUTS.iter().enumerate() {
        let func = stdout_of(&["codegen", spec, "--lang", "c", "--name", "offset_of"]);
        let program = format!(
            "#include <stdio.h>\n{func}\nint main(void) {{\n{}return 0;\n}}\n",
            loops(&sizes(spec), true, "offset_of")
        );
        let src = dir.join(format!("t{n}.c"));
        let bin = dir.join(format!("t{n}"));
        std::fs::write(&src, &program).unwrap();
        let status = Command::new("cc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-O1",
                "-o",
            ])
            .arg(&bin)
            .arg(&src)
            .status()
            .expect("cc runs");
        assert!(
            status.success(),
            "cc failed on the code for {spec}:\n{program}"
        );
        assert_eq!(run_offsets(&bin), engine_offsets(spec).0, "{spec}:\n{func}");
    }
}

#[test]
fn rust_output_compiles_and_matches_the_engine() {
    let dir = scratch("codegen_rust");
    for (n, spec) in LAYOUTS.iter().enumerate() {
        let func = stdout_of(&["codegen", spec, "--lang", "rust"]);
        let program = format!(
            "#![deny(warnings)]\n{func}\nfn main() {{\n{}}}\n",
            loops(&sizes(spec), false, "tessera_offset")
        );
        let src = dir.join(format!("t{n}.rs"));
        let bin = dir.join(format!("t{n}"));
        std::fs::write(&src, &program).unwrap();
        let status = Command::new("rustc")
            .args(["--edition", "2024", "-O", "-o"])
            .arg(&bin)
            .arg(&src)
            .status()
            .expect("rustc runs");
        assert!(
            status.success(),
            "rustc failed on the code for {spec}:\n{program}"
        );
        assert_eq!(run_offsets(&bin), engine_offsets(spec).0, "{spec}:\n{func}");
    }
}

#[test]
fn constants_are_folded() {
    let c = stdout_of(&["codegen", "f32[3,5]{1,0:T(2,2)}", "--lang", "c"]);
    assert!(c.contains("return t0 * 12 + t2 * 4 + t1 * 2 + t3;"), "{c}");
    let r = stdout_of(&["codegen", "f32[5,7]{0,1}", "--lang", "rust"]);
    assert!(r.contains("    i1 * 5 + i0\n"), "{r}");
}

#[test]
fn bad_names_and_languages_are_refused() {
    tessera()
        .args(["codegen", "f32[2]", "--lang", "c", "--name", "2fast"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a valid function name"));
    tessera()
        .args(["codegen", "f32[2]", "--lang", "go"])
        .assert()
        .code(2);
}
