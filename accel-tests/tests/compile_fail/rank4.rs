// rank 4 arrays
use accel::prelude::*;

#[accel]
fn f(xs: Array<f32, 4>) -> Vector<f32> {
    xs.fold(0.0, |a, b| a + b).fold(0.0, |a, b| a + b).fold(0.0, |a, b| a + b)
}

fn main() {}
