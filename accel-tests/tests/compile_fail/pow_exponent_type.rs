// an integer's `pow` takes a `u32` exponent
use accel::prelude::*;

#[accel]
fn f(xs: Vector<i64>, ys: Vector<i64>) -> Vector<i64> {
    xs.zip_with(ys, |x, y| x.pow(y))
}

fn main() {}
