// calling a closure directly
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| (|y| y * 2.0)(x))
}

fn main() {}
