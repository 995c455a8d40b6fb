// an array indexed by an `i32`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>, ys: Vector<f32>) -> Vector<f32> {
    xs.map(|i| ys[i])
}

fn main() {}
