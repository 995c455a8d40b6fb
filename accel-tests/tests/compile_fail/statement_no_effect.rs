// an expression statement has no effect
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x + 1.0);
    xs
}

fn main() {}
