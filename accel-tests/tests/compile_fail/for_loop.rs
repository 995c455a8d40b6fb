// `for` loops: use a combinator
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    for i in 0..3 {}
    xs
}

fn main() {}
