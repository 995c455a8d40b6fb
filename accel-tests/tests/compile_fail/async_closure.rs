// `async` closures
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(async |x| x)
}

fn main() {}
