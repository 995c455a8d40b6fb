// a float literal where an integer is needed
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x + 1.5)
}

fn main() {}
