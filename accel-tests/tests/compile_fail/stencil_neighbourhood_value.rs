// the neighbourhood used as a value
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Clamp, |n| n)
}

fn main() {}
