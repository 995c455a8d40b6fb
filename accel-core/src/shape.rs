//! The result shapes of the operations that move elements (`zip_with`, `take`, `drop`, `concat`,
//! `replicate_rows`/`replicate_cols`, `transpose`), written once over an [`Extent`]. The
//! interpreter, the CPU backend and the CUDA executor use them on `usize` shapes; fusion uses them
//! on shapes that are IR expressions (a delayed array's shape is computed where it is read).
//!
//! A shape lists its dimensions outermost first; the innermost is the last.
//!
//! ```
//! use accel_core::shape;
//! let mut s = [4usize, 10];
//! let start = shape::drop(&mut s, &3);
//! assert_eq!((s, start), ([4, 7], 3));
//! let mut c = [4usize, 7];
//! shape::concat(&mut c, &[2, 5]).unwrap();
//! assert_eq!(c, [2, 12]);
//! ```

use crate::ir::{Axis, BinaryOp, Expr, ExprKind, MathFn};

/// A number of elements along one dimension: a `usize`, or an expression that computes one.
pub trait Extent: Clone {
    /// The smaller of two extents.
    fn min(&self, other: &Self) -> Self;
    /// `self - other`, for `other <= self`.
    fn minus(&self, other: &Self) -> Self;
    /// `self + other`; `None` where it overflows.
    fn plus(&self, other: &Self) -> Option<Self>;
}

impl Extent for usize {
    fn min(&self, other: &usize) -> usize {
        (*self).min(*other)
    }

    fn minus(&self, other: &usize) -> usize {
        self - other
    }

    fn plus(&self, other: &usize) -> Option<usize> {
        self.checked_add(*other)
    }
}

/// Extents computed at run time (their overflow is the executing backend's to report, as for any
/// `usize` arithmetic of the program).
impl Extent for Expr {
    fn min(&self, other: &Expr) -> Expr {
        Expr::new(ExprKind::Math(MathFn::Min, vec![self.clone(), other.clone()]), self.ty.clone())
    }

    fn minus(&self, other: &Expr) -> Expr {
        Expr::new(ExprKind::Binary(BinaryOp::Sub, Box::new(self.clone()), Box::new(other.clone())), self.ty.clone())
    }

    fn plus(&self, other: &Expr) -> Option<Expr> {
        Some(Expr::new(
            ExprKind::Binary(BinaryOp::Add, Box::new(self.clone()), Box::new(other.clone())),
            self.ty.clone(),
        ))
    }
}

/// `zip_with`: the shape becomes its intersection with `other` (same rank).
pub fn intersect<E: Extent>(shape: &mut [E], other: &[E]) {
    for (d, o) in shape.iter_mut().zip(other) {
        *d = d.min(o);
    }
}

/// `take(n)`: the innermost dimension keeps its first `min(n, len)` elements.
pub fn take<E: Extent>(shape: &mut [E], n: &E) {
    if let Some(last) = shape.last_mut() {
        *last = n.min(last);
    }
}

/// `drop(n)`: the innermost dimension loses its first `min(n, len)` elements; returns that count,
/// the position in each source row of the result's first element.
pub fn drop<E: Extent>(shape: &mut [E], n: &E) -> E {
    let Some(last) = shape.last_mut() else { return n.clone() };
    let dropped = n.min(last);
    *last = last.minus(&dropped);
    dropped
}

/// `concat`: the innermost dimensions add up, the outer ones intersect; `Err` where the length
/// overflows.
pub fn concat<E: Extent>(shape: &mut [E], other: &[E]) -> Result<(), Overflow> {
    let r = shape.len();
    if r == 0 || other.len() != r {
        return Err(Overflow);
    }
    intersect(&mut shape[..r - 1], &other[..r - 1]);
    shape[r - 1] = shape[r - 1].plus(&other[r - 1]).ok_or(Overflow)?;
    Ok(())
}

/// `replicate_rows(n)` or `replicate_cols(n)` of a vector of `len` elements.
pub fn replicate<E: Extent>(axis: Axis, n: &E, len: &E) -> [E; 2] {
    match axis {
        Axis::Rows => [n.clone(), len.clone()],
        Axis::Cols => [len.clone(), n.clone()],
    }
}

/// `transpose`: the two dimensions swap.
pub fn transpose<E: Extent>(shape: &[E; 2]) -> [E; 2] {
    [shape[1].clone(), shape[0].clone()]
}

/// A result length that does not fit a `usize` (or a `concat` of arrays of other ranks).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Overflow;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_on_numbers() {
        let mut z = [3usize, 8];
        intersect(&mut z, &[5, 2]);
        assert_eq!(z, [3, 2]);
        let mut t = [2usize, 5];
        take(&mut t, &9);
        assert_eq!(t, [2, 5]);
        take(&mut t, &1);
        assert_eq!(t, [2, 1]);
        let mut d = [6usize];
        assert_eq!(drop(&mut d, &9), 6);
        assert_eq!(d, [0]);
        let mut c = [usize::MAX];
        assert_eq!(concat(&mut c, &[1]), Err(Overflow));
        assert_eq!(replicate(Axis::Cols, &3usize, &7), [7, 3]);
        assert_eq!(transpose(&[2usize, 9]), [9, 2]);
    }
}
