// `replicate_rows` of a matrix
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.replicate_rows(2)
}

fn main() {}
