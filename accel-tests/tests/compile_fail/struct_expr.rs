// a struct expression
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| Point { x, y: x })
}

fn main() {}
