// a float constant on an integer type
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x + i32::PI)
}

fn main() {}
