// a `map` closure that returns an array
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.map(|x| ys)
}

fn main() {}
