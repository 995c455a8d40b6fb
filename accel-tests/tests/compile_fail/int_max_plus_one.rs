// `i32::MAX + 1` written as a literal (only `-2147483648` fits)
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x + 2147483648)
}

fn main() {}
