// `fold` with a one-parameter closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Scalar<f32> {
    xs.fold(0.0, |a| a)
}

fn main() {}
