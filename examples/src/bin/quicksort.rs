//! Quicksort as nested data parallelism on accel's backend: checked against the interpreter at a
//! small size and against `sort_unstable` at a large one.

use accel::prelude::*;
use accel_examples::quicksort::quicksort;
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1_000_000;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("quicksort: {N} random i32, {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(5);
    let small = Vector::from_vec((0..5000).map(|_| rng.below(1000) as i32).collect());
    check::exact("quicksort of 5000", &quicksort(&rt, &small)?.to_vec(), &quicksort::reference(&small)?.to_vec())?;
    let values: Vec<i32> = (0..N).map(|_| rng.below(u32::MAX) as i32).collect();
    let xs = Vector::from_vec(values.clone());
    let (sorted, t) = timed(&rt, || quicksort(&rt, &xs));
    let mut want = values;
    want.sort_unstable();
    check::exact("quicksort", &sorted?.to_vec(), &want)?;
    println!("  sorted {N} values in {t:.2?}");
    println!("{}", quicksort::plan());
    Ok(())
}
