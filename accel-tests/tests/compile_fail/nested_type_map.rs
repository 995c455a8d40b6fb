// `Nested::map` of a row function that scans the row from the right: not flattened yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Nested<f32> {
    xs.map(|row| row.scanr(0.0, |a, b| a + b))
}

fn main() {}
