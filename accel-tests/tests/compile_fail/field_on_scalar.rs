// `.0` on a scalar
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x.0)
}

fn main() {}
