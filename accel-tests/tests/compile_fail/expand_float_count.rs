// an `expand` count that is a float
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.expand(|x| x, |x, i| x)
}

fn main() {}
