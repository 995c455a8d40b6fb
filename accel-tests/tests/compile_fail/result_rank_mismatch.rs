// the body's rank differs from the result type
use accel::prelude::*;

#[accel]
fn f(m: Matrix<f32>) -> Vector<f32> {
    m.map(|x| x + 1.0)
}

fn main() {}
