//! Stencils: `stencil3`, `stencil5` on vectors, `stencil3x3`, `stencil5x5` on matrices.
//!
//! Algorithm: a parallel loop over the output in equal chunks. The neighbour offsets are
//! computed once, both as index offsets and as linear offsets; the elements whose whole
//! neighbourhood lies inside the array (the interior, nearly all of a large array) read their
//! neighbours by linear offset with no boundary logic, and only the border applies the boundary
//! per coordinate. Which columns of a row are interior is decided once per row, and the loop runs
//! the interior's columns in blocks of their own, with no test per element
//! (`par::par_build_split`), so that the interior's loop vectorises.
//!
//! A [`Delayed`](super::Delayed) input is read the same way, its element computed from the
//! neighbour's index (the interior's offset indices, the border's placed ones).
//!
//! Memory traffic: each input element is read once per neighbourhood it belongs to, from
//! nearby rows that stay in cache (a delayed element is computed as many times, `P` per output
//! element); each output element is written once.
//!
//! Limits: the array's rank must be the stencil's (1 or 2), and the closure takes exactly
//! `shape.points()` neighbours. `Mirror` reflects periodically (period `2n - 2`), so it stays
//! inside even when the radius exceeds `n - 1`.

use super::Ctx;
use super::par::par_build_split;
use super::source::Source;
use crate::array::Array;
use crate::elem::Elem;
use crate::shape;
use accel_core::ir::StencilShape;
use accel_core::{Error, Result};

/// What a stencil reads outside the array, per coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Boundary<E> {
    /// The nearest edge element.
    Clamp,
    /// Reflection without repeating the edge: `-1` reads 1, `n` reads `n - 2`.
    Mirror,
    /// Periodic: `-1` reads `n - 1`.
    Wrap,
    /// This value whenever any coordinate is outside.
    Constant(E),
}

impl<E: Copy> Boundary<E> {
    /// The coordinate read for `i` along a dimension of extent `n` (`n > 0`), or the constant
    /// value that replaces the read.
    fn place(&self, i: isize, n: usize) -> Result<usize, E> {
        use accel_kernels::boundary::{Rule, resolve};
        let rule = match self {
            Boundary::Clamp => Rule::Clamp,
            Boundary::Mirror => Rule::Mirror,
            Boundary::Wrap => Rule::Wrap,
            Boundary::Constant(_) => Rule::Constant,
        };
        match (resolve(rule, i, n), self) {
            (Some(inside), _) => Ok(inside),
            (None, Boundary::Constant(v)) => Err(*v),
            (None, Boundary::Clamp | Boundary::Mirror | Boundary::Wrap) => {
                unreachable!("only a constant reads outside")
            }
        }
    }
}

/// Applies `f` to the neighbourhood of every element; neighbours come in row-major order of their
/// offsets (`[l, c, r]` for `S3`, `n[r][c]` flattened for `S3x3`).
///
/// ```
/// use accel_core::ir::StencilShape;
/// use accel_runtime::cpu::{self, Boundary, Ctx};
/// use accel_runtime::Vector;
/// let v = Vector::from_vec(vec![1, 2, 3]);
/// let sums = cpu::stencil(&Ctx::new(), &v, StencilShape::S3, Boundary::Clamp, |[l, c, r]: &[i32; 3]| l + c + r)?;
/// assert_eq!(sums.to_vec(), vec![4, 6, 8]);
/// let zero = cpu::stencil(&Ctx::new(), &v, StencilShape::S3, Boundary::Constant(0), |n: &[i32; 3]| n[0] + n[2])?;
/// assert_eq!(zero.to_vec(), vec![2, 4, 2]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn stencil<A: Elem, B: Elem, const R: usize, const P: usize>(
    cx: &Ctx,
    a: &impl Source<A, R>,
    shape: StencilShape,
    boundary: Boundary<A>,
    f: impl Fn(&[A; P]) -> B + Sync + Send,
) -> Result<Array<B, R>> {
    let a = &a.view();
    let op = shape.method_name();
    if R != shape.rank() {
        return Err(Error::invalid_argument(op, format!("it applies to arrays of rank {}, not {R}", shape.rank())));
    }
    if P != shape.points() {
        return Err(Error::invalid_argument(op, format!("it has {} neighbours, not {P}", shape.points())));
    }
    let (radius, width) = (shape.radius() as isize, 2 * shape.radius() + 1);
    let extent = a.shape();
    let offsets: [[isize; R]; P] = std::array::from_fn(|k| {
        let mut rest = k;
        let mut o = [0; R];
        for d in (0..R).rev() {
            o[d] = (rest % width) as isize - radius;
            rest /= width;
        }
        o
    });
    let strides: [isize; R] = std::array::from_fn(|d| extent[d + 1..].iter().product::<usize>() as isize);
    let linear: [isize; P] = std::array::from_fn(|k| (0..R).map(|d| offsets[k][d] * strides[d]).sum());
    // The interior of a row: its columns whose neighbourhood lies inside, in a row whose
    // neighbourhood does (none in a row near the edge of an outer dimension).
    let r = shape.radius();
    let interior = |ix: [usize; R]| {
        let inner = extent[R - 1];
        let row_inside = (0..R - 1).all(|d| ix[d] >= r && ix[d] + r < extent[d]);
        if row_inside && inner > 2 * r { r..inner - r } else { 0..0 }
    };
    let inside = |i: usize, ix: [usize; R]| {
        f(&std::array::from_fn(|k| {
            let at = std::array::from_fn(|d| (ix[d] as isize + offsets[k][d]) as usize);
            a.get_at((i as isize + linear[k]) as usize, at)
        }))
    };
    let border = |_: usize, ix: [usize; R]| {
        f(&std::array::from_fn(|k| {
            let mut at = [0; R];
            for d in 0..R {
                match boundary.place(ix[d] as isize + offsets[k][d], extent[d]) {
                    Ok(p) => at[d] = p,
                    Err(v) => return v,
                }
            }
            a.get_at(shape::ravel(extent, at), at)
        }))
    };
    let out = par_build_split(extent, interior, inside, border)?;
    cx.check()?;
    Ok(Array::from_parts_unchecked(extent, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Matrix, Vector};

    #[test]
    fn boundaries_place_coordinates() {
        let b = Boundary::<i32>::Mirror;
        assert_eq!([-2, -1, 5, 6].map(|i| b.place(i, 5)), [Ok(2), Ok(1), Ok(3), Ok(2)]);
        assert_eq!([-2, -1, 2, 3].map(|i| b.place(i, 2)), [Ok(0), Ok(1), Ok(0), Ok(1)]);
        assert_eq!(b.place(-2, 1), Ok(0));
        assert_eq!(Boundary::<i32>::Wrap.place(-1, 4), Ok(3));
        assert_eq!(Boundary::<i32>::Clamp.place(9, 4), Ok(3));
        assert_eq!(Boundary::Constant(1).place(4, 4), Err(1));
        assert_eq!(Boundary::Constant(1).place(3, 4), Ok(3));
    }

    #[test]
    fn matrix_neighbourhoods_are_row_major() {
        let cx = Ctx::new();
        let m = Matrix::from_shape_fn([3, 4], |[i, j]| (i * 10 + j) as i32);
        let up_left = stencil(&cx, &m, StencilShape::S3x3, Boundary::Constant(-1), |n: &[i32; 9]| n[0]).unwrap();
        assert_eq!(up_left.to_vec(), vec![-1, -1, -1, -1, -1, 0, 1, 2, -1, 10, 11, 12]);
        let wrap = stencil(&cx, &m, StencilShape::S5x5, Boundary::Wrap, |n: &[i32; 25]| n[24]).unwrap();
        assert_eq!(wrap.at([2, 3]), Some(11));
        assert!(stencil(&cx, &m, StencilShape::S3, Boundary::Clamp, |n: &[i32; 3]| n[0]).is_err());
        assert!(stencil(&cx, &m, StencilShape::S3x3, Boundary::Clamp, |n: &[i32; 3]| n[0]).is_err());
        let e = Vector::<f32>::from_vec(vec![]);
        assert!(stencil(&cx, &e, StencilShape::S5, Boundary::Mirror, |n: &[f32; 5]| n[2]).unwrap().is_empty());
    }
}
