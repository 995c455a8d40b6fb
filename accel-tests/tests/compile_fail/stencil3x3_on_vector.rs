// `stencil3x3` on a vector
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.stencil3x3(Clamp, |n| n[1][1])
}

fn main() {}
