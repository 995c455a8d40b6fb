// a method that is not a math function
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x.sinc())
}

fn main() {}
