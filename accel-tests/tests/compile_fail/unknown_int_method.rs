// a method that integers do not have
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x.wrapping_add(1))
}

fn main() {}
