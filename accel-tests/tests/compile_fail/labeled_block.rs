// labelled blocks
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    'outer: { xs }
}

fn main() {}
