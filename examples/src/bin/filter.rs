//! The primes among a million random numbers, by `filter` on accel's backend, checked against
//! the interpreter.

use accel::prelude::*;
use accel_examples::filter::primes;
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;
const BELOW: u32 = 1_000_000;
/// Numbers the interpreter tests: the primes among them start the backend's result.
const CHECKED: usize = 1 << 12;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "filter: the primes among {N} random numbers below {BELOW}, {:?} backend with {} threads",
        rt.backend(),
        rt.threads()
    );
    let mut rng = SplitMix64::new(7);
    let xs: Vector<u32> = (0..N).map(|_| rng.below(BELOW)).collect();

    let (got, t) = timed(&rt, || primes(&rt, &xs));
    let got = got?;
    println!("  accel:       {} primes ({:.2}%): {got} in {t:.2?}", got.len(), 100.0 * got.len() as f64 / N as f64);
    let head: Vector<u32> = xs.iter().take(CHECKED).collect();
    let (want, t) = timed(&rt, || primes::reference(&head));
    let want = want?.to_vec();
    check::exact("primes", &got.to_vec()[..want.len().min(got.len())], &want)?;
    println!("  interpreter: the {} primes among the first {CHECKED} numbers identical, in {t:.2?}", want.len());
    println!("{}", primes::plan());
    Ok(())
}
