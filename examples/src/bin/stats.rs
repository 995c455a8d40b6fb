//! Mean, moments and normalisation of a random vector on accel's backend, checked against the
//! interpreter.

use accel::prelude::*;
use accel_examples::rng::SplitMix64;
use accel_examples::stats::{mean, moments, normalise};
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;
/// Relative tolerance of the sums: the backend groups the 2^20 terms otherwise than the
/// interpreter's one running sum.
const TOL: f64 = 1e-3;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("stats: {N} random f32 in [-1, 1), {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(9);
    let xs = Vector::from_vec(rng.vec_f32(N, -1.0, 1.0));

    let (m, t) = timed(&rt, || mean(&rt, &xs));
    let m = m?.get();
    let want = mean::reference(&xs)?.get();
    let err = check::close("mean", &[m], &[want], TOL * 1e3)?;
    println!("  mean:      {m:.6} in {t:.2?} (interpreter {want:.6}, difference {err:.1e})");
    let (sums, t) = timed(&rt, || moments(&rt, &xs));
    let (s, q) = sums?;
    let (ws, wq) = moments::reference(&xs)?;
    check::close("sum of squares", &[q.get()], &[wq.get()], TOL)?;
    println!(
        "  moments:   sum {:.3}, sum of squares {:.3} in {t:.2?} (interpreter {:.3}, {:.3})",
        s.get(),
        q.get(),
        ws.get(),
        wq.get()
    );
    let (scaled, t) = timed(&rt, || normalise(&rt, &xs));
    let scaled = scaled?;
    let want = normalise::reference(&xs)?;
    let err = check::close("normalise", &scaled.to_vec(), &want.to_vec(), TOL)?;
    println!("  normalise: {scaled} in {t:.2?} (difference {err:.1e})");
    for plan in [mean::plan(), moments::plan(), normalise::plan()] {
        println!("{plan}");
    }
    Ok(())
}
