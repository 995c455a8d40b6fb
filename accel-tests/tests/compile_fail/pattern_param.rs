// a pattern parameter
use accel::prelude::*;

#[accel]
fn f((a, b): (f32, f32), xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
