// a float literal too large for `f32`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x + 1e50)
}

fn main() {}
