// `as` to a tuple type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<(i32, i32)> {
    xs.map(|x| x as (i32, i32))
}

fn main() {}
