//! What the benches share: timing a library path in turns with its
//! hand-written counterpart, and a fixed list of indices. Each bench uses
//! the part it needs.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;

/// Times `kernel` in turns with `base`, each once per iteration in
/// alternating order, and reports `scale` times the kernel's total time
/// over the base's as the time per iteration, in milliseconds: `1.14 ms`
/// means 1.14×. Alternating cancels the drift of a shared machine that
/// separate measurements would record as a difference.
pub(crate) fn in_turns(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut kernel: impl FnMut(),
    mut base: impl FnMut(),
    scale: f64,
) {
    in_turns_on(g, name, &mut (), |_| kernel(), |_| base(), scale);
}

/// [`in_turns`] with both sides working on the same `state`: for
/// memory-bound rows, where two buffers of the same size can differ by a
/// third in speed with where they sit (huge pages, cache sets), the
/// library path and the hand-written code write the same bytes.
pub(crate) fn in_turns_on<S>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    state: &mut S,
    mut kernel: impl FnMut(&mut S),
    mut base: impl FnMut(&mut S),
    scale: f64,
) {
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let (mut kernel_time, mut base_time) = (Duration::ZERO, Duration::ZERO);
            let mut timed = |f: &mut dyn FnMut(&mut S), total: &mut Duration| {
                let t = Instant::now();
                f(state);
                *total += t.elapsed();
            };
            for i in 0..iters {
                if i % 2 == 0 {
                    timed(&mut base, &mut base_time);
                }
                timed(&mut kernel, &mut kernel_time);
                if i % 2 == 1 {
                    timed(&mut base, &mut base_time);
                }
            }
            let ratio = scale * kernel_time.as_secs_f64() / base_time.as_secs_f64();
            Duration::from_secs_f64(ratio * 1e-3 * iters as f64)
        });
    });
}

/// A fixed pseudo-random list of 4096 in-bounds indices of a `rows` ×
/// `cols` array (xorshift), the same in every run.
pub(crate) fn indices(rows: usize, cols: usize) -> Vec<[usize; 2]> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            [(x as usize) % rows, ((x >> 32) as usize) % cols]
        })
        .collect()
}
