//! A histogram of a million roughly normal samples on accel's backend, checked against the
//! interpreter and drawn as a bar chart.

use accel::prelude::*;
use accel_examples::histogram::histogram;
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;
/// Samples the interpreter re-counts.
const CHECKED: usize = 1 << 16;
const BINS: usize = 24;
const LO: f32 = -3.0;
const HI: f32 = 3.0;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "histogram: {N} samples in {BINS} bins over [{LO}, {HI}), {:?} backend with {} threads",
        rt.backend(),
        rt.threads()
    );
    // Irwin-Hall: a sum of 12 uniforms, less 6, is close to the standard normal distribution.
    let mut rng = SplitMix64::new(4);
    let samples: Vec<f32> = (0..N).map(|_| (0..12).map(|_| rng.next_f32()).sum::<f32>() - 6.0).collect();
    let xs = Vector::from_vec(samples.clone());

    let (got, t) = timed(&rt, || histogram(&rt, &xs, LO, HI, BINS));
    let counts = got?.to_vec();
    let total: u32 = counts.iter().sum();
    println!("  accel:       {total} samples counted, {} outside dropped, in {t:.2?}", N as u32 - total);
    let peak = counts.iter().copied().max().unwrap_or(0).max(1);
    for (b, &c) in counts.iter().enumerate() {
        let from = LO + (HI - LO) * b as f32 / BINS as f32;
        println!("  {from:>5.2} {c:>7} {}", "#".repeat((c as usize * 50).div_ceil(peak as usize)));
    }

    let head = Vector::from_slice(&samples[..CHECKED]);
    let got = histogram(&rt, &head, LO, HI, BINS)?;
    let (want, t) = timed(&rt, || histogram::reference(&head, LO, HI, BINS));
    check::exact("counts", &got.to_vec(), &want?.to_vec())?;
    println!("  interpreter: the histogram of the first {CHECKED} samples identical, in {t:.2?}");
    println!("{}", histogram::plan());
    Ok(())
}
