// `Nested::map` is not supported yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Nested<f32> {
    xs.map(|row| row)
}

fn main() {}
