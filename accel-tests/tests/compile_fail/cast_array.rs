// `as` on an array
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<f32> {
    xs as Vector<f32>
}

fn main() {}
