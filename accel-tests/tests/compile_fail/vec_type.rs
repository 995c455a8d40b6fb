// `Vec` parameters
use accel::prelude::*;

#[accel]
fn f(xs: Vec<f32>) -> Vector<f32> {
    xs
}

fn main() {}
