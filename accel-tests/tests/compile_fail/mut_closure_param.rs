// a `mut` closure parameter
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|mut x| x)
}

fn main() {}
