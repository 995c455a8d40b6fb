// `iterate` over arrays
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    iterate(3, xs, |v| v)
}

fn main() {}
