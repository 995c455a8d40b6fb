// a `&x` closure pattern
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|&x| x)
}

fn main() {}
