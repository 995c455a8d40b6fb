// `impl Trait` parameters
use accel::prelude::*;

#[accel]
fn f(xs: impl Clone) -> Vector<f32> {
    xs
}

fn main() {}
