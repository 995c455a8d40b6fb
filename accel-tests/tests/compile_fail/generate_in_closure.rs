// `generate` inside a closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<usize>) -> Vector<usize> {
    xs.map(|n| generate(n, |i| i).sum().get())
}

fn main() {}
