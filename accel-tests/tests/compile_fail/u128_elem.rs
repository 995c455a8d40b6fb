// 128-bit elements are not supported
use accel::prelude::*;

#[accel]
fn f(xs: Vector<u128>) -> Vector<u128> {
    xs
}

fn main() {}
