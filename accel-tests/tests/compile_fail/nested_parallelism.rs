// a reduction inside a `map` closure
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * ys.sum().get())
}

fn main() {}
