// a bare element result
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> f32 {
    xs.sum().get()
}

fn main() {}
