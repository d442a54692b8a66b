//! Inputs that parse but are too large to hold, and input that should not
//! reach a terminal as it is: exit status 2 with a clear error, or output
//! that streams, never a panic (101), an abort or unbounded memory.

mod common;

use std::io::Read;
use std::process::{Command as StdCommand, Stdio};

use common::{stdout_of, tessera};
use predicates::prelude::*;
use predicates::str::contains;

/// Runs `tessera args..` under a 256 MB address-space limit, reads the
/// first `bytes` of its stdout, then closes the pipe. Returns what was read
/// and the exit status.
fn head_of(args: &[&str], bytes: usize) -> (String, std::process::ExitStatus) {
    let mut child = StdCommand::new("sh")
        .arg("-c")
        .arg("ulimit -v 262144 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sh runs");
    let mut out = vec![0u8; bytes];
    let mut stdout = child.stdout.take().unwrap();
    let mut read = 0;
    while read < bytes {
        match stdout.read(&mut out[read..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    drop(stdout);
    let status = child.wait().unwrap();
    out.truncate(read);
    (String::from_utf8(out).unwrap(), status)
}

#[test]
fn offsets_stream_whatever_the_array_size() {
    // 2^63-1 offsets: a `Vec` of them was a "capacity overflow" panic.
    let (out, status) = head_of(&["offsets", "u8[9223372036854775807]", "--json"], 100_000);
    assert!(
        out.starts_with(
            "{\"canonical\":\"u8[9223372036854775807]{0}\",\"buffer_len\":9223372036854775807,\"offsets\":[0,1,2,3,"
        ),
        "{}",
        &out[..out.len().min(200)]
    );
    assert_eq!(out.len(), 100_000);
    // Stopped by the closed pipe: exit 2, not a crash.
    assert_eq!(status.code(), Some(2), "{status:?}");
    // 80 GB of offsets (an abort), then 10^8 (8 GB before a byte): each
    // streams within 256 MB.
    let (out, status) = head_of(&["offsets", "f32[100000,100000]"], 1 << 20);
    assert!(out.starts_with("0\n1\n2\n"), "{}", &out[..40]);
    assert_eq!(out.len(), 1 << 20);
    assert_eq!(status.code(), Some(2), "{status:?}");
    let (out, _) = head_of(&["offsets", "f32[100000000]{0:T(3)}"], 1 << 20);
    assert_eq!(out.len(), 1 << 20);
}

#[test]
fn offsets_output_is_unchanged() {
    assert_eq!(
        stdout_of(&["offsets", "f32[2,3]{0,1}"]),
        "0\n2\n4\n1\n3\n5\n"
    );
    assert_eq!(
        stdout_of(&["offsets", "f32[0,3]", "--json"]),
        "{\"canonical\":\"f32[0,3]{1,0}\",\"buffer_len\":0,\"offsets\":[]}\n"
    );
}

#[test]
fn canon_answers_every_line_when_one_is_not_utf8() {
    tessera()
        .args(["canon", "-"])
        .write_stdin(&b"f32[3,5]\nf32[\xff]\nf32[2]\n"[..])
        .assert()
        .code(2)
        .stdout("f32[3,5]{1,0}\nerror: line 2 is not valid UTF-8 (byte 5)\nf32[2]{0}\n");
}

#[test]
fn errors_escape_control_characters() {
    let assert = tessera()
        .args(["check", "f32[3\u{1b}[31m,5]"])
        .assert()
        .code(2);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("f32[3\\u{1b}[31m,5]"), "{err}");
    for (args, echoed) in [
        (vec!["check", "f32[3\u{202e}]"], "\\u{202e}"),
        (vec!["check", "\u{1}f32[3]"], "\\u{1}"),
        (
            vec!["show", "f32[3,5]", "--dims", "y,\u{1b}[2J"],
            "\\u{1b}[2J",
        ),
        (
            vec!["codegen", "f32[3]", "--lang", "c", "--name", "a\u{202e}b"],
            "a\\u{202e}b",
        ),
        (
            vec!["offset", "f32[3]", "\u{1b}]0;x\u{7}"],
            "\\u{1b}]0;x\\u{7}",
        ),
    ] {
        let assert = tessera().args(&args).assert().code(2);
        let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert!(
            !err.lines().any(|l| l
                .chars()
                .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c))),
            "{args:?}: {err:?}"
        );
        assert!(err.contains(echoed), "{args:?}: {err}");
    }
}

/// clap's own usage errors come out as plain text: no colour codes, and
/// none spelled out as escapes either.
#[test]
fn usage_errors_are_plain_text() {
    for (args, first) in [
        (
            vec!["offset", "f32[3]", "x"],
            "error: invalid value 'x' for '[INDEX]...': invalid digit found in string",
        ),
        (vec!["bogus"], "error: unrecognized subcommand 'bogus'"),
        (
            vec!["show"],
            "error: the following required arguments were not provided:",
        ),
    ] {
        let assert = tessera().args(&args).assert().code(2);
        let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert_eq!(err.lines().next(), Some(first), "{args:?}: {err}");
        assert!(
            !err.contains("\\u{1b}") && !err.contains('\u{1b}'),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_nul_is_shown_as_an_escape() {
    // An argument cannot hold a NUL; a line of stdin can.
    tessera()
        .args(["canon", "-"])
        .write_stdin(&b"f32[\0]\n"[..])
        .assert()
        .code(2)
        .stdout("error: unexpected character `\\0`\n");
}

#[test]
fn full_pictures_of_absurd_size_are_refused() {
    for (args, what) in [
        // 2^80 slices of an empty array.
        (
            vec![
                "show",
                "f32[0,3,1099511627776,1099511627776]",
                "--dims",
                "0,1",
                "--full",
            ],
            "2-D slices",
        ),
        (
            vec!["svg", "f32[0,1099511627776]", "--full", "-o", "-"],
            "columns",
        ),
        // 10^9 slots of tile padding (a 136 GB allocation).
        (
            vec!["show", "f32[2]{0:T(1000000000)}", "--full"],
            "buffer slots",
        ),
        (vec!["show", "f32[2048,1024]", "--full"], "buffer slots"),
        (vec!["show", "f32[5000,2]", "--full"], "rows"),
    ] {
        tessera()
            .args(&args)
            .assert()
            .code(2)
            .stderr(contains(what).and(contains("--full")));
    }
    // The same arrays without `--full` are cut to a screen.
    for args in [
        vec![
            "show",
            "f32[0,3,1099511627776,1099511627776]",
            "--dims",
            "0,1",
        ],
        vec![
            "show",
            "f32[0,3,1099511627776,1099511627776]",
            "--dims",
            "2,3",
        ],
        vec!["show", "f32[2]{0:T(1000000000)}"],
        vec!["svg", "f32[0,1099511627776]", "-o", "-"],
        // The zero dim last: the buffer is empty whatever the order.
        vec!["show", "f32[1099511627776,1099511627776,0]"],
    ] {
        tessera().args(&args).assert().success();
    }
    // Within the bounds, `--full` draws everything.
    let out = stdout_of(&["show", "f32[40,40]", "--full"]);
    assert!(out.contains("1599"), "{out}");
}

#[test]
fn codegen_of_empty_arrays_with_huge_dims() {
    // The stride past the most-major dim was 2^80: an overflow (a panic in
    // a debug build). Unused, it is not needed.
    let c = stdout_of(&[
        "codegen",
        "f32[0,1099511627776,1099511627776]",
        "--lang",
        "c",
    ]);
    assert!(c.contains("return i1 * 1099511627776 + i2;"), "{c}");
    let r = stdout_of(&[
        "codegen",
        "f32[0,1099511627776,1099511627776]",
        "--lang",
        "rust",
    ]);
    assert!(r.contains("    i1 * 1099511627776 + i2\n"), "{r}");
}

#[test]
fn codegen_refuses_names_reserved_in_the_language() {
    for (lang, name) in [
        ("rust", "fn"),
        ("rust", "gen"),
        ("c", "int"),
        ("c", "size_t"),
    ] {
        tessera()
            .args(["codegen", "f32[3]", "--lang", lang, "--name", name])
            .assert()
            .code(2)
            .stderr(contains("reserved"));
    }
    // A keyword of the other language is fine.
    tessera()
        .args(["codegen", "f32[3]", "--lang", "rust", "--name", "int"])
        .assert()
        .success();
}
