// an 8-bit and a 16-bit integer do not mix without `as`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<u8>, ys: Vector<u16>) -> Vector<u16> {
    xs.zip_with(ys, |x, y| x + y)
}

fn main() {}
