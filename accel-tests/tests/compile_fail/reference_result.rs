// a reference result
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> &Vector<f32> {
    xs
}

fn main() {}
