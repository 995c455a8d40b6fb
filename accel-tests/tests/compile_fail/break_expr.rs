// `break` outside any loop
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| if x > 0.0 { break } else { x })
}

fn main() {}
