// A fold whose seed depends on the row cannot be flattened yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Vector<f32> {
    xs.map(|row| row.fold(row.len() as f32, |a, b| a + b))
}

fn main() {}
