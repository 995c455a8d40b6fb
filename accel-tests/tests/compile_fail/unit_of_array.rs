// `unit` of an array
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Scalar<f32> {
    unit(xs)
}

fn main() {}
