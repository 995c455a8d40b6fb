// `get` on a vector
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Scalar<f32> {
    unit(xs.get())
}

fn main() {}
