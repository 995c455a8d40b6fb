// `None` outside a `permute` index closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| None)
}

fn main() {}
