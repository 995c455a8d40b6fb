// `let` without a value
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let ys;
    xs
}

fn main() {}
