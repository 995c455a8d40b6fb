// a neighbourhood pattern of the wrong size
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Clamp, |[[a, b], [c, d]]| a + b + c + d)
}

fn main() {}
