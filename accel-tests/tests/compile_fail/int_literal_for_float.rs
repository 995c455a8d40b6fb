// an integer literal where a float is needed
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * 2)
}

fn main() {}
