// no result type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) {
    xs
}

fn main() {}
