// `slice_row` of a vector
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.slice_row(0)
}

fn main() {}
