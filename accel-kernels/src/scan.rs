//! Order-preserving scans with an associative, not necessarily commutative operator, in three
//! phases (reduce, then scan the partials, then scan the chunks from their carries).
//!
//! Phase 1 is `reduce::reduce_chunks` with the scan's rows, parts and direction: one total per
//! (row, part). Phase 2 (`scan_partials`): one warp per row turns the parts' totals into carries
//! (what precedes each part, from the row's seed) and the row's total. Phase 3 (`scan_chunks`):
//! one warp per (row, part) rescans its chunk from its carry, tile by tile: each lane loads and
//! folds its ITEMS consecutive elements, the warp scans the lane totals (Kogge-Stone with
//! shfl_up), each lane emits its items from carry ⊕ lane prefix, and the running carry becomes the
//! last lane's inclusive value (shfl_idx). Traffic: every element is read twice (phases 1 and 3)
//! and emitted once; with `parts == 1` phases 1 and 2 are unnecessary (the carry is the seed).

use crate::abi::{ITEMS, TILE};
use crate::device::{self, FULL_MASK};
use crate::elem::DeviceElem;
use crate::rows::{Rows, chunk};
use crate::warp::{self, cat, fold_items, lane_items, lanes, lanes_with_items, load_items};

/// Phase 2. One warp per row: carries into the parts, in scan order (part 0 first, or part
/// parts-1 first when `reverse`): emit_carry(row, part, seed(row) ⊕ totals of the parts before
/// it in scan order) — None when nothing precedes — and emit_total(row, seed ⊕ all) once per row.
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `seed(row)` and
/// `load(row, k)` must be safe for every `row < rows` and `k < parts`, and `seed` must give every
/// lane the same value.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn scan_partials<T: DeviceElem>(
    rows: usize,
    parts: usize,
    reverse: bool,
    seed: impl Fn(usize) -> Option<T>,
    load: impl Fn(usize, usize) -> Option<T>,
    combine: impl Fn(T, T) -> T,
    emit_carry: impl Fn(usize, usize, Option<T>),
    emit_total: impl Fn(usize, Option<T>),
) {
    let lane = device::lane();
    // Part at position t of the scan order.
    let part_at = |t: usize| if reverse { parts - 1 - t } else { t };
    let mut row = device::global_warp();
    while row < rows {
        let mut running = seed(row); // the same in every lane
        let mut base = 0;
        while base < parts {
            let first = base + lane as usize * ITEMS;
            let xs: [Option<T>; ITEMS] =
                core::array::from_fn(|j| if first + j < parts { load(row, part_at(first + j)) } else { None });
            let mine = xs.iter().fold(None, |acc, &x| cat(acc, x, &combine));
            let has = device::ballot(mine.is_some());
            let incl = warp::scan_inclusive(mine.unwrap_or(T::zero()), has, &combine);
            let before = incl.shfl_up(1);
            let before = (lane > 0 && has & lanes(0, lane) != 0).then_some(before);
            let mut carry = cat(running, before, &combine);
            for (j, &x) in xs.iter().enumerate() {
                if first + j < parts {
                    emit_carry(row, part_at(first + j), carry);
                    carry = cat(carry, x, &combine);
                }
            }
            // The last lane's carry now covers the whole tile.
            let last = carry.unwrap_or(T::zero()).shfl_idx(31);
            if has != 0 {
                running = Some(last);
            }
            base += TILE;
        }
        if lane == 0 {
            emit_total(row, running);
        }
        row += device::grid_warps();
    }
}

/// Phase 3. One warp per (row, part): scans the chunk in scan order starting from
/// carry(row, part), calling emit(row, i, exclusive, inclusive) for every element index i of
/// the chunk: exclusive = carry ⊕ elements before i in scan order (None if nothing), inclusive
/// = exclusive ⊕ x_i (just x_i when exclusive is None).
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `load(i)` must be safe
/// for every index of every row of `rows`, and `carry` must give every lane the same value.
#[inline(always)]
pub unsafe fn scan_chunks<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    reverse: bool,
    carry: impl Fn(usize, usize) -> Option<T>,
    load: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, usize, Option<T>, T),
) {
    let lane = device::lane();
    let pairs = rows.count() * parts;
    let mut pair = device::global_warp();
    while pair < pairs {
        let (row, part) = (pair / parts, pair % parts);
        let (start, end) = rows.bounds(row);
        let (lo, hi) = chunk(start, end, part, parts);
        let len = hi - lo;
        // Index of position q of the chunk in scan order.
        let at = |q: usize| if reverse { hi - 1 - q } else { lo + q };
        let mut running = carry(row, part); // the same in every lane
        let mut base = 0;
        while base < len {
            let rem = len - base;
            let first = base + lane as usize * ITEMS;
            let tile = Tile { row, first, running };
            running = Some(if rem >= TILE {
                tile.scan(ITEMS, FULL_MASK, &at, &load, &combine, &emit)
            } else {
                tile.scan(lane_items(lane, rem), lanes_with_items(rem), &at, &load, &combine, &emit)
            });
            base += TILE;
        }
        pair += device::grid_warps();
    }
}

/// One tile of `scan_chunks`, seen from one lane.
struct Tile<T> {
    row: usize,
    /// Scan-order position of this lane's first item.
    first: usize,
    /// Everything before the tile.
    running: Option<T>,
}

impl<T: DeviceElem> Tile<T> {
    /// Scans the tile where this lane holds `n` items and the lanes with items are `has` (a
    /// non-empty prefix of the warp); returns running ⊕ the whole tile in every lane.
    #[inline(always)]
    fn scan(
        self,
        n: usize,
        has: u32,
        at: &impl Fn(usize) -> usize,
        load: &impl Fn(usize) -> T,
        combine: &impl Fn(T, T) -> T,
        emit: &impl Fn(usize, usize, Option<T>, T),
    ) -> T {
        let lane = device::lane();
        let xs = load_items(n, |j| load(at(self.first + j)));
        let incl = warp::scan_inclusive(fold_items(&xs, n, combine), has, combine);
        // Lane 0 has items, so every lane's inclusive value is real and so is the exclusive one
        // of every lane but 0.
        let before = incl.shfl_up(1);
        let mut prefix = cat(self.running, (lane > 0).then_some(before), combine);
        for (j, &x) in xs.iter().enumerate() {
            if j < n {
                let inclusive = match prefix {
                    Some(p) => combine(p, x),
                    None => x,
                };
                emit(self.row, at(self.first + j), prefix, inclusive);
                prefix = Some(inclusive);
            }
        }
        // The last lane's prefix now covers the whole tile (its own items, if any, included).
        prefix.unwrap_or(T::zero()).shfl_idx(31)
    }
}
