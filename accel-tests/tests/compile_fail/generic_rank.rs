// a rank given by name
use accel::prelude::*;

#[accel]
fn f(xs: Array<f32, R>) -> Vector<f32> {
    xs
}

fn main() {}
