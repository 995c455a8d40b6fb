//! Segmented reductions over fixed ranges of values, whatever the segment lengths: the
//! length-independent skeleton of `fold_seg` over a vector (the segments of a nested map's
//! rows, a CSR matrix's rows).
//!
//! Algorithm. The values are cut into ranges of [`RANGE`] consecutive values, one warp per range
//! (grid-stride), and each lane takes [`RANGE_ITEMS`] consecutive values of its range. A first
//! launch ([`range_starts`], one thread per range, the module's kernel) finds the row holding each
//! range's first value, so that no search of all the offsets sits on a range's critical path (the
//! merge-path decomposition of CSR products); the host keeps what it finds with the segments, so a
//! matrix multiplied again skips it. A row is *ended* by the lane whose values `(lo, hi]` hold its
//! end offset (the very first lane also ends the empty rows at offset 0); each lane finds the first
//! row it may end between its range's start row and the next range's (when 3 to 32 rows touch the
//! range, among their offsets read by the warp with one load, by shuffles, [`first_row_in_warp`];
//! otherwise by a binary search of the offsets in memory), then walks its values in order: it works
//! out the row of each of its values (stepping over the row ends, empty rows included), issues all
//! its loads, and folds them, row by row. The per-item steps are written out ([`each_item!`]) so
//! that the items stay in registers. A row that starts and ends in one lane is emitted by that
//! lane. Across lanes the warp scans (segmented by "this lane ends a row") the partial row each
//! lane leaves at its end: the first row a lane ends, begun in earlier lanes, is emitted from that
//! scan if it began in the same range; otherwise its partial over the range is the range's *head*,
//! kept in scratch with the range's *tail* (the partial of the last row it touches, from that row's
//! start in the range or over the whole range). A last launch ([`finish_ranges`], a lane per range)
//! gives each head the tails of the ranges its row spans, in order, and emits the row.
//!
//! Traffic: every value is read once, the offsets about twice per lane's values plus one load of a
//! range's by its warp (or a short search per lane), a start row per range written and read twice,
//! two partials and their flags written per range and read back once; a row spanning `r` ranges
//! costs its last range `r` partial reads in the last launch (by its lane up to [`LANE_SPAN`], else
//! by the warp, `reduce::fold_partials`). The combine is applied in order, so any associative
//! operator works (commutativity is not needed). Limits: each lane holds its values' rows and
//! values in registers ([`RANGE_ITEMS`] of each). The code generator makes the reads of the values
//! streaming loads (`View::at_streaming`, evicted first from L1 and L2): each is read once, and
//! the lines that a value's other reads come back for (a CSR product's `x`) stay in L2. A lane
//! reads its consecutive values 16 bytes a load (`View::run_streaming`) where its run is whole,
//! so that the warp asks for each sector once.
//!
//! Wide ranges ([`reduce_wide`], for rows averaging `walk::WIDE_FROM` values or more): the same
//! split into ranges, heads and tails, with ranges of thousands of values sized so that every
//! warp of the grid gets about the same number (`walk::wide_width`), and the warp folding each
//! row's piece of its range with all its lanes. Where the rows walk (`crate::reduce`) splits
//! every row into the same number of parts, so that rows of uneven lengths give some warps many
//! times the values of others, this gives each warp the same values whatever the lengths.

use crate::abi::walk::{narrow_ranges, ranges};
use crate::abi::{RANGE, RANGE_ITEMS, WARP};
use crate::device;
use crate::elem::DeviceElem;
use crate::reduce::{fold_partials, fold_span_ordered, fold_span_striped};
use crate::view::SegView;
use crate::warp::{self, cat};

/// Where a range keeps its partials: `store(range, slot, partial)` (slot [`HEAD`] or [`TAIL`],
/// called once per slot per range from one lane) and `load(range, slot)`, from the second launch.
pub struct Partials<S, L> {
    pub store: S,
    pub load: L,
}

/// Slot of a range's head: the partial, over the range, of the first row it ends when that row
/// began in an earlier range (`None` otherwise).
pub const HEAD: usize = 0;
/// Slot of a range's tail: the partial of the last row it touches, from that row's start in the
/// range (or over the whole range), `None` when the range ends at a row end.
pub const TAIL: usize = 1;

/// `$body` once for each of a lane's [`RANGE_ITEMS`] items, `$j` going 0 to 7, written out: LLVM
/// does not fully unroll a loop that holds another loop (the steps over row ends), and a rolled
/// loop over the items keeps them in local memory.
macro_rules! each_item {
    ($j:ident, $body:block) => {
        each_item!(@ $j, $body, 0 1 2 3 4 5 6 7)
    };
    (@ $j:ident, $body:block, $($k:literal)*) => {{
        const _: () = assert!(RANGE_ITEMS == [$($k),*].len(), "each_item! writes out every item");
        $({
            let $j: usize = $k;
            $body
        })*
    }};
}

/// Phase 0: the row holding the first value of every range of `width` values, and of the end
/// (`starts[k]` for `k` in `0..=ranges(total, width)`, the row of value `min(k * width, total)`;
/// row 0 for the first range, so that it ends the empty rows at offset 0). One thread per entry,
/// grid-stride.
///
/// # Safety
/// Called from every thread of a 1-D launch; `starts` holds `ranges(total, width) + 1` entries.
#[inline(always)]
pub unsafe fn range_starts(segments: SegView, width: usize, starts: *mut usize) {
    let n = ranges(segments.total, width) + 1;
    let mut k = device::global_thread();
    while k < n {
        let row = if k == 0 { 0 } else { segments.segment_of((k * width).min(segments.total)) };
        // SAFETY: `k < n`, the entries the caller provides.
        unsafe { *starts.add(k) = row };
        k += device::grid_threads();
    }
}

/// How [`reduce_ranges`] reads value `i` of row `row`: `prefetch(i)`, reads that wait on nothing
/// (issued for all of a lane's values before anything else; streaming loads, from the code
/// generator), then `finish(prefetched, i, row)`; `prefetch_run(i)` makes the prefetches of the
/// [`RANGE_ITEMS`] values from `i` (a multiple of it) at once, with 16-byte loads where it can
/// (`View::run_streaming`), for a lane whose values are all there; `by_row` says whether `finish`
/// reads its row (if not, no row is worked out per value).
pub struct Reads<P, R, F> {
    pub prefetch: P,
    pub prefetch_run: R,
    pub finish: F,
    pub by_row: bool,
}

/// Phase 1: every row that begins in the range that ends it is emitted (`emit(row, total)`, once
/// per row, `None` for an empty row); the heads and tails of the ranges are stored.
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps, over `segments` of
/// `total` values, after [`range_starts`] filled `starts` for them (ranges of [`RANGE`] values,
/// the width its [`finish_ranges`] is then given); `reads` must be safe for every value `i` of
/// every row, `reads.prefetch_run(i)` for every multiple `i` of [`RANGE_ITEMS`] with
/// `i + RANGE_ITEMS <= total`, and give what `reads.prefetch` gives for each of those values.
#[inline(always)]
pub unsafe fn reduce_ranges<T: DeviceElem, Q: Copy, P, R, F, S, L>(
    segments: SegView,
    starts: *const usize,
    reads: Reads<P, R, F>,
    combine: impl Fn(T, T) -> T,
    partials: &Partials<S, L>,
    emit: impl Fn(usize, Option<T>),
) where
    P: Fn(usize) -> Q,
    R: Fn(usize) -> [Q; RANGE_ITEMS],
    F: Fn(Q, usize, usize) -> T,
    S: Fn(usize, usize, Option<T>),
    L: Fn(usize, usize) -> Option<T>,
{
    let rows = segments.count;
    if rows == 0 {
        return;
    }
    let total = segments.total;
    let lane = device::lane() as usize;
    // SAFETY: callers pass `s <= rows`.
    let offset = |s: usize| unsafe { segments.offset(s) };
    let mut range = device::global_warp();
    while range < narrow_ranges(total) {
        let start = range * RANGE;
        let (lo, hi) = ((start + lane * RANGE_ITEMS).min(total), (start + (lane + 1) * RANGE_ITEMS).min(total));
        // This lane ends the rows whose end offsets lie in (lo, hi]; the first lane of all also
        // those at 0.
        let first = range == 0 && lane == 0;
        let acts = lo < hi || first;
        // The reads of the lane's values first, in flight while the rows are worked out: before
        // the range's start rows and offsets, whose loads wait for each other. A whole run (every
        // lane of every range but the last) is read 16 bytes a load: the warp then asks L1 for
        // each sector of a column once, where loads of one value each, strided across the warp,
        // asked for it 8 times and at times found it evicted between two of them (`ncu` of the
        // CSR product of 4M rows of 32 on an H200: sectors asked of L1 410M -> 209M, of L2 176M
        // -> 172M; the product 1% faster, `fold_seg` over rows of 32 4%). A short run is read a
        // value a load, clamped to the run (so without conditions).
        let prefetched: Option<[Q; RANGE_ITEMS]> = if hi - lo == RANGE_ITEMS {
            // Neither bound was clamped: `lo = start + lane * RANGE_ITEMS`, a multiple of the run's
            // length, and `lo + RANGE_ITEMS = hi <= total`.
            Some((reads.prefetch_run)(lo))
        } else {
            (lo < hi).then(|| core::array::from_fn(|j| (reads.prefetch)((lo + j).min(hi - 1))))
        };
        // SAFETY: `range + 1 <= narrow_ranges(total)`, within the starts.
        let (from, to) = unsafe { (*starts.add(range), *starts.add(range + 1)) };
        // The first row each lane may end, and its offsets, found by the whole warp among the
        // offsets of the range's rows when they fit ([`first_row_in_warp`]).
        let in_warp = first_row_in_warp(segments, from, to, lo);
        let mut ends = false; // this lane ends a row
        let mut head: Option<(usize, Option<T>)> = None; // the first row it ends, begun before it
        let mut acc: Option<T> = None;
        if acts {
            let (mut s, at_s, mut end) = in_warp.unwrap_or_else(|| first_row_in_memory(segments, from, to, lo));
            let mut begun = at_s >= lo;
            // Ends the rows up to (and including) those ending at or before `limit`.
            let mut end_rows = |limit: usize, s: &mut usize, acc: &mut Option<T>, begun: &mut bool, end: &mut usize| {
                while *s < rows && *end <= limit {
                    if *begun {
                        emit(*s, *acc);
                    } else {
                        head = Some((*s, *acc));
                    }
                    ends = true;
                    *s += 1;
                    *acc = None;
                    *begun = true;
                    if *s < rows {
                        *end = offset(*s + 1);
                    }
                }
            };
            if let Some(prefetched) = prefetched {
                // The row of each value where the reads need it, then the values, then the fold.
                let mut at = [s; RANGE_ITEMS];
                if reads.by_row {
                    let (mut walk, mut walk_end) = (s, end);
                    each_item!(j, {
                        let k = lo + j;
                        if k < hi {
                            // The last row ends at `total > k`: the walk stays within the rows.
                            while walk_end <= k {
                                walk += 1;
                                walk_end = offset(walk + 1);
                            }
                            at[j] = walk;
                        }
                    });
                }
                // Reads that do not need the row are made for every item, items past `hi`
                // repeating the last one: with no branch around each, their loads are all in
                // flight together (a sparse product's gathers `x[col]`), and a repeated read
                // fails only where the item it repeats does. Reads by row keep the condition:
                // made for every item, their values spill (row variances: 12% slower).
                let xs: [T; RANGE_ITEMS] = core::array::from_fn(|j| {
                    if reads.by_row {
                        if lo + j < hi { (reads.finish)(prefetched[j], lo + j, at[j]) } else { T::zero() }
                    } else {
                        let x = (reads.finish)(prefetched[j], (lo + j).min(hi - 1), s);
                        if lo + j < hi { x } else { T::zero() }
                    }
                });
                each_item!(j, {
                    let k = lo + j;
                    if k < hi {
                        // Rows ending at or before value k end before it.
                        if end <= k {
                            end_rows(k, &mut s, &mut acc, &mut begun, &mut end);
                        }
                        acc = cat(acc, Some(xs[j]), &combine);
                    }
                });
            }
            end_rows(hi, &mut s, &mut acc, &mut begun, &mut end);
        }
        // The partial each lane receives from the lanes before it: what they left of its first
        // row (a scan segmented by the lanes that end a row).
        let before = scan_tails(ends, acc, &combine);
        let mut tile_head: Option<T> = None;
        let mut pending = false;
        if let Some((row, mine)) = head {
            let value = cat(before, mine, &combine);
            if offset(row) >= start {
                emit(row, value);
            } else {
                // Only the range's first row end can continue a row of an earlier range.
                tile_head = value;
                pending = true;
            }
        }
        // The range's tail: the last acting lane's partial after its last end, joined to what
        // the lanes before it left (its inclusive scan value).
        let tail = cat(if ends { None } else { before }, acc, &combine);
        // Lane 0 always acts (`lo < hi` in every range but the first of no values).
        let last_lane = WARP as u32 - 1 - device::ballot(acts).leading_zeros();
        let pending_lanes = device::ballot(pending);
        if lane as u32 == last_lane {
            (partials.store)(range, TAIL, tail);
        }
        if pending_lanes == 0 {
            if lane == 0 {
                (partials.store)(range, HEAD, None);
            }
        } else if pending {
            (partials.store)(range, HEAD, tile_head);
        }
        range += device::grid_warps();
    }
}

/// The first row a lane whose values start at `lo` may end, and its start and end offsets: the
/// row of value `lo` (the last row starting at or before it, so empty rows are stepped over), or
/// row 0 for `lo == 0`, so that the first lane of all ends the empty rows at offset 0. It lies
/// between the range's start row `from` and the next range's `to` (`offset(from) <= lo`).
///
/// Found by a binary search of the offsets in memory, each probe waiting for the one before.
#[inline(always)]
fn first_row_in_memory(segments: SegView, from: usize, to: usize, lo: usize) -> (usize, usize, usize) {
    // SAFETY: rows `from..=to + 1` are at most `count`, within the offsets.
    let offset = |s: usize| unsafe { segments.offset(s) };
    let s = if lo == 0 { 0 } else { from + crate::search::last_at_most(to - from + 1, |d| offset(from + d), lo) };
    (s, offset(s), offset(s + 1))
}

/// [`first_row_in_memory`]'s answer, found by the warp when the range's rows past `from` number
/// [`FEW_ROWS`] to 31 (rows averaging 8 to about 100 values): the warp reads their offsets with
/// one load, a lane each, and every lane finds its row among them by five steps of binary lifting
/// over shuffles, with no dependent load on the way (the sparse product of 4M rows of 32 values
/// took 5% less time on an H200). `None` otherwise: a range within one or two rows needs a probe
/// or none, and one of many short rows more offsets than a warp holds.
///
/// All 32 lanes call it with the same `from` and `to`.
#[inline(always)]
fn first_row_in_warp(segments: SegView, from: usize, to: usize, lo: usize) -> Option<(usize, usize, usize)> {
    if !(FEW_ROWS..WARP).contains(&(to - from)) {
        return None;
    }
    let batch = OffsetBatch::at(segments, from);
    let d = crate::search::last_at_most_in_warp(to - from + 1, |d| batch.mine.shfl_idx(d as u32), lo);
    let d = if lo == 0 { 0 } else { d };
    let at = batch.mine.shfl_idx(d as u32);
    let next = batch.mine.shfl_idx((d + 1).min(WARP - 1) as u32);
    // SAFETY: `from + d + 1 <= to + 1 <= count`, within the offsets.
    let end = if d + 1 < WARP { next } else { unsafe { segments.offset(from + d + 1) } };
    Some((from + d, at, end))
}

/// The fewest rows past a range's start row for which [`first_row_in_warp`] searches.
const FEW_ROWS: usize = 2;

/// The exclusive scan of the lanes' tails, segmented by the lanes that end a row: each lane
/// receives the combination, in lane order, of the tails of the lanes before it back to (and
/// including) the last one that ends a row. All 32 lanes must call it.
#[inline(always)]
fn scan_tails<T: DeviceElem>(ends: bool, tail: Option<T>, combine: &impl Fn(T, T) -> T) -> Option<T> {
    let lane = device::lane();
    // Inclusive scan of (ends, tail) under (f1, v1) . (f2, v2) = (f1 | f2, f2 ? v2 : v1 . v2).
    let (mut f, mut v) = (ends, tail);
    let mut d = 1;
    while d < WARP as u32 {
        let other_f = device::shfl_up(f as u32, d) != 0;
        let other_has = device::shfl_up(v.is_some() as u32, d) != 0;
        let other_v = v.unwrap_or(T::zero()).shfl_up(d);
        if lane >= d {
            if !f {
                v = cat(other_has.then_some(other_v), v, combine);
            }
            f |= other_f;
        }
        d *= 2;
    }
    // Exclusive: the inclusive value of the lane before.
    let before_has = device::shfl_up(v.is_some() as u32, 1) != 0;
    let before_v = v.unwrap_or(T::zero()).shfl_up(1);
    (lane > 0 && before_has).then_some(before_v)
}

/// Phase 1 of the wide walk: ranges of `width` values (`crate::abi::walk::wide_width`, a
/// multiple of 128), a warp each, grid-stride. The warp takes the rows of its range in order,
/// from the one holding its first value (`starts`, [`range_starts`] of the same width): it
/// folds each row's piece in the range with all its lanes, striped over whole quads when
/// `striped` (a commutative operator, [`fold_span_striped`]) or tile by tile in order
/// ([`fold_span_ordered`]), and emits a row that begins and ends in the range; the piece of a
/// row begun in an earlier range is the range's head, that of a row going on past it its tail
/// (the layout of [`reduce_ranges`], which [`finish_ranges`] completes). The warp's lanes hold
/// the offsets of 32 rows at a time, read with one load, so that a range of many short rows
/// waits on no offset read per row.
///
/// Traffic: every value read once, with whole-warp coalesced loads (16 bytes a lane per 4-byte
/// column when striped); the offsets of its rows and a start row per range; two partials per
/// range. Limits: a range's rows are folded one after the other, each with a reduction across
/// the warp, so rows much shorter than a warp's loads waste lanes (the host walks rows averaging
/// under `walk::WIDE_FROM` values by [`reduce_ranges`]).
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps, over `segments`,
/// after [`range_starts`] filled `starts` for ranges of `width` values; `load(i, row)` must be
/// safe for every value `i` of every row.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn reduce_wide<T: DeviceElem, S, L>(
    segments: SegView,
    starts: *const usize,
    width: usize,
    striped: bool,
    load: impl Fn(usize, usize) -> T,
    combine: impl Fn(T, T) -> T,
    partials: &Partials<S, L>,
    emit: impl Fn(usize, Option<T>),
) where
    S: Fn(usize, usize, Option<T>),
    L: Fn(usize, usize) -> Option<T>,
{
    let rows = segments.count;
    if rows == 0 {
        return;
    }
    let total = segments.total;
    let lane = device::lane() as usize;
    let mut range = device::global_warp();
    while range < ranges(total, width) {
        let (start, end) = (range * width, ((range + 1) * width).min(total));
        // SAFETY: `range < ranges(total, width)`, within the starts.
        let mut row = unsafe { *starts.add(range) };
        let mut offsets = OffsetBatch::at(segments, row);
        let (mut head, mut tail) = (None, None);
        while row < rows {
            let (a, b) = (offsets.get(segments, row), offsets.get(segments, row + 1));
            // A row from the range's end on belongs to the next range, unless it is empty there:
            // the range holding a row's end offset ends it.
            if a >= end && b != end {
                break;
            }
            let (lo, hi) = (a.max(start), b.min(end));
            let piece = if striped {
                let mine = fold_span_striped(lo, hi, lane, WARP, |i| load(i, row), &combine);
                let has = device::ballot(mine.is_some());
                let sum = warp::reduce(mine.unwrap_or(T::zero()), has, &combine);
                (has != 0).then_some(sum)
            } else {
                fold_span_ordered(lo, hi, false, |i| load(i, row), &combine)
            };
            if b > end {
                tail = piece;
                break;
            }
            if a >= start {
                if lane == 0 {
                    emit(row, piece);
                }
            } else {
                // Only the range's first row can have begun before it.
                head = piece;
            }
            row += 1;
        }
        if lane == 0 {
            (partials.store)(range, HEAD, head);
            (partials.store)(range, TAIL, tail);
        }
        range += device::grid_warps();
    }
}

/// The offsets of 32 consecutive rows from `base`, one a lane (rows past the last read the
/// last offset), handed to the warp by shuffles.
struct OffsetBatch {
    base: usize,
    mine: usize,
}

impl OffsetBatch {
    #[inline(always)]
    fn at(segments: SegView, base: usize) -> Self {
        let row = (base + device::lane() as usize).min(segments.count);
        // SAFETY: `row <= count`, within the `count + 1` offsets.
        OffsetBatch { base, mine: unsafe { segments.offset(row) } }
    }

    /// Offset `row` (warp-uniform, `base <= row <= count`), reading the next batch from `row`
    /// when it is past this one.
    #[inline(always)]
    fn get(&mut self, segments: SegView, row: usize) -> usize {
        if row >= self.base + WARP {
            *self = OffsetBatch::at(segments, row);
        }
        self.mine.shfl_idx((row - self.base) as u32)
    }
}

/// Spans of at most this many ranges before a head's own are folded by the head's lane alone;
/// longer ones by the whole warp. Nearly every range of uneven rows has a head whose row began in
/// the range before (power-law rows averaging 32 values: about all 2^19 ranges of 2^27 values),
/// and a warp giving those one at a time to all its lanes took 151 µs on an H200 (ncu), a tenth
/// of the product it finished.
const LANE_SPAN: usize = 4;

/// Phase 2 of both walks: a lane per range of `width` values (grid-stride, 32 ranges per
/// warp) loads the range's head, if pending; a head whose row began at most [`LANE_SPAN`] ranges
/// before is given the tails of those ranges, in order, by its lane, and its row emitted; the
/// warp then does the same for each head of a longer row, one at a time, all lanes loading tails.
///
/// # Safety
/// As [`reduce_ranges`] or [`reduce_wide`], after it completed with the same arguments.
#[inline(always)]
pub unsafe fn finish_ranges<T: DeviceElem, S, L>(
    segments: SegView,
    starts: *const usize,
    width: usize,
    combine: impl Fn(T, T) -> T,
    partials: &Partials<S, L>,
    emit: impl Fn(usize, Option<T>),
) where
    S: Fn(usize, usize, Option<T>),
    L: Fn(usize, usize) -> Option<T>,
{
    if segments.count == 0 {
        return;
    }
    let count = ranges(segments.total, width);
    // The first row a range ends, pending as its head, is the one holding its first value; the
    // first range of that row's.
    // SAFETY: `range < count`, within the starts; the row is below the row count.
    let row_of = |range: usize| unsafe { *starts.add(range) };
    let begins = |row: usize| unsafe { segments.offset(row) } / width;
    let mut first = device::global_warp() * WARP;
    while first < count {
        let mine = first + device::lane() as usize;
        let head = if mine < count { (partials.load)(mine, HEAD) } else { None };
        let mut long = false;
        if head.is_some() {
            let row = row_of(mine);
            let from = begins(row);
            if mine - from <= LANE_SPAN {
                let mut carry = None;
                for k in from..mine {
                    carry = cat(carry, (partials.load)(k, TAIL), &combine);
                }
                emit(row, cat(carry, head, &combine));
            } else {
                long = true;
            }
        }
        let mut pending = device::ballot(long);
        while pending != 0 {
            let range = first + pending.trailing_zeros() as usize;
            pending &= pending - 1;
            let row = row_of(range);
            let from = begins(row);
            // The carry is lane 0's, which emits the row with the head it loads again.
            let carry = fold_partials(from, range - from, &|from, k| (partials.load)(from + k, TAIL), &combine);
            if device::lane() == 0 {
                emit(row, cat(carry, (partials.load)(range, HEAD), &combine));
            }
        }
        first += device::grid_warps() * WARP;
    }
}
