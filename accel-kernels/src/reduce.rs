//! Order-preserving reductions (folds) with an associative, not necessarily commutative operator,
//! in two phases.
//!
//! Phase 1 (`reduce_chunks`): one warp per (row, part) pair, grid-stride over the pairs. The warp
//! walks its chunk of the row tile by tile in scan order: each lane loads its ITEMS consecutive
//! elements (all loads issued before the first combine), folds them, the warp folds the 32 lane
//! values with a shfl_down tree, and lane 0 adds the tile total to the warp's running total. The
//! last, partial tile only folds the lanes and items it covers. Traffic: every element is read
//! once; one partial per pair is written by the caller's `emit`.
//!
//! Phase 2 (`reduce_partials`): one warp per row folds that row's `parts` partials the same way
//! (absent partials are skipped). A row that needs a single part skips phase 2 entirely when the
//! caller launches phase 1 with `parts == 1` and emits the final value directly.

use crate::abi::{ITEMS, TILE};
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

/// Folds one tile whose lane holds `n` items (`get(j)`, j < n) and whose lanes with items are
/// `has` (non-empty); the tile's total lands in lane 0.
#[inline(always)]
fn fold_tile<T: DeviceElem>(n: usize, has: u32, get: impl Fn(usize) -> T, combine: &impl Fn(T, T) -> T) -> T {
    let xs = load_items(n, get);
    warp::reduce(fold_items(&xs, n, combine), has, combine)
}
