// an unknown stencil boundary
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.stencil3(Zero, |l, c, r| l + c + r)
}

fn main() {}
