// `Nested::map` of a row function that filters the row: not flattened yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Nested<f32> {
    xs.map(|row| row.filter(|x| x > 0.0))
}

fn main() {}
