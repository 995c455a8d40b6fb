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
//! Long rows of a regular array take one pass instead (`scan_single_pass`, decoupled look-back
//! between block tiles held in registers): every element is read once and emitted once, and the
//! tile a round of the grid ahead is asked of L2 when a block starts one.

use crate::abi::{BLOCK_THREADS, ITEMS, SCAN_SLOT, TILE, WARP, single_pass_tile};
use crate::device::{self, FULL_MASK};
use crate::elem::{DeviceElem, load_shared_option, store_shared_option};
use crate::rows::{Rows, chunk};
use crate::warp::{self, cat, fold_items, lane_items, lanes, lanes_with_items, load_items};

/// `$body` for `$k` = 0, 1, .. below `$n` (a constant of at most 32), written out: a thread's
/// items stay in registers only if every loop over them is unrolled, and LLVM leaves loops with
/// large bodies rolled.
macro_rules! per_item {
    ($n:expr, |$k:ident| $body:block) => {
        per_item!(@ $n, $k, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $n:expr, $k:ident, $body:block, $($i:literal)*) => {
        const { assert!($n <= 32) };
        $(
            if $i < $n {
                let $k: usize = $i;
                $body
            }
        )*
    };
}

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

/// The status of the tiles of `scan_single_pass`, by (row, scan-order position): each tile's
/// aggregate (its own total) and inclusive prefix (everything up to and including it), and
/// whether either is there yet. An empty tile with nothing before it publishes "no value".
///
/// Elements of one 32-bit word ([`DeviceElem::BITS32`]) keep status and value in one 64-bit
/// word per tile (the status in the high half: [`AGGREGATE`] or [`INCLUSIVE`], plus [`EMPTY`]),
/// written and read whole, so that a poll is one load and no fence orders value and status.
/// Other elements keep a value column and a flag byte for each of the two (0: not yet; `SOME`;
/// `NONE`), the value published before its flag across a fence. The words and flags start zeroed.
#[derive(Clone, Copy)]
pub struct Lookback<T: DeviceElem> {
    /// One packed word per tile (in the partial flags, which the host sizes at 8 bytes a tile).
    words: *mut u64,
    aggregates: T::Ptr,
    aggregate_flags: *mut u8,
    inclusive: T::Ptr,
    inclusive_flags: *mut u8,
    /// The next tile to claim (a zeroed u32): tiles are claimed in order by running blocks, so
    /// every tile a block waits for belongs to a block that is running or done.
    ticket: *mut u32,
}

const SOME: u8 = 1;
const NONE: u8 = 2;
/// Packed status: the tile's aggregate is published.
const AGGREGATE: u64 = 1 << 32;
/// Packed status: the tile's inclusive prefix is published.
const INCLUSIVE: u64 = 2 << 32;
/// Packed status: the published value is absent (an empty tile with nothing before it).
const EMPTY: u64 = 4 << 32;

/// What the look-back knows of one tile.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    NotYet,
    Aggregate,
    Inclusive,
}

impl<T: DeviceElem> Lookback<T> {
    /// The status of `entries` tiles in a scan's scratch (`accel_core::kernel::Scratch::Scan`):
    /// the packed words in the partial flags, or the partials and their flags holding the
    /// aggregates and the carries and theirs the inclusive prefixes; the ticket is the `u32`
    /// after the carry flags rounded up to 8 bytes, where the executor allocates it (all zeroed).
    #[inline(always)]
    pub fn in_scratch(
        partials: T::Ptr,
        partial_flags: *mut bool,
        carries: T::Ptr,
        carry_flags: *mut bool,
        entries: usize,
    ) -> Lookback<T> {
        Lookback {
            words: partial_flags.cast(),
            aggregates: partials,
            aggregate_flags: partial_flags.cast(),
            inclusive: carries,
            inclusive_flags: carry_flags.cast(),
            ticket: carry_flags.cast::<u8>().wrapping_add(entries.next_multiple_of(8)).cast(),
        }
    }

    /// Publishes tile `j`'s aggregate (`inclusive == false`) or inclusive prefix.
    ///
    /// # Safety
    /// Entry `j` exists.
    #[inline(always)]
    unsafe fn publish(&self, j: usize, inclusive: bool, v: Option<T>) {
        // SAFETY: the caller guarantees entry `j`.
        unsafe {
            if T::BITS32 {
                let status = if inclusive { INCLUSIVE } else { AGGREGATE };
                let word = match v {
                    Some(v) => status | v.to_bits32() as u64,
                    None => status | EMPTY,
                };
                device::store_relaxed64(self.words.add(j), word);
            } else {
                let (values, flags) = if inclusive {
                    (self.inclusive, self.inclusive_flags)
                } else {
                    (self.aggregates, self.aggregate_flags)
                };
                if let Some(v) = v {
                    T::store(values, j, v);
                }
                device::thread_fence();
                flags.add(j).write_volatile(if v.is_some() { SOME } else { NONE });
            }
        }
    }

    /// Entry `j` of a flagged column once published (`None` while not).
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

    /// Tile `p` as the look-back sees it: its inclusive prefix if published, else its aggregate
    /// if published, else nothing yet; with the value.
    #[inline(always)]
    unsafe fn state(&self, p: usize) -> (State, Option<T>) {
        // SAFETY: the caller guarantees entry `p`.
        unsafe {
            if T::BITS32 {
                let word = device::load_relaxed64(self.words.add(p));
                let value = (word & EMPTY == 0).then(|| T::from_bits32(word as u32));
                if word & INCLUSIVE != 0 {
                    (State::Inclusive, value)
                } else if word & AGGREGATE != 0 {
                    (State::Aggregate, value)
                } else {
                    (State::NotYet, None)
                }
            } else if let Some(v) = Self::poll(self.inclusive, self.inclusive_flags, p) {
                (State::Inclusive, v)
            } else if let Some(v) = Self::poll(self.aggregates, self.aggregate_flags, p) {
                (State::Aggregate, v)
            } else {
                (State::NotYet, None)
            }
        }
    }

    /// Everything before tile `j` of a row whose first tile is `first < j`, in every lane: the
    /// warp reads the states of the 32 tiles before a window end at once (lane `l` the tile
    /// `end - 32 + l`). If the nearest tile with its inclusive prefix published has every later
    /// tile's aggregate published too, their combination is the answer; if all 32 have
    /// aggregates and none an inclusive prefix, their combination is kept and the window moves
    /// 32 tiles back; otherwise the warp waits a little and reads the states again. The first
    /// tile of a row always publishes its inclusive prefix, so the walk never leaves the row.
    /// (Windows of 4 and 8 tiles a lane were slower on an H200, docs/benchmarks.md: the chain of
    /// published prefixes is not what holds the scan back.)
    ///
    /// All 32 lanes of one warp must call it.
    #[inline(always)]
    unsafe fn look_back(&self, first: usize, j: usize, combine: &impl Fn(T, T) -> T) -> Option<T> {
        let lane = device::lane();
        let mut after: Option<T> = None; // the tiles from the window's end to j, same in all lanes
        let mut end = j;
        let mut wait = LOOK_BACK_WAIT;
        loop {
            let p = (end + lane as usize).wrapping_sub(WARP);
            // Tiles before the row's first count as "nothing yet": the first tile's inclusive
            // prefix always ends the walk before them.
            // SAFETY: entries of the row before `j` exist (the caller's contract).
            let (state, value) =
                if end + (lane as usize) >= first + WARP { unsafe { self.state(p) } } else { (State::NotYet, None) };
            let inclusive = device::ballot(state == State::Inclusive);
            let ready = device::ballot(state != State::NotYet);
            let needed = if inclusive != 0 { lanes(31 - inclusive.leading_zeros(), 32) } else { FULL_MASK };
            if ready & needed != needed {
                device::nanosleep(wait);
                wait = (wait * 2).min(LOOK_BACK_WAIT_MAX);
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

/// The look-back's first pause when a tile it needs is not ready (ns), doubling up to
/// [`LOOK_BACK_WAIT_MAX`]; a short cap, since the tile it waits for is already running.
const LOOK_BACK_WAIT: u32 = 32;
const LOOK_BACK_WAIT_MAX: u32 = 256;

/// What the warps of a block of `scan_single_pass` share: the claimed tile, each warp's total
/// and the tile's exclusive prefix, each value with a flag (0: absent), in one shared buffer.
///
/// Layout, in 16-byte groups: the ticket alone; the warps' flags; the prefix's flag alone; the
/// warps' values; the prefix's value alone. The next tile's ticket is written at the top of the
/// block's loop, possibly while warps that lag still read the warps' flags and values (a row's
/// first tile) or the prefix's flag and value (the others), and the prefix while they read the
/// warps' values; ptxas merges neighbouring shared reads into 16-byte ones (`LDS.128` at the
/// ticket's word for the first flags): a word that shared a group with them would be read in the
/// middle of its write, harmlessly since the read part is dropped, but as a hazard that
/// `compute-sanitizer --tool racecheck` reports.
struct BlockShared<T> {
    base: u32,
    _elem: core::marker::PhantomData<T>,
}

/// Warps of a block.
const WARPS: usize = BLOCK_THREADS as usize / WARP;
/// 32-bit words of a 16-byte group.
const GROUP_WORDS: usize = 4;
/// Word of the first warp's flag: the ticket's group precedes.
const WARP_FLAGS: usize = GROUP_WORDS;
/// Word of the prefix's flag: the group after the warps' flags.
const PREFIX_FLAG: usize = (WARP_FLAGS + WARPS).next_multiple_of(GROUP_WORDS);
/// Byte offset of the first warp's value: the group after the prefix's flag.
const WARP_VALUES: usize = (PREFIX_FLAG + GROUP_WORDS) * 4;
/// Byte offset of the prefix's value: after the warps' slots, each [`SCAN_SLOT`] bytes, a
/// multiple of 16.
const PREFIX_VALUE: usize = WARP_VALUES + WARPS * SCAN_SLOT;

impl<T: DeviceElem> BlockShared<T> {
    #[inline(always)]
    fn get() -> BlockShared<T> {
        const { assert!(core::mem::size_of::<T>() <= SCAN_SLOT && core::mem::align_of::<T>() <= 16) };
        let base = device::shared_buffer!("accel_scan_block", 16, PREFIX_VALUE + SCAN_SLOT);
        BlockShared { base, _elem: core::marker::PhantomData }
    }

    /// The shared-space address of 32-bit word `k`.
    #[inline(always)]
    fn word(&self, k: usize) -> u32 {
        self.base + 4 * k as u32
    }

    /// The shared-space addresses of value slot `k` and of its flag: warp `k`'s total for
    /// `k < WARPS`, the tile's prefix for `k == WARPS`.
    #[inline(always)]
    fn slot(&self, k: usize) -> (u32, u32) {
        if k < WARPS {
            (self.base + (WARP_VALUES + k * core::mem::size_of::<T>()) as u32, self.word(WARP_FLAGS + k))
        } else {
            (self.base + PREFIX_VALUE as u32, self.word(PREFIX_FLAG))
        }
    }

    /// Word 0: the claimed tile.
    #[inline(always)]
    fn set_ticket(&self, j: u32) {
        // SAFETY: word 0 lies in the buffer.
        unsafe { u32::store_shared(self.word(0), j) }
    }

    /// # Safety
    /// Written before a barrier that precedes this read.
    #[inline(always)]
    unsafe fn ticket(&self) -> u32 {
        // SAFETY: word 0 lies in the buffer; the caller guarantees the order.
        unsafe { u32::load_shared(self.word(0)) }
    }

    #[inline(always)]
    fn set(&self, k: usize, v: Option<T>) {
        let (value, flag) = self.slot(k);
        // SAFETY: slot `k` and its flag lie in the buffer (`k <= WARPS`), aligned (`WARP_VALUES`
        // and `PREFIX_VALUE` are multiples of 16, a slot's size of the element's alignment).
        unsafe { store_shared_option(value, flag, v) }
    }

    #[inline(always)]
    fn read(&self, k: usize) -> Option<T> {
        let (value, flag) = self.slot(k);
        // SAFETY: as `set`; written before the barrier that precedes this read.
        unsafe { load_shared_option(value, flag) }
    }
}

/// Bytes of one thread's items that the block's exchange buffer ([`Exchange`]) holds: a tile
/// whose items take more is loaded and emitted in the blocked arrangement directly, its items
/// held in registers. (`abi::scan_items` gives a thread at most this many bytes of items, so
/// only elements with padding in their layout or wider than this take that path.)
const EXCHANGE_BYTES: usize = 128;

/// One warp's part of the block's exchange buffer, where a warp turns its `WARP * PER_THREAD`
/// positions between the striped arrangement (lane `l` takes positions `l, l + 32, ...`: each
/// load and store of the warp covers consecutive addresses) and the blocked one (lane `l` takes
/// `l * PER_THREAD ..`: a lane scans consecutive items), and where the tile's items wait while
/// it looks back. One pad element follows every 32, so that the blocked reads
/// `l * PER_THREAD + k` of a step fall in different banks.
struct Exchange<T, const PER_THREAD: usize> {
    /// The shared-space address of this warp's part.
    base: u32,
    _elem: core::marker::PhantomData<T>,
}

impl<T: DeviceElem, const PER_THREAD: usize> Exchange<T, PER_THREAD> {
    /// Whether a thread's items fit the buffer.
    const FITS: bool = PER_THREAD * core::mem::size_of::<T>() <= EXCHANGE_BYTES;
    /// Elements of a warp's part, pads included.
    const PART: usize = WARP * PER_THREAD + PER_THREAD;

    /// The block's buffer (its shared-space address); none where the items do not fit
    /// ([`Self::FITS`]), so that such a kernel declares no buffer. Called once per kernel, by
    /// [`scan_single_pass`]: every place in a kernel's code that declares the buffer reserves
    /// its bytes again, and two of them (a full tile's code and a partial one's) would take
    /// more static shared memory than a block may have.
    #[inline(always)]
    fn buffer() -> u32 {
        if Self::FITS {
            device::shared_buffer!("accel_scan_exchange", 16, WARPS * (WARP + 1) * EXCHANGE_BYTES)
        } else {
            0
        }
    }

    /// Warp `warp`'s part of the block's `buffer` (from [`Self::buffer`]).
    #[inline(always)]
    fn of_warp(buffer: u32, warp: usize) -> Self {
        let base = if Self::FITS { buffer + (warp * Self::PART * core::mem::size_of::<T>()) as u32 } else { 0 };
        Exchange { base, _elem: core::marker::PhantomData }
    }

    /// The shared-space address of position `i`, pads counted.
    #[inline(always)]
    fn at(&self, i: usize) -> u32 {
        self.base + ((i + i / WARP) * core::mem::size_of::<T>()) as u32
    }

    /// # Safety
    /// `i < WARP * PER_THREAD`.
    #[inline(always)]
    unsafe fn put(&self, i: usize, v: T) {
        // SAFETY: the padded position of `i` lies in this warp's part, aligned as an element.
        unsafe { T::store_shared(self.at(i), v) }
    }

    /// # Safety
    /// `i < WARP * PER_THREAD`, written by a lane of this warp before a warp barrier.
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> T {
        // SAFETY: as `put`.
        unsafe { T::load_shared(self.at(i)) }
    }
}

/// A single-pass scan of long rows (decoupled look-back, after Merrill and Garland): each row is
/// cut into `parts` tiles of `BLOCK_THREADS * PER_THREAD` elements from its start (the last
/// shorter, any after it empty), which blocks claim in scan order through `status.ticket`.
/// Thread `t` of a block takes the tile's positions `t * PER_THREAD ..`: its warp loads them
/// striped (each load of the warp coalesced, all of a lane's issued at once) into shared memory
/// ([`Exchange`]), where they wait, out of the registers, until the tile's prefix is known. The
/// block scans the threads' totals (shuffles within a warp, the warps' totals through shared
/// memory) for the tile's aggregate, which thread 0 publishes; warp 0 looks back at the
/// predecessors' published values for what precedes the tile (the row's seed for the first
/// tile) and publishes the tile's inclusive prefix; then the scanned values replace the items in
/// shared memory and are emitted striped: `emit(row, index, exclusive, inclusive)` as in
/// [`scan_chunks`], and `row_start(row)` once per row. Traffic: every element is read once and
/// emitted once, plus one status word per tile (two values and two flags for elements wider than
/// 32 bits). Three barriers per tile.
///
/// A block spends most of a tile waiting (for its loads, at the barrier after the look-back), with
/// only [`crate::abi::SCAN_BLOCKS_PER_SM`] blocks a multiprocessor to cover it. Three things
/// shorten a tile's critical path:
/// - on starting tile `j`, the block's threads call `prefetch(lo, hi)` with the elements of tile
///   `j + gridDim` (the one started about one round of the grid later), which asks L2 for them
///   (`prefetch.global.L2`, a line a thread): memory keeps streaming while blocks wait, and the
///   tile's loads hit L2 when it starts. (Twice as far ahead was slower on an H200; with tiles
///   of 8192 `f32` held in shared memory, 2^28 elements take as long without it, 2^20 15% longer.)
/// - a full tile runs a copy of the tile's code in which no item is guarded by a count (each
///   guard cost a 64-bit compare and a predicate kept in a register: more instructions than the
///   scan itself). Tiles are whole from each row's start, so every tile but a row's last is full;
/// - thread 0 claims the block's next tile once the look-back is over and keeps the ticket in a
///   register until the barrier that starts the next tile, so that the write-back overlaps the
///   atomic's round trip. (Claimed before the look-back, a tile would wait through the look-back
///   of the one before, and its successors with it.)
///
/// Since the items wait in shared memory, a thread's registers hold only the loads in flight,
/// and a tile holds twice the elements it held in registers: 32 `f32` a thread, 3 blocks a
/// multiprocessor in 80 registers, 36 KB of shared memory a block (2^28 `f32` 3.5–4% faster
/// than 16 a thread in registers with 4 blocks, 2^24 10–15%; 4 blocks of the big tiles 14%
/// slower; H200, nineteenth session). The registers hold the tile's work only if what it
/// derives from the thread index is worked out again in each tile (see `scan_tile`).
///
/// # Safety
/// Called from every thread of a 1-D launch of `BLOCK_THREADS`-thread blocks; `load(i)` must be
/// safe for every index of every row, and `prefetch(lo, hi)` for the bounds of every non-empty
/// tile (each thread of the block calls it, with the same bounds); `status` holds
/// `rows.count() * parts` entries, with zeroed words, flags and ticket; every row is covered by
/// its `parts` tiles of `BLOCK_THREADS * PER_THREAD` elements; `seed(row)` gives every thread the
/// same value; the element fits a slot ([`SCAN_SLOT`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub unsafe fn scan_single_pass<T: DeviceElem, const PER_THREAD: usize>(
    rows: impl Rows,
    parts: usize,
    reverse: bool,
    status: Lookback<T>,
    seed: impl Fn(usize) -> Option<T>,
    load: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    emit: impl Fn(usize, usize, Option<T>, T),
    row_start: impl Fn(usize),
    prefetch: impl Fn(usize, usize),
) {
    let shared = BlockShared::<T>::get();
    let exchange_buffer = Exchange::<T, PER_THREAD>::buffer();
    let tiles = rows.count() * parts;
    // Tile `j`'s row, its position in the row in scan order (the last part first for right
    // scans), and its elements: tiles are whole from the row's start, so that every tile but a
    // row's last takes the unguarded code.
    let tile_elems = single_pass_tile(PER_THREAD);
    let tile_of = |j: usize| {
        let (row, pos) = (j / parts, j % parts);
        let part = if reverse { parts - 1 - pos } else { pos };
        let (start, end) = rows.bounds(row);
        let lo = start.saturating_add(part.saturating_mul(tile_elems)).min(end);
        let hi = lo.saturating_add(tile_elems).min(end);
        Claimed { j, row, pos, lo, hi }
    };
    let steps = TileSteps {
        reverse,
        status: &status,
        seed: &seed,
        load: &load,
        combine: &combine,
        emit: &emit,
        row_start: &row_start,
    };
    // Thread 0's claim of the block's next tile: the ticket stays in a register until the
    // barrier that starts the tile, so that no warp waits for the atomic before then.
    let claim = || {
        if device::thread_idx() == 0 {
            // SAFETY: the ticket is a zeroed word of global memory (the caller's contract).
            unsafe { device::fetch_add32(status.ticket, 1) }
        } else {
            0
        }
    };
    let mut next = claim();
    loop {
        if device::thread_idx() == 0 {
            // Word 0 of the buffer is the block's; every thread read the last tile's ticket
            // before that tile's block barriers.
            shared.set_ticket(next);
        }
        device::sync_threads();
        // SAFETY: written by thread 0 before the barrier.
        let j = unsafe { shared.ticket() } as usize;
        if j >= tiles {
            return;
        }
        // The tile started about one round of the grid from now: its elements asked of L2 now,
        // so that its loads hit L2 then, while memory keeps streaming under the look-backs.
        let ahead = j + device::grid_dim();
        if ahead < tiles {
            let later = tile_of(ahead);
            if later.lo < later.hi {
                prefetch(later.lo, later.hi);
            }
        }
        let tile = tile_of(j);
        // SAFETY: the caller's contract, passed on.
        unsafe {
            next = if tile.hi - tile.lo == tile_elems {
                scan_tile::<T, PER_THREAD, true>(&shared, exchange_buffer, tile, &steps, &claim)
            } else {
                scan_tile::<T, PER_THREAD, false>(&shared, exchange_buffer, tile, &steps, &claim)
            };
        }
    }
}

/// The tile a block of [`scan_single_pass`] has claimed: entry `j` of the status, position `pos`
/// of `row` in scan order, the elements `lo..hi`.
struct Claimed {
    j: usize,
    row: usize,
    pos: usize,
    lo: usize,
    hi: usize,
}

/// The scan's direction (`reverse`: scan order from a tile's `hi - 1` down) and what
/// [`scan_single_pass`] was given to call, which every tile uses.
struct TileSteps<'a, T: DeviceElem, S, L, C, E, W> {
    reverse: bool,
    status: &'a Lookback<T>,
    seed: &'a S,
    load: &'a L,
    combine: &'a C,
    emit: &'a E,
    row_start: &'a W,
}

/// One tile of [`scan_single_pass`], every thread of the block; `FULL` when it holds
/// `BLOCK_THREADS * PER_THREAD` elements, so that no item needs a guard. Calls `claim` (the
/// block's next claim) once the tile's inclusive prefix is published (claimed earlier, the next
/// tile would wait through this one's look-back), and returns what it returned (thread 0's next
/// ticket, which the caller stores for the block at the top of its loop).
///
/// # Safety
/// As [`scan_single_pass`], for the claimed tile; called by every thread of the block after a
/// block barrier that follows thread 0's store of the tile's ticket, each thread having read it.
#[inline(always)]
unsafe fn scan_tile<T: DeviceElem, const PER_THREAD: usize, const FULL: bool>(
    shared: &BlockShared<T>,
    exchange_buffer: u32,
    tile: Claimed,
    steps: &TileSteps<
        T,
        impl Fn(usize) -> Option<T>,
        impl Fn(usize) -> T,
        impl Fn(T, T) -> T,
        impl Fn(usize, usize, Option<T>, T),
        impl Fn(usize),
    >,
    claim: &impl Fn() -> u32,
) -> u32 {
    // The thread index read here, not hoisted out of the tile loop of the caller: the 16 striped
    // positions and lane masks worked out from it otherwise stayed live across the loop and
    // spilled (212 bytes at 3 blocks a multiprocessor; now 24 at 3 and 64 at 4, which then fit;
    // 2^28 f32 947 µs before, 850 µs with both, H200, tenth session).
    let t = device::thread_idx_here();
    let (lane, warp) = (device::lane_of(t), device::warp_of(t));
    let Claimed { j, row, pos, lo, hi } = tile;
    let TileSteps { reverse, status, seed, load, combine, emit, row_start } = *steps;
    let at = |q: usize| if reverse { hi - 1 - q } else { lo + q };
    // This warp's positions of the tile, and this thread's.
    let warp_first = warp * WARP * PER_THREAD;
    let first = t * PER_THREAD;
    let (warp_count, count) = if FULL {
        (WARP * PER_THREAD, PER_THREAD)
    } else {
        ((hi - lo).saturating_sub(warp_first).min(WARP * PER_THREAD), (hi - lo).saturating_sub(first).min(PER_THREAD))
    };
    let in_warp = |q: usize| FULL || q < warp_count;
    let in_thread = |k: usize| FULL || k < count;
    let exchange = Exchange::<T, PER_THREAD>::of_warp(exchange_buffer, warp);
    let striped = |k: usize| k * WARP + lane as usize;
    // Where the items fit the exchange buffer they stay there, not in registers, from the loads
    // to the emits: registers hold a tile's loads only while they are in flight, so that a
    // thread takes twice the items (and a tile twice the elements) at the same occupancy. Where
    // they do not, a thread loads its items in the blocked arrangement and keeps them.
    let mut held = [T::zero(); PER_THREAD];
    if Exchange::<T, PER_THREAD>::FITS {
        let mut loaded = [T::zero(); PER_THREAD];
        per_item!(PER_THREAD, |k| {
            if in_warp(striped(k)) {
                loaded[k] = load(at(warp_first + striped(k)));
            }
        });
        per_item!(PER_THREAD, |k| {
            if in_warp(striped(k)) {
                // SAFETY: a position of the warp.
                unsafe { exchange.put(striped(k), loaded[k]) };
            }
        });
        device::sync_warp();
    } else {
        per_item!(PER_THREAD, |k| {
            if in_thread(k) {
                held[k] = load(at(first + k));
            }
        });
    }
    // This thread's item `k < count`, in scan order.
    let item = |k: usize| {
        if Exchange::<T, PER_THREAD>::FITS {
            // SAFETY: this lane's position, below `warp_count`, put before the warp barrier;
            // until the barrier before the striped emits only this lane touches it.
            unsafe { exchange.get(lane as usize * PER_THREAD + k) }
        } else {
            held[k]
        }
    };

    // This thread's total, then its warp's scan of the totals: the threads with items are a
    // prefix of the block, so of each warp.
    let mut mine = if in_thread(0) { item(0) } else { T::zero() };
    per_item!(PER_THREAD, |k| {
        if k > 0 && in_thread(k) {
            mine = combine(mine, item(k));
        }
    });
    let has = if FULL { FULL_MASK } else { device::ballot(count > 0) };
    let incl = warp::scan_inclusive(mine, has, combine);
    let lane_before = incl.shfl_up(1);
    let lane_before = (lane > 0 && has & lanes(0, lane) != 0).then_some(lane_before);
    let warp_total = incl.shfl_idx(31u32.saturating_sub(has.leading_zeros()));
    if lane == 0 {
        shared.set(warp, (has != 0).then_some(warp_total));
    }
    device::sync_threads();
    let mut warp_before = None;
    let mut aggregate = None;
    for w in 0..WARPS {
        if w == warp {
            warp_before = aggregate;
        }
        aggregate = cat(aggregate, shared.read(w), combine);
    }

    // SAFETY: entry `j` and the row's earlier ones exist (the caller's contract).
    let (exclusive, next) = unsafe {
        if pos == 0 {
            let s = seed(row);
            if t == 0 {
                status.publish(j, true, cat(s, aggregate, combine));
                row_start(row);
            }
            (s, claim())
        } else {
            if t == 0 {
                status.publish(j, false, aggregate);
            }
            if warp == 0 {
                let prefix = status.look_back(j - pos, j, combine);
                if lane == 0 {
                    status.publish(j, true, cat(prefix, aggregate, combine));
                    shared.set(WARPS, prefix);
                }
            }
            // `pos` is the same in the whole block: every thread reaches this barrier.
            device::sync_threads();
            (shared.read(WARPS), claim())
        }
    };

    let warp_start = cat(exclusive, warp_before, combine);
    let mut prefix = cat(warp_start, lane_before, combine);
    // With the exchange, each lane's inclusive values replace its items in the buffer, to be
    // emitted striped after the warp's barrier.
    per_item!(PER_THREAD, |k| {
        if in_thread(k) {
            let x = item(k);
            let inclusive = match prefix {
                Some(p) => combine(p, x),
                None => x,
            };
            if Exchange::<T, PER_THREAD>::FITS {
                // SAFETY: this lane's position `first + k - warp_first < warp_count`.
                unsafe { exchange.put(lane as usize * PER_THREAD + k, inclusive) };
            } else {
                emit(row, at(first + k), prefix, inclusive);
            }
            prefix = Some(inclusive);
        }
    });
    if Exchange::<T, PER_THREAD>::FITS {
        device::sync_warp();
        per_item!(PER_THREAD, |k| {
            let q = striped(k);
            if in_warp(q) {
                // SAFETY: positions `q` and `q - 1` of the warp, put before the barrier; the
                // buffer is written again only after the next tile's first block barrier.
                let (inclusive, exclusive) =
                    unsafe { (exchange.get(q), if q == 0 { warp_start } else { Some(exchange.get(q - 1)) }) };
                emit(row, at(warp_first + q), exclusive, inclusive);
            }
        });
    }
    next
}
