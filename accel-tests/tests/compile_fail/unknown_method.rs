// a method that is not a combinator
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map_par(|x| x + 1.0)
}

fn main() {}
