// `iota(n)` counts in `i32` unless the context says otherwise
use accel::prelude::*;

#[accel]
fn f(n: usize) -> Vector<usize> {
    iota(n).map(|i| i * 2)
}

fn main() {}
