//! N-body gravitation by all pairs on accel's backend: the accelerations checked against the
//! interpreter at a small size, then a few steps of a simulation, whose total momentum (zero at
//! rest) must stay zero up to rounding.

use accel::prelude::*;
use accel_examples::nbody::{accelerations, random_bodies};
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 8192;
const STEPS: usize = 10;
const DT: f32 = 0.001;
const SOFTENING: f32 = 0.05;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("nbody: {N} bodies, {STEPS} steps, {:?} backend with {} threads", rt.backend(), rt.threads());
    let small = random_bodies(300, 3);
    let (got, want) = (
        accelerations(&rt, &small.px, &small.py, &small.pz, &small.mass, SOFTENING)?,
        accelerations::reference(&small.px, &small.py, &small.pz, &small.mass, SOFTENING)?,
    );
    // The GPU rounds as the interpreter does (IEEE division and square root, no contraction), in
    // the same order: the same bits on every backend.
    for (got, want) in [(&got.0, &want.0), (&got.1, &want.1), (&got.2, &want.2)] {
        check::exact("accelerations of 300 bodies", &got.to_vec(), &want.to_vec())?;
    }
    let mut bodies = random_bodies(N, 1);
    let (warm, first) = timed(&rt, || bodies.step(&rt, DT, SOFTENING));
    warm?;
    for _ in 0..STEPS {
        bodies = bodies.step(&rt, DT, SOFTENING)?;
    }
    let (next, t) = timed(&rt, || bodies.step(&rt, DT, SOFTENING));
    let next = next?;
    let speed: f64 = next.vx.iter().map(|v| f64::from(v).abs()).sum();
    let momentum = next.momentum();
    if momentum.iter().any(|p| p.abs() > 1e-4 * speed) {
        return Err(format!("the momentum drifted to {momentum:?} (speeds summing to {speed})").into());
    }
    let interactions = (N * N) as f64;
    println!(
        "  one step in {t:.2?} ({:.1} G interactions/s; the first, with the module load, {first:.2?}); momentum ({:.1e}, {:.1e}, {:.1e})",
        interactions / t.as_secs_f64() / 1e9,
        momentum[0],
        momentum[1],
        momentum[2]
    );
    println!("{}", accelerations::plan());
    Ok(())
}
