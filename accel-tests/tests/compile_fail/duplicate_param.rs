// two parameters with one name
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
