// `stencil3` on a matrix
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3(Clamp, |l, c, r| l + c + r)
}

fn main() {}
