// a name that is not a parameter or `let`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * scale)
}

fn main() {}
