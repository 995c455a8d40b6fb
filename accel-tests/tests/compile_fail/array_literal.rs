// an array literal as a value
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| [x, x])
}

fn main() {}
