// `if` branches of different types
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| if x > 0.0 { x } else { 0.0f64 })
}

fn main() {}
