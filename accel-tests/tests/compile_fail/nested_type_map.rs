// `Nested::map` of a row function that folds the row only under a condition, where the fold may
// fail (the maximum of an empty row): not flattened yet
use accel::prelude::*;

#[accel]
fn f(xs: Nested<f32>) -> Vector<f32> {
    xs.map(|row| if row.len() > 0 { row.maximum().get() } else { 0.0 })
}

fn main() {}
