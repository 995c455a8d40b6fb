// `if let`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| if let 0.0 = x { 1.0 } else { x })
}

fn main() {}
