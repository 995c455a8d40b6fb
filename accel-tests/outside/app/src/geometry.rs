//! Lengths relative to their mean: calls into `stats` (another module) and into the dependency
//! `shapes`, through a `use`.

use accel::prelude::*;
use shapes::metrics::lengths;

/// `x` clamped to `[0, 1]`: a scalar helper of this package.
#[accel]
pub fn clamp_unit(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// Each point's distance from the origin over twice the mean distance, clamped to `[0, 1]`.
#[accel]
pub fn relative_lengths(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    let ls = lengths(xs, ys);
    let m = crate::stats::mean(ls);
    ls.map(|l| clamp_unit(l / (2.0 * m.get())))
}
