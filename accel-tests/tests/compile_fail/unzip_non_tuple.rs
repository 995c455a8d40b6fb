// `unzip` of non-tuple elements
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
    xs.unzip()
}

fn main() {}
