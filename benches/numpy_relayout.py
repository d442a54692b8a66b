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


def main():
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}")
    for mib in sizes():
        run(mib)


if __name__ == "__main__":
    main()
