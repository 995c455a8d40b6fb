// `permute` defaults of another element type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, d: Vector<f64>) -> Vector<f64> {
    xs.permute(d, |i| Some(i / 2), |a, b| a + b)
}

fn main() {}
