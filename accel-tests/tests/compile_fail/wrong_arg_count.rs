// a combinator with too few arguments
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.take()
}

fn main() {}
