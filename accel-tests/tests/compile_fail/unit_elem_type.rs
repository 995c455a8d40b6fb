// `()` as an element type
use accel::prelude::*;

#[accel]
fn f() -> Scalar<()> {
    unit(())
}

fn main() {}
