// a `let` annotation that disagrees
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let ys: Vector<f64> = xs;
    xs
}

fn main() {}
