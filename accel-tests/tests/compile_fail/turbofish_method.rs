// type arguments on a method
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.map::<f32>(|x| x)
}

fn main() {}
