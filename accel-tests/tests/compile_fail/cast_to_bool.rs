// `x as bool`: compare instead
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<bool> {
    xs.map(|x| x as bool)
}

fn main() {}
