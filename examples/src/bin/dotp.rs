//! Dot product of two random vectors on accel's backend, checked against the interpreter.

use accel::prelude::*;
use accel_examples::dotp::dotp;
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;
/// Relative tolerance: the backend sums in another order than the interpreter, whose one running
/// f32 sum of 2^20 terms drifts by about 1e-4.
const TOL: f64 = 1e-3;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("dotp: {N} pairs of random f32 in [0, 1), {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(1);
    let xs = Vector::from_vec(rng.vec_f32(N, 0.0, 1.0));
    let ys = Vector::from_vec(rng.vec_f32(N, 0.0, 1.0));

    let (got, t) = timed(&rt, || dotp(&rt, &xs, &ys));
    let got = got?.get();
    println!("  accel:       {got} in {t:.2?}");
    let (want, t) = timed(&rt, || dotp::reference(&xs, &ys));
    let want = want?.get();
    let err = check::close("dotp", &[got], &[want], TOL)?;
    println!("  interpreter: {want} in {t:.2?}; relative difference {err:.1e} (tolerance {TOL:.0e})");
    let exact: f64 = xs.iter().zip(ys.iter()).map(|(x, y)| f64::from(x) * f64::from(y)).sum();
    println!("  in f64:      {exact:.1}");
    println!("{}", dotp::plan());
    Ok(())
}
