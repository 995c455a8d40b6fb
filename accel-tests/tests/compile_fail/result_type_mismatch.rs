// the body's type differs from the result type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f64> {
    xs.map(|x| x + 1.0)
}

fn main() {}
