#!/usr/bin/env python3
"""Regenerates the HLO dumps in this folder from small JAX programs on CPU.

    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax
    /tmp/jaxenv/bin/python tests/data/hlo/generate.py

Each program is jitted and compiled with
`XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text`; for each, this copies
XLA's module before and after optimization and the buffer assignment of
the compiled module (`*buffer-assignment.txt`), renamed `NAME.before.hlo`,
`NAME.after.hlo` and `NAME.buffer-assignment.txt` (the after file is also
what `jax.jit(f).lower(..).compile().as_text()` prints).
`tests/hlo.rs` checks tessera's report against the buffer assignments.
The versions used are written to `VERSIONS`.
"""
import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = tempfile.mkdtemp(prefix="tessera-hlo-")
os.environ["XLA_FLAGS"] = f"--xla_dump_to={DUMP} --xla_dump_hlo_as_text"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402  (XLA_FLAGS must be set first)
import jax.numpy as jnp  # noqa: E402


def mlp_step(params, x, y):
    def loss(p):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        out = h @ p["w2"] + p["b2"]
        return jnp.mean((out - y) ** 2)

    l, g = jax.value_and_grad(loss)(params)
    new = jax.tree.map(lambda p, d: p - 0.01 * d, params, g)
    return l, new


def cnn(w, x):
    y = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y)
    return jnp.mean(y, axis=(1, 2))


def attention(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(jnp.bfloat16(q.shape[-1]))
    p = jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(jnp.bfloat16)
    return jnp.einsum("bqk,bkd->bqd", p, v)


def cumulative(xs):
    def body(carry, x):
        carry = carry * 0.9 + x
        return carry, carry.sum()

    return jax.lax.scan(body, jnp.zeros(xs.shape[1:], xs.dtype), xs)


def int8_matmul(a, b):
    return jax.lax.dot(a, b, preferred_element_type=jnp.int32)


def int4_pack(x):
    return (x.astype(jnp.int4), x.astype(jnp.int8))


def custom_layout(x):
    return (x * 2).T


PROGRAMS = [
    ("mlp_step", mlp_step, (
        {"w1": jnp.ones((8, 16)), "b1": jnp.ones((16,)), "w2": jnp.ones((16, 4)), "b2": jnp.ones((4,))},
        jnp.ones((32, 8)), jnp.ones((32, 4)))),
    ("cnn", cnn, (jnp.ones((3, 3, 3, 4)), jnp.ones((2, 8, 8, 3)))),
    ("attention_bf16", attention, tuple(jnp.ones((2, 16, 8), jnp.bfloat16) for _ in range(3))),
    ("scan", cumulative, (jnp.ones((5, 3, 7)),)),
    ("int8_matmul", int8_matmul, (jnp.ones((6, 10), jnp.int8), jnp.ones((10, 3), jnp.int8))),
    ("int4", int4_pack, (jnp.ones((5, 3)),)),
]


def custom_format_program():
    """A program whose input and output carry custom `Format` layouts, or
    `None` (with the reason printed) when this JAX cannot."""
    try:
        from jax.experimental.layout import Format, Layout
    except ImportError as e:  # older or newer JAX
        print(f"custom layouts: not available ({e})", file=sys.stderr)
        return None
    x = jnp.ones((4, 6))
    try:
        fmt_in = Format(Layout(major_to_minor=(1, 0)), jax.sharding.SingleDeviceSharding(jax.devices()[0]))
        fmt_out = Format(Layout(major_to_minor=(0, 1)), jax.sharding.SingleDeviceSharding(jax.devices()[0]))
        f = jax.jit(custom_layout, in_shardings=fmt_in, out_shardings=fmt_out)
        f.lower(x).compile()
    except Exception as e:  # the CPU backend may refuse custom layouts
        print(f"custom layouts: refused by this backend ({type(e).__name__}: {e})", file=sys.stderr)
        return None
    return ("custom_layout", f, (x,))


def tiled_format_program():
    """As above, with a tiled layout (`tiling=((2, 2),)`)."""
    try:
        from jax.experimental.layout import Format, Layout
        x = jnp.ones((5, 6))
        dev = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        fmt = Format(Layout(major_to_minor=(1, 0), tiling=((2, 4),)), dev)
        f = jax.jit(custom_layout, in_shardings=fmt)
        f.lower(x).compile()
    except Exception as e:
        print(f"tiled layouts: refused by this backend ({type(e).__name__}: {e})", file=sys.stderr)
        return None
    return ("tiled_layout", f, (x,))


def main():
    programs = [(n, jax.jit(f), a) for n, f, a in PROGRAMS]
    for extra in (custom_format_program(), tiled_format_program()):
        if extra is not None:
            programs.append(extra)
    for name, f, args in programs:
        f.lower(*args).compile()
    for name, _, _ in programs:
        fn = {"mlp_step": "mlp_step", "cnn": "cnn", "attention_bf16": "attention",
              "scan": "cumulative", "int8_matmul": "int8_matmul", "int4": "int4_pack",
              "custom_layout": "custom_layout", "tiled_layout": "custom_layout"}[name]
        found = sorted(glob.glob(os.path.join(DUMP, f"module_*.jit_{fn}.*")))
        if name == "tiled_layout":
            found = [p for p in found if p not in used]
        pick = {}
        for p in found:
            base = os.path.basename(p)
            for suffix, kind in ((".before_optimizations.txt", "before.hlo"),
                                 ("buffer-assignment.txt", "buffer-assignment.txt"),
                                 ("_after_optimizations.txt", "after.hlo")):
                if base.endswith(suffix):
                    pick.setdefault(kind, p)
        for kind, p in pick.items():
            shutil.copy(p, os.path.join(HERE, f"{name}.{kind}"))
            used.add(p)
    with open(os.path.join(HERE, "VERSIONS"), "w") as out:
        import jaxlib
        out.write(f"jax {jax.__version__}\njaxlib {jaxlib.__version__}\n")
    shutil.rmtree(DUMP)


used = set()
main()
