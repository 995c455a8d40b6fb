// an `if` on a `Scalar<bool>` array
use accel::prelude::*;

#[accel]
fn f(c: Scalar<bool>, xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    if c { xs } else { ys }
}

fn main() {}
