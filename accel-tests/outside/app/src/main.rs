//! Runs `geometry::relative_lengths` and `stats::spread` on random points of awkward sizes on the
//! CPU backend and, when there is one, on the GPU; checks them against `reference` and against
//! plain Rust in `f64`; checks that the callees fused into their callers. Exits with status 1
//! and says what differed otherwise.

mod geometry;
mod stats;

use accel::prelude::*;

fn main() {
    if let Err(e) = run() {
        eprintln!("outside-app: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    check_plans()?;
    let mut runtimes = vec![("CPU", Runtime::cpu())];
    match Runtime::cuda() {
        Ok(rt) => runtimes.push(("GPU", rt)),
        Err(e) => println!("no GPU: {e}"),
    }
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for n in [0, 1, 7, 1000, 1_000_003] {
        let xs = random_points(n, &mut seed);
        let ys = random_points(n, &mut seed);
        let (want_relative, want_spread) = oracle(&xs, &ys);
        let (xv, yv) = (Vector::from_vec(xs), Vector::from_vec(ys));
        let reference = geometry::relative_lengths::reference(&xv, &yv).map_err(|e| e.to_string())?;
        close(&format!("relative_lengths::reference, {n} points"), &reference.to_vec(), &want_relative)?;
        let reference = stats::spread::reference(&xv, &yv).map_err(|e| e.to_string())?;
        close(&format!("spread::reference, {n} points"), &[reference.get()], &[want_spread])?;
        for (name, rt) in &runtimes {
            let got = geometry::relative_lengths(rt, &xv, &yv).map_err(|e| e.to_string())?;
            close(&format!("relative_lengths on the {name}, {n} points"), &got.to_vec(), &want_relative)?;
            let got = stats::spread(rt, &xv, &yv).map_err(|e| e.to_string())?;
            close(&format!("spread on the {name}, {n} points"), &[got.get()], &[want_spread])?;
        }
    }
    for (name, _) in &runtimes {
        println!("ok on the {name}");
    }
    Ok(())
}

/// The callees are inlined and fused. The lengths (the dependency's `lengths`) are read twice,
/// by the mean's fold and by the map after it, so they are computed once, by a kernel of their
/// own (sharing is kept); `relative_lengths`'s map runs inside `spread`'s fold, with the map of
/// `spread` itself: three kernels where each call on its own would take four.
fn check_plans() -> Result<(), String> {
    let plan = stats::spread::plan();
    println!("{plan}");
    let fused: Vec<Vec<String>> = plan.kernels().map(|k| k.fused.clone()).collect();
    let want = [vec!["generate"], vec!["fold", "epilogue"], vec!["map", "map", "fold"]];
    if fused != want {
        return Err(format!("the kernels of `spread` fuse {fused:?}, expected {want:?}"));
    }
    Ok(())
}

/// `n` values in `[-100, 100)` from a xorshift generator.
fn random_points(n: usize, seed: &mut u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed >> 40) as f32 / (1u64 << 24) as f32 * 200.0 - 100.0
        })
        .collect()
}

/// The relative lengths and the spread, in `f64`.
fn oracle(xs: &[f32], ys: &[f32]) -> (Vec<f64>, f64) {
    let lengths: Vec<f64> = xs.iter().zip(ys).map(|(&x, &y)| f64::from(x).hypot(f64::from(y))).collect();
    let mean = lengths.iter().sum::<f64>() / lengths.len() as f64;
    let relative: Vec<f64> = lengths.iter().map(|l| (l / (2.0 * mean)).clamp(0.0, 1.0)).collect();
    let spread = relative.iter().map(|r| (r - 0.5) * (r - 0.5)).sum();
    (relative, spread)
}

/// Whether `got` is `want` within the rounding of `f32` sums of a million values.
fn close(what: &str, got: &[f32], want: &[f64]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()));
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (f64::from(g) - w).abs() > 1e-3 * w.abs().max(1.0) {
            return Err(format!("{what}: value {i} is {g}, expected {w}"));
        }
    }
    Ok(())
}
