// `awhile` over an element
use accel::prelude::*;

#[accel]
fn f(x: f32) -> Scalar<f32> {
    unit(awhile(x, |y| y < 10.0, |y| y * 2.0))
}

fn main() {}
