// `checked_*` returns an `Option`, which scalar code has no type for
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x.checked_mul(3))
}

fn main() {}
