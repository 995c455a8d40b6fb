// an unsupported literal suffix
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x + 1i128 as i32)
}

fn main() {}
