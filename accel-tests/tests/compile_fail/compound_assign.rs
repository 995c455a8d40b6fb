// `+=` is mutation
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| {
        let y = x;
        y += 1.0;
        y
    })
}

fn main() {}
