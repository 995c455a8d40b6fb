// `&&` on numbers
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<bool> {
    xs.map(|x| x && 1)
}

fn main() {}
