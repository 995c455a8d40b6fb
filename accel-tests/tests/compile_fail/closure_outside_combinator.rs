// a closure bound with `let`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let double = |x: f32| x * 2.0;
    xs.map(double)
}

fn main() {}
