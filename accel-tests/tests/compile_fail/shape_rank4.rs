// a shape of rank 4
use accel::prelude::*;

#[accel]
fn f(n: usize) -> Vector<f32> {
    fill((n, n, n, n), 0.0)
}

fn main() {}
