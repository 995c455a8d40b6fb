// `map` with a closure of no parameters
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|| 0.0)
}

fn main() {}
