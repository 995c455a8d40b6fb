// a literal must fit its type: 300 is not a `u8`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<u8>) -> Vector<u8> {
    xs.map(|x| x + 300)
}

fn main() {}
