// `const fn`
use accel::prelude::*;

#[accel]
const fn f(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
