// `let ... else`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    let (a, b) = (xs, xs) else { panic!() };
    a
}

fn main() {}
