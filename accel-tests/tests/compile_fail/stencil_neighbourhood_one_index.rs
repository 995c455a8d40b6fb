// a 3x3 neighbourhood read with one index
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Clamp, |n| n[1])
}

fn main() {}
