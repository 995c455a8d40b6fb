// A fold whose operator depends on the row cannot be flattened yet (a seed that depends on it can)
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Vector<f32> {
    xs.map(|row| row.fold(row.len() as f32, |a, b| a + b * row.len() as f32))
}

fn main() {}
