//! `scan` (`scanl`, `scanl1`, `scanr`, `scanr1`) and `scan_total` (`scanl_total`) along the
//! innermost dimension, and `scan_imap`, which applies an epilogue `post(ix, v)` to each result
//! as it is written (fused form 3 of `accel_core::fusion`).
//!
//! Algorithm: rows are grouped into tasks of about equal work and each row is scanned in exact
//! source order. A long row (at least `2 * MIN_CHUNK` elements) is scanned in three phases, the
//! classic reduce-then-scan: (1) each chunk but the last one to be reached is `fold1`-reduced in
//! parallel; (2) the chunk totals are scanned sequentially into each chunk's carry-in, starting
//! from the seed; (3) every chunk is rescanned in parallel from its carry-in, writing its part of
//! the output. Right scans run the same phases mirrored, combining as `f(x, acc)`. Operands are
//! regrouped, never reordered. The epilogue is applied where each value (the seed included) is
//! written, in phase 3 for long rows.
//!
//! Memory traffic: short rows read the input once; long rows read it twice (phases 1 and 3; a
//! [`Delayed`](super::Delayed) input computes those elements twice) and write the output once.
//!
//! Limits: `scanl1`/`scanr1` of an empty row is an empty row; a seed is required by `WithSeed`
//! and refused by `Inclusive`.

use super::par::{
    Out, alloc_len, chunk_len, fold1_run, innermost, is_long, par_items_valued, par_parts, par_tasks, with_innermost,
};
use super::source::Source;
use super::{Ctx, check_rank_drop};
use crate::array::Array;
use crate::elem::{Columns, Elem};
use crate::shape;
use accel_core::ir::{Direction, ScanKind};
use accel_core::{Error, Result};
use std::ops::Range;

/// Where one row's scan values go. With `a_j` the value after consuming `x_j` (left: the fold of
/// the seed and `x_0..=x_j`; right: of `x_j..` and the seed), `a_j` is written at `j + shift`
/// when that lies inside the row's output, and the seed (if any) at the front (left) or back
/// (right) of the output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout<E> {
    pub dir: Direction,
    pub seed: Option<E>,
    pub shift: isize,
}

impl<E: Elem> Layout<E> {
    /// The layout of a scan of `kind` and the number of extra outputs per row.
    fn of(op: &str, dir: Direction, kind: ScanKind, z: Option<E>) -> Result<(Layout<E>, usize)> {
        match (kind, z) {
            (ScanKind::WithSeed, Some(z)) => {
                let shift = if dir == Direction::Left { 1 } else { 0 };
                Ok((Layout { dir, seed: Some(z), shift }, 1))
            }
            (ScanKind::Inclusive, None) => Ok((Layout { dir, seed: None, shift: 0 }, 0)),
            (ScanKind::WithSeed, None) => Err(Error::invalid_argument(op, "this scan needs a seed")),
            (ScanKind::Inclusive, Some(_)) => Err(Error::invalid_argument(op, "this scan takes no seed")),
            (ScanKind::ExclusiveAndTotal, _) => {
                Err(Error::invalid_argument(op, "exclusive scans with totals are `scan_total`"))
            }
        }
    }
}

/// Scans `src[range]` into `out` (the whole output of the row) with `layout`, writing
/// `post(p, v)` for value `v` at position `p` of the row's output; returns the total (the fold
/// of the seed and the whole row; `None` for an empty row without a seed).
pub(crate) fn scan_row<E: Elem, B: Elem, const R: usize>(
    src: &impl Source<E, R>,
    range: Range<usize>,
    out: Out<'_, B>,
    layout: Layout<E>,
    f: &(impl Fn(E, E) -> E + Sync),
    post: &(impl Fn(usize, E) -> B + Sync),
) -> Option<E> {
    let n = range.len();
    let out_len = out.len();
    let seed_at = match layout.dir {
        _ if out_len == 0 || layout.seed.is_none() => None,
        Direction::Left => Some(0),
        Direction::Right => Some(out_len - 1),
    };
    let row = RowScan { src, row_start: range.start, layout, seed_at, f, post };
    if !is_long(n) {
        return row.chunk(range, out, 0, layout.seed);
    }
    let chunk = chunk_len(n);
    let runs: Vec<Range<usize>> = range.clone().step_by(chunk).map(|s| s..(s + chunk).min(range.end)).collect();
    let last = runs.len() - 1;

    // Phase 1: the totals of the chunks that feed a carry.
    let fed = match layout.dir {
        Direction::Left => 0..last,
        Direction::Right => 1..last + 1,
    };
    let fed = &runs[fed];
    let totals: Vec<E> = par_tasks(fed.len(), &|c| fold1_run(src, fed[c].clone(), f));

    // Phase 2: carries, from the seed.
    let mut carries = vec![layout.seed; runs.len()];
    match layout.dir {
        Direction::Left => {
            for c in 0..last {
                let t = totals[c];
                carries[c + 1] = Some(carries[c].map_or(t, |acc| f(acc, t)));
            }
        }
        Direction::Right => {
            for c in (1..=last).rev() {
                let t = totals[c - 1];
                carries[c - 1] = Some(carries[c].map_or(t, |acc| f(t, acc)));
            }
        }
    }

    // Phase 3: rescan each chunk from its carry into its own part of the output.
    let place = |end: usize| (end as isize - range.start as isize + layout.shift).clamp(0, out_len as isize) as usize;
    let mut ends: Vec<usize> = runs[..last].iter().map(|r| place(r.end)).collect();
    ends.push(out_len);
    let bases: Vec<usize> = std::iter::once(0).chain(ends[..last].iter().copied()).collect();
    let finals: Vec<Option<E>> =
        par_parts(out.split_ends(&ends), &|c, part| row.chunk(runs[c].clone(), part, bases[c], carries[c]));
    match layout.dir {
        Direction::Left => finals[last],
        Direction::Right => finals[0],
    }
}

/// One row being scanned.
struct RowScan<'c, S, E: Elem, F, P> {
    src: &'c S,
    row_start: usize,
    layout: Layout<E>,
    /// The seed's position in the row's output, if it has one there.
    seed_at: Option<usize>,
    f: &'c F,
    post: &'c P,
}

impl<S, E: Elem, F: Fn(E, E) -> E, P> RowScan<'_, S, E, F, P> {
    /// Scans `run` sequentially from `carry` into `out`, which holds positions
    /// `base..base + out.len()` of the row's output; writes the seed too if its position falls
    /// there. Returns the value after the run.
    fn chunk<B: Elem, const R: usize>(
        &self,
        run: Range<usize>,
        mut out: Out<'_, B>,
        base: usize,
        carry: Option<E>,
    ) -> Option<E>
    where
        S: Source<E, R>,
        P: Fn(usize, E) -> B,
    {
        let end = base + out.len();
        let post = self.post;
        if let (Some(at), Some(seed)) = (self.seed_at, self.layout.seed)
            && (base..end).contains(&at)
        {
            out.set(at - base, post(at, seed));
        }
        let shift = self.layout.shift;
        let mut emit = |j: usize, v: E| {
            let p = j as isize + shift;
            if p >= base as isize && p < end as isize {
                out.set(p as usize - base, post(p as usize, v));
            }
        };
        let first = run.start - self.row_start;
        let f = self.f;
        let mut acc = carry;
        // Internal iteration (`for_each`), which a delayed source runs a row at a time.
        match self.layout.dir {
            Direction::Left => {
                // The first value starts the run if nothing comes before it; then the loop's
                // accumulator is a plain value, not an `Option` tested per element.
                let mut values = self.src.iter_range(run);
                let mut a = match carry {
                    Some(c) => c,
                    None => {
                        let x = values.next()?;
                        emit(first, x);
                        x
                    }
                };
                let mut j = first + usize::from(carry.is_none());
                values.for_each(|x| {
                    a = f(a, x);
                    emit(j, a);
                    j += 1;
                });
                acc = Some(a);
            }
            Direction::Right => {
                let last = first + run.len();
                self.src.iter_range(run).rev().enumerate().for_each(|(j, x)| {
                    let v = acc.map_or(x, |a| f(x, a));
                    emit(last - 1 - j, v);
                    acc = Some(v);
                });
            }
        }
        acc
    }
}

/// Scans every row of `src` (`rows` rows of `n`) into rows of the output of `shape` with
/// `layout`, writing `run_post(shape, start)(p, v)` for value `v` at position `p` of the row
/// whose output starts at linear position `start`; returns the result columns and each row's
/// total.
fn scan_rows<E: Elem, B: Elem, P: Fn(usize, E) -> B + Sync, const R: usize>(
    src: &impl Source<E, R>,
    shape: [usize; R],
    rows: usize,
    n: usize,
    layout: Layout<E>,
    f: &(impl Fn(E, E) -> E + Sync),
    run_post: &(impl Fn([usize; R], usize) -> P + Sync),
) -> Result<(B::Columns, Vec<Option<E>>)> {
    let out_n = shape[R - 1];
    par_items_valued(
        rows,
        |k| k * n,
        |k| k * out_n,
        |k, out| scan_row(src, k * n..(k + 1) * n, out, layout, f, &run_post(shape, k * out_n)),
    )
}

/// The epilogue `post` of one run of the output of `shape` (a row, or a segment of one) whose
/// output starts at linear position `start`, taking positions from there. Without an epilogue,
/// callers pass `|_, _| |_, v| v` instead, which computes no index at all.
pub(crate) fn run_post<E, B, const R: usize>(
    post: &impl Fn([usize; R], E) -> B,
    shape: [usize; R],
    start: usize,
) -> impl Fn(usize, E) -> B {
    let at = shape::unravel(start, shape);
    move |p, v| post(with_innermost(at, at[R - 1] + p), v)
}

/// Scans the innermost dimension. `kind` is `WithSeed` (`scanl`/`scanr`: `n + 1` results per
/// row, `z` required) or `Inclusive` (`scanl1`/`scanr1`: `n` results, `z` must be `None`).
///
/// ```
/// use accel_core::ir::{Direction, ScanKind};
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let cx = Ctx::new();
/// let v = Vector::from_vec(vec![1, 2, 3]);
/// let l = cpu::scan(&cx, &v, Direction::Left, ScanKind::WithSeed, Some(10), |a, b| a + b)?;
/// assert_eq!(l.to_vec(), vec![10, 11, 13, 16]);
/// let r = cpu::scan(&cx, &v, Direction::Right, ScanKind::Inclusive, None, |a, b| a - b)?;
/// assert_eq!(r.to_vec(), vec![2, -1, 3]); // 1 - (2 - 3), 2 - 3, 3
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn scan<E: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    dir: Direction,
    kind: ScanKind,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
) -> Result<Array<E, R>> {
    scan_with(cx, a, dir, kind, z, f, |_, _| |_, v| v)
}

/// [`scan`] writing `post(ix, v)` for each result `v` at index `ix` of the output.
///
/// ```
/// use accel_core::ir::{Direction, ScanKind};
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = Vector::from_vec(vec![1, 2, 3]);
/// let kind = ScanKind::WithSeed;
/// let means = cpu::scan_imap(&Ctx::new(), &v, Direction::Left, kind, Some(0), |a, b| a + b, |[i], s| {
///     if i == 0 { 0.0 } else { s as f64 / i as f64 }
/// })?;
/// assert_eq!(means.to_vec(), vec![0.0, 1.0, 1.5, 2.0]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn scan_imap<E: Elem, B: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    dir: Direction,
    kind: ScanKind,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    post: impl Fn([usize; R], E) -> B + Sync + Send,
) -> Result<Array<B, R>> {
    let post = &post;
    scan_with(cx, a, dir, kind, z, f, |shape, start| run_post(post, shape, start))
}

/// [`scan`] with the epilogue `run_post` of [`scan_rows`].
fn scan_with<E: Elem, B: Elem, P: Fn(usize, E) -> B + Sync, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    dir: Direction,
    kind: ScanKind,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync,
    run_post: impl Fn([usize; R], usize) -> P + Sync,
) -> Result<Array<B, R>> {
    let a = &a.view();
    let op = match (dir, kind) {
        (Direction::Left, ScanKind::Inclusive) => "scanl1",
        (Direction::Right, ScanKind::Inclusive) => "scanr1",
        (Direction::Left, _) => "scanl",
        (Direction::Right, _) => "scanr",
    };
    let (layout, extra) = Layout::of(op, dir, kind, z)?;
    let (rows, n) = innermost(op, a.shape())?;
    let out_n = n.checked_add(extra).ok_or_else(|| Error::invalid_argument(op, "the result is too large"))?;
    let shape = with_innermost(a.shape(), out_n);
    // The check of the unfused scan's result: the same error, or none, as without the epilogue.
    if alloc_len::<E, R>(op, shape)? == 0 {
        cx.check()?;
        return Ok(Array::from_parts_unchecked(shape, B::Columns::default()));
    }
    let (out, _) = scan_rows(a, shape, rows, n, layout, &f, &run_post)?;
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, out))
}

/// The exclusive scan of each row and, separately, each row's total: `scanl_total` (`Left`) or
/// its mirror (`Right`: element `i` is the fold of `x_(i+1)..` and `z`, the total folds the
/// whole row).
///
/// ```
/// use accel_core::ir::Direction;
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = Vector::from_vec(vec![3u32, 1, 4]);
/// let (pre, total) = cpu::scan_total::<_, 1, 0>(&Ctx::new(), &v, Direction::Left, 0, |a, b| a + b)?;
/// assert_eq!((pre.to_vec(), total.get()), (vec![0, 3, 4], 8));
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn scan_total<E: Elem, const R: usize, const R1: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    dir: Direction,
    z: E,
    f: impl Fn(E, E) -> E + Sync + Send,
) -> Result<(Array<E, R>, Array<E, R1>)> {
    let a = &a.view();
    let op = if dir == Direction::Left { "scanl_total" } else { "scanr_total" };
    check_rank_drop::<R, R1>(op)?;
    let (rows, n) = innermost(op, a.shape())?;
    let mut total_shape = [0; R1];
    total_shape.copy_from_slice(&a.shape()[..R1]);
    alloc_len::<E, R1>(op, total_shape)?;
    let shift = if dir == Direction::Left { 1 } else { -1 };
    let layout = Layout { dir, seed: Some(z), shift };
    let (out, totals) = scan_rows(a, a.shape(), rows, n, layout, &f, &|_, _| |_, v| v)?;
    let totals = totals.into_iter().map(|t| t.unwrap_or(z)).collect();
    cx.check()?;
    Ok((
        Array::from_parts_unchecked(a.shape(), out),
        Array::from_parts_unchecked(total_shape, E::Columns::from_vec(totals)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Matrix, Vector};
    use crate::cpu::par::MIN_CHUNK;

    fn seq_left(xs: &[i64], z: Option<i64>) -> Vec<i64> {
        let mut out: Vec<i64> = z.into_iter().collect();
        let mut acc = z;
        for &x in xs {
            let v = acc.map_or(x, |a| a.wrapping_mul(3).wrapping_add(x));
            out.push(v);
            acc = Some(v);
        }
        out
    }

    #[test]
    fn long_rows_match_the_sequential_scan() {
        // f(a, b) = 3a + b is not associative, but with every carry computed the same way the
        // three phases must still place every value; use + for a check of the regrouping.
        let n = 3 * MIN_CHUNK + 11;
        let xs: Vec<i64> = (0..n as i64).map(|i| i * 7 % 13 - 6).collect();
        let v = Vector::from_vec(xs.clone());
        let cx = Ctx::new();
        let add = |a: i64, b: i64| a.wrapping_add(b);
        let want: Vec<i64> = std::iter::once(5)
            .chain(xs.iter().scan(5i64, |a, &x| {
                *a += x;
                Some(*a)
            }))
            .collect();
        let got = scan(&cx, &v, Direction::Left, ScanKind::WithSeed, Some(5), add).unwrap();
        assert_eq!(got.to_vec(), want);
        let (pre, tot) = scan_total::<_, 1, 0>(&cx, &v, Direction::Left, 5, add).unwrap();
        assert_eq!(pre.to_vec(), want[..n]);
        assert_eq!(tot.get(), want[n]);
        let mut rev: Vec<i64> = xs
            .iter()
            .rev()
            .scan(5i64, |a, &x| {
                *a += x;
                Some(*a)
            })
            .collect();
        rev.reverse();
        let got = scan(&cx, &v, Direction::Right, ScanKind::WithSeed, Some(5), add).unwrap();
        assert_eq!(got.to_vec()[..n], rev[..]);
        assert_eq!(got.to_vec()[n], 5);
        let (pre, tot) = scan_total::<_, 1, 0>(&cx, &v, Direction::Right, 5, add).unwrap();
        assert_eq!(pre.to_vec()[..n - 1], rev[1..]);
        assert_eq!(pre.to_vec()[n - 1], 5);
        assert_eq!(tot.get(), rev[0]);
    }

    #[test]
    fn short_rows_are_exactly_sequential() {
        let xs = [1i64, -2, 3, 4];
        let m = Matrix::from_shape_fn([3, 4], |[i, j]| xs[j] * (i as i64 + 1));
        let f = |a: i64, x: i64| a.wrapping_mul(3).wrapping_add(x);
        let got = scan(&Ctx::new(), &m, Direction::Left, ScanKind::WithSeed, Some(2), f).unwrap();
        assert_eq!(got.shape(), [3, 5]);
        let row1: Vec<i64> = xs.iter().map(|x| x * 2).collect();
        assert_eq!(got.to_vec()[5..10], seq_left(&row1, Some(2))[..]);
        let got = scan(&Ctx::new(), &m, Direction::Left, ScanKind::Inclusive, None, f).unwrap();
        assert_eq!(got.to_vec()[..4], seq_left(&xs, None)[..]);
    }

    #[test]
    fn empty_rows_and_bad_arguments() {
        let cx = Ctx::new();
        let e = Matrix::from_shape_vec([2, 0], Vec::<u32>::new()).unwrap();
        let add = |a: u32, b: u32| a.wrapping_add(b);
        let l = scan(&cx, &e, Direction::Right, ScanKind::WithSeed, Some(9), add).unwrap();
        assert_eq!((l.shape(), l.to_vec()), ([2, 1], vec![9, 9]));
        let l = scan(&cx, &e, Direction::Left, ScanKind::Inclusive, None, add).unwrap();
        assert_eq!(l.shape(), [2, 0]);
        let (p, t) = scan_total::<_, 2, 1>(&cx, &e, Direction::Left, 4, add).unwrap();
        assert_eq!((p.shape(), t.to_vec()), ([2, 0], vec![4, 4]));
        assert!(scan(&cx, &e, Direction::Left, ScanKind::WithSeed, None, add).is_err());
        assert!(scan(&cx, &e, Direction::Left, ScanKind::Inclusive, Some(1), add).is_err());
        assert!(scan(&cx, &e, Direction::Left, ScanKind::ExclusiveAndTotal, Some(1), add).is_err());
        assert!(scan_total::<_, 2, 2>(&cx, &e, Direction::Left, 4, add).is_err());
        let wide = Matrix::from_shape_vec([0, usize::MAX], Vec::<u32>::new()).unwrap();
        let l = scan(&cx, &wide, Direction::Left, ScanKind::Inclusive, None, add).unwrap();
        assert_eq!(l.shape(), [0, usize::MAX]);
        assert!(scan(&cx, &wide, Direction::Left, ScanKind::WithSeed, Some(0), add).is_err());
    }
}
