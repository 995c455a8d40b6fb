// a `generate` closure that annotates its index wrongly
use accel::prelude::*;

#[accel]
fn f(n: usize) -> Matrix<f32> {
    generate((n, n), |i: usize| 0.0)
}

fn main() {}
