// `zip_with` with a one-parameter closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.zip_with(ys, |x| x)
}

fn main() {}
