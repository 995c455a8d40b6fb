// zipping with an element
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, y: f32) -> Vector<f32> {
    xs.zip_with(y, |x, y| x + y)
}

fn main() {}
