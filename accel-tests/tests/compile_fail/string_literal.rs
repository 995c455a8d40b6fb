// string literals
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| if "yes" == "no" { x } else { 0.0 })
}

fn main() {}
