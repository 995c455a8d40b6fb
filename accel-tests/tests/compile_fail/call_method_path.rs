// calling through a path that is not a math function
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| f32::to_bits(x) as f32)
}

fn main() {}
