// `unsafe` blocks
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    unsafe { xs }
}

fn main() {}
