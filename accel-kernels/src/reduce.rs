//! Reductions (folds) in two phases, with an order-preserving skeleton for any associative
//! operator and a striped one for commutative operators (`accel_core::kernel::is_commutative`).
//!
//! Phase 1 (`reduce_chunks`, order-preserving): one warp per (row, part) pair, grid-stride over
//! the pairs. The warp walks its chunk of the row tile by tile in scan order: each lane loads its
//! ITEMS consecutive elements (all loads issued before the first combine), folds them, the warp
//! folds the 32 lane values with a shfl_down tree, and lane 0 adds the tile total to the warp's
//! running total. The last, partial tile only folds the lanes and items it covers. Traffic: every
//! element is read once; one partial per pair is written by the caller's `emit`. Its limit is
//! latency: one shuffle tree per 128 elements, one tile in flight per warp.
//!
//! Phase 1 (`reduce_chunks_striped`, commutative operators): lanes form groups whose size fits
//! the average chunk (1 lane for chunks of a few elements, 8 for 32, a whole warp from 128 on), a
//! group per pair. Lane `g` of a group accumulates positions `g, g + size, ...` of its chunk in
//! registers, UNROLL independent loads at a time (each step of the group coalesced), and the
//! group combines its lanes once at the end. Traffic as above; no shuffles in the loop, so the
//! loads of many warps keep the memory busy.
//!
//! Phase 2 (`reduce_partials`, `reduce_partials_striped`): one warp per row folds that row's
//! `parts` partials the same way (absent partials are skipped). A row that needs a single part
//! skips phase 2 entirely when the caller launches phase 1 with `parts == 1` and emits the final
//! value directly.

use crate::abi::{ITEMS, TILE, WARP};
use crate::device::{self, FULL_MASK};
use crate::elem::DeviceElem;
use crate::rows::{Rows, chunk};
use crate::warp::{self, cat, fold_items, lane_items, lanes_with_items, load_items};

/// Phase 1. One warp per (row, part) pair, grid-stride over rows.count() * parts pairs: folds
/// chunk(bounds(row), part, parts) in scan order (ascending index, or descending when
/// `reverse`) with `combine(earlier, later)`, and calls `emit(row, part, total)` exactly once
/// per pair from one lane (`None` for an empty chunk).
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `load(i)` must be safe
/// for every index of every row of `rows`.
#[inline(always)]
pub unsafe fn reduce_chunks<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    reverse: bool,
    load: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, usize, Option<T>),
) {
    let lane = device::lane();
    let pairs = rows.count() * parts;
    let mut pair = device::global_warp();
    while pair < pairs {
        let (row, part) = (pair / parts, pair % parts);
        let (start, end) = rows.bounds(row);
        let (lo, hi) = chunk(start, end, part, parts);
        let len = hi - lo;
        // Position q of the chunk in scan order.
        let at = |q: usize| if reverse { hi - 1 - q } else { lo + q };
        let mut total: Option<T> = None; // lane 0's
        let mut base = 0;
        while base < len {
            let rem = len - base;
            let first = base + lane as usize * ITEMS;
            let tile = if rem >= TILE {
                fold_tile(ITEMS, FULL_MASK, |j| load(at(first + j)), &combine)
            } else {
                fold_tile(lane_items(lane, rem), lanes_with_items(rem), |j| load(at(first + j)), &combine)
            };
            if lane == 0 {
                total = cat(total, Some(tile), &combine);
            }
            base += TILE;
        }
        if lane == 0 {
            emit(row, part, total);
        }
        pair += device::grid_warps();
    }
}

/// Phase 2. One warp per row: combines load(row, 0..parts) in order (skipping None) and calls
/// emit(row, total) once per row from one lane.
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `load(row, k)` must be
/// safe for every `row < rows` and `k < parts`.
#[inline(always)]
pub unsafe fn reduce_partials<T: DeviceElem>(
    rows: usize,
    parts: usize,
    load: impl Fn(usize, usize) -> Option<T>,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, Option<T>),
) {
    let lane = device::lane();
    let mut row = device::global_warp();
    while row < rows {
        let mut total: Option<T> = None; // lane 0's
        let mut base = 0;
        while base < parts {
            let first = base + lane as usize * ITEMS;
            let mut mine: Option<T> = None;
            for j in 0..ITEMS {
                if first + j < parts {
                    mine = cat(mine, load(row, first + j), &combine);
                }
            }
            let has = device::ballot(mine.is_some());
            let tile = warp::reduce(mine.unwrap_or(T::zero()), has, &combine);
            if lane == 0 && has != 0 {
                total = cat(total, Some(tile), &combine);
            }
            base += TILE;
        }
        if lane == 0 {
            emit(row, total);
        }
        row += device::grid_warps();
    }
}

/// Loads a lane of the striped skeletons issues before it combines them.
const UNROLL: usize = 8;

/// Lanes per pair in `reduce_chunks_striped` for chunks of `average` elements: about 4 elements
/// per lane, a power of two from 1 to 32.
#[inline(always)]
fn group_size(average: usize) -> usize {
    1 << (average / 4).clamp(1, WARP).ilog2()
}

/// Phase 1 for a commutative operator: the same contract as [`reduce_chunks`] without `reverse`
/// (the order of the operands does not matter), `emit` called from the first lane of a group.
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
            let mut q = lo + member;
            while q + (UNROLL - 1) * group < hi {
                let xs: [T; UNROLL] = core::array::from_fn(|k| load(q + k * group));
                let mut step = xs[0];
                for &x in &xs[1..] {
                    step = combine(step, x);
                }
                acc = cat(acc, Some(step), &combine);
                q += UNROLL * group;
            }
            // The rest (fewer than UNROLL positions of this lane): all loads first, as above.
            let rest: [Option<T>; UNROLL] = core::array::from_fn(|k| {
                let at = q + k * group;
                (at < hi).then(|| load(at))
            });
            for &x in &rest {
                acc = cat(acc, x, &combine);
            }
        }
        let has = device::ballot(acc.is_some());
        let total = warp::reduce_groups(acc.unwrap_or(T::zero()), has, group, &combine);
        if member == 0 && pair < pairs {
            let any = has & warp::lanes(lane as u32, (lane + group) as u32) != 0;
            emit(row, part, any.then_some(total));
        }
        base += device::grid_warps() * per_warp;
    }
}

/// Phase 2 for a commutative operator: the contract of [`reduce_partials`], the partials of a
/// row taken in any order.
///
/// # Safety
/// As [`reduce_partials`].
#[inline(always)]
pub unsafe fn reduce_partials_striped<T: DeviceElem>(
    rows: usize,
    parts: usize,
    load: impl Fn(usize, usize) -> Option<T>,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, Option<T>),
) {
    let lane = device::lane() as usize;
    let mut row = device::global_warp();
    while row < rows {
        let mut acc: Option<T> = None;
        let mut k = lane;
        while k + (UNROLL - 1) * WARP < parts {
            let xs: [Option<T>; UNROLL] = core::array::from_fn(|j| load(row, k + j * WARP));
            for &x in &xs {
                acc = cat(acc, x, &combine);
            }
            k += UNROLL * WARP;
        }
        while k < parts {
            acc = cat(acc, load(row, k), &combine);
            k += WARP;
        }
        let has = device::ballot(acc.is_some());
        let total = warp::reduce(acc.unwrap_or(T::zero()), has, &combine);
        if lane == 0 {
            emit(row, (has != 0).then_some(total));
        }
        row += device::grid_warps();
    }
}

/// Folds one tile whose lane holds `n` items (`get(j)`, j < n) and whose lanes with items are
/// `has` (non-empty); the tile's total lands in lane 0.
#[inline(always)]
fn fold_tile<T: DeviceElem>(n: usize, has: u32, get: impl Fn(usize) -> T, combine: &impl Fn(T, T) -> T) -> T {
    let xs = load_items(n, get);
    warp::reduce(fold_items(&xs, n, combine), has, combine)
}
