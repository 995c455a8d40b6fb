//! What fusion saves: times the dot product and Black-Scholes on the runtime's backend.
//!
//! Build it twice to compare, once as usual and once with `ACCEL_FUSION=off` (into another
//! target directory), and run both on the same machine:
//!
//! ```sh
//! cargo build --release -p accel-examples --bin fusion
//! ACCEL_FUSION=off CARGO_TARGET_DIR=target/unfused cargo build --release -p accel-examples --bin fusion
//! ```
//!
//! Arguments: `log2(n)` (default 24) and the number of timed runs (default 20). Inputs stay
//! where the first call put them (on the GPU, uploaded once); every call is timed up to the end of
//! its kernels (`Runtime::synchronize`), so the wall time of a call is the time of its kernels
//! plus the launch overhead. Prints the
//! median and the minimum of the runs, and the kernel count of each plan.

use accel::prelude::*;
use accel_examples::black_scholes::black_scholes;
use accel_examples::dotp::dotp;
use accel_examples::rng::SplitMix64;
use std::error::Error;
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let log2: u32 = args.next().map_or(Ok(24), |a| a.parse())?;
    let runs: usize = args.next().map_or(Ok(20), |a| a.parse())?;
    let n = 1usize << log2;
    let rt = Runtime::new()?;
    let fusion = if dotp::plan().kernel_count() == 1 { "on" } else { "off" };
    println!("fusion {fusion}, {:?} backend, n = 2^{log2}, median of {runs} runs", rt.backend());

    let mut rng = SplitMix64::new(5);
    let xs = Vector::from_vec(rng.vec_f32(n, 0.0, 1.0));
    let ys = Vector::from_vec(rng.vec_f32(n, 0.0, 1.0));
    let (med, min) = time(&rt, runs, || dotp(&rt, &xs, &ys).map(|s| s.get()))?;
    report("dotp", dotp::plan().kernel_count(), med, min, 8 * n);

    let price = Vector::from_vec(rng.vec_f32(n, 5.0, 30.0));
    let strike = Vector::from_vec(rng.vec_f32(n, 1.0, 100.0));
    let years = Vector::from_vec(rng.vec_f32(n, 0.25, 10.0));
    let (med, min) = time(&rt, runs, || black_scholes(&rt, &price, &strike, &years))?;
    report("black_scholes", black_scholes::plan().kernel_count(), med, min, 20 * n);
    Ok(())
}

/// Median and minimum of `runs` timed calls, each up to the end of its work on `rt`, after one
/// untimed call (uploads, module load).
fn time<T>(
    rt: &Runtime,
    runs: usize,
    mut call: impl FnMut() -> accel::Result<T>,
) -> accel::Result<(Duration, Duration)> {
    call()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        std::hint::black_box(call()?);
        rt.synchronize()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok((times[times.len() / 2], times[0]))
}

/// One line: kernels, times and the bandwidth the essential traffic (`bytes`: inputs read once,
/// outputs written once) would need at the median time.
fn report(name: &str, kernels: usize, med: Duration, min: Duration, bytes: usize) {
    let gbs = bytes as f64 / med.as_secs_f64() / 1e9;
    println!(
        "  {name:<14} {kernels} kernel{}  median {:>9.1} us  min {:>9.1} us  {gbs:>7.1} GB/s of essential traffic",
        if kernels == 1 { " " } else { "s" },
        med.as_secs_f64() * 1e6,
        min.as_secs_f64() * 1e6,
    );
}
