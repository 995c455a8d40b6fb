// a closure parameter annotated with the wrong type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x: f64| x)
}

fn main() {}
