// `let mut`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let mut ys = xs.map(|x| x * 2.0);
    ys
}

fn main() {}
