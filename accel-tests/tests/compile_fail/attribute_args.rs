// `#[accel]` takes three arguments: `fusion = false`, `expand_permute = false` and `fast_math`
use accel::prelude::*;

#[accel(gpu)]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
