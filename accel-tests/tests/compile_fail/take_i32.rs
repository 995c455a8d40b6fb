// `take` with an `i32`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, n: i32) -> Vector<f32> {
    xs.take(n)
}

fn main() {}
