//! Data movement that is not a producer: `reshape`, `concat` and row/column `slice` (the
//! producers that only move elements, `reverse`, `transpose`, `take`, `drop` and `replicate`, are
//! lowered to a `generate` by `accel_core::fusion::producers` and run by [`super::generate`]).
//!
//! Algorithm: a parallel loop over the output in equal chunks, the source position of each
//! element computed from a stepped (not divided) output index. `reshape` copies the columns as
//! they are.
//!
//! Memory traffic: one read and one write per output element.
//!
//! Limits: `concat` needs rank 1 or more (the innermost dimension); a slice index out of range
//! is `IndexOutOfBounds`.

use super::Ctx;
use super::par::{alloc_len, innermost, par_build, par_build_indexed};
use crate::array::{Array, Matrix, Vector};
use crate::elem::{Columns, Elem};
use crate::shape;
use accel_core::ir::Axis;
use accel_core::{Error, Result};

/// The same elements in row-major order with a new shape of the same size (`ShapeMismatch`
/// otherwise).
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = Vector::from_vec(vec![1, 2, 3, 4, 5, 6]);
/// assert_eq!(cpu::reshape(&Ctx::new(), &v, [3, 2])?.shape(), [3, 2]);
/// assert!(cpu::reshape(&Ctx::new(), &v, [4, 2]).is_err());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn reshape<E: Elem, const R: usize, const R2: usize>(
    cx: &Ctx,
    a: &Array<E, R>,
    shape: [usize; R2],
) -> Result<Array<E, R2>> {
    if shape::checked_size(shape) != Some(a.len()) {
        return Err(Error::shape_mismatch(
            "reshape",
            format!("a shape of {} elements like {:?}", a.len(), a.shape()),
            format!("{shape:?}"),
        ));
    }
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, a.columns().clone()))
}

/// `a` then `b` along the innermost dimension; the outer dimensions intersect.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Matrix};
/// let a = Matrix::from_shape_vec([2, 1], vec![1, 2])?;
/// let b = Matrix::from_shape_vec([3, 2], vec![10, 11, 20, 21, 30, 31])?;
/// let c = cpu::concat(&Ctx::new(), &a, &b)?;
/// assert_eq!((c.shape(), c.to_vec()), ([2, 3], vec![1, 10, 11, 2, 20, 21]));
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn concat<E: Elem, const R: usize>(cx: &Ctx, a: &Array<E, R>, b: &Array<E, R>) -> Result<Array<E, R>> {
    innermost("concat", a.shape())?;
    let (sa, sb) = (a.shape(), b.shape());
    let (na, nb) = (sa[R - 1], sb[R - 1]);
    let mut shape = sa;
    accel_core::shape::concat(&mut shape, &sb)
        .map_err(|_| Error::invalid_argument("concat", "the result is too large"))?;
    alloc_len::<E, R>("concat", shape)?;
    let (rows, n) = innermost("concat", shape)?;
    // The input row of each output row: the outer index, placed in each input's outer shape.
    let (outer, outer_a, outer_b) = (&shape[..R - 1], &sa[..R - 1], &sb[..R - 1]);
    let row_of = |r: usize, within: &[usize]| {
        let mut rest = r;
        let mut place = 1;
        let mut row = 0;
        for d in (0..R - 1).rev() {
            row += (rest % outer[d]) * place;
            rest /= outer[d];
            place *= within[d];
        }
        row
    };
    let (ca, cb) = (a.columns(), b.columns());
    let out = if rows == 0 || n == 0 {
        E::Columns::default()
    } else {
        let starts: Vec<(usize, usize)> = (0..rows).map(|r| (row_of(r, outer_a), row_of(r, outer_b))).collect();
        par_build_indexed([rows, n], |_, [r, c]| {
            let (ra, rb) = starts[r];
            if c < na { ca.get(ra * na + c) } else { cb.get(rb * nb + (c - na)) }
        })?
    };
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, out))
}

/// Row (`Rows`) or column (`Cols`) `index` of a matrix; out of range is `IndexOutOfBounds`
/// (op `slice_row` / `slice_col`).
///
/// ```
/// use accel_core::ir::Axis;
/// use accel_runtime::{cpu::{self, Ctx}, Matrix};
/// let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
/// assert_eq!(cpu::slice(&Ctx::new(), &m, Axis::Rows, 1)?.to_vec(), vec![4, 5, 6]);
/// assert_eq!(cpu::slice(&Ctx::new(), &m, Axis::Cols, 2)?.to_vec(), vec![3, 6]);
/// assert!(cpu::slice(&Ctx::new(), &m, Axis::Cols, 3).is_err());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn slice<E: Elem>(cx: &Ctx, a: &Matrix<E>, axis: Axis, index: usize) -> Result<Vector<E>> {
    let [r, c] = a.shape();
    let (op, bound, ix) = match axis {
        Axis::Rows => ("slice_row", r, [index, 0]),
        Axis::Cols => ("slice_col", c, [0, index]),
    };
    if index >= bound {
        // Report the coordinate that is out of range; the other one is shown as 0.
        return Err(Error::index_out_of_bounds(op, &ix, &a.shape()));
    }
    let cols = a.columns();
    let out = match axis {
        Axis::Rows => par_build(c, |j| cols.get(index * c + j))?,
        Axis::Cols => par_build(r, |i| cols.get(i * c + index))?,
    };
    cx.check()?;
    Ok(Array::from_parts_unchecked([out.len()], out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_three_movement() {
        let cx = Ctx::new();
        let a = Array::from_shape_fn([2, 3, 2], |[i, j, k]| (i * 100 + j * 10 + k) as i32);
        let b = Array::from_shape_fn([3, 2, 1], |[i, j, _]| -((i * 10 + j) as i32));
        let c = concat(&cx, &a, &b).unwrap();
        assert_eq!(c.shape(), [2, 2, 3]);
        assert_eq!(c.to_vec(), vec![0, 1, 0, 10, 11, -1, 100, 101, -10, 110, 111, -11]);
        let s = crate::array::Scalar::new(1u32);
        assert!(concat(&cx, &s, &s).is_err());
        assert_eq!(reshape(&cx, &s, [1, 1, 1]).unwrap().to_vec(), vec![1]);
    }

    #[test]
    fn slices_out_of_range() {
        let cx = Ctx::new();
        let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
        let e = slice(&cx, &m, Axis::Rows, 2).unwrap_err();
        assert_eq!(e, Error::index_out_of_bounds("slice_row", &[2, 0], &[2, 3]));
        let e = reshape(&cx, &m, [usize::MAX, 2]).unwrap_err();
        assert!(matches!(e, Error::ShapeMismatch { .. }));
    }
}
