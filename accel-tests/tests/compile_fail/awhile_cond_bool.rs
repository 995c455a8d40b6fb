// an `awhile` condition that is a `bool`, not a `Scalar<bool>`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    awhile(xs, |v| v.len() > 3, |v| v.drop(1))
}

fn main() {}
