// a constant that does not exist
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x + f32::GOLDEN)
}

fn main() {}
