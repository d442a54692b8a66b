//! Helpers shared by the integration tests: the real `tessera` binary.

#![allow(dead_code, unreachable_pub)] // each test file uses a different subset

use assert_cmd::Command;

/// The `tessera` binary built by cargo, without colour settings from the
/// environment.
pub fn tessera() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    cmd
}

/// Runs `tessera args..`, expecting success, and returns stdout.
pub fn stdout_of(args: &[&str]) -> String {
    let out = tessera().args(args).output().expect("tessera runs");
    assert!(
        out.status.success(),
        "tessera {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The engine's offsets of every element of `spec`, in logical row-major
/// order, and the buffer length, from `tessera offsets --json`.
pub fn engine_offsets(spec: &str) -> (Vec<usize>, usize) {
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["offsets", spec, "--json"])).expect("valid JSON");
    let offsets = json["offsets"]
        .as_array()
        .expect("offsets array")
        .iter()
        .map(|v| v.as_u64().expect("number") as usize)
        .collect();
    (
        offsets,
        json["buffer_len"].as_u64().expect("buffer_len") as usize,
    )
}

/// Layouts the tests run over: XLA's doc examples, permutations, `*`
/// combined dims, tiles with more dims than the shape, repeated tiling
/// that does not divide, `pad(..)`, `L(n)`, sub-byte packing, rank 0 to 5.
pub const LAYOUTS: &[&str] = &[
    "f32[3,5]{1,0:T(2,2)}",
    "f32[4,8]{1,0:T(2,4)(2,1)}",
    "bf16[8,16]{1,0:T(4,8)(2,1)}",
    "f32[6,8]{1,0:T(3,4)(2,1)}",
    "f32[3,5]{0,1:T(2,2)}",
    "f32[5,7]{0,1}",
    "f32[7]{0:T(2,4)}",
    "f32[3,4,5]{0,2,1:T(2,3)}",
    "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
    "f32[3,5]{1,0:T(*,4)}",
    "f32[3,5]{1,0:pad(4,8)}",
    "f32[3,5]{0,1:T(2,2)pad(4,6)}",
    "s4[5,9]{1,0:T(2,4)L(64)E(4)}",
    "f32[5,3,4,2]{1,3,0,2:T(2,2)(1,2)}",
    "f32[]",
    "u8[1,6]{1,0:T(4,4)}",
];
