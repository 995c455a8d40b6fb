// a `fold` closure that changes the element type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Scalar<f32> {
    xs.fold(0.0, |a, b| a < b)
}

fn main() {}
