// a `permute` destination of the wrong rank
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, d: Vector<f32>) -> Vector<f32> {
    xs.permute(d, |i| Some((i, i)), |a, b| a + b)
}

fn main() {}
