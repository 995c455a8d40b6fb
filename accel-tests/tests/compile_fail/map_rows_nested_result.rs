// `map_rows` whose row function returns a matrix: a result per row is a scalar or a vector
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Vector<f32> {
    m.map_rows(|row| row.replicate_rows(2))
}

fn main() {}
