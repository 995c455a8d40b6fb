//! `fold` (each row of the innermost dimension) and `fold_all` (every element), and their
//! `_imap` forms, which apply an epilogue `post(ix, v)` to each result as it is written (fused
//! form 3 of `accel_core::fusion`).
//!
//! Algorithm: rows are grouped into tasks of about equal work, each row folded in exact source
//! order, so many short rows run in parallel with bit-identical results to a sequential fold.
//! Short rows of a matrix or more are folded eight neighbours at a time in lockstep (element `p`
//! of each before element `p + 1` of any): their chains of combines overlap, and a delayed
//! operand read across rows (a matrix product's `b[(p, j)]`) is read along its rows.
//! A long row (at least `2 * MIN_CHUNK` elements, `fold_all` included) is cut into chunks: each
//! chunk is `fold1`-reduced in parallel and the partials are combined left to right after the
//! seed, `f(..f(f(z, p0), p1).., pk)`: operands regrouped, never reordered, so any associative
//! `f` gives the sequential result (floats within rounding of the regrouping). The epilogue runs
//! once per row, on the row's total, in the task that folded the row.
//!
//! Memory traffic: one read of the input, sequential by row or, for rows in lockstep, eight rows
//! side by side (none for a [`Delayed`](super::Delayed) input, whose elements are computed once
//! each); the output is one element per row. Where several rows fail, which error the call
//! reports may differ from a sequential fold's (the first recorded wins).
//!
//! Limits: a `fold1` of an empty row is `EmptyReduction`, decided before any work starts.

use super::par::{alloc_len, fold_range, innermost, is_long, par_items};
use super::source::Source;
use super::{Ctx, check_rank_drop};
use crate::array::{Array, Scalar};
use crate::elem::{Columns, Elem};
use crate::shape;
use accel_core::{Error, Result};

/// Reduces the innermost dimension: `[.., n]` to `[..]`. `z` is the seed (`None` for `fold1`);
/// `op` names the combinator in errors.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Matrix};
/// let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
/// let sums = cpu::fold::<_, 2, 1>(&Ctx::new(), &m, Some(0), |a, b| a + b, "sum")?;
/// assert_eq!(sums.to_vec(), vec![6, 15]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn fold<E: Elem, const R: usize, const R1: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    op: &str,
) -> Result<Array<E, R1>> {
    fold_imap(cx, a, z, f, op, |_, v| v)
}

/// [`fold`] writing `post(ix, v)` for the total `v` of the row at index `ix` of the result.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Matrix};
/// let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
/// let means = cpu::fold_imap(&Ctx::new(), &m, Some(0), |a, b| a + b, "sum", |[i], s| (i, s as f32 / 3.0))?;
/// assert_eq!(means.to_vec(), vec![(0, 2.0), (1, 5.0)]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn fold_imap<E: Elem, B: Elem, const R: usize, const R1: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    op: &str,
    post: impl Fn([usize; R1], E) -> B + Sync + Send,
) -> Result<Array<B, R1>> {
    let a = &a.view();
    check_rank_drop::<R, R1>(op)?;
    let (rows, n) = innermost(op, a.shape())?;
    let mut shape = [0; R1];
    shape.copy_from_slice(&a.shape()[..R1]);
    // The check of the unfused fold's result: the same error, or none, as without the epilogue.
    alloc_len::<E, R1>(op, shape)?;
    if z.is_none() && n == 0 && rows > 0 {
        return Err(Error::empty_reduction(op));
    }
    // Short rows of a matrix or more go LOCKSTEP neighbours at a time, others one at a time.
    let group = if R >= 2 && n > 0 && !is_long(n) { LOCKSTEP } else { 1 };
    let first_row = |g: usize| (g * group).min(rows);
    let out = par_items(
        rows.div_ceil(group),
        |g| first_row(g) * n,
        first_row,
        |g, mut out| {
            let rows = first_row(g)..first_row(g + 1);
            let totals = fold_rows_in_lockstep(a, rows.clone(), n, z, &f);
            for (k, v) in rows.zip(totals) {
                out.set(k - first_row(g), post(shape::unravel(k, shape), v));
            }
        },
    )?;
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, out))
}

/// Neighbouring rows that [`fold_imap`] folds together when its rows are short.
const LOCKSTEP: usize = 8;

/// The totals of `rows` (at most [`LOCKSTEP`] of them, each of `n` elements), each folded as
/// [`fold_range`] folds it, so the results are the same. [`LOCKSTEP`] rows (then short and
/// `n > 0`) are folded together, element `p` of every row combined before element `p + 1` of
/// any; fewer are folded one after another. The rows' chains of
/// combines are independent, so they overlap; and where element `p` of neighbouring rows lies
/// close in memory (`b[(p, j)]` of a matrix product, read along `j`), each step reads one
/// stretch of it instead of one line per row.
fn fold_rows_in_lockstep<E: Elem, const R: usize>(
    a: &impl Source<E, R>,
    rows: std::ops::Range<usize>,
    n: usize,
    z: Option<E>,
    f: &(impl Fn(E, E) -> E + Sync),
) -> Vec<E> {
    let shape = a.shape();
    if rows.len() < LOCKSTEP {
        // `fold_imap` has already refused an empty row without a seed.
        return rows.map(|k| fold_range(a, k * n..(k + 1) * n, z, f).expect("a seed or a non-empty row")).collect();
    }
    let start = rows.start;
    let first = shape::unravel(start * n, shape);
    // Rows of one line of the second-innermost dimension (a matrix product's `(i, j)` for
    // `j0..j0 + 8`): lane `l`'s index is the first's with `l` added there, which LLVM sees, so
    // that reads along that dimension (`b[(p, j)]`) are neighbours it can read together.
    if R >= 2 && start % shape[R - 2] + LOCKSTEP <= shape[R - 2] {
        return in_lockstep(a, start, n, z, f, |l, p| {
            let mut ix = first;
            ix[R - 2] += l;
            ix[R - 1] = p;
            ix
        });
    }
    let lines: [[usize; R]; LOCKSTEP] = std::array::from_fn(|l| shape::unravel((start + l) * n, shape));
    in_lockstep(a, start, n, z, f, |l, p| {
        let mut ix = lines[l];
        ix[R - 1] = p;
        ix
    })
}

/// [`LOCKSTEP`] rows from `start` folded together, the index of element `p` of lane `l` given
/// by `index(l, p)`.
#[inline(always)]
fn in_lockstep<E: Elem, const R: usize>(
    a: &impl Source<E, R>,
    start: usize,
    n: usize,
    z: Option<E>,
    f: &(impl Fn(E, E) -> E + Sync),
    index: impl Fn(usize, usize) -> [usize; R],
) -> Vec<E> {
    let element = |l: usize, p: usize| a.get_at((start + l) * n + p, index(l, p));
    let (mut acc, from) = match z {
        Some(z) => ([z; LOCKSTEP], 0),
        None => (std::array::from_fn(|l| element(l, 0)), 1),
    };
    for p in from..n {
        for (l, total) in acc.iter_mut().enumerate() {
            *total = f(*total, element(l, p));
        }
    }
    acc.to_vec()
}

/// Reduces every element, in row-major order, to a scalar; empty gives `z` (`EmptyReduction`
/// without a seed).
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = Vector::from_vec((1..=100).map(|i| i as f32).collect());
/// let s = cpu::fold_all(&Ctx::new(), &v, Some(0.0), |a, b| a + b, "sum")?;
/// assert_eq!(s.get(), 5050.0);
/// let max = cpu::fold_all(&Ctx::new(), &v, None, f32::max, "maximum")?;
/// assert_eq!(max.get(), 100.0);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn fold_all<E: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    op: &str,
) -> Result<Scalar<E>> {
    fold_all_imap(cx, a, z, f, op, |[], v| v)
}

/// [`fold_all`] giving `post([], v)` of the total `v`.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx, Delayed}, Vector};
/// let v = Vector::from_vec(vec![3.0f64, 4.0]);
/// let squares = Delayed::new([2], |[i]: [usize; 1]| v.get_linear(i).powi(2))?;
/// let norm = cpu::fold_all_imap(&Ctx::new(), &squares, Some(0.0), |a, b| a + b, "sum", |[], s: f64| s.sqrt())?;
/// assert_eq!(norm.get(), 5.0);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn fold_all_imap<E: Elem, B: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    op: &str,
    post: impl Fn([usize; 0], E) -> B,
) -> Result<Scalar<B>> {
    let a = &a.view();
    let v = fold_range(a, 0..a.len(), z, &f).ok_or_else(|| Error::empty_reduction(op))?;
    let v = post([], v);
    cx.check()?;
    Ok(Scalar::from_parts_unchecked([], B::Columns::from_vec(vec![v])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Matrix, Vector};
    use crate::cpu::Delayed;

    #[test]
    fn rows_and_empty_rows() {
        let cx = Ctx::new();
        let m = Matrix::from_shape_vec([3, 0], Vec::<i32>::new()).unwrap();
        assert_eq!(fold::<_, 2, 1>(&cx, &m, Some(7), |a, b| a + b, "fold").unwrap().to_vec(), vec![7; 3]);
        let e = fold::<_, 2, 1>(&cx, &m, None, |a, b| a + b, "maximum").unwrap_err();
        assert_eq!(e, Error::empty_reduction("maximum"));
        let none = Matrix::from_shape_vec([0, 4], Vec::<i32>::new()).unwrap();
        assert!(fold::<_, 2, 1>(&cx, &none, None, |a, b| a + b, "fold1").unwrap().is_empty());
        let e = fold_all(&cx, &Vector::<u32>::from_vec(vec![]), None, |a, b| a + b, "fold1").unwrap_err();
        assert_eq!(e, Error::empty_reduction("fold1"));
    }

    #[test]
    fn seed_comes_first() {
        let cx = Ctx::new();
        let v = Vector::from_vec(vec![2.0f64, 3.0]);
        // f(f(z, 2), 3) with f(a, b) = a - b.
        assert_eq!(fold_all(&cx, &v, Some(10.0), |a, b| a - b, "fold").unwrap().get(), 5.0);
        let s = Scalar::new(4i64);
        assert_eq!(fold_all(&cx, &s, Some(1), |a, b| a * b, "product").unwrap().get(), 4);
        assert!(fold::<_, 0, 0>(&cx, &s, Some(1), |a, b| a * b, "product").is_err());
    }

    #[test]
    fn rows_folded_in_lockstep_are_each_folded_in_order() {
        let cx = Ctx::new();
        // Rows of a rank-3 delayed array and of a matrix, a non-commutative operator (so any
        // reordering shows), row counts around the lockstep width, with and without a seed.
        for (a, b, n) in [(1, 8, 5), (2, 7, 3), (3, 9, 1), (5, 17, 40)] {
            let value = |[i, j, p]: [usize; 3]| ((i * 31 + j * 7 + p * 3) % 11) as i64 - 5;
            let delayed = Delayed::new([a, b, n], value).unwrap();
            let sequential = |z: Option<i64>, k: usize| {
                let row = (0..n).map(|p| value([k / b, k % b, p]));
                match z {
                    Some(z) => row.fold(z, |x, y| 2 * x - y),
                    None => row.reduce(|x, y| 2 * x - y).unwrap(),
                }
            };
            for z in [Some(3), None] {
                let want: Vec<i64> = (0..a * b).map(|k| sequential(z, k)).collect();
                let got = fold::<_, 3, 2>(&cx, &delayed, z, |x, y| 2 * x - y, "fold").unwrap();
                assert_eq!((got.shape(), got.to_vec()), ([a, b], want.clone()), "{a}x{b}x{n}, seed {z:?}");
                let manifest = Array::<i64, 2>::from_shape_vec([a * b, n], delayed.to_columns().unwrap()).unwrap();
                let got = fold::<_, 2, 1>(&cx, &manifest, z, |x, y| 2 * x - y, "fold").unwrap();
                assert_eq!(got.to_vec(), want, "{a}x{b}x{n} as a matrix, seed {z:?}");
            }
        }
    }
}
