// `self` parameters
use accel::prelude::*;

#[accel]
fn f(self, xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
