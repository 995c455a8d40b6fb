// adding an index to a float element
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32> {
    xs.imap(|i, x| x + i)
}

fn main() {}
