// segment lengths that are floats
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ls: Vector<f32>) -> Vector<f32> {
    xs.fold_seg(0.0, |a, b| a + b, ls)
}

fn main() {}
