// `if` without `else` has no value
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| if x > 0.0 { x })
}

fn main() {}
