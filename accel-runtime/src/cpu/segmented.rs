//! Segmented reductions and scans: `fold_seg` and `scanl_seg`/`scanl1_seg` over the segments of
//! the innermost dimension of every row, and their `_imap` forms, which apply an epilogue
//! `post(ix, v)` to each result as it is written (fused form 3 of `accel_core::fusion`).
//!
//! Algorithm: every (row, segment) pair is an item; items are grouped into tasks of about equal
//! work, counting each segment's elements plus one (so that runs of empty segments also split).
//! Each segment is folded or scanned in exact source order, except that a segment of at least
//! `2 * MIN_CHUNK` elements is itself split like a long `fold` or `scan` row (chunk partials, or
//! reduce-then-scan), so one huge segment still uses every thread. The epilogue runs where each
//! result is written.
//!
//! Memory traffic: one read of the values (two for long scanned segments; a
//! [`Delayed`](super::Delayed) input computes its elements as many times) and one write of the
//! output; the offsets are read once per segment.
//!
//! Limits: the segments must cover the innermost dimension exactly (`InvalidSegments`); a
//! `fold1` of an empty segment is `EmptyReduction`, decided before any work starts.

use super::Ctx;
use super::par::{alloc_len, fold_range, innermost, par_items, with_innermost};
use super::scan::{Layout, run_post, scan_row};
use super::source::Source;
use crate::array::Array;
use crate::elem::Elem;
use crate::nested::Segments;
use crate::shape;
use accel_core::ir::{Direction, ScanKind};
use accel_core::{Error, Result};

/// Checks that `segments` cover the innermost extent `n`.
fn check_cover(op: &str, segments: &Segments, n: usize) -> Result<()> {
    if segments.total() == n {
        Ok(())
    } else {
        Err(Error::invalid_segments(
            op,
            format!("the segment lengths add up to {} but the innermost dimension has {n} elements", segments.total()),
        ))
    }
}

/// Reduces each segment of the innermost dimension; the result's innermost extent is
/// `segments.count()`. `z` is the seed (`None` for `fold1`); `op` names the combinator in errors.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Segments, Vector};
/// let v = Vector::from_vec(vec![1, 2, 3, 4, 5]);
/// let s = Segments::from_offsets(vec![0, 2, 2, 5])?;
/// let sums = cpu::fold_seg(&Ctx::new(), &v, &s, Some(0), |a, b| a + b, "fold_seg")?;
/// assert_eq!(sums.to_vec(), vec![3, 0, 12]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn fold_seg<E: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    segments: &Segments,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    op: &str,
) -> Result<Array<E, R>> {
    fold_seg_imap(cx, a, segments, z, f, op, |_, v| v)
}

/// [`fold_seg`] writing `post(ix, v)` for the total `v` of the segment at index `ix` of the
/// result (its innermost coordinate is the segment's number).
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Segments, Vector};
/// let v = Vector::from_vec(vec![1, 2, 3, 4, 5]);
/// let s = Segments::from_offsets(vec![0, 2, 2, 5])?;
/// let tagged = cpu::fold_seg_imap(&Ctx::new(), &v, &s, Some(0), |a, b| a + b, "fold_seg", |[i], t| (i, t > 0))?;
/// assert_eq!(tagged.to_vec(), vec![(0, true), (1, false), (2, true)]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn fold_seg_imap<E: Elem, B: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    segments: &Segments,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    op: &str,
    post: impl Fn([usize; R], E) -> B + Sync + Send,
) -> Result<Array<B, R>> {
    let a = &a.view();
    let (rows, n) = innermost(op, a.shape())?;
    check_cover(op, segments, n)?;
    let count = segments.count();
    let offs = segments.offsets();
    if z.is_none() && rows > 0 && offs.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::empty_reduction(op));
    }
    let shape = with_innermost(a.shape(), count);
    // The check of the unfused fold's result: the same error, or none, as without the epilogue.
    alloc_len::<E, R>(op, shape)?;
    let seg = |k: usize| (k / count.max(1), k % count.max(1));
    let out = par_items(
        rows * count,
        |k| {
            let (r, s) = seg(k);
            r * n + offs[s]
        },
        |k| k,
        |k, mut out| {
            let (r, s) = seg(k);
            let run = r * n + offs[s]..r * n + offs[s + 1];
            if let Some(v) = fold_range(a, run, z, &f) {
                out.set(0, post(shape::unravel(k, shape), v));
            }
        },
    )?;
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, out))
}

/// Left scans restarted at every segment of the innermost dimension. `kind` is `WithSeed`
/// (`scanl_seg`: `len + 1` results per segment starting with `z`, which is required) or
/// `Inclusive` (`scanl1_seg`: `len` results, `z` must be `None`).
///
/// ```
/// use accel_core::ir::ScanKind;
/// use accel_runtime::{cpu::{self, Ctx}, Segments, Vector};
/// let v = Vector::from_vec(vec![1, 2, 3, 4, 5]);
/// let s = Segments::from_offsets(vec![0, 2, 2, 5])?;
/// let out = cpu::scan_seg(&Ctx::new(), &v, &s, ScanKind::WithSeed, Some(0), |a, b| a + b)?;
/// assert_eq!(out.to_vec(), vec![0, 1, 3, 0, 0, 3, 7, 12]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn scan_seg<E: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    segments: &Segments,
    kind: ScanKind,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
) -> Result<Array<E, R>> {
    scan_seg_with(cx, a, segments, kind, z, f, |_, _| |_, v| v)
}

/// [`scan_seg`] writing `post(ix, v)` for each result `v` at index `ix` of the output.
///
/// ```
/// use accel_core::ir::ScanKind;
/// use accel_runtime::{cpu::{self, Ctx}, Segments, Vector};
/// let v = Vector::from_vec(vec![1, 2, 3, 4, 5]);
/// let s = Segments::from_offsets(vec![0, 2, 2, 5])?;
/// let out = cpu::scan_seg_imap(&Ctx::new(), &v, &s, ScanKind::Inclusive, None, |a, b| a + b, |[i], x| x * 10 + i as i32)?;
/// assert_eq!(out.to_vec(), vec![10, 31, 32, 73, 124]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn scan_seg_imap<E: Elem, B: Elem, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    segments: &Segments,
    kind: ScanKind,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync + Send,
    post: impl Fn([usize; R], E) -> B + Sync + Send,
) -> Result<Array<B, R>> {
    let post = &post;
    scan_seg_with(cx, a, segments, kind, z, f, |shape, start| run_post(post, shape, start))
}

/// [`scan_seg`] with the epilogue `run_post(shape, start)` of the segment whose output starts at
/// linear position `start` (see [`run_post`]).
fn scan_seg_with<E: Elem, B: Elem, P: Fn(usize, E) -> B + Sync, const R: usize>(
    cx: &Ctx,
    a: &impl Source<E, R>,
    segments: &Segments,
    kind: ScanKind,
    z: Option<E>,
    f: impl Fn(E, E) -> E + Sync,
    run_post: impl Fn([usize; R], usize) -> P + Sync,
) -> Result<Array<B, R>> {
    let a = &a.view();
    let (op, extra) = match (kind, z) {
        (ScanKind::WithSeed, Some(_)) => ("scanl_seg", 1),
        (ScanKind::Inclusive, None) => ("scanl1_seg", 0),
        (ScanKind::WithSeed, None) => {
            return Err(Error::invalid_argument("scanl_seg", "this scan needs a seed"));
        }
        (ScanKind::Inclusive, Some(_)) => {
            return Err(Error::invalid_argument("scanl1_seg", "this scan takes no seed"));
        }
        (ScanKind::ExclusiveAndTotal, _) => {
            return Err(Error::invalid_argument("scanl_seg", "segmented scans are `WithSeed` or `Inclusive`"));
        }
    };
    let (rows, n) = innermost(op, a.shape())?;
    check_cover(op, segments, n)?;
    let count = segments.count();
    let offs = segments.offsets();
    let out_n = n.checked_add(extra * count).ok_or_else(|| Error::invalid_argument(op, "the result is too large"))?;
    let shape = with_innermost(a.shape(), out_n);
    // The check of the unfused scan's result: the same error, or none, as without the epilogue.
    if alloc_len::<E, R>(op, shape)? == 0 {
        cx.check()?;
        return Ok(Array::from_parts_unchecked(shape, B::Columns::default()));
    }
    let items = rows.checked_mul(count).ok_or_else(|| Error::invalid_argument(op, "too many segments"))?;
    let layout = Layout { dir: Direction::Left, seed: z, shift: extra as isize };
    let seg = |k: usize| (k / count.max(1), k % count.max(1));
    let out_start = |r: usize, s: usize| r * out_n + offs[s] + extra * s;
    let out = par_items(
        items,
        |k| {
            let (r, s) = seg(k);
            r * n + offs[s]
        },
        |k| {
            let (r, s) = seg(k);
            out_start(r, s)
        },
        |k, out| {
            let (r, s) = seg(k);
            scan_row(a, r * n + offs[s]..r * n + offs[s + 1], out, layout, &f, &run_post(shape, out_start(r, s)));
        },
    )?;
    cx.check()?;
    Ok(Array::from_parts_unchecked(shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Matrix, Vector};

    #[test]
    fn segments_of_every_row() {
        let cx = Ctx::new();
        let m = Matrix::from_shape_fn([2, 4], |[i, j]| (i * 10 + j) as i32);
        let s = Segments::from_offsets(vec![0, 1, 4]).unwrap();
        let sums = fold_seg(&cx, &m, &s, None, |a, b| a + b, "fold1_seg").unwrap();
        assert_eq!((sums.shape(), sums.to_vec()), ([2, 2], vec![0, 6, 10, 36]));
        let sc = scan_seg(&cx, &m, &s, ScanKind::Inclusive, None, |a, b| a + b).unwrap();
        assert_eq!(sc.to_vec(), vec![0, 1, 3, 6, 10, 11, 23, 36]);
        let sc = scan_seg(&cx, &m, &s, ScanKind::WithSeed, Some(100), |a, b| a + b).unwrap();
        assert_eq!(sc.shape(), [2, 6]);
        assert_eq!(sc.to_vec()[6..], [100, 110, 100, 111, 123, 136]);
    }

    #[test]
    fn bad_segments_are_errors() {
        let cx = Ctx::new();
        let v = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
        let short = Segments::from_offsets(vec![0, 2]).unwrap();
        let e = fold_seg(&cx, &v, &short, Some(0.0), |a, b| a + b, "fold_seg").unwrap_err();
        assert!(matches!(e, Error::InvalidSegments { .. }), "{e}");
        assert!(scan_seg(&cx, &v, &short, ScanKind::Inclusive, None, |a, b| a + b).is_err());
        let with_empty = Segments::from_offsets(vec![0, 3, 3]).unwrap();
        let e = fold_seg(&cx, &v, &with_empty, None, f32::max, "maximum").unwrap_err();
        assert_eq!(e, Error::empty_reduction("maximum"));
        let r = fold_seg(&cx, &v, &with_empty, Some(0.0), |a, b| a + b, "fold_seg").unwrap();
        assert_eq!(r.to_vec(), vec![6.0, 0.0]);
        assert!(scan_seg(&cx, &v, &with_empty, ScanKind::WithSeed, None, |a, b| a + b).is_err());
        let no_rows = Matrix::from_shape_vec([0, 3], Vec::<f32>::new()).unwrap();
        assert!(fold_seg(&cx, &no_rows, &with_empty, None, f32::max, "maximum").unwrap().is_empty());
    }
}
