// a neighbourhood annotated with the wrong size
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Mirror, |n: [[f32; 5]; 5]| n[1][1])
}

fn main() {}
