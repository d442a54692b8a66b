#!/usr/bin/env python3
"""numpy's idiom for the relayout that benches/relayout.rs measures.

    python3 benches/numpy_relayout.py            # 1, 16 and 256 MiB
    TESSERA_BENCH_SIZES=1,16 python3 benches/numpy_relayout.py

f32[M,1024] row-major -> {1,0:T(8,128)} ("pack") and back ("unpack"), M =
256 * MiB, the way numpy code writes it: view the rows as (M/8, 8, N/128,
128), swap the middle axes, copy. Each operation is timed against
np.copyto of the same number of bytes in the same run; the script prints
median times, throughput and the ratio (memcpy time / operation time, so
1.0 is memcpy speed, as in BENCHMARKS.md).

Variants:
  pack_into    np.copyto(out_tiles, rows.reshape(..).transpose(0, 2, 1, 3))
               into a preallocated buffer (the like of relayout_into)
  pack_idiom   np.ascontiguousarray(np.pad(rows, ..).reshape(..)
               .transpose(0, 2, 1, 3)): pad to whole tiles, then
               reshape/transpose; allocates, as usually written
  pack_nopad   the same without np.pad (enough for aligned shapes)
  unpack_into  np.copyto(out_rows4, tiles.reshape(..).transpose(0, 2, 1, 3))
  unpack_idiom np.ascontiguousarray(tiles.reshape(..).transpose(0, 2, 1, 3)
               .reshape(Mp, Np)[:M, :N])

With --matrix, numpy's idiom for each pair of the relayout benchmark
matrix (`paired_matrix_<S>MiB` in benches/relayout.rs) instead, over
[rows, 1024] of S MiB:

    python3 benches/numpy_relayout.py --matrix 1,16

  TILING_pack            np.copyto(out, rows.reshape(..).transpose(..)):
                         a tile, and inside it a (f,1) sub-tile, are axes
                         of the view (f32 T(8,128), T(4,128), T(2,128);
                         bf16 T(8,128)(2,1) as uint16; s8 T(8,128)(4,1);
                         u8 T(32,128)(4,1))
  TILING_unpack          the inverse view copied back into rows
  TILING_transpose_tile  {1,0} -> {0,1:TILING}: the same on rows.T
  transpose              np.copyto(out, rows.T)
  permute_major          f32[a,a,1024]{2,1,0} -> {2,0,1}:
                         np.copyto(out, a3.transpose(1, 0, 2))

Each is checked (a round trip and elements placed by the tiling's
formula) and timed against np.copyto of the same bytes.

Exits 0 with a message when numpy is not installed. One thread (numpy's
copies are single-threaded).
"""

import os
import sys
import time

try:
    import numpy as np
except ImportError:
    print("numpy not installed, skipped (pip install numpy)")
    sys.exit(0)

N = 1024
TILE = (8, 128)


def sizes():
    text = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TESSERA_BENCH_SIZES", "1,16,256")
    return [int(s) for s in text.split(",") if s.strip()]


def repeats(mib):
    """Enough repetitions for a median, a few seconds per case at most."""
    return max(5, min(200, 2000 // mib))


def pad_to_tiles(a):
    m, n = a.shape
    pm, pn = -m % TILE[0], -n % TILE[1]
    return np.pad(a, ((0, pm), (0, pn)))


def pack_into(rows, out):
    m, n = rows.shape
    view = rows.reshape(m // 8, 8, n // 128, 128).transpose(0, 2, 1, 3)
    np.copyto(out.reshape(m // 8, n // 128, 8, 128), view)


def pack_idiom(rows):
    p = pad_to_tiles(rows)
    mp, np_ = p.shape
    return np.ascontiguousarray(p.reshape(mp // 8, 8, np_ // 128, 128).transpose(0, 2, 1, 3))


def pack_nopad(rows):
    m, n = rows.shape
    return np.ascontiguousarray(rows.reshape(m // 8, 8, n // 128, 128).transpose(0, 2, 1, 3))


def unpack_into(tiles, out):
    m, n = out.shape
    view = tiles.reshape(m // 8, n // 128, 8, 128).transpose(0, 2, 1, 3)
    np.copyto(out.reshape(m // 8, 8, n // 128, 128), view)


def unpack_idiom(tiles, m, n):
    mp, np_ = -(-m // 8) * 8, -(-n // 128) * 128
    t = tiles.reshape(mp // 8, np_ // 128, 8, 128).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(t.reshape(mp, np_)[:m, :n])


def median_time(f, reps):
    f()  # warm up (and map the pages)
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2]


def run(mib):
    m = 256 * mib
    rows = np.arange(m * N, dtype=np.float32).reshape(m, N)
    tiles = np.full(m * N, -1.0, dtype=np.float32)
    back = np.full((m, N), -1.0, dtype=np.float32)
    flat_src = rows.reshape(-1)
    flat_dst = back.reshape(-1)

    # Correctness: element [i, j] of tile (i/8, j/128) at (i%8)*128 + j%128.
    pack_into(rows, tiles)
    i, j = m - 5, 777
    tile = (i // 8) * (N // 128) + j // 128
    assert tiles[tile * 1024 + (i % 8) * 128 + j % 128] == rows[i, j]
    assert np.array_equal(pack_idiom(rows).reshape(-1), tiles)
    assert np.array_equal(pack_nopad(rows).reshape(-1), tiles)
    unpack_into(tiles, back)
    assert np.array_equal(back, rows)
    assert np.array_equal(unpack_idiom(tiles, m, N), rows)

    reps = repeats(mib)
    nbytes = rows.nbytes
    cases = [
        ("memcpy", lambda: np.copyto(flat_dst, flat_src)),
        ("pack_into", lambda: pack_into(rows, tiles)),
        ("pack_idiom", lambda: pack_idiom(rows)),
        ("pack_nopad", lambda: pack_nopad(rows)),
        ("unpack_into", lambda: unpack_into(tiles, back)),
        ("unpack_idiom", lambda: unpack_idiom(tiles, m, N)),
    ]
    results = [(name, median_time(f, reps)) for name, f in cases]
    base = results[0][1]
    print(f"f32[{m},{N}] -> T(8,128), {mib} MiB, median of {reps}")
    for name, t in results:
        gbs = nbytes / t / 1e9
        print(f"  {name:13s} {t * 1e6:11.1f} us  {gbs:7.2f} GB/s  ratio {base / t:5.3f}")
    sys.stdout.flush()


def sub_tiled_view(rows, a, f):
    """rows [R, C] as the axes of T(a,128)(f,1) in memory order: tile row,
    tile column, sub-tile row, column in the tile, row in the sub-tile
    (f = 1: plain T(a,128))."""
    r, c = rows.shape
    return rows.reshape(r // a, a // f, f, c // 128, 128).transpose(0, 3, 1, 4, 2)


def sub_tiled_offset(i, j, a, f, cols):
    """Where T(a,128)(f,1) puts element [i, j] of [R, cols] (XLA's rule)."""
    tile = (i // a) * (cols // 128) + j // 128
    r, c = i % a, j % 128
    return tile * a * 128 + ((r // f) * 128 + c) * f + r % f


def matrix_cases(mib):
    """(name, dtype, memcpy source, memcpy dest, operation, bytes) for each
    pair of the matrix, after checking each operation's result."""
    cases = []
    tilings = [
        ("f32", np.float32, "T(8,128)", 8, 1),
        ("f32", np.float32, "T(4,128)", 4, 1),
        ("f32", np.float32, "T(2,128)", 2, 1),
        ("bf16", np.uint16, "T(8,128)(2,1)", 8, 2),
        ("s8", np.int8, "T(8,128)(4,1)", 8, 4),
        ("u8", np.uint8, "T(32,128)(4,1)", 32, 4),
    ]
    for ty, dtype, tiling, a, f in tilings:
        size = np.dtype(dtype).itemsize
        r = (mib << 20) // (1024 * size)
        rows = (np.arange(r * 1024) % 251).astype(dtype).reshape(r, 1024)
        tiles = np.zeros(r * 1024, dtype=dtype)
        back = np.zeros((r, 1024), dtype=dtype)
        tview = tiles.reshape(r // a, 1024 // 128, a // f, 128, f)
        np.copyto(tview, sub_tiled_view(rows, a, f))
        for i, j in [(r - 5, 777), (3, 1), (r // 2 + 1, 129)]:
            assert tiles[sub_tiled_offset(i, j, a, f, 1024)] == rows[i, j], (ty, tiling)
        np.copyto(sub_tiled_view(back, a, f), tview)
        assert np.array_equal(back, rows), (ty, tiling)
        # {0,1:TILING}: the physical array is rows.T, tiled.
        ttiles = np.zeros(r * 1024, dtype=dtype)
        ttview = ttiles.reshape(1024 // a, r // 128, a // f, 128, f)
        np.copyto(ttview, sub_tiled_view(rows.T, a, f))
        i, j = r - 3, 5
        assert ttiles[sub_tiled_offset(j, i, a, f, r)] == rows[i, j], (ty, tiling)
        name = ty + "_" + tiling.replace("(", "").replace(")", "").replace(",", "")
        flat = rows.reshape(-1)
        cases += [
            (f"{name}_pack", flat, back.reshape(-1), lambda v=tview, s=rows, a=a, f=f: np.copyto(v, sub_tiled_view(s, a, f))),
            (f"{name}_unpack", flat, back.reshape(-1), lambda v=tview, d=back, a=a, f=f: np.copyto(sub_tiled_view(d, a, f), v)),
            (f"{name}_transpose_tile", flat, back.reshape(-1), lambda v=ttview, s=rows, a=a, f=f: np.copyto(v, sub_tiled_view(s.T, a, f))),
        ]
    for ty, dtype in [("f32", np.float32), ("bf16", np.uint16), ("u8", np.uint8)]:
        size = np.dtype(dtype).itemsize
        r = (mib << 20) // (1024 * size)
        rows = (np.arange(r * 1024) % 251).astype(dtype).reshape(r, 1024)
        out = np.zeros((1024, r), dtype=dtype)
        np.copyto(out, rows.T)
        assert out[5, r - 3] == rows[r - 3, 5]
        scratch = np.zeros(r * 1024, dtype=dtype)
        cases.append((f"{ty}_transpose", rows.reshape(-1), scratch, lambda o=out, s=rows: np.copyto(o, s.T)))
    a = {1: 16, 16: 64}.get(mib, 256)
    a3 = np.arange(a * a * 1024, dtype=np.float32).reshape(a, a, 1024)
    out3 = np.zeros((a, a, 1024), dtype=np.float32)
    np.copyto(out3, a3.transpose(1, 0, 2))
    assert out3[1, 2, 3] == a3[2, 1, 3]
    cases.append(("f32_permute_major", a3.reshape(-1), np.zeros(a * a * 1024, dtype=np.float32), lambda o=out3, s=a3: np.copyto(o, s.transpose(1, 0, 2))))
    return cases


def run_matrix(mib):
    reps = repeats(mib)
    print(f"matrix, {mib} MiB, median of {reps}; ratio = memcpy time / operation time")
    for name, src, dst, op in matrix_cases(mib):
        # memcpy of the same bytes, timed in turns with the operation.
        t_copy, t_op = [], []
        op()
        np.copyto(dst, src)
        for _ in range(reps):
            t0 = time.perf_counter()
            np.copyto(dst, src)
            t1 = time.perf_counter()
            op()
            t2 = time.perf_counter()
            t_copy.append(t1 - t0)
            t_op.append(t2 - t1)
        t_copy.sort()
        t_op.sort()
        base, t = t_copy[len(t_copy) // 2], t_op[len(t_op) // 2]
        print(f"  {name:28s} {t * 1e6:11.1f} us  ratio {base / t:5.3f}")
        sys.stdout.flush()


def main():
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}")
    if len(sys.argv) > 1 and sys.argv[1] == "--matrix":
        del sys.argv[1]
        for mib in sizes():
            run_matrix(mib)
        return
    for mib in sizes():
        run(mib)


if __name__ == "__main__":
    main()
