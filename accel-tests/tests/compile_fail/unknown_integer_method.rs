// a method that integers do not have lists the ones they do
use accel::prelude::*;

#[accel]
fn f(xs: Vector<u64>) -> Vector<u64> {
    xs.map(|x| x.isqrt())
}

fn main() {}
