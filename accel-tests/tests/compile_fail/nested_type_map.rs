// `Nested::map` of a row function that expands the row: not flattened yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Nested<f32> {
    xs.map(|row| row.expand(|x| x as usize, |x, i| x + i as f32))
}

fn main() {}
