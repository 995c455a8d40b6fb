// tuple parameters
use accel::prelude::*;

#[accel]
fn f(p: (Vector<f32>, Vector<f32>)) -> Vector<f32> {
    p.0
}

fn main() {}
