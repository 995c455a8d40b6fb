// `permute` defaults that are not an array
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, d: f32) -> Vector<f32> {
    xs.permute(d, |i| Some(i / 2), |a, b| a + b)
}

fn main() {}
