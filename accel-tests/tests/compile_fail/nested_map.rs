// a `map` inside a `map`
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.map(|x| ys.map(|y| x + y).sum().get())
}

fn main() {}
