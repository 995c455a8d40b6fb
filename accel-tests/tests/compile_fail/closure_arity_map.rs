// `map` with a two-parameter closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|a, b| a + b)
}

fn main() {}
