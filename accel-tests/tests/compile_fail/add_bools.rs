// arithmetic on `bool`
use accel::prelude::*;

#[accel]
fn f(bs: Vector<bool>) -> Vector<bool> {
    bs.map(|b| b + b)
}

fn main() {}
