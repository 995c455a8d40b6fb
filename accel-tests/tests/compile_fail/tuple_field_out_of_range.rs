// a tuple field that does not exist
use accel::prelude::*;

#[accel]
fn f(ps: Vector<(f32, f32)>) -> Vector<f32> {
    ps.map(|p| p.2)
}

fn main() {}
