// an array type without its element type
use accel::prelude::*;

#[accel]
fn f(xs: Vector) -> Vector<f32> {
    xs
}

fn main() {}
