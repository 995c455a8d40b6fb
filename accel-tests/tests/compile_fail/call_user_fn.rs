// calling a Rust function
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| helper(x))
}

fn main() {}
