// `sum` of booleans
use accel::prelude::*;

#[accel]
fn f(bs: Vector<bool>) -> Scalar<bool> {
    bs.sum()
}

fn main() {}
