// a combinator given a non-closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, g: f32) -> Vector<f32> {
    xs.map(g)
}

fn main() {}
