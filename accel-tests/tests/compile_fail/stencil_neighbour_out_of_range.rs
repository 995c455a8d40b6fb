// a neighbour index beyond the stencil
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Wrap, |n| n[1][3])
}

fn main() {}
