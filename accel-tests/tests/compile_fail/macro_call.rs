// a macro in expression position
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| dbg!(x))
}

fn main() {}
