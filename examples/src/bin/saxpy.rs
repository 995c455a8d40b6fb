//! SAXPY on random vectors on accel's backend, checked against the interpreter.

use accel::prelude::*;
use accel_examples::rng::SplitMix64;
use accel_examples::saxpy::saxpy;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("saxpy: a * x + y on {N} random f32, {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(2);
    let a = rng.uniform(1.0, 2.0);
    let xs = Vector::from_vec(rng.vec_f32(N, -1.0, 1.0));
    let ys = Vector::from_vec(rng.vec_f32(N, -1.0, 1.0));

    let (got, t) = timed(&rt, || saxpy(&rt, a, &xs, &ys));
    let got = got?;
    println!("  accel:       a = {a}: {got} in {t:.2?}");
    let (want, t) = timed(&rt, || saxpy::reference(a, &xs, &ys));
    // Elementwise code computes bit for bit what the interpreter computes: tolerance 0.
    check::exact("saxpy", &got.to_vec(), &want?.to_vec())?;
    println!("  interpreter: bit-identical in {t:.2?}");
    println!("{}", saxpy::plan());
    Ok(())
}
