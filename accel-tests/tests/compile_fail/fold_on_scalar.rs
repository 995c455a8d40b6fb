// `fold` of a `Scalar`
use accel::prelude::*;

#[accel]
fn f(s: Scalar<f32>) -> Scalar<f32> {
    s.fold(0.0, |a, b| a + b)
}

fn main() {}
