// `powi` takes an `i32`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x.powi(2.0))
}

fn main() {}
