// a `permute` index closure with an `if` and no `else`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, d: Vector<f32>) -> Vector<f32> {
    xs.permute(d, |i| if i % 2 == 0 { Some(i / 2) }, |a, b| a + b)
}

fn main() {}
