// an item inside the body
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    fn helper(x: f32) -> f32 {
        x
    }
    xs
}

fn main() {}
