// `while`: use `while_loop` or `awhile`
use accel::prelude::*;

#[accel]
fn f(x: f32) -> Scalar<f32> {
    unit(while x > 0.0 { })
}

fn main() {}
