// a shape that is not `usize`
use accel::prelude::*;

#[accel]
fn f(n: i32) -> Vector<f32> {
    fill(n, 0.0)
}

fn main() {}
