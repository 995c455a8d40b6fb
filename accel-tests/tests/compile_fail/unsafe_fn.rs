// `unsafe fn`
use accel::prelude::*;

#[accel]
unsafe fn f(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
