//! What the benches share: timing a library path in turns with its
//! hand-written counterpart.

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
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let (mut kernel_time, mut base_time) = (Duration::ZERO, Duration::ZERO);
            let timed = |f: &mut dyn FnMut(), total: &mut Duration| {
                let t = Instant::now();
                f();
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
