// a literal that does not fit
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x + 3000000000)
}

fn main() {}
