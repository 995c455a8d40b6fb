// a tuple pattern of the wrong size
use accel::prelude::*;

#[accel]
fn f(ps: Vector<(f32, f32)>) -> Vector<f32> {
    ps.map(|p| {
        let (a, b, c) = p;
        a + b + c
    })
}

fn main() {}
