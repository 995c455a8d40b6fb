// `Nested::map` of a row function that generates an array of a per-row size: not flattened yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Nested<usize> {
    xs.map(|row| generate(row.len(), |i| i))
}

fn main() {}
