// `stencil3` with two neighbours
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.stencil3(Clamp, |l, r| l + r)
}

fn main() {}
