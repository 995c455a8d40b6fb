// a matrix `generate` closure with two parameters instead of one index pair
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    generate(m.shape(), |i, j| m[(j, i)])
}

fn main() {}
