//! Radix sort of `u32` keys on accel's backend, one bit per pass: checked against the interpreter
//! at a small size and against `sort_unstable` at a large one.

use accel::prelude::*;
use accel_examples::radix::radix_sort;
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("radix: {N} random u32, {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(9);
    let small = Vector::from_vec((0..3000).map(|_| rng.next_u64() as u32).collect());
    check::exact("radix sort of 3000", &radix_sort(&rt, &small)?.to_vec(), &radix_sort::reference(&small)?.to_vec())?;
    let keys: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32).collect();
    let input = Vector::from_vec(keys.clone());
    let (sorted, t) = timed(&rt, || radix_sort(&rt, &input));
    let mut want = keys;
    want.sort_unstable();
    check::exact("radix sort", &sorted?.to_vec(), &want)?;
    println!("  sorted {N} keys in {t:.2?} (32 passes)");
    println!("{}", radix_sort::plan());
    Ok(())
}
