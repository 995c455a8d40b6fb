//! Work splitting shared by the skeletons.
//!
//! Every skeleton allocates its result once and hands disjoint regions of it to rayon tasks
//! ([`par_write`]). Regions are either uniform chunks of the output ([`par_build`],
//! [`par_build_indexed`]) or groups of consecutive *items* (rows, segments) of about equal work
//! ([`par_items`]), so that a million short segments and one huge segment both split well. A task
//! is never smaller than [`MIN_CHUNK`] elements, below which rayon's overhead (about a
//! microsecond a task) outweighs the work.
//!
//! A result whose every element is computed by one formula ([`par_build`] and its kin) is
//! written into storage that nothing wrote before ([`par_fill`]); the others are filled with the
//! default element first, so that a region can be read back while it is built.
//!
//! The skeletons reach rayon through [`par_tasks`] and [`par_parts`] alone, which take their task
//! as a trait object. The skeletons are generic over the program's closures, and a parallel loop
//! of rayon's compiled for each of them (its job, join and bridge functions, a few dozen a loop)
//! made a third of the machine code of a crate of `#[accel]` functions, and of its build time.
//! Behind a trait object rayon's side is compiled once per result type; the task's own loop,
//! where the time goes, is still compiled for its closures, and the indirect call is made once
//! per task (thousands of elements).

use super::source::Source;
use crate::elem::{Columns, ColumnsFresh, ColumnsMut, Elem};
use crate::shape;
use accel_core::{Error, Result};
use rayon::iter::{IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::Range;

/// Fewest elements worth a task of their own.
pub(crate) const MIN_CHUNK: usize = 1 << 14;

/// Tasks per thread: more than one, so that work stealing can even out uneven tasks.
const TASKS_PER_THREAD: usize = 4;

/// Length of the chunks that `work` elements are cut into.
pub(crate) fn chunk_len(work: usize) -> usize {
    work.div_ceil(rayon::current_num_threads() * TASKS_PER_THREAD).max(MIN_CHUNK)
}

/// Whether a run of `n` elements is worth splitting at all.
pub(crate) fn is_long(n: usize) -> bool {
    n >= 2 * MIN_CHUNK
}

/// A writable region of a result being built.
pub(crate) struct Out<'a, E: Elem>(<E::Columns as Columns<E>>::Mut<'a>);

impl<'a, E: Elem> Out<'a, E> {
    pub(crate) fn new(cols: &'a mut E::Columns) -> Self {
        Out(cols.view_mut())
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> E {
        self.0.get(i)
    }

    #[inline]
    pub(crate) fn set(&mut self, i: usize, e: E) {
        self.0.set(i, e);
    }

    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.0.split_at(mid);
        (Out(a), Out(b))
    }

    /// The regions `0..ends[0]`, `ends[0]..ends[1]`, ...; the last end must be `len()`.
    pub(crate) fn split_ends(self, ends: &[usize]) -> Vec<Self> {
        split_at_ends(self, ends, Self::split_at)
    }
}

/// A region of a result whose storage is not yet written ([`par_fill`]): its task writes every
/// element, in order, a block at a time.
pub(crate) struct Fresh<'a, E: Elem> {
    slots: <E::Columns as Columns<E>>::Fresh<'a>,
    written: usize,
}

impl<E: Elem> Fresh<'_, E> {
    /// Number of elements of the region.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Number of elements written so far.
    #[inline]
    pub(crate) fn written(&self) -> usize {
        self.written
    }

    /// Writes `block` after the elements written so far. Panics if it runs past the region.
    #[inline]
    pub(crate) fn push(&mut self, block: &[E]) {
        self.slots.write_mapped(self.written, block, |e| e);
        self.written += block.len();
    }
}

/// `view`'s regions `0..ends[0]`, `ends[0]..ends[1]`, ..., cut by `split_at`; the last end is the
/// view's length.
fn split_at_ends<V>(view: V, ends: &[usize], split_at: impl Fn(V, usize) -> (V, V)) -> Vec<V> {
    let mut parts = Vec::with_capacity(ends.len());
    let mut rest = view;
    let mut at = 0;
    for &end in ends {
        let (part, tail) = split_at(rest, end - at);
        parts.push(part);
        rest = tail;
        at = end;
    }
    parts
}

/// The element count of a result of `shape`, if its storage can be allocated at all.
pub(crate) fn alloc_len<E: Elem, const R: usize>(op: &str, shape: [usize; R]) -> Result<usize> {
    let n = shape::checked_size(shape)
        .ok_or_else(|| Error::invalid_argument(op, format!("a result of shape {shape:?} is too large to allocate")))?;
    match n.checked_mul(size_of::<E>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(n),
        _ => Err(Error::out_of_host_memory(n.saturating_mul(size_of::<E>()))),
    }
}

/// The number of rows and the innermost extent of `shape`; rank 0 has no innermost dimension.
pub(crate) fn innermost<const R: usize>(op: &str, shape: [usize; R]) -> Result<(usize, usize)> {
    if R == 0 {
        return Err(Error::invalid_argument(op, "a scalar (rank 0) has no innermost dimension to work along"));
    }
    let rows = shape[..R - 1].iter().fold(1usize, |acc, &d| acc.saturating_mul(d));
    Ok((rows, shape[R - 1]))
}

/// `shape` with its innermost extent replaced.
pub(crate) fn with_innermost<const R: usize>(mut shape: [usize; R], n: usize) -> [usize; R] {
    shape[R - 1] = n;
    shape
}

/// Uniform chunk ends covering `0..n`.
pub(crate) fn uniform_ends(n: usize, chunk: usize) -> Vec<usize> {
    (1..=n.div_ceil(chunk)).map(|c| (c * chunk).min(n)).collect()
}

/// Allocates `ends.last()` elements and fills region `g` (`ends[g - 1]..ends[g]`, from 0) with
/// `fill(g, region)` on the thread pool; returns the columns and each region's result in order.
pub(crate) fn par_write<E: Elem, T: Send>(
    ends: &[usize],
    fill: impl Fn(usize, Out<'_, E>) -> T + Sync,
) -> Result<(E::Columns, Vec<T>)> {
    let total = ends.last().copied().unwrap_or(0);
    let mut cols = E::Columns::filled(total, E::default())?;
    let results = par_parts(Out::new(&mut cols).split_ends(ends), &fill);
    Ok((cols, results))
}

/// `task(k)` for every `k` in `0..count`: [`par_parts`] over parts that hold nothing.
pub(crate) fn par_tasks<T: Send>(count: usize, task: &(dyn Fn(usize) -> T + Sync)) -> Vec<T> {
    par_parts(vec![(); count], &|k, ()| task(k))
}

/// `task(g, part)` for each of `parts` (disjoint regions of a result, slices of a buffer), on
/// the thread pool where there are several; the results in order. One part runs on the calling
/// thread, which then waits for no other.
pub(crate) fn par_parts<V: Send, T: Send>(parts: Vec<V>, task: &(dyn Fn(usize, V) -> T + Sync)) -> Vec<T> {
    if parts.len() <= 1 {
        parts.into_iter().enumerate().map(|(g, part)| task(g, part)).collect()
    } else {
        parts.into_par_iter().enumerate().map(|(g, part)| task(g, part)).collect()
    }
}

/// As [`par_write`] where `fill(g, region)` writes every element of its region, in order: the
/// storage is not filled with a value first. (Filled, a saxpy made four passes over memory where
/// rayon's `collect` makes three, and ran 1.3 times slower on the 2-core machine.)
fn par_fill<E: Elem>(ends: &[usize], fill: impl Fn(usize, &mut Fresh<'_, E>) + Sync) -> Result<E::Columns> {
    let total = ends.last().copied().unwrap_or(0);
    let mut cols = E::Columns::with_room(total)?;
    let regions = split_at_ends(cols.fresh(total), ends, ColumnsFresh::split_at);
    par_parts(regions, &|g, slots| {
        let mut region = Fresh { slots, written: 0 };
        fill(g, &mut region);
        // Before the columns take the slots as theirs: a region left short is a bug here, never
        // memory read unwritten.
        assert_eq!(region.written, region.len(), "region {g} of a result was not written in full");
    });
    // SAFETY: the regions cover `0..total`, and each was written in full (asserted above).
    unsafe { cols.commit_fresh(total) };
    Ok(cols)
}

/// `n` elements, element `i` being `f(i)`.
pub(crate) fn par_build<E: Elem>(n: usize, f: impl Fn(usize) -> E + Sync) -> Result<E::Columns> {
    par_build_indexed([n], |i, _| f(i))
}

/// The elements of `shape`, element `ix` (at linear position `i`) being `f(i, ix)`; indices are
/// stepped, not divided out, per element.
pub(crate) fn par_build_indexed<E: Elem, const R: usize>(
    shape: [usize; R],
    f: impl Fn(usize, [usize; R]) -> E + Sync,
) -> Result<E::Columns> {
    let inner = if R == 0 { 1 } else { shape[R - 1] };
    par_build_split(shape, |_| 0..inner, &f, &f)
}

/// As [`par_build_indexed`], with two formulas: element `ix` is `inside(i, ix)` where its
/// innermost coordinate lies in `span(ix)` (a range of that row's, decided once per row), else
/// `outside(i, ix)`. No block of elements straddles the span's ends, so each block runs one
/// formula with no test per element (a stencil's interior against its border).
pub(crate) fn par_build_split<E: Elem, const R: usize>(
    shape: [usize; R],
    span: impl Fn([usize; R]) -> Range<usize> + Sync,
    inside: impl Fn(usize, [usize; R]) -> E + Sync,
    outside: impl Fn(usize, [usize; R]) -> E + Sync,
) -> Result<E::Columns> {
    let n = shape::size(shape);
    let chunk = chunk_len(n);
    par_fill(&uniform_ends(n, chunk), |g, out: &mut Fresh<'_, E>| {
        let start = g * chunk;
        let mut ix = shape::unravel(start, shape);
        // A block of elements at a time, computed into a buffer on the stack and then stored:
        // the buffer aliases nothing the formula reads, so the loads it makes of its inputs'
        // storage (pointers, lengths) leave the loop and the loop vectorises. Stored straight
        // into the result, every element reloaded them (saxpy ran 3.4 times slower than rayon's).
        // A block stays within a row of the innermost dimension, whose index is then an affine
        // counter (stepping the whole index per element hid it from the vectoriser).
        let mut block = [E::default(); BLOCK];
        let inner = if R == 0 { 1 } else { shape[R - 1] };
        let mut row_span = span(ix);
        while out.written() < out.len() {
            let done = out.written();
            let at = if R == 0 { 0 } else { ix[R - 1] };
            let is_inside = row_span.contains(&at);
            // The block ends at the row's end, and at the span's start or end.
            let edge = if is_inside {
                row_span.end
            } else if at < row_span.start {
                row_span.start
            } else {
                inner
            }
            .min(inner);
            let len = BLOCK.min(out.len() - done).min(edge - at);
            let block = &mut block[..len];
            if is_inside {
                fill_row_block(block, start + done, ix, &inside);
            } else {
                fill_row_block(block, start + done, ix, &outside);
            }
            out.push(block);
            // To the element after the block: its row's next, or the next row's first.
            if R > 0 {
                ix[R - 1] = at + len - 1;
            }
            shape::step(shape, &mut ix);
            if R > 0 && at + len == inner {
                row_span = span(ix);
            }
        }
    })
}

/// Elements that [`par_build_indexed`] computes between two stores into the result.
const BLOCK: usize = 64;

/// `block[k] = f(i + k, ix + k)` for the elements `ix, ix + 1, ..` of one row of the innermost
/// dimension (at linear positions `i, i + 1, ..`). A function of its own, never inlined: its
/// loop is optimised alone, the index an affine counter and the only stores into `block`, which
/// aliases nothing `f` reads, so it vectorises.
#[inline(never)]
fn fill_row_block<E: Elem, const R: usize>(
    block: &mut [E],
    i: usize,
    ix: [usize; R],
    f: &impl Fn(usize, [usize; R]) -> E,
) {
    let at = if R == 0 { 0 } else { ix[R - 1] };
    for (k, slot) in block.iter_mut().enumerate() {
        let mut here = ix;
        if R > 0 {
            here[R - 1] = at + k;
        }
        *slot = f(i + k, here);
    }
}

/// Calls `f(i, ix)` for every index `ix` of `shape` (at linear position `i`) in row-major order, a
/// row of the innermost dimension at a time (the index is stepped only between rows).
pub(crate) fn for_each_index<const R: usize>(shape: [usize; R], f: impl FnMut(usize, [usize; R])) {
    for_each_index_in(shape, 0..shape::size(shape), f);
}

/// [`for_each_index`] over the linear positions `run` alone. Within a row the innermost
/// coordinate is a plain counter: stepped per element, the whole index went through a compare
/// and a conditional move at every element, a chain each element's reads waited on.
pub(crate) fn for_each_index_in<const R: usize>(
    shape: [usize; R],
    run: Range<usize>,
    mut f: impl FnMut(usize, [usize; R]),
) {
    if run.is_empty() {
        return;
    }
    if R == 0 {
        return f(0, [0; R]);
    }
    let inner = shape[R - 1];
    let mut ix = shape::unravel(run.start, shape);
    let mut i = run.start;
    while i < run.end {
        let at = ix[R - 1];
        let len = (inner - at).min(run.end - i);
        for k in 0..len {
            ix[R - 1] = at + k;
            f(i + k, ix);
        }
        i += len;
        shape::step(shape, &mut ix);
    }
}

/// Splits items `0..count` into consecutive groups of at least `target` work (the last may have
/// less), where `work_before(k)` is the cumulative, non-decreasing work of the items before `k`
/// and grows by at least 1 per item. Returns each group's end.
pub(crate) fn group_ends(count: usize, target: usize, work_before: impl Fn(usize) -> usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut start = 0;
    while start < count {
        let goal = work_before(start).saturating_add(target);
        let (mut lo, mut hi) = (start + 1, count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if work_before(mid) >= goal {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        ends.push(lo);
        start = lo;
    }
    ends
}

/// Runs `item(k, out)` for items `0..count` (rows, segments) in parallel groups of about equal
/// work. Item `k` reads `in_before(k)..in_before(k + 1)` and writes its own region
/// `out_before(k)..out_before(k + 1)` of the result. Returns the result.
pub(crate) fn par_items<E: Elem>(
    count: usize,
    in_before: impl Fn(usize) -> usize + Sync,
    out_before: impl Fn(usize) -> usize + Sync,
    item: impl Fn(usize, Out<'_, E>) + Sync,
) -> Result<E::Columns> {
    Ok(par_item_groups(count, in_before, out_before, item)?.0)
}

/// [`par_items`] of items that each give a value too: returns the result and the values in
/// item order. (Without values, [`par_items`] gathers nothing on the calling thread: putting
/// together a value per item, even an empty one, was a serial pass over the items, 31 µs for a
/// sparse product's 2^17 rows, which 16 threads wait for.)
pub(crate) fn par_items_valued<E: Elem, T: Send>(
    count: usize,
    in_before: impl Fn(usize) -> usize + Sync,
    out_before: impl Fn(usize) -> usize + Sync,
    item: impl Fn(usize, Out<'_, E>) -> T + Sync,
) -> Result<(E::Columns, Vec<T>)> {
    let (cols, groups) = par_item_groups(count, in_before, out_before, item)?;
    Ok((cols, groups.into_iter().flatten().collect()))
}

/// [`par_items_valued`] with the values left in their groups.
fn par_item_groups<E: Elem, T: Send>(
    count: usize,
    in_before: impl Fn(usize) -> usize + Sync,
    out_before: impl Fn(usize) -> usize + Sync,
    item: impl Fn(usize, Out<'_, E>) -> T + Sync,
) -> Result<(E::Columns, Vec<Vec<T>>)> {
    let work = |k: usize| in_before(k) + k;
    let ends = group_ends(count, chunk_len(work(count)), work);
    let out_ends: Vec<usize> = ends.iter().map(|&e| out_before(e)).collect();
    par_write(&out_ends, |g, out: Out<'_, E>| {
        let first = if g == 0 { 0 } else { ends[g - 1] };
        let mut values = Vec::with_capacity(ends[g] - first);
        let mut rest = out;
        for k in first..ends[g] {
            let (mine, tail) = rest.split_at(out_before(k + 1) - out_before(k));
            values.push(item(k, mine));
            rest = tail;
        }
        values
    })
}

/// Left fold of `src[range]` from `z` (`fold1` when `z` is `None`; `None` for an empty range
/// then). Short ranges fold in exact source order; long ones fold chunks in parallel and combine
/// the chunk results left to right after `z`: regrouped, never reordered.
///
/// A function of its own, never inlined, and the parallel fold in another ([`fold_chunks`]): a
/// segmented fold calls it per row, and inlined into that loop, or beside the parallel fold's
/// task, its loop kept the sum and the source's length in memory, not in registers; a sparse
/// product ran 1.6 times slower.
#[inline(never)]
pub(crate) fn fold_range<E: Elem, const R: usize>(
    src: &impl Source<E, R>,
    range: Range<usize>,
    z: Option<E>,
    f: &(impl Fn(E, E) -> E + Sync),
) -> Option<E> {
    if !is_long(range.len()) {
        let mut it = src.iter_range(range);
        let init = match z {
            Some(z) => z,
            None => it.next()?,
        };
        return Some(it.fold(init, f));
    }
    let mut parts = fold_chunks(src, range, f).into_iter();
    let init = match z {
        Some(z) => z,
        None => parts.next()?,
    };
    Some(parts.fold(init, f))
}

/// The `fold1` of each chunk of the long `range`, in parallel ([`fold_range`]).
#[inline(never)]
fn fold_chunks<E: Elem, const R: usize>(
    src: &impl Source<E, R>,
    range: Range<usize>,
    f: &(impl Fn(E, E) -> E + Sync),
) -> Vec<E> {
    let chunk = chunk_len(range.len());
    par_tasks(range.len().div_ceil(chunk), &|c| {
        let start = range.start + c * chunk;
        fold1_run(src, start..(start + chunk).min(range.end), f)
    })
}

/// `fold1` of a non-empty run, sequentially.
pub(crate) fn fold1_run<E: Elem, const R: usize>(
    src: &impl Source<E, R>,
    run: Range<usize>,
    f: &impl Fn(E, E) -> E,
) -> E {
    let mut it = src.iter_range(run);
    let first = it.next().expect("a non-empty run");
    it.fold(first, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_all_items_with_enough_work_each() {
        let weights = [5usize, 0, 0, 100, 1, 1, 1, 1, 50, 0];
        let before = |k: usize| weights[..k].iter().sum::<usize>() + k;
        let ends = group_ends(weights.len(), 10, before);
        assert_eq!(*ends.last().unwrap(), weights.len());
        let mut start = 0;
        for (g, &e) in ends.iter().enumerate() {
            assert!(e > start);
            if g + 1 < ends.len() {
                assert!(before(e) - before(start) >= 10);
            }
            start = e;
        }
        assert!(group_ends(0, 10, before).is_empty());
    }

    #[test]
    fn items_write_their_own_regions() {
        let lens = [3usize, 0, 5, 1];
        let offs: Vec<usize> = std::iter::once(0)
            .chain(lens.iter().scan(0, |a, l| {
                *a += l;
                Some(*a)
            }))
            .collect();
        let (cols, vals) = par_items_valued::<u32, usize>(
            4,
            |k| offs[k],
            |k| offs[k],
            |k, mut out| {
                for j in 0..out.len() {
                    out.set(j, k as u32);
                }
                out.len()
            },
        )
        .unwrap();
        assert_eq!(cols, vec![0, 0, 0, 2, 2, 2, 2, 2, 3]);
        assert_eq!(vals, lens);
    }

    #[test]
    fn long_folds_keep_operand_order() {
        // String-like concatenation via (first, last) pairs is associative but not commutative.
        let n = 5 * MIN_CHUNK + 7;
        let a = crate::array::Vector::from_vec((0..n as u64).map(|i| (i, i)).collect());
        let d = super::super::Delayed::new([n], |[i]: [usize; 1]| (i as u64, i as u64)).unwrap();
        let cat = |a: (u64, u64), b: (u64, u64)| {
            assert_eq!(a.1 + 1, b.0, "operands out of order");
            (a.0, b.1)
        };
        assert_eq!(fold_range(&a, 0..n, None, &cat), Some((0, n as u64 - 1)));
        assert_eq!(fold_range(&d, 0..n, None, &cat), Some((0, n as u64 - 1)));
        assert_eq!(fold_range(&d, 5..n - 2, Some((4, 4)), &cat), Some((4, n as u64 - 3)));
        assert_eq!(fold_range(&a, 3..3, None, &cat), None);
    }

    #[test]
    fn built_elements_get_their_own_index_across_blocks_rows_and_chunks() {
        // Rows shorter than a block, longer than one, of one element, and long runs that are cut
        // into chunks between rows; each element records its position and index.
        let check = |shape: [usize; 3]| {
            let cols = par_build_indexed(shape, |i, ix| (i as u64, ix[0] as u32, ix[1] as u32, ix[2] as u32)).unwrap();
            let got = <(u64, u32, u32, u32) as Elem>::Columns::to_vec(&cols);
            let want: Vec<_> = (0..shape::size(shape))
                .map(|i| {
                    let ix = shape::unravel(i, shape);
                    (i as u64, ix[0] as u32, ix[1] as u32, ix[2] as u32)
                })
                .collect();
            assert_eq!(got, want, "{shape:?}");
        };
        for shape in
            [[2, 3, 5], [3, 2, BLOCK + 7], [1, 1, 3 * BLOCK], [5, 700, 1], [2, 0, 4], [7, 3, 4 * MIN_CHUNK + 3]]
        {
            check(shape);
        }
        let cols = par_build_indexed([], |i, []| i as i32 + 7).unwrap();
        assert_eq!(cols, vec![7]);
    }

    #[test]
    fn fresh_regions_must_be_written_in_full() {
        let ends = uniform_ends(3 * MIN_CHUNK + 5, MIN_CHUNK);
        let fill = |short: usize| {
            move |g: usize, out: &mut Fresh<'_, (f32, u16)>| {
                let len = if g == 1 { out.len() - short } else { out.len() };
                out.push(&vec![(g as f32 + 0.5, g as u16); len]);
            }
        };
        let cols = par_fill(&ends, fill(0)).unwrap();
        let want: Vec<_> = (0..ends[3]).map(|i| ((i / MIN_CHUNK) as f32 + 0.5, (i / MIN_CHUNK) as u16)).collect();
        assert_eq!(<(f32, u16) as Elem>::Columns::to_vec(&cols), want);
        let left_short = std::panic::catch_unwind(|| par_fill(&ends, fill(1)));
        assert!(left_short.is_err(), "a region one element short is an internal error, never unwritten memory");
    }

    #[test]
    fn split_builds_run_the_span_inside_and_the_rest_outside() {
        // Spans that start at 0, end at the row's end, are empty, and reach past a block; rows
        // cut into chunks; each element records its index and which formula computed it.
        let check = |shape: [usize; 2]| {
            let span = |ix: [usize; 2]| match ix[0] % 4 {
                0 => 0..0,
                1 => 0..shape[1] / 2,
                2 => shape[1] / 3..shape[1],
                _ => 1.min(shape[1])..shape[1].saturating_sub(1),
            };
            let mark = |inside: bool| move |i: usize, ix: [usize; 2]| (i as u64, ix[1] as u32, inside);
            let cols = par_build_split(shape, span, mark(true), mark(false)).unwrap();
            let got = <(u64, u32, bool) as Elem>::Columns::to_vec(&cols);
            let want: Vec<_> = (0..shape::size(shape))
                .map(|i| {
                    let ix = shape::unravel(i, shape);
                    (i as u64, ix[1] as u32, span(ix).contains(&ix[1]))
                })
                .collect();
            assert_eq!(got, want, "{shape:?}");
        };
        for shape in [[4, 1], [8, 2], [5, 3 * BLOCK + 5], [9, 7], [0, 5], [6, 0], [12, MIN_CHUNK + 11]] {
            check(shape);
        }
    }

    #[test]
    fn every_index_in_row_major_order() {
        for shape in [[2, 3, 4], [3, 0, 2], [1, 1, 5], [4, 1, 1]] {
            let mut seen = Vec::new();
            for_each_index(shape, |i, ix| seen.push((i, ix)));
            let want: Vec<_> = (0..shape::size(shape)).map(|i| (i, shape::unravel(i, shape))).collect();
            assert_eq!(seen, want, "{shape:?}");
        }
        let mut scalar = Vec::new();
        for_each_index([], |i, ix| scalar.push((i, ix)));
        assert_eq!(scalar, [(0, [])]);
        // Runs that start and end inside a row, span whole rows, or are empty.
        let shape = [3, 4, 5];
        for run in [0..60, 7..8, 3..48, 5..10, 19..41, 59..60, 12..12] {
            let mut seen = Vec::new();
            for_each_index_in(shape, run.clone(), |i, ix| seen.push((i, ix)));
            let want: Vec<_> = run.clone().map(|i| (i, shape::unravel(i, shape))).collect();
            assert_eq!(seen, want, "{run:?}");
        }
    }

    #[test]
    fn oversized_results_are_errors() {
        assert!(alloc_len::<f64, 2>("generate", [usize::MAX / 4, 2]).is_err());
        assert_eq!(alloc_len::<f64, 2>("generate", [3, 2]), Ok(6));
        assert!(innermost("fold", []).is_err());
        assert_eq!(innermost("fold", [2, 0]), Ok((2, 0)));
        assert_eq!(innermost("fold", [0, 3]), Ok((0, 3)));
    }
}
