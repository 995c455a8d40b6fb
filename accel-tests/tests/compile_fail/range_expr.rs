// a range: use `iota`
use accel::prelude::*;

#[accel]
fn f(n: usize) -> Vector<usize> {
    generate(n, |i| 0..i)
}

fn main() {}
