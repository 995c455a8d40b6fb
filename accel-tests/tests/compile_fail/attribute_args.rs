// `#[accel]` takes two arguments, `fusion = false` and `expand_permute = false`
use accel::prelude::*;

#[accel(gpu)]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
