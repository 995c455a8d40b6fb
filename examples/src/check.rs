//! Comparing a backend's results with the reference interpreter's.

use std::fmt::{self, Debug};

/// Two results that should agree and do not.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch(pub String);

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mismatch: {}", self.0)
    }
}

impl std::error::Error for Mismatch {}

/// `got == want`, element for element (integers, and floats computed elementwise, which every
/// backend computes bit for bit like the interpreter).
pub fn exact<T: PartialEq + Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), Mismatch> {
    if got.len() != want.len() {
        return Err(Mismatch(format!("{what}: {} elements, expected {}", got.len(), want.len())));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(Mismatch(format!("{what}[{i}] is {:?}, expected {:?}", got[i], want[i]))),
    }
}

/// `|got - want| <= tol * max(|want|, 1)` for every element: for results whose rounding depends
/// on the order of a reduction. Returns the largest error relative to `max(|want|, 1)`.
pub fn close<T: Copy + Into<f64>>(what: &str, got: &[T], want: &[T], tol: f64) -> Result<f64, Mismatch> {
    if got.len() != want.len() {
        return Err(Mismatch(format!("{what}: {} elements, expected {}", got.len(), want.len())));
    }
    let mut worst: f64 = 0.0;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g.into(), w.into());
        let err = (g - w).abs() / w.abs().max(1.0);
        if err.is_nan() || err > tol {
            return Err(Mismatch(format!("{what}[{i}] is {g}, expected {w} within {tol:e} (relative)")));
        }
        worst = worst.max(err);
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_first_difference() {
        assert_eq!(exact("xs", &[1, 2], &[1, 2]), Ok(()));
        assert_eq!(exact("xs", &[1, 2], &[1, 3]).unwrap_err().0, "xs[1] is 2, expected 3");
        assert!(exact("xs", &[1], &[1, 2]).is_err());
        let worst = close("s", &[100.0, 0.5], &[100.01, 0.5], 1e-3).unwrap();
        assert!((worst - 0.01 / 100.01).abs() < 1e-12);
        assert!(close("s", &[0.5f32], &[0.6], 1e-3).is_err());
        assert!(close("s", &[f64::NAN], &[0.6], 1e-3).is_err());
    }
}
