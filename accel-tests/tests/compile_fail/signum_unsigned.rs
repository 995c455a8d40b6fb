// `signum` is defined for signed integers and floats only, as in Rust
use accel::prelude::*;

#[accel]
fn f(xs: Vector<u32>) -> Vector<u32> {
    xs.map(|x| x.signum())
}

fn main() {}
