//! Irregular output sizes: `expand` (each element gives `count(x)` results) and `filter`.
//!
//! Algorithm, in three phases: (1) in parallel over chunks of the input, evaluate `count` (or
//! the predicate) once per element, keep the results, and total them per chunk; (2) scan the
//! chunk totals sequentially into output offsets, checking for overflow; (3) write the results.
//! `filter` writes each input chunk's kept elements into that chunk's region of the output.
//! `expand` turns the counts into per-element output offsets and cuts the *output* into equal
//! chunks instead, finding each chunk's first element by binary search, so one element with a
//! huge count is spread over all threads as well.
//!
//! Memory traffic: one read of the input per phase that needs it, one `usize` per element for
//! the offsets (`expand`) or one `bool` (`filter`), one write per result. Phase 3 reads only the
//! elements that give results (for `expand`, those with a non-zero count), so a
//! [`Delayed`](super::Delayed) input computes every element in phase 1 and those again.
//!
//! Limits: a negative count is `InvalidArgument`; `count` and the predicate run exactly once per
//! element, `value` once per result.

use super::Ctx;
use super::par::{Out, chunk_len, par_parts, par_write, uniform_ends};
use super::source::Source;
use crate::array::{Array, Vector};
use crate::elem::{Columns, Elem, IndexLike};
use accel_core::{Error, Result};

/// For each element `x` in order, `count(x)` results `value(x, 0)`, .., `value(x, count - 1)`.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = Vector::from_vec(vec![2u32, 0, 3]);
/// let out = cpu::expand(&Ctx::new(), &v, |x| x, |x, i| x * 10 + i as u32)?;
/// assert_eq!(out.to_vec(), vec![20, 21, 30, 31, 32]);
/// assert!(cpu::expand(&Ctx::new(), &v, |_| -1i32, |x, _| x).is_err());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn expand<A: Elem, B: Elem, C: IndexLike>(
    cx: &Ctx,
    a: &impl Source<A, 1>,
    count: impl Fn(A) -> C + Sync + Send,
    value: impl Fn(A, usize) -> B + Sync + Send,
) -> Result<Vector<B>> {
    let a = &a.view();
    let n = a.len();
    let chunk = chunk_len(n);
    // Phase 1: counts, kept as exclusive offsets within each chunk, plus chunk totals.
    let mut offsets = vec![0usize; n + 1];
    let totals: Vec<Result<usize>> = par_parts(offsets[..n].chunks_mut(chunk).collect(), &|c, part: &mut [usize]| {
        let mut total = 0usize;
        let run = c * chunk..c * chunk + part.len();
        for (j, (slot, x)) in part.iter_mut().zip(a.iter_range(run)).enumerate() {
            *slot = total;
            let k = count(x);
            let k = k.to_index().ok_or_else(|| {
                Error::invalid_argument(
                    "expand",
                    format!("the count of element {} is {k:?}, which is negative", c * chunk + j),
                )
            })?;
            total = total.checked_add(k).ok_or_else(too_large)?;
        }
        Ok(total)
    });
    cx.check()?;
    // Phase 2: chunk offsets.
    let mut starts = Vec::with_capacity(totals.len());
    let mut total = 0usize;
    for t in totals {
        starts.push(total);
        total = total.checked_add(t?).ok_or_else(too_large)?;
    }
    if total.checked_mul(size_of::<B>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(too_large());
    }
    offsets[n] = total;
    par_parts(offsets[..n].chunks_mut(chunk).collect(), &|c, part: &mut [usize]| {
        part.iter_mut().for_each(|o| *o += starts[c]);
    });
    // Phase 3: equal chunks of the output, each starting at the element that covers it.
    let out_chunk = chunk_len(total);
    let offsets = &offsets;
    let (out, _) = par_write(&uniform_ends(total, out_chunk), |g, mut out: Out<'_, B>| {
        let first = g * out_chunk;
        // The element covering output `first`: the last one starting at or before it.
        let mut e = offsets[1..].partition_point(|&o| o <= first);
        let mut i = first - offsets[e];
        let mut x = a.get_at(e, [e]);
        for j in 0..out.len() {
            if offsets[e] + i == offsets[e + 1] {
                // The next element with results; those with none are not read.
                e += 1;
                while offsets[e] == offsets[e + 1] {
                    e += 1;
                }
                i = 0;
                x = a.get_at(e, [e]);
            }
            out.set(j, value(x, i));
            i += 1;
        }
    })?;
    cx.check()?;
    Ok(Array::from_parts_unchecked([total], out))
}

fn too_large() -> Error {
    Error::invalid_argument("expand", "the counts add up to more results than fit in memory")
}

/// The elements for which `pred` holds, in order.
///
/// ```
/// use accel_runtime::{cpu::{self, Ctx}, Vector};
/// let v = Vector::from_vec((0..10).collect::<Vec<i64>>());
/// assert_eq!(cpu::filter(&Ctx::new(), &v, |x| x % 3 == 0)?.to_vec(), vec![0, 3, 6, 9]);
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub fn filter<E: Elem>(cx: &Ctx, a: &impl Source<E, 1>, pred: impl Fn(E) -> bool + Sync + Send) -> Result<Vector<E>> {
    let a = &a.view();
    let n = a.len();
    let chunk = chunk_len(n);
    let mut keep = vec![false; n];
    let kept: Vec<usize> = par_parts(keep.chunks_mut(chunk).collect(), &|c, part: &mut [bool]| {
        let mut k = 0;
        let run = c * chunk..c * chunk + part.len();
        for (slot, x) in part.iter_mut().zip(a.iter_range(run)) {
            *slot = pred(x);
            k += usize::from(*slot);
        }
        k
    });
    let ends: Vec<usize> = kept
        .iter()
        .scan(0, |acc, k| {
            *acc += k;
            Some(*acc)
        })
        .collect();
    let keep = &keep;
    let (out, _) = par_write(&ends, |c, mut out: Out<'_, E>| {
        let run = c * chunk..(c * chunk + chunk).min(n);
        let kept = run.filter(|&i| keep[i]);
        for (at, i) in kept.enumerate() {
            out.set(at, a.get_at(i, [i]));
        }
    })?;
    cx.check()?;
    let len = out.len();
    Ok(Array::from_parts_unchecked([len], out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::par::MIN_CHUNK;

    #[test]
    fn one_huge_count_and_many_zeros() {
        let n = 3 * MIN_CHUNK;
        let v = Vector::from_vec((0..n as u64).collect());
        let big = 5 * MIN_CHUNK as u64 + 3;
        let count = |x: u64| {
            if x == 7 { big } else { u64::from(x % 1000 == 999) }
        };
        let got = expand(&Ctx::new(), &v, count, |x, i| (x, i)).unwrap();
        let want: Vec<(u64, usize)> = (0..n as u64).flat_map(|x| (0..count(x) as usize).map(move |i| (x, i))).collect();
        assert_eq!(got.to_vec(), want);
    }

    #[test]
    fn empty_inputs_and_outputs() {
        let cx = Ctx::new();
        let e = Vector::<i32>::from_vec(vec![]);
        assert!(expand(&cx, &e, |_| 3usize, |x, _| x).unwrap().is_empty());
        assert!(filter(&cx, &e, |_| true).unwrap().is_empty());
        let v = Vector::from_vec(vec![1, 2, 3]);
        assert!(expand(&cx, &v, |_| 0i64, |x, _| x).unwrap().is_empty());
        assert!(filter(&cx, &v, |_| false).unwrap().is_empty());
        let e = expand(&cx, &v, |_| usize::MAX / 2, |x, _| x).unwrap_err();
        assert!(e.to_string().contains("more results than fit"), "{e}");
    }
}
