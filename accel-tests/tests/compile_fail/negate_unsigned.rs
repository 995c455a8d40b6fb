// negating an unsigned integer
use accel::prelude::*;

#[accel]
fn f(xs: Vector<u32>) -> Vector<u32> {
    xs.map(|x| -x)
}

fn main() {}
