// `Nested::from_lengths` with float lengths
use accel::prelude::*;

#[accel]
fn f(ls: Vector<f32>, v: Vector<f32>) -> Nested<f32> {
    Nested::from_lengths(ls, v)
}

fn main() {}
