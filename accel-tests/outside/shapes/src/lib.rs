//! Geometry of points in the plane, as `#[accel]` functions that other packages call (and inline
//! into their own programs).

pub mod metrics;

use accel::prelude::*;

/// `x * x`: a scalar helper, called from closures here and in other packages.
#[accel]
pub fn square(x: f32) -> f32 {
    x * x
}
