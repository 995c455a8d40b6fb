// a tuple result with a bare element in it
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> (Vector<f32>, f32) {
    (xs, 1.0)
}

fn main() {}
