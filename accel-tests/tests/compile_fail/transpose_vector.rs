// `transpose` of a vector
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.transpose()
}

fn main() {}
