// a computed neighbour index
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>, k: usize) -> Matrix<f32> {
    m.stencil3x3(Wrap, |n| n[1][k])
}

fn main() {}
