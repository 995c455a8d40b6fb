// `sqrt` on an integer
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x.sqrt())
}

fn main() {}
