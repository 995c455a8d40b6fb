// `Seq` is not supported yet
use accel::prelude::*;

#[accel]
fn f(xs: Seq<Vector<f32>>) -> Vector<f32> {
    xs.collect()
}

fn main() {}
