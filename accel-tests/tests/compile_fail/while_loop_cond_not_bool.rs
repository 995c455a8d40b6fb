// a `while_loop` condition that is not a `bool`
use accel::prelude::*;

#[accel]
fn f(x: f32) -> Scalar<f32> {
    unit(while_loop(x, |y| y, |y| y * 2.0))
}

fn main() {}
