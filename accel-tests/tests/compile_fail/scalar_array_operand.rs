// a `Scalar` array used as an element
use accel::prelude::*;

#[accel]
fn f(s: Scalar<f32>, xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * s)
}

fn main() {}
