// `where` clauses
use accel::prelude::*;

#[accel]
fn f(xs: Vector<f32>) -> Vector<f32>
where
    Vector<f32>: Clone,
{
    xs
}

fn main() {}
