// `concat` of different element types
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ys: Vector<f64>) -> Vector<f32> {
    xs.concat(ys)
}

fn main() {}
