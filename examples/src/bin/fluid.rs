//! Stam's stable fluids on accel's backend: a step checked against the interpreter and the
//! plain-Rust oracle, then a short simulation, whose smoke must rise from its source.

use accel::prelude::*;
use accel_examples::fluid::{Fluid, Params, sequential_step, simulate, step};
use accel_examples::{check, timed};
use std::error::Error;

const ROWS: usize = 128;
const COLS: usize = 256;
const STEPS: u32 = 10;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    let p = Params::DEFAULT;
    println!(
        "fluid: {ROWS}x{COLS} cells, {STEPS} steps of {} sweeps per solve, {:?} backend with {} threads",
        p.iters,
        rt.backend(),
        rt.threads()
    );
    // Every operation rounds as IEEE says, in the same order everywhere: the same bits.
    let small = Fluid::test_state(40, 56, 2);
    let [d, u, v, s, fu, fv] = small.matrices();
    let got = step(&rt, &d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, p.iters)?;
    let want = step::reference(&d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, p.iters)?;
    for (k, (got, want)) in [(&got.0, &want.0), (&got.1, &want.1), (&got.2, &want.2)].into_iter().enumerate() {
        check::exact(&format!("a 40x56 step, field {k}"), &got.to_vec(), &want.to_vec())?;
    }

    let fluid = Fluid::test_state(ROWS, COLS, 1);
    let [d, u, v, s, fu, fv] = fluid.matrices();
    let (next, t) = timed(&rt, || step(&rt, &d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, p.iters));
    let next = next?;
    let want = sequential_step(&fluid, p);
    check::exact("a step's density", &next.0.to_vec(), &want.0)?;
    check::exact("a step's u", &next.1.to_vec(), &want.1)?;
    check::exact("a step's v", &next.2.to_vec(), &want.2)?;

    let (end, total) =
        timed(&rt, || simulate(&rt, &d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, p.iters, STEPS));
    let density = end?.0.to_vec();
    // The source pushes upward (toward row 0): after the run, the rows above the source hold
    // more smoke than those below it.
    let rows_sum = |rows: std::ops::Range<usize>| {
        density[rows.start * COLS..rows.end * COLS].iter().map(|&x| f64::from(x)).sum::<f64>()
    };
    let (above, below) = (rows_sum(ROWS / 2..ROWS * 4 / 5), rows_sum(ROWS * 4 / 5..ROWS));
    if above <= below {
        return Err(format!("the smoke did not rise: {above:.1} above the source, {below:.1} below").into());
    }
    println!("  one step in {t:.2?}, {STEPS} in {total:.2?}; smoke above the source {above:.0}, below {below:.0}");
    println!("{}", step::plan());
    Ok(())
}
