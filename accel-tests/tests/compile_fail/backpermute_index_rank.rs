// a `backpermute` source index of the wrong rank
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, n: usize) -> Vector<f32> {
    xs.backpermute(n, |i| (i, i))
}

fn main() {}
