// an unknown method on `Nested`
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Vector<f32> {
    xs.rows()
}

fn main() {}
