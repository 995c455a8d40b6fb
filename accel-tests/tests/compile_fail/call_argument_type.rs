// an argument of a call has the callee's parameter type
use accel::prelude::*;

#[accel]
fn squares(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * x)
}

#[accel]
fn f(xs: Vector<i32>) -> Vector<f32> {
    squares(xs)
}

fn main() {}
