// `map_rows` of a row function that filters the row: the rows would have different lengths
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Matrix<f32> {
    m.map_rows(|row| row.filter(|x| x > 0.0))
}

fn main() {}
