//! Statistics: `mean`, called from `geometry`, and `spread`, which calls `geometry` back and the
//! dependency's scalar helper by its path.

use accel::prelude::*;

/// The mean of `xs` (NaN when it is empty).
#[accel]
pub fn mean(xs: Vector<f32>) -> Scalar<f32> {
    unit(xs.sum().get() / xs.len() as f32)
}

/// The sum of the squared distances of the relative lengths from one half.
#[accel]
pub fn spread(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
    crate::geometry::relative_lengths(xs, ys).map(|r| shapes::square(r - 0.5)).sum()
}
