// `bool as f32`
use accel::prelude::*;

#[accel]
fn f(bs: Vector<bool>) -> Vector<f32> {
    bs.map(|b| b as f32)
}

fn main() {}
