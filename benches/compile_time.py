#!/usr/bin/env python3
"""What 500 distinct `layout!` types, each used for one const offset, add to
a crate's build time, against the same crate with the offsets as literals.

Generates three crates under target/compile-time/ (the literal values come
from the run-time engine, through a generated helper binary), builds their
dependencies once, then times `cargo build` of each crate alone RUNS times,
alternating, after touching its source. Prints medians and the cost per
layout. Usage: python3 benches/compile_time.py [RUNS]
"""
import os
import statistics
import subprocess
import sys
import time

N = 500
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "compile-time")
TARGET = os.path.join(OUT, "target")


def layouts():
    """N distinct layouts of several kinds, and an in-bounds index of each."""
    for k in range(N):
        a, b = 2 + k, 3 + k % 11
        kind = k % 5
        if kind == 0:
            yield f"f32[{a},{b}]{{1,0:T(2,2)}}", [a - 1, b - 1]
        elif kind == 1:
            yield f"bf16[{a},{b * 16}]{{1,0:T(8,128)(2,1)}}", [a // 2, b]
        elif kind == 2:
            yield f"f32[{a},{b},4]{{0,2,1}}", [a - 1, 1, 3]
        elif kind == 3:
            yield f"s8[{a},{b}]{{0,1:pad({a + 1},{b + 2})}}", [a - 1, b - 1]
        else:
            yield f"u8[{a},{b}]", [a // 3, b // 2]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def manifest(name, deps):
    return (
        f'[package]\nname = "{name}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f"[dependencies]\n{deps}\n[workspace]\n"
    )


def cargo(crate, *args, capture=False):
    return subprocess.run(
        ["cargo", *args, "--quiet", "--manifest-path", os.path.join(OUT, crate, "Cargo.toml")],
        env={**os.environ, "CARGO_TARGET_DIR": TARGET},
        check=True,
        capture_output=capture,
        text=True,
    )


def main():
    items = list(layouts())
    assert len({t for t, _ in items}) == N
    dep = f'tessera-xla = {{ path = "{ROOT}" }}\n'
    # The engine at run time gives the literal values.
    helper = "fn main() {\n" + "".join(
        f'    println!("{{}}", "{t}".parse::<tessera::ArrayLayout>().unwrap().offset(&{i}));\n'
        for t, i in items
    ) + "}\n"
    write(os.path.join(OUT, "helper", "Cargo.toml"), manifest("helper", dep))
    write(os.path.join(OUT, "helper", "src", "main.rs"), helper)
    values = cargo("helper", "run", capture=True).stdout.split()
    assert len(values) == N
    static = "//! Generated.\nuse tessera::layout;\n" + "".join(
        f"type L{k} = layout!({t});\npub const OFF{k}: usize = L{k}::offset({i});\n"
        for k, (t, i) in enumerate(items)
    )
    static += "".join(f"const _: () = assert!(OFF{k} == {v});\n" for k, v in enumerate(values))
    literal = "//! Generated.\n" + "".join(
        f"pub const OFF{k}: usize = {v};\n" for k, v in enumerate(values)
    )
    write(os.path.join(OUT, "with-layouts", "Cargo.toml"), manifest("with_layouts", dep))
    write(os.path.join(OUT, "with-layouts", "src", "lib.rs"), static)
    # Same dependency, so the only difference is the 500 types.
    write(os.path.join(OUT, "with-literals", "Cargo.toml"), manifest("with_literals", dep))
    write(os.path.join(OUT, "with-literals", "src", "lib.rs"), literal + "use tessera as _;\n")
    for crate in ("with-layouts", "with-literals"):
        cargo(crate, "build")  # dependencies, once
    times = {"with-layouts": [], "with-literals": []}
    for _ in range(RUNS):
        for crate in times:
            os.utime(os.path.join(OUT, crate, "src", "lib.rs"))
            start = time.perf_counter()
            cargo(crate, "build")
            times[crate].append(time.perf_counter() - start)
    med = {c: statistics.median(t) for c, t in times.items()}
    for crate, t in times.items():
        print(f"{crate}: median {med[crate] * 1000:.0f} ms over {RUNS} runs "
              f"(min {min(t) * 1000:.0f}, max {max(t) * 1000:.0f})")
    extra = med["with-layouts"] - med["with-literals"]
    print(f"500 layouts add {extra * 1000:.0f} ms: {extra * 1000 / N:.3f} ms per layout")


if __name__ == "__main__":
    main()
