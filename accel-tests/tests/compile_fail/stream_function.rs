// streams are not supported yet
use accel::prelude::*;

#[accel]
fn f(n: usize) -> Vector<f32> {
    produce(n, |i| fill(i, 0.0)).collect()
}

fn main() {}
