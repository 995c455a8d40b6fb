// `async fn`
use accel::prelude::*;

#[accel]
async fn f(xs: Vector<f32>) -> Vector<f32> {
    xs
}

fn main() {}
