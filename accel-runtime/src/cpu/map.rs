//! `generate`, `map`, `imap` and `zip_with`: one result element per output index.
//!
//! Algorithm: the output is cut into equal chunks (at least `MIN_CHUNK` elements, a few per
//! thread); each task fills its chunk in order, stepping the multi-dimensional index instead of
//! dividing it out of the linear position.
//!
//! Memory traffic: one read of each input element and one write of each output element, all
//! sequential, except `zip_with` of differently shaped inputs, which reads rows of each input.
//!
//! Limits: none beyond memory; the closure runs exactly once per element.

use super::Ctx;
use super::par::{Out, alloc_len, chunk_len, par_build_indexed, par_map, par_write, uniform_ends};
use crate::array::Array;
use crate::elem::{Columns, Elem};
use crate::shape;
use accel_core::Result;

/// The array of `shape` whose element at `ix` is `f(ix)`.
///
/// ```
/// use accel_runtime::cpu::{self, Ctx};
/// let m = cpu::generate(&Ctx::new(), [2, 3], |[i, j]| (i * 3 + j) as f32)?;
/// assert_eq!(m.to_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn generate<E: Elem, const R: usize>(
    cx: &Ctx,
    shape: [usize; R],
    f: impl Fn([usize; R]) -> E + Sync + Send,
) -> Result<Array<E, R>> {
    alloc_len::<E, R>("generate", shape)?;
    let cols = par_build_indexed(shape, |_, ix| f(ix));
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, cols))
}

/// `f` of every element.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = cpu::map(&Ctx::new(), &Vector::from_vec(vec![1, 2]), |x| (x, x as f64 / 2.0))?;
/// assert_eq!(v.to_vec(), vec![(1, 0.5), (2, 1.0)]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn map<A: Elem, B: Elem, const R: usize>(
    cx: &Ctx,
    a: &Array<A, R>,
    f: impl Fn(A) -> B + Sync + Send,
) -> Result<Array<B, R>> {
    let cols = par_map(a.columns(), f);
    cx.check()?;
    Ok(Array::from_parts_unchecked(a.shape(), cols))
}

/// `f(ix, x)` of every element `x` at index `ix`.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = cpu::imap(&Ctx::new(), &Vector::from_vec(vec![10, 20]), |[i], x| x + i as i32)?;
/// assert_eq!(v.to_vec(), vec![10, 21]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn imap<A: Elem, B: Elem, const R: usize>(
    cx: &Ctx,
    a: &Array<A, R>,
    f: impl Fn([usize; R], A) -> B + Sync + Send,
) -> Result<Array<B, R>> {
    let cols = a.columns();
    let out = par_build_indexed(a.shape(), |i, ix| f(ix, cols.get(i)));
    cx.check()?;
    Ok(Array::from_parts_unchecked(a.shape(), out))
}

/// `f(a[ix], b[ix])` over the intersection of both shapes.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let a = Vector::from_vec(vec![1, 2, 3]);
/// let b = Vector::from_vec(vec![10, 20]);
/// assert_eq!(cpu::zip_with(&Ctx::new(), &a, &b, |x, y| x + y)?.to_vec(), vec![11, 22]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn zip_with<A: Elem, B: Elem, C: Elem, const R: usize>(
    cx: &Ctx,
    a: &Array<A, R>,
    b: &Array<B, R>,
    f: impl Fn(A, B) -> C + Sync + Send,
) -> Result<Array<C, R>> {
    let mut shape = a.shape();
    accel_core::shape::intersect(&mut shape, &b.shape());
    let (ca, cb) = (a.columns(), b.columns());
    let out = if shape == a.shape() && shape == b.shape() {
        // The common case: both inputs are read as plain runs.
        let n = a.len();
        let chunk = chunk_len(n);
        par_write(&uniform_ends(n, chunk), |g, mut out: Out<'_, C>| {
            let run = g * chunk..g * chunk + out.len();
            for (j, (x, y)) in ca.iter_range(run.clone()).zip(cb.iter_range(run)).enumerate() {
                out.set(j, f(x, y));
            }
        })
        .0
    } else {
        let (sa, sb) = (a.shape(), b.shape());
        par_build_indexed(shape, |_, ix| f(ca.get(shape::ravel(sa, ix)), cb.get(shape::ravel(sb, ix))))
    };
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Matrix, Vector};

    #[test]
    fn zip_with_intersects_shapes() {
        let cx = Ctx::new();
        let a = Matrix::from_shape_fn([2, 3], |[i, j]| (i * 3 + j) as i32);
        let b = Matrix::from_shape_fn([3, 2], |[i, j]| (i * 2 + j) as i32 * 100);
        let c = zip_with(&cx, &a, &b, |x, y| x + y).unwrap();
        assert_eq!(c.shape(), [2, 2]);
        assert_eq!(c.to_vec(), vec![0, 101, 203, 304]);
    }

    #[test]
    fn closure_errors_surface_after_the_loop() {
        let cx = Ctx::new();
        let v = Vector::from_vec((0..100_000).collect::<Vec<i32>>());
        let e = map(&cx, &v, |x| cx.div(1, x - 50_000)).unwrap_err();
        assert_eq!(e, accel_core::Error::division_by_zero("/"));
        assert!(map(&cx, &v, |x| x + 1).is_ok(), "the error was taken");
    }

    #[test]
    fn generate_rejects_impossible_shapes() {
        let e = generate(&Ctx::new(), [usize::MAX, 3], |_| 0u8 as i32).unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        let s = generate(&Ctx::new(), [], |[]| 7u64).unwrap();
        assert_eq!(s.get(), 7);
        let e = generate(&Ctx::new(), [0, 4], |_| 1.0f32).unwrap();
        assert!(e.is_empty());
    }
}
