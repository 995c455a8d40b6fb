// `map_rows` over a vector, which has no rows
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map_rows(|row| row.sum())
}

fn main() {}
