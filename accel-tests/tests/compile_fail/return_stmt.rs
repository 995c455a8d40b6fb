// `return` as the tail expression
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    return xs.map(|x| x + 1.0)
}

fn main() {}
