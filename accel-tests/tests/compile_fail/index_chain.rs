// a matrix indexed as `m[i][j]`
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>, xs: Vector<usize>) -> Vector<f32> {
    xs.map(|i| m[i][i])
}

fn main() {}
