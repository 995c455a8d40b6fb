// a Rust array parameter
use accel::prelude::*;

#[accel]
fn f(xs: [f32; 4]) -> Vector<f32> {
    xs
}

fn main() {}
