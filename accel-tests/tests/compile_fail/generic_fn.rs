// generic functions
use accel::prelude::*;

#[accel]
fn f<T>(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
