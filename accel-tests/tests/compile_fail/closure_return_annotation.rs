// a closure return type that disagrees with its body
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| -> f64 { x })
}

fn main() {}
