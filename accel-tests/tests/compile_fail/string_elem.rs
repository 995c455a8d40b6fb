// an element type that is not a scalar
use accel::prelude::*;

#[accel]
fn f(xs: Vector<String>) -> Vector<f32> {
    xs
}

fn main() {}
