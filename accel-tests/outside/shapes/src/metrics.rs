//! Measures of points, calling the crate's scalar helper.

use accel::prelude::*;

/// The distance of each point `(x, y)` from the origin.
#[accel]
pub fn lengths(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.zip_with(ys, |x, y| (crate::square(x) + crate::square(y)).sqrt())
}
