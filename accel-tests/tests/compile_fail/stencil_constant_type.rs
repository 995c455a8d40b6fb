// a `Constant` boundary of the wrong type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.stencil3(Constant(0), |l, c, r| l + c + r)
}

fn main() {}
