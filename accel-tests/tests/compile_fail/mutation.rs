// assignment is mutation
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let ys = xs;
    ys = xs.map(|x| x + 1.0);
    ys
}

fn main() {}
