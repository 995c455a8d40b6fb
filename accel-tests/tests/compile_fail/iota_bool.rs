// `iota` of booleans
use accel::prelude::*;

#[accel]
fn f(n: usize) -> Vector<bool> {
    iota::<bool>(n)
}

fn main() {}
