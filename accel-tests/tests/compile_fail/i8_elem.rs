// 8-bit elements are not supported
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i8>) -> Vector<i8> {
    xs
}

fn main() {}
