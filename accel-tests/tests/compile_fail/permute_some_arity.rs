// `Some` with two arguments
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, d: Matrix<f32>) -> Matrix<f32> {
    xs.permute(d, |i| Some(i, i), |a, b| a + b)
}

fn main() {}
