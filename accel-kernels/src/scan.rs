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
//!
//! Long rows of a regular array take one pass instead (`scan_single_pass`, decoupled look-back):
//! every element is read once and emitted once.

use crate::abi::{ITEMS, SINGLE_PASS_TILES, SINGLE_PASS_WINDOW, TILE, WARP};
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

/// The status of the chunks of `scan_single_pass`, by (row, scan-order position): each chunk's
/// aggregate (its own total) and inclusive prefix (everything up to and including it), each a
/// value column and a flag byte (0: not yet; `SOME`: the value is there; `NONE`: no value, an
/// empty chunk with nothing before it). The flags start zeroed.
#[derive(Clone, Copy)]
pub struct Lookback<T: DeviceElem> {
    aggregates: T::Ptr,
    aggregate_flags: *mut u8,
    inclusive: T::Ptr,
    inclusive_flags: *mut u8,
    /// The next chunk to claim (a zeroed u32): chunks are claimed in order by running warps, so
    /// every chunk a warp waits for belongs to a warp that is running or done.
    ticket: *mut u32,
}

const SOME: u8 = 1;
const NONE: u8 = 2;

impl<T: DeviceElem> Lookback<T> {
    /// The status of `entries` chunks in a scan's scratch (`accel_core::kernel::Scratch::Scan`):
    /// the partials and their flags hold the aggregates, the carries and theirs the inclusive
    /// prefixes, and the ticket is the `u32` after the carry flags rounded up to 8 bytes, where
    /// the executor allocates it (all zeroed).
    #[inline(always)]
    pub fn in_scratch(
        partials: T::Ptr,
        partial_flags: *mut bool,
        carries: T::Ptr,
        carry_flags: *mut bool,
        entries: usize,
    ) -> Lookback<T> {
        Lookback {
            aggregates: partials,
            aggregate_flags: partial_flags.cast(),
            inclusive: carries,
            inclusive_flags: carry_flags.cast(),
            ticket: carry_flags.cast::<u8>().wrapping_add(entries.next_multiple_of(8)).cast(),
        }
    }

    /// Publishes `v` at `j` of a column: the value, a fence, then the flag.
    #[inline(always)]
    unsafe fn publish(values: T::Ptr, flags: *mut u8, j: usize, v: Option<T>) {
        // SAFETY: the caller guarantees entry `j`.
        unsafe {
            if let Some(v) = v {
                T::store(values, j, v);
            }
            device::thread_fence();
            flags.add(j).write_volatile(if v.is_some() { SOME } else { NONE });
        }
    }

    /// Entry `j` of a column once published (`None` while not).
    #[inline(always)]
    unsafe fn poll(values: T::Ptr, flags: *mut u8, j: usize) -> Option<Option<T>> {
        // SAFETY: the caller guarantees entry `j`; the value is read after the flag and a fence,
        // past any stale cache line.
        unsafe {
            match flags.add(j).read_volatile() {
                0 => None,
                flag => {
                    device::thread_fence();
                    Some((flag == SOME).then(|| T::load_volatile(values, j)))
                }
            }
        }
    }

    /// Entry `p` as the look-back sees it: its inclusive prefix if published (state 2), else its
    /// aggregate if published (state 1), else nothing yet (state 0); with the value.
    #[inline(always)]
    unsafe fn state(&self, p: usize) -> (u32, Option<T>) {
        // SAFETY: the caller guarantees entry `p`.
        unsafe {
            if let Some(v) = Self::poll(self.inclusive, self.inclusive_flags, p) {
                (2, v)
            } else if let Some(v) = Self::poll(self.aggregates, self.aggregate_flags, p) {
                (1, v)
            } else {
                (0, None)
            }
        }
    }

    /// Everything before chunk `j` of a row whose first chunk is `first < j`, in every lane:
    /// the warp reads the states of the 32 chunks before a window end at once (lane `l` the
    /// chunk `end - 32 + l`). If the nearest chunk with its inclusive prefix published has every
    /// later chunk's aggregate published too, their combination is the answer; if all 32 have
    /// aggregates and none an inclusive prefix, their combination is kept and the window moves
    /// 32 chunks back; otherwise the warp reads the states again. The first chunk of a row
    /// always publishes its inclusive prefix, so the walk never leaves the row.
    ///
    /// All 32 lanes must call it.
    #[inline(always)]
    unsafe fn look_back(&self, first: usize, j: usize, combine: &impl Fn(T, T) -> T) -> Option<T> {
        let lane = device::lane();
        let mut after: Option<T> = None; // the chunks from the window's end to j, same in all lanes
        let mut end = j;
        loop {
            let p = (end + lane as usize).wrapping_sub(WARP);
            // Chunks before the row's first count as "nothing yet": the first chunk's inclusive
            // prefix always ends the walk before them.
            // SAFETY: entries of the row before `j` exist (the caller's contract).
            let (state, value) =
                if end + (lane as usize) >= first + WARP { unsafe { self.state(p) } } else { (0, None) };
            let inclusive = device::ballot(state == 2);
            let ready = device::ballot(state >= 1);
            let needed = if inclusive != 0 { lanes(31 - inclusive.leading_zeros(), 32) } else { FULL_MASK };
            if ready & needed != needed {
                continue;
            }
            let has = needed & device::ballot(value.is_some());
            let total = warp::reduce(value.unwrap_or(T::zero()), has, combine).shfl_idx(0);
            after = cat((has != 0).then_some(total), after, combine);
            if inclusive != 0 {
                return after;
            }
            end -= WARP;
        }
    }
}

/// What a warp holds of one window of a chunk (up to SINGLE_PASS_TILES tiles, ITEMS items per
/// lane per tile): the items, how many this lane has per tile, what its items follow within
/// each tile, and each tile's total.
struct Window<T> {
    items: [[T; ITEMS]; SINGLE_PASS_TILES],
    counts: [usize; SINGLE_PASS_TILES],
    before: [Option<T>; SINGLE_PASS_TILES],
    totals: [Option<T>; SINGLE_PASS_TILES],
}

impl<T: DeviceElem> Window<T> {
    /// Loads positions `0..len.min(SINGLE_PASS_WINDOW)` with `get` (all loads issued at once)
    /// and scans each tile with shuffles.
    #[inline(always)]
    fn load(len: usize, get: impl Fn(usize) -> T, combine: &impl Fn(T, T) -> T) -> Window<T> {
        let lane = device::lane();
        let counts: [usize; SINGLE_PASS_TILES] =
            core::array::from_fn(|u| lane_items(lane, len.saturating_sub(u * TILE)));
        let items: [[T; ITEMS]; SINGLE_PASS_TILES] = core::array::from_fn(|u| {
            let first = u * TILE + lane as usize * ITEMS;
            load_items(counts[u], |k| get(first + k))
        });
        let mut before = [None; SINGLE_PASS_TILES];
        let mut totals = [None; SINGLE_PASS_TILES];
        for u in 0..SINGLE_PASS_TILES {
            if u * TILE >= len {
                break;
            }
            let has = lanes_with_items(len - u * TILE);
            let incl = warp::scan_inclusive(fold_items(&items[u], counts[u], combine), has, combine);
            let prev = incl.shfl_up(1);
            before[u] = (lane > 0 && has & lanes(0, lane) != 0).then_some(prev);
            // Lanes with items are a prefix of the warp, so the last one holds the tile's total.
            totals[u] = Some(incl.shfl_idx(31 - has.leading_zeros()));
        }
        Window { items, counts, before, totals }
    }

    /// The window's total.
    #[inline(always)]
    fn total(&self, combine: &impl Fn(T, T) -> T) -> Option<T> {
        self.totals.iter().fold(None, |acc, &t| cat(acc, t, combine))
    }

    /// Emits the window's positions `q` (through `emit_at(q, exclusive, inclusive)`) after
    /// `running`, everything before the window; returns running ⊕ the window.
    #[inline(always)]
    fn emit(
        &self,
        mut running: Option<T>,
        combine: &impl Fn(T, T) -> T,
        emit_at: impl Fn(usize, Option<T>, T),
    ) -> Option<T> {
        let lane = device::lane() as usize;
        for u in 0..SINGLE_PASS_TILES {
            let first = u * TILE + lane * ITEMS;
            let mut prefix = cat(running, self.before[u], combine);
            for (k, &x) in self.items[u].iter().enumerate() {
                if k < self.counts[u] {
                    let inclusive = match prefix {
                        Some(p) => combine(p, x),
                        None => x,
                    };
                    emit_at(first + k, prefix, inclusive);
                    prefix = Some(inclusive);
                }
            }
            running = cat(running, self.totals[u], combine);
        }
        running
    }
}

/// A single-pass scan of long rows (decoupled look-back, after Merrill and Garland): each row is
/// cut into `parts` chunks of at most [`SINGLE_PASS_CHUNK`](crate::abi::SINGLE_PASS_CHUNK) elements (`chunk`), which warps claim
/// in scan order through `status.ticket`. A warp reads its chunk window by window (512 elements
/// in registers: ITEMS per lane per tile, all loads of a window issued at once, each tile scanned
/// with shuffles) for the chunk's aggregate, publishes it, finds what precedes the chunk by
/// looking back at its predecessors' published values (the row's seed for the first chunk),
/// publishes its inclusive prefix, then reads the chunk again (from L2, mostly; a one-window
/// chunk is kept in registers) and emits it: `emit(row, index, exclusive, inclusive)` as in
/// [`scan_chunks`], and `row_start(row)` once per row. Traffic: every element is read once from
/// memory and emitted once, plus two values and two flags per chunk. Chunks of several windows
/// keep the look-back chain short: it advances by at most 32 chunks per round trip.
///
/// # Safety
/// Called from every thread of a 1-D launch whose blocks are whole warps; `load(i)` must be safe
/// for every index of every row; `status` holds `rows.count() * parts` entries per column, with
/// zeroed flags and ticket; every chunk is at most SINGLE_PASS_CHUNK long; `seed(row)` gives
/// every lane the same value.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn scan_single_pass<T: DeviceElem>(
    rows: impl Rows,
    parts: usize,
    reverse: bool,
    status: Lookback<T>,
    seed: impl Fn(usize) -> Option<T>,
    load: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, usize, Option<T>, T),
    row_start: impl Fn(usize),
) {
    let lane = device::lane();
    let chunks = rows.count() * parts;
    loop {
        // SAFETY: the ticket is a zeroed word of global memory (the caller's contract).
        let claimed = if lane == 0 { unsafe { device::fetch_add32(status.ticket, 1) } } else { 0 };
        let j = device::shfl_idx(claimed, 0) as usize;
        if j >= chunks {
            return;
        }
        // Chunk `pos` of the row in scan order: the last part first for right scans.
        let (row, pos) = (j / parts, j % parts);
        let part = if reverse { parts - 1 - pos } else { pos };
        let (start, end) = rows.bounds(row);
        let (lo, hi) = chunk(start, end, part, parts);
        let len = hi - lo;
        let at = |q: usize| if reverse { hi - 1 - q } else { lo + q };
        let window = |base: usize| Window::load(len - base, |q| load(at(base + q)), &combine);

        let first = window(0);
        let mut aggregate = first.total(&combine);
        let mut base = SINGLE_PASS_WINDOW;
        while base < len {
            aggregate = cat(aggregate, window(base).total(&combine), &combine);
            base += SINGLE_PASS_WINDOW;
        }

        // SAFETY: entry `j` and the row's earlier ones exist (the caller's contract).
        let exclusive = unsafe {
            if pos == 0 {
                let s = seed(row);
                if lane == 0 {
                    Lookback::publish(status.inclusive, status.inclusive_flags, j, cat(s, aggregate, &combine));
                    row_start(row);
                }
                s
            } else {
                if lane == 0 {
                    Lookback::publish(status.aggregates, status.aggregate_flags, j, aggregate);
                }
                let prefix = status.look_back(j - pos, j, &combine);
                if lane == 0 {
                    Lookback::publish(status.inclusive, status.inclusive_flags, j, cat(prefix, aggregate, &combine));
                }
                prefix
            }
        };

        let mut running = first.emit(exclusive, &combine, |q, excl, incl| emit(row, at(q), excl, incl));
        let mut base = SINGLE_PASS_WINDOW;
        while base < len {
            running = window(base).emit(running, &combine, |q, excl, incl| emit(row, at(base + q), excl, incl));
            base += SINGLE_PASS_WINDOW;
        }
    }
}
