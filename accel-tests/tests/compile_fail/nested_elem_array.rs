// arrays as elements of `Nested`
use accel::prelude::*;

#[accel]
fn f(xs: Nested<Vector<f32>>) -> Vector<f32> {
    xs.values()
}

fn main() {}
