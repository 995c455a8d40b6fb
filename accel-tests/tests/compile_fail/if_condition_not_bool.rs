// an `if` on a number
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| if x { 1.0 } else { 0.0 })
}

fn main() {}
