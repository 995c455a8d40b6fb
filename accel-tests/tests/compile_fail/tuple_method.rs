// methods on tuples
use accel::prelude::*;

#[accel]
fn f(ps: Vector<(f32, f32)>) -> Vector<f32> {
    ps.map(|p| p.sqrt())
}

fn main() {}
