// `#[accel]` takes one argument, `fusion = false`
use accel::prelude::*;

#[accel(gpu)]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
