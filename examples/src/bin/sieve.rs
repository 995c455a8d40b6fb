//! The Sieve of Eratosthenes with `expand` fused into `permute`, on accel's backend, checked
//! against the interpreter at a small size and against the prime-counting function at a large
//! one.

use accel::prelude::*;
use accel_examples::sieve::primes_below;
use accel_examples::{check, timed};
use std::error::Error;

/// The sieve's limit; π(10^7) = 664 579.
const N: u32 = 10_000_000;
const PRIMES_BELOW_N: usize = 664_579;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("sieve: the primes below {N}, {:?} backend with {} threads", rt.backend(), rt.threads());
    let small = 100_000;
    let got = primes_below(&rt, small)?.to_vec();
    check::exact("primes below 10^5", &got, &primes_below::reference(small)?.to_vec())?;
    let (primes, t) = timed(&rt, || primes_below(&rt, N));
    let primes = primes?;
    if primes.len() != PRIMES_BELOW_N {
        return Err(format!("{} primes below {N}, expected {PRIMES_BELOW_N}", primes.len()).into());
    }
    println!("  {} primes below {N} in {t:.2?} (the last {})", primes.len(), primes.get_linear(primes.len() - 1));
    println!("{}", primes_below::plan());
    Ok(())
}
