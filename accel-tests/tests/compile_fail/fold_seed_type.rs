// a `fold` seed of the wrong type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, z: f64) -> Scalar<f32> {
    xs.fold(z, |a, b| a + b)
}

fn main() {}
