//! Reductions (folds) in one launch, with an order-preserving skeleton for any associative
//! operator and a striped one for commutative operators (`accel_core::kernel::is_commutative`).
//!
//! Chunks (`walk_ordered`, order-preserving): one warp per (row, part) pair, grid-stride over
//! the pairs. The warp walks its chunk of the row tile by tile in scan order: each lane loads its
//! ITEMS consecutive elements (all loads issued before the first combine), folds them, the warp
//! folds the 32 lane values with a shfl_down tree, and lane 0 adds the tile total to the warp's
//! running total. The last, partial tile only folds the lanes and items it covers. Its limit is
//! latency: one shuffle tree per 128 elements, one tile in flight per warp.
//!
//! Chunks (`walk_striped`, commutative operators): lanes form groups whose size fits the average
//! chunk (1 lane for chunks of a few elements, 8 for 32, a whole warp from 128 on), a group per
//! pair. Lane `g` of a group accumulates quads `g, g + size, ...` of its chunk (4 consecutive
//! positions from a multiple of 4, one 16-byte load per 4-byte column) in registers, two quads
//! of independent loads at a time (each step of the group coalesced), then the fewer than 4
//! positions before the first quad and after the last; the group combines its lanes once at the
//! end. No shuffles in the loop, so the loads of many warps keep the memory
//! busy.
//!
//! Rows (`reduce_rows`, `reduce_rows_striped`): a row of one part is emitted by the warp that
//! folded it. A row of several parts meets through global memory, in one of two ways:
//! - in the same launch (last-block-done), when the caller passes ticket counters: each part
//!   stores its total, fences, and takes a ticket from the row's counter (`atom.inc`, which wraps
//!   back to 0 on the last of `parts` arrivals, so the counters are zero again after the launch
//!   and the next reduction on the stream reuses them without a memset); the warp that takes the
//!   last ticket folds the row's partials in part order and emits the row. It saves a launch and
//!   costs a fence and an atomic per chunk and a serial fold of the partials by one warp: the
//!   caller's choice for small inputs, where the launch costs more;
//! - in a second launch (`finish_rows`, `finish_rows_striped`), without tickets: one warp per
//!   row folds its partials; for a commutative operator, rows of at least
//!   `abi::FINISH_BLOCK_PARTS` parts are folded by a block each, its warps taking consecutive
//!   shares of the partials and warp 0 combining the warps' totals through shared memory. A
//!   warp's fold of thousands of partials is a chain of round trips to L2, a batch of loads each
//!   (the 4224 partials of a `fold_all` of 2^28 elements took 9.6 µs on an H200); a block has
//!   eight warps' loads in flight. The order-preserving finish keeps a warp per row: a block's
//!   fold in part order has not yet been run on a GPU.
//! Traffic: every element is read once; each part writes one partial and one flag and a row's
//! partials are read once.
//!
//! Scans use the chunk walkers alone (`reduce_chunks`, `reduce_chunks_striped`): their carries
//! need every total of a row, so they keep a phase of their own (`crate::scan`).

use crate::abi::{self, ITEMS, SCAN_SLOT, TILE, WARP};
use crate::device::{self, FULL_MASK};
use crate::elem::{DeviceElem, load_shared_option, store_shared_option};
use crate::rows::{Rows, chunk};
use crate::warp::{self, cat, fold_items, lane_items, lanes_with_items, load_items};

/// Where the parts of rows split in several meet: their totals in global memory and one ticket
/// counter per row.
pub struct Meeting<S, L> {
    /// Parts per row (`chunk(start, end, part, parts)` of the row's bounds).
    pub parts: usize,
    /// `store(row, part, total)`, called from one lane, once per pair.
    pub store: S,
    /// `load(row, part)`: a total that `store` wrote, from any warp of the launch.
    pub load: L,
    /// One `u32` per row, zero when the launch starts (it leaves them zero); or null, and the
    /// rows of several parts are left to `finish_rows` in a second launch.
    pub tickets: *mut u32,
}

/// One warp per (row, part) pair folds its chunk of `rows` in scan order (ascending index, or
/// descending when `reverse`) with `combine(earlier, later)`; `emit(row, total)` is called once
/// per row from one lane (`None` for an empty row), by the warp that folded the row's only part
/// or, for rows of several parts, by the warp whose part arrived last (with tickets; without,
/// only the partials are stored).
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `load(i, row)` (element
/// `i`, of row `row`) must be safe for every index of every row of `rows`, and `meet` must hold
/// what its fields say, with a ticket for every row when `meet.parts > 1`.
#[inline(always)]
pub unsafe fn reduce_rows<T: DeviceElem, S, L>(
    rows: impl Rows,
    reverse: bool,
    load: impl Fn(usize, usize) -> T,
    combine: impl Fn(T, T) -> T,
    meet: Meeting<S, L>,
    emit: impl Fn(usize, Option<T>),
) where
    S: Fn(usize, usize, Option<T>),
    L: Fn(usize, usize) -> Option<T>,
{
    // SAFETY: the caller's contract.
    unsafe {
        let (arrive, finish) = meeting(&meet, &combine, &emit, |r, p, l, c| fold_partials(r, p, l, c));
        walk_ordered(rows, meet.parts, reverse, load, &combine, arrive, finish)
    }
}

/// [`reduce_rows`] for a commutative operator (partials and elements combined in any order).
///
/// # Safety
/// As [`reduce_rows`].
#[inline(always)]
pub unsafe fn reduce_rows_striped<T: DeviceElem, S, L>(
    rows: impl Rows,
    load: impl Fn(usize, usize) -> T,
    combine: impl Fn(T, T) -> T,
    meet: Meeting<S, L>,
    emit: impl Fn(usize, Option<T>),
) where
    S: Fn(usize, usize, Option<T>),
    L: Fn(usize, usize) -> Option<T>,
{
    // SAFETY: the caller's contract.
    unsafe {
        let (arrive, finish) = meeting(&meet, &combine, &emit, |r, p, l, c| fold_partials_striped(r, p, l, c));
        walk_striped(rows, meet.parts, load, &combine, arrive, finish)
    }
}

/// The two ends of a meeting for a walker: `arrive(row, part, total)` for the lane that brings a
/// pair's total ([`arrive_at`]), and `finish(row)` for the warp that brought a row's last part,
/// which folds the row's partials with `fold` and emits the row from lane 0.
///
/// # Safety
/// `meet` holds what its fields say (the contract of [`reduce_rows`]).
#[inline(always)]
unsafe fn meeting<'a, T: DeviceElem, S, L, C, E>(
    meet: &'a Meeting<S, L>,
    combine: &'a C,
    emit: &'a E,
    fold: impl Fn(usize, usize, &L, &C) -> Option<T> + 'a,
) -> (impl Fn(usize, usize, Option<T>) -> bool + 'a, impl Fn(usize) + 'a)
where
    S: Fn(usize, usize, Option<T>),
    L: Fn(usize, usize) -> Option<T>,
    C: Fn(T, T) -> T,
    E: Fn(usize, Option<T>),
{
    // SAFETY: this function's contract.
    let arrive = move |row, part, total| unsafe { arrive_at(meet, row, part, total, emit) };
    let finish = move |row| {
        let total = fold(row, meet.parts, &meet.load, combine);
        if device::lane() == 0 {
            emit(row, total);
        }
    };
    (arrive, finish)
}

/// Chunk totals for a scan's first phase: folds chunk(bounds(row), part, parts) of every row in
/// scan order with `combine(earlier, later)` and calls `emit(row, part, total)` exactly once per
/// pair from one lane (`None` for an empty chunk).
///
/// # Safety
/// As [`reduce_rows`], without `meet`.
#[inline(always)]
pub unsafe fn reduce_chunks<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    reverse: bool,
    load: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, usize, Option<T>),
) {
    let arrive = |row, part, total| {
        emit(row, part, total);
        false
    };
    // SAFETY: the caller's contract; no pair finishes a row.
    unsafe { walk_ordered(rows, parts, reverse, |i, _| load(i), combine, arrive, |_| {}) }
}

/// [`reduce_chunks`] for a commutative operator (no `reverse`: the order does not matter),
/// `emit` called from the first lane of a group.
///
/// # Safety
/// As [`reduce_chunks`].
#[inline(always)]
pub unsafe fn reduce_chunks_striped<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    load: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, usize, Option<T>),
) {
    let arrive = |row, part, total| {
        emit(row, part, total);
        false
    };
    // SAFETY: the caller's contract; no pair finishes a row.
    unsafe { walk_striped(rows, parts, |i, _| load(i), combine, arrive, |_| {}) }
}

/// A pair's total arrives (from one lane): emitted at once when its row has one part, else
/// stored, published, and a ticket taken. Returns whether this was the row's last part, after
/// which the partials of every part are visible to the calling thread.
///
/// # Safety
/// `meet`'s contract, for `row`.
#[inline(always)]
unsafe fn arrive_at<T: DeviceElem, S, L>(
    meet: &Meeting<S, L>,
    row: usize,
    part: usize,
    total: Option<T>,
    emit: &impl Fn(usize, Option<T>),
) -> bool
where
    S: Fn(usize, usize, Option<T>),
{
    if meet.parts == 1 {
        emit(row, total);
        return false;
    }
    (meet.store)(row, part, total);
    if meet.tickets.is_null() {
        return false;
    }
    // Release: the partial is visible before the ticket that announces it.
    device::thread_fence();
    // SAFETY: the caller's contract: a ticket per row.
    let before = unsafe { device::fetch_inc_wrap32(meet.tickets.add(row), (meet.parts - 1) as u32) };
    let last = before as usize == meet.parts - 1;
    if last {
        // Acquire: the other parts' partials, published before their tickets, are visible.
        device::thread_fence();
    }
    last
}

/// Walks the (row, part) pairs warp by warp in scan order (see the module documentation);
/// `arrive(row, part, total)` is called from lane 0, and when it returns true the whole warp
/// calls `finish(row)`.
///
/// # Safety
/// As [`reduce_chunks`].
#[inline(always)]
unsafe fn walk_ordered<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    reverse: bool,
    load: impl Fn(usize, usize) -> T,
    combine: impl Fn(T, T) -> T,
    arrive: impl Fn(usize, usize, Option<T>) -> bool,
    finish: impl Fn(usize),
) {
    let lane = device::lane();
    let pairs = rows.count() * parts;
    let mut pair = device::global_warp();
    while pair < pairs {
        let (row, part) = (pair / parts, pair % parts);
        let (start, end) = rows.bounds(row);
        let (lo, hi) = chunk(start, end, part, parts);
        let total = fold_span_ordered(lo, hi, reverse, |i| load(i, row), &combine);
        let last = lane == 0 && arrive(row, part, total);
        if device::shfl_idx(last as u32, 0) != 0 {
            finish_together(row, &finish);
        }
        pair += device::grid_warps();
    }
}

/// `[lo, hi)` folded by the warp in scan order (ascending, or descending when `reverse`): lanes
/// load [`ITEMS`] consecutive positions of each tile of [`TILE`] (all issued before the first
/// combine), the warp folds the tile, and lane 0 adds it to the total, which only lane 0
/// receives (`None` for an empty span). All 32 lanes must call it with the same span.
#[inline(always)]
pub(crate) fn fold_span_ordered<T: DeviceElem>(
    lo: usize,
    hi: usize,
    reverse: bool,
    load: impl Fn(usize) -> T,
    combine: &impl Fn(T, T) -> T,
) -> Option<T> {
    let lane = device::lane();
    let len = hi - lo;
    // Position q of the span in scan order.
    let at = |q: usize| if reverse { hi - 1 - q } else { lo + q };
    let mut total: Option<T> = None; // lane 0's
    let mut base = 0;
    while base < len {
        let rem = len - base;
        let first = base + lane as usize * ITEMS;
        let tile = if rem >= TILE {
            fold_tile(ITEMS, FULL_MASK, |j| load(at(first + j)), combine)
        } else {
            fold_tile(lane_items(lane, rem), lanes_with_items(rem), |j| load(at(first + j)), combine)
        };
        if lane == 0 {
            total = cat(total, Some(tile), combine);
        }
        base += TILE;
    }
    total
}

/// The second launch of rows of several parts stored without tickets: one warp per row (grid
/// stride) folds `load(row, 0..parts)` in part order and calls `emit(row, total)` from lane 0.
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `load(row, k)` must be
/// safe for every `row < rows` and `k < parts`.
#[inline(always)]
pub unsafe fn finish_rows<T: DeviceElem>(
    rows: usize,
    parts: usize,
    load: impl Fn(usize, usize) -> Option<T>,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, Option<T>),
) {
    each_row(rows, |row| fold_partials(row, parts, &load, &combine), emit)
}

/// [`finish_rows`] in any order, for a commutative operator, and by a block per row for rows of
/// at least [`abi::FINISH_BLOCK_PARTS`] parts whose element fits a shared slot (see the module
/// documentation).
///
/// # Safety
/// As [`finish_rows`], in a launch of [`abi::BLOCK_THREADS`]-thread blocks.
#[inline(always)]
pub unsafe fn finish_rows_striped<T: DeviceElem>(
    rows: usize,
    parts: usize,
    load: impl Fn(usize, usize) -> Option<T>,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, Option<T>),
) {
    if abi::finish_warps(parts) > 1 && WarpTotals::<T>::FITS {
        let fold = |row, lo, hi| fold_partials_striped_in(row, lo, hi, &load, &combine);
        // SAFETY: the caller's launch; the element fits.
        unsafe { each_row_by_block(rows, parts, fold, &combine, emit) }
    } else {
        each_row(rows, |row| fold_partials_striped(row, parts, &load, &combine), emit)
    }
}

/// One warp per row, grid stride: `emit(row, fold(row))` from lane 0.
#[inline(always)]
fn each_row<T>(rows: usize, fold: impl Fn(usize) -> Option<T>, emit: impl Fn(usize, Option<T>)) {
    let mut row = device::global_warp();
    while row < rows {
        let total = fold(row);
        if device::lane() == 0 {
            emit(row, total);
        }
        row += device::grid_warps();
    }
}

/// One block per row, grid stride: warp `w` folds the `w`-th of the block's consecutive shares of
/// the row's parts with `fold(row, lo, hi)`, and warp 0 combines the warps' totals in warp order
/// and emits the row from lane 0.
///
/// # Safety
/// Called from every thread of a 1-D launch of [`abi::BLOCK_THREADS`]-thread blocks, with
/// [`WarpTotals::FITS`].
#[inline(always)]
unsafe fn each_row_by_block<T: DeviceElem>(
    rows: usize,
    parts: usize,
    fold: impl Fn(usize, usize, usize) -> Option<T>,
    combine: &impl Fn(T, T) -> T,
    emit: impl Fn(usize, Option<T>),
) {
    let totals = WarpTotals::<T>::get();
    let (warp, lane) = (device::warp_in_block(), device::lane() as usize);
    let share = parts.div_ceil(WarpTotals::<T>::WARPS);
    let (lo, hi) = ((warp * share).min(parts), ((warp + 1) * share).min(parts));
    // Block-uniform, so that every thread reaches both barriers of every row.
    let mut row = device::block_idx();
    while row < rows {
        let mine = fold(row, lo, hi);
        if lane == 0 {
            totals.set(warp, mine);
        }
        device::sync_threads();
        if warp == 0 {
            let v = if lane < WarpTotals::<T>::WARPS { totals.read(lane) } else { None };
            let has = device::ballot(v.is_some());
            let total = warp::reduce(v.unwrap_or(T::zero()), has, combine);
            if lane == 0 {
                emit(row, (has != 0).then_some(total));
            }
        }
        // The slots are written again for the next row.
        device::sync_threads();
        row += device::grid_dim();
    }
}

/// The block's shared slots of its warps' totals in [`each_row_by_block`]: a flag word per warp,
/// then a value slot per warp.
struct WarpTotals<T> {
    base: u32,
    _elem: core::marker::PhantomData<T>,
}

impl<T: DeviceElem> WarpTotals<T> {
    /// Warps of a block.
    const WARPS: usize = abi::BLOCK_THREADS as usize / WARP;
    /// Byte offset of the first value slot: after the flags, a multiple of 16.
    const VALUES: usize = (4 * Self::WARPS).next_multiple_of(16);
    /// Whether an element fits a slot (and its alignment the buffer's).
    const FITS: bool = core::mem::size_of::<T>() <= SCAN_SLOT && core::mem::align_of::<T>() <= 16;

    #[inline(always)]
    fn get() -> Self {
        let base = device::shared_buffer!("accel_reduce_totals", 16, Self::VALUES + Self::WARPS * SCAN_SLOT);
        WarpTotals { base, _elem: core::marker::PhantomData }
    }

    /// The shared-space addresses of warp `k`'s value and flag.
    #[inline(always)]
    fn slot(&self, k: usize) -> (u32, u32) {
        (self.base + (Self::VALUES + k * core::mem::size_of::<T>()) as u32, self.base + 4 * k as u32)
    }

    #[inline(always)]
    fn set(&self, k: usize, v: Option<T>) {
        let (value, flag) = self.slot(k);
        // SAFETY: slot `k < WARPS` and its flag lie in the buffer, aligned (`VALUES` is a multiple
        // of 16, a slot's size of the element's alignment, which `FITS` bounds by 16).
        unsafe { store_shared_option(value, flag, v) }
    }

    #[inline(always)]
    fn read(&self, k: usize) -> Option<T> {
        let (value, flag) = self.slot(k);
        // SAFETY: as `set`; written before the barrier that precedes this read.
        unsafe { load_shared_option(value, flag) }
    }
}

/// Loads a lane of the striped skeletons issues before it combines them.
const UNROLL: usize = 8;
/// Consecutive positions a lane of `walk_striped` loads together: 16 bytes of a 4-byte column.
const QUAD: usize = 4;
/// Quads of a lane of `walk_striped` in flight.
const QUADS: usize = UNROLL / QUAD;

/// `xs` combined in order (all of them loaded before the first combine).
#[inline(always)]
fn fold_all_of<T: Copy, const K: usize>(xs: [T; K], combine: &impl Fn(T, T) -> T) -> T {
    let mut total = xs[0];
    for &x in &xs[1..] {
        total = combine(total, x);
    }
    total
}

/// Lanes per pair in `walk_striped` for chunks of `average` elements: about 4 elements per
/// lane, a power of two from 1 to 32.
#[inline(always)]
fn group_size(average: usize) -> usize {
    1 << (average / 4).clamp(1, WARP).ilog2()
}

/// The striped walk of the pairs (see the module documentation): `arrive` is called from the
/// first lane of each group, and the whole warp then calls `finish(row)` for each row whose last
/// part one of its groups brought.
///
/// # Safety
/// As [`reduce_chunks`].
#[inline(always)]
unsafe fn walk_striped<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    load: impl Fn(usize, usize) -> T,
    combine: impl Fn(T, T) -> T,
    arrive: impl Fn(usize, usize, Option<T>) -> bool,
    finish: impl Fn(usize),
) {
    let pairs = rows.count() * parts;
    if pairs == 0 {
        return;
    }
    let group = group_size(rows.elements() / pairs);
    let lane = device::lane() as usize;
    let (member, slot) = (lane % group, lane / group);
    let per_warp = WARP / group;
    // Warp-uniform, so that every lane reaches the shuffles of every round.
    let mut base = device::global_warp() * per_warp;
    while base < pairs {
        let pair = base + slot;
        let (row, part) = (pair / parts, pair % parts);
        let mut acc: Option<T> = None;
        if pair < pairs {
            let (start, end) = rows.bounds(row);
            let (lo, hi) = chunk(start, end, part, parts);
            acc = fold_span_striped(lo, hi, member, group, |i| load(i, row), &combine);
        }
        let has = device::ballot(acc.is_some());
        let total = warp::reduce_groups(acc.unwrap_or(T::zero()), has, group, &combine);
        let mut last = false;
        if member == 0 && pair < pairs {
            let any = has & warp::lanes(lane as u32, (lane + group) as u32) != 0;
            last = arrive(row, part, any.then_some(total));
        }
        // The rows this warp finishes, one at a time (the row of the group led by lane `l`).
        let mut finished = device::ballot(last);
        while finished != 0 {
            let leader = finished.trailing_zeros() as usize;
            finished &= finished - 1;
            finish_together((base + leader / group) / parts, &finish);
        }
        base += device::grid_warps() * per_warp;
    }
}

/// This lane's part of `[lo, hi)` folded by a group of `group` lanes (this one its `member`-th)
/// in any order, for a commutative operator: whole quads ([`QUAD`] consecutive positions from a
/// visible multiple of [`QUAD`], which LLVM reads as one vector load per 4-byte column) `member,
/// member + group, ..`, [`QUADS`] of them in flight, then the fewer than [`QUAD`] positions
/// before the first quad and after the last. The caller combines the group's lanes' values.
#[inline(always)]
pub(crate) fn fold_span_striped<T: DeviceElem>(
    lo: usize,
    hi: usize,
    member: usize,
    group: usize,
    load: impl Fn(usize) -> T,
    combine: &impl Fn(T, T) -> T,
) -> Option<T> {
    let mut acc: Option<T> = None;
    // The span as whole quads between a head and a tail of fewer than QUAD positions each.
    let (quad_lo, quad_hi) = (lo.div_ceil(QUAD), hi / QUAD);
    let head_end = (quad_lo * QUAD).min(hi);
    let tail_start = (quad_hi * QUAD).max(head_end);
    let mut m = quad_lo + member;
    while m + (QUADS - 1) * group < quad_hi {
        let xs: [T; UNROLL] = core::array::from_fn(|k| load((m + k / QUAD * group) * QUAD + k % QUAD));
        acc = cat(acc, Some(fold_all_of(xs, combine)), combine);
        m += QUADS * group;
    }
    // The rest: fewer than QUADS quads of this lane (the loop ended because quad
    // `m + (QUADS - 1) * group` is past the end), then its edge positions; all loads first, as
    // above.
    let rest: [Option<T>; UNROLL - QUAD] = core::array::from_fn(|k| {
        let quad = m + k / QUAD * group;
        (quad < quad_hi).then(|| load(quad * QUAD + k % QUAD))
    });
    let edges: [Option<T>; 2 * (QUAD - 1)] = core::array::from_fn(|k| {
        let (from, to) = if k < QUAD - 1 { (lo, head_end) } else { (tail_start, hi) };
        let at = from + member + k % (QUAD - 1) * group;
        (at < to).then(|| load(at))
    });
    // Two loops over arrays (not one over a chain of them), which LLVM unrolls and keeps in
    // registers; a chained iterator put them in local memory.
    for &x in &rest {
        acc = cat(acc, x, combine);
    }
    for &x in &edges {
        acc = cat(acc, x, combine);
    }
    acc
}

/// Runs `finish(row)` on the whole warp after the lane that took the row's last ticket: the
/// warp barrier carries that lane's acquire to the others, and each lane fences before it reads.
#[inline(always)]
fn finish_together(row: usize, finish: &impl Fn(usize)) {
    device::sync_warp();
    device::thread_fence();
    finish(row);
}

/// The total of a row's `parts` partials in part order (absent ones skipped), in lane 0. All 32
/// lanes call it with the same row.
///
/// Lane `l` folds the `l`-th of 32 consecutive shares of the parts, in order, a batch of loads
/// in flight at a time; the warp then combines the lanes in lane order. Each batch is a round
/// trip to L2 (the code generator's `load` reads a partial's value beside its flag, not after
/// it), and the batches are what a long row's fold waits for: a row of 700 000 values spans
/// 2 800 ranges of the segmented walk, whose last launch, folding them 128 at a time with the
/// value read after the flag, took 30 µs on an H200 where rows of 32 values took 5.
#[inline(always)]
pub(crate) fn fold_partials<T: DeviceElem>(
    row: usize,
    parts: usize,
    load: &impl Fn(usize, usize) -> Option<T>,
    combine: &impl Fn(T, T) -> T,
) -> Option<T> {
    // Sixteen values of up to 8 bytes in flight; fewer of wider ones, which would spill.
    let mine = if core::mem::size_of::<T>() <= 8 {
        fold_share::<T, 16>(row, parts, load, combine)
    } else {
        fold_share::<T, 4>(row, parts, load, combine)
    };
    let has = device::ballot(mine.is_some());
    let total = warp::reduce(mine.unwrap_or(T::zero()), has, combine);
    (has != 0).then_some(total)
}

/// This lane's share of [`fold_partials`]: parts `lane * share ..` up to the next lane's, in
/// order, `BATCH` loads issued before the first is combined.
#[inline(always)]
fn fold_share<T: DeviceElem, const BATCH: usize>(
    row: usize,
    parts: usize,
    load: &impl Fn(usize, usize) -> Option<T>,
    combine: &impl Fn(T, T) -> T,
) -> Option<T> {
    let share = parts.div_ceil(WARP);
    let lane = device::lane() as usize;
    let (mut k, end) = ((lane * share).min(parts), ((lane + 1) * share).min(parts));
    let mut mine: Option<T> = None;
    while k < end {
        // Every load of the batch made, those past the share repeating its last part, so that
        // no branch separates them and all are in flight together (a guard around each made
        // ptxas wait for every load before the next); only the combines are conditional.
        let xs: [Option<T>; BATCH] = core::array::from_fn(|j| load(row, (k + j).min(end - 1)));
        for j in 0..BATCH {
            if k + j < end {
                mine = cat(mine, xs[j], combine);
            }
        }
        k += BATCH;
    }
    mine
}

/// [`fold_partials`] in any order, for a commutative operator.
#[inline(always)]
fn fold_partials_striped<T: DeviceElem>(
    row: usize,
    parts: usize,
    load: &impl Fn(usize, usize) -> Option<T>,
    combine: &impl Fn(T, T) -> T,
) -> Option<T> {
    fold_partials_striped_in(row, 0, parts, load, combine)
}

/// [`fold_partials_striped`] of parts `lo..hi` of the row.
#[inline(always)]
fn fold_partials_striped_in<T: DeviceElem>(
    row: usize,
    lo: usize,
    hi: usize,
    load: &impl Fn(usize, usize) -> Option<T>,
    combine: &impl Fn(T, T) -> T,
) -> Option<T> {
    let lane = device::lane() as usize;
    let mut acc: Option<T> = None;
    let mut k = lo + lane;
    while k + (UNROLL - 1) * WARP < hi {
        let xs: [Option<T>; UNROLL] = core::array::from_fn(|j| load(row, k + j * WARP));
        for &x in &xs {
            acc = cat(acc, x, combine);
        }
        k += UNROLL * WARP;
    }
    while k < hi {
        acc = cat(acc, load(row, k), combine);
        k += WARP;
    }
    let has = device::ballot(acc.is_some());
    let total = warp::reduce(acc.unwrap_or(T::zero()), has, combine);
    (has != 0).then_some(total)
}

/// Folds one tile whose lane holds `n` items (`get(j)`, j < n) and whose lanes with items are
/// `has` (non-empty); the tile's total lands in lane 0.
#[inline(always)]
fn fold_tile<T: DeviceElem>(n: usize, has: u32, get: impl Fn(usize) -> T, combine: &impl Fn(T, T) -> T) -> T {
    let xs = load_items(n, get);
    warp::reduce(fold_items(&xs, n, combine), has, combine)
}
