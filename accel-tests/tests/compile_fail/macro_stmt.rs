// a macro statement
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    println!("hello");
    xs
}

fn main() {}
