// `loop`: use `while_loop` or `awhile`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let y = loop { break xs; };
    y
}

fn main() {}
