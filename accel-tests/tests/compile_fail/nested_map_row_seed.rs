// An operator may read values of the row (and its seed may depend on the row), but it may not
// run parallel code of its own, such as a map of the row over its operands
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Vector<f32> {
    xs.map(|row| row.fold(row.len() as f32, |a, b| a + row.map(|x| x * b).sum().get()))
}

fn main() {}
