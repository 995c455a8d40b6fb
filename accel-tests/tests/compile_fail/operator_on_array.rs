// operators on whole arrays
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs + ys
}

fn main() {}
