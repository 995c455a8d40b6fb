// a `filter` predicate that returns a number
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.filter(|x| x % 2)
}

fn main() {}
