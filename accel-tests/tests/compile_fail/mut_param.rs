// `mut` parameters
use accel::prelude::*;

#[accel]
fn f(mut xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
