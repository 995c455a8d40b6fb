//! `expand` (and `filter`'s scatter), alone and fused with `permute` (thesis on expand/permute,
//! ch. 3-4).
//!
//! Alone: a counts kernel, the module's offsets scan, then one thread per output finds its source
//! by binary search over the offsets ([`source_of`]; neighbouring threads search for
//! neighbouring outputs, so the first probes are shared through the cache) and writes it.
//!
//! Fused with `permute`, the expanded array is never written: the counts kernel finds the total
//! and the longest count ([`counts`]), the host reads them (one wait) and chooses one of four
//! strategies ([`crate::abi::spread`]), the counts are written and scanned into offsets only
//! when the strategy (tiles) or the fused closures (which may read an output's index in the
//! expanded array) need them, and one kernel ([`spread`]) calls the fused body for every
//! (source, output) pair.
//!
//! - **thread**: a source per thread (grid-stride), its outputs in a loop; the source is read
//!   once. Best when every count is small; one long count keeps its thread busy alone.
//! - **warp**: a source per warp, its outputs over the 32 lanes.
//! - **block**: a source per block, its outputs over the 256 threads: long, even counts.
//! - **tiles**: the merged sequence of sources and outputs cut into tiles of
//!   [`SPREAD_TILE`](crate::abi::SPREAD_TILE) items ([`crate::search::merge_path`]), each block
//!   taking a contiguous run of tiles; a tile's offsets are loaded into shared memory (a loop of
//!   step `block_dim`) and each thread finds the source of its outputs there by binary search.
//!   Every tile holds the same work however skewed the counts (the Sieve's first primes, one
//!   row of 10^7 among empty ones), at a search per output.
//!
//! Memory traffic (fused): one read of the sources for the counts; when scanned, the counts and
//! the offsets (`8 n` bytes each, written then read); one read of each source per output it has
//! under tiles (per source for thread, warp and block); the permute's combines; no expanded
//! array.
//!
//! Limits: the barriers of the tiles strategy sit in conditions that are the same for every
//! thread of a block (its tiles and their bounds), never in per-thread ones.

use crate::abi::{BLOCK_THREADS, COMPACT_ITEMS, SPREAD_TILE, WARP, spread};
use crate::atomic::{AtomicAdd, AtomicMinMax};
use crate::device;
use crate::elem::DeviceElem;
use crate::search;

/// The source of output `k`: the largest s < n with offsets[s] <= k ([`search::last_at_most`];
/// for k < offsets[n]); 0 when `n == 0`.
///
/// # Safety
/// `offsets` holds at least `n` values in global memory.
#[inline(always)]
pub unsafe fn source_of(offsets: *const usize, n: usize, k: usize) -> usize {
    // SAFETY: the search reads indices below `n`.
    search::last_at_most(n, |i| unsafe { usize::load(offsets.cast_mut(), i) }, k)
}

/// The counts kernel of a fused `expand`: the longest count raised into `sizes[0]` and the total
/// added into `sizes[1]` (a warp's longest and total from shuffles, the block's in shared memory,
/// then one atomic addition per block and one maximum per block whose longest exceeds what it
/// reads there), and unless `counts` is null, `counts[i] = count(i)` for every `i < n` and
/// `counts[n] = 0` (the offsets scan's last entry). The total cannot wrap when `n` times the
/// longest fits ([`abi::spread::too_many`]).
///
/// # Safety
/// Called from every thread of a 1-D launch of whole blocks of at most
/// [`BLOCK_THREADS`](crate::abi::BLOCK_THREADS) threads; `sizes` holds 2 zeroed values and
/// `counts`, unless null, `n + 1` values in global memory.
#[inline(always)]
pub unsafe fn counts(n: usize, counts: *mut usize, sizes: *mut usize, count: impl Fn(usize) -> usize) {
    let (mut longest, mut total) = (0usize, 0usize);
    let stride = device::grid_threads();
    let mut i = device::global_thread();
    while i < n {
        let c = count(i);
        if !counts.is_null() {
            // SAFETY: i < n.
            unsafe { *counts.add(i) = c };
        }
        longest = longest.max(c);
        total = total.wrapping_add(c);
        i += stride;
    }
    if !counts.is_null() && device::global_thread() == 0 {
        // SAFETY: element n exists.
        unsafe { *counts.add(n) = 0 };
    }
    // Every lane reaches the shuffles: the loop above is the only divergent code.
    let from = |v: usize, delta: u32| {
        let (lo, hi) = (device::shfl_down(v as u32, delta), device::shfl_down((v >> 32) as u32, delta));
        (hi as usize) << 32 | lo as usize
    };
    let mut delta = WARP as u32 / 2;
    while delta > 0 {
        longest = longest.max(from(longest, delta));
        total = total.wrapping_add(from(total, delta));
        delta /= 2;
    }
    // The block's warps meet in shared memory, so that one thread per block, not one lane per
    // warp, updates `sizes`: 8448 additions per launch to one address kept the counts of 2^22
    // sources at 20 µs on an H200, where reading them takes about 6.
    let buffer = shared_sizes();
    let slot = |warp: usize, k: usize| buffer + ((2 * warp + k) * size_of::<usize>()) as u32;
    if device::lane() == 0 {
        // SAFETY: the buffer holds two values for each warp of a block.
        unsafe {
            usize::store_shared(slot(device::warp_in_block(), 0), longest);
            usize::store_shared(slot(device::warp_in_block(), 1), total);
        }
    }
    device::sync_threads();
    if device::thread_idx() == 0 {
        let (mut longest, mut total) = (0usize, 0usize);
        for warp in 0..device::block_dim() / WARP {
            // SAFETY: written by each warp's lane 0 before the barrier.
            unsafe {
                longest = longest.max(usize::load_shared(slot(warp, 0)));
                total = total.wrapping_add(usize::load_shared(slot(warp, 1)));
            }
        }
        // SAFETY: `sizes` holds two values; a relaxed load sees the other blocks' atomics.
        unsafe {
            if longest > device::load_relaxed64(sizes as *const u64) as usize {
                usize::red_max(sizes, longest);
            }
            if total > 0 {
                usize::red_add(sizes.add(1), total);
            }
        }
    }
}

/// A whole `filter` of `n` elements in one block, for the small ones (up to
/// [`abi::COMPACT_MAX`](crate::abi::COMPACT_MAX)), where the counts kernel, the offsets scan and
/// the write would be three launches: the block takes `BLOCK_THREADS * COMPACT_ITEMS` elements a
/// step, thread `t` elements `base + k * BLOCK_THREADS + t` for `k < COMPACT_ITEMS` (all loads
/// issued first); each warp counts what it keeps of each `k` (a ballot), the counts meet in shared
/// memory, and each kept element `x` is written by `write(rank, x)` at its rank among all kept,
/// in order. Then the number kept goes to `total`, and to `mirror` unless null. Traffic: every
/// element read and tested once, every kept one written once; two barriers a step.
///
/// # Safety
/// Called from every thread of a launch of one block of `BLOCK_THREADS` threads; `total` (and
/// `mirror` unless null) point at a `usize` in memory the device can write; `load` and `keep`
/// are safe for every index below `n`, `write` for every rank below the number kept.
#[inline(always)]
pub unsafe fn compact_in_block<X: Copy>(
    n: usize,
    load: impl Fn(usize) -> X,
    keep: impl Fn(X) -> bool,
    write: impl Fn(usize, X),
    total: *mut usize,
    mirror: *mut usize,
) {
    const WARPS: usize = BLOCK_THREADS as usize / WARP;
    let block = BLOCK_THREADS as usize;
    let (t, warp, lane) = (device::thread_idx(), device::warp_in_block(), device::lane());
    let counts = device::shared_buffer!("accel_compact_counts", 4, COMPACT_ITEMS * WARPS * size_of::<u32>());
    let slot = |k: usize, w: usize| counts + ((k * WARPS + w) * size_of::<u32>()) as u32;
    let below = crate::warp::lanes(0, lane);
    let mut kept_before = 0usize;
    let mut base = 0;
    // `base` is the same in every thread: the barriers are reached by all.
    while base < n {
        let xs: [Option<X>; COMPACT_ITEMS] = core::array::from_fn(|k| {
            let i = base + k * block + t;
            (i < n).then(|| load(i))
        });
        let kept: [Option<X>; COMPACT_ITEMS] = core::array::from_fn(|k| xs[k].filter(|&x| keep(x)));
        let votes: [u32; COMPACT_ITEMS] = core::array::from_fn(|k| device::ballot(kept[k].is_some()));
        if lane == 0 {
            for (k, v) in votes.iter().enumerate() {
                // SAFETY: the buffer holds a count for each item of each warp.
                unsafe { u32::store_shared(slot(k, warp), v.count_ones()) };
            }
        }
        device::sync_threads();
        // The kept elements before each of this thread's: every count of an earlier item, and of
        // this item in earlier warps.
        let mut before = [0usize; COMPACT_ITEMS];
        let mut step = 0usize;
        for (k, b) in before.iter_mut().enumerate() {
            for w in 0..WARPS {
                if w == warp {
                    *b = step;
                }
                // SAFETY: written by each warp's lane 0 before the barrier.
                step += unsafe { u32::load_shared(slot(k, w)) } as usize;
            }
        }
        for k in 0..COMPACT_ITEMS {
            if let Some(x) = kept[k] {
                write(kept_before + before[k] + (votes[k] & below).count_ones() as usize, x);
            }
        }
        kept_before += step;
        // Before the next step writes the counts again.
        device::sync_threads();
        base += block * COMPACT_ITEMS;
    }
    if t == 0 {
        // SAFETY: as this function's.
        unsafe {
            *total = kept_before;
            if !mirror.is_null() {
                *mirror = kept_before;
            }
        }
    }
}

/// The shared-space address of the block's buffer for [`counts`]: a longest count and a total per
/// warp of a block of [`BLOCK_THREADS`](crate::abi::BLOCK_THREADS).
#[inline(always)]
fn shared_sizes() -> u32 {
    device::shared_buffer!("accel_counts_sizes", 8, 2 * (BLOCK_THREADS as usize / WARP) * size_of::<usize>())
}

/// The strategy a spread of `n` sources runs under: `strategy`, or for
/// [`spread::ON_DEVICE`] the one [`spread::select`] gives for the sizes [`counts`] left in
/// `sizes`; `None` when those counts may add up to more than a run can address
/// ([`spread::too_many`]), after the grid's first thread has called `too_many(longest)` to
/// record it. The answer is the same in every thread.
///
/// # Safety
/// Unless `strategy` is another word, `sizes` holds the 2 values a completed [`counts`] wrote.
#[inline(always)]
pub unsafe fn chosen(strategy: u64, n: usize, sizes: *const usize, too_many: impl FnOnce(usize)) -> Option<u64> {
    if strategy != spread::ON_DEVICE {
        return Some(strategy);
    }
    // SAFETY: as this function's.
    let (longest, total) = unsafe { (*sizes, *sizes.add(1)) };
    if !spread::too_many(n, longest) {
        Some(spread::select(n, total, longest))
    } else {
        if device::global_thread() == 0 {
            too_many(longest);
        }
        None
    }
}

/// Calls `emit(x, j, k)` once for every source `s < n` and each of its outputs `j`, where `x =
/// load(s)` and `k = offsets[s] + j` is the output's index in the expanded array, spread over the
/// grid by `strategy` (an [`abi::spread`](crate::abi::spread) constant; an unknown one spreads
/// by tiles). Without offsets (`offsets` null: the host ran no scan, because neither the strategy
/// nor the fused closures need `k`), the thread, warp and block strategies take each source's
/// count from `count(s, x)` and `k` is meaningless.
///
/// # Safety
/// Called from every thread of a 1-D launch (the tiles strategy synchronises the block);
/// `offsets`, unless null, holds the `n + 1` exclusive prefix sums of the counts in global
/// memory, which the tiles strategy needs; `load`, `count` and `emit` are safe to call for every
/// source and output.
#[inline(always)]
pub unsafe fn spread<X: Copy>(
    strategy: u64,
    n: usize,
    offsets: *const usize,
    load: impl Fn(usize) -> X,
    count: impl Fn(usize, X) -> usize,
    emit: impl Fn(X, usize, usize),
) {
    // SAFETY: every index read is at most n.
    let at = |s: usize| unsafe { *offsets.add(s) };
    // The outputs of source `s` from `first` on, every `step`-th.
    let source = |s: usize, first: usize, step: usize| {
        let (x, lo, hi) = if offsets.is_null() {
            let x = load(s);
            (x, 0, count(s, x))
        } else {
            let (lo, hi) = (at(s), at(s + 1));
            if lo + first >= hi {
                return;
            }
            (load(s), lo, hi)
        };
        let mut k = lo + first;
        while k < hi {
            emit(x, k - lo, k);
            k += step;
        }
    };
    match strategy {
        spread::THREAD => {
            let (mut s, step) = (device::global_thread(), device::grid_threads());
            while s < n {
                source(s, 0, 1);
                s += step;
            }
        }
        spread::WARP => {
            let (mut s, step) = (device::global_warp(), device::grid_warps());
            while s < n {
                source(s, device::lane() as usize, WARP);
                s += step;
            }
        }
        spread::BLOCK => {
            let (mut s, step) = (device::block_idx(), device::grid_dim());
            while s < n {
                source(s, device::thread_idx(), device::block_dim());
                s += step;
            }
        }
        // SAFETY: as this function's.
        _ => unsafe { tiles(n, &at, load, emit) },
    }
}

/// The tiles strategy of [`spread`]: block `b` takes a contiguous run of tiles of the merged
/// sequence, so that the end of one tile's split is the start of the next.
///
/// # Safety
/// As [`spread`].
#[inline(always)]
unsafe fn tiles<X: Copy>(
    n: usize,
    at: &impl Fn(usize) -> usize,
    load: impl Fn(usize) -> X,
    emit: impl Fn(X, usize, usize),
) {
    let total = at(n);
    let tiles = (n + total).div_ceil(SPREAD_TILE);
    let per_block = tiles.div_ceil(device::grid_dim());
    let first = device::block_idx() * per_block;
    let last = (first + per_block).min(tiles);
    let (t, step) = (device::thread_idx(), device::block_dim());
    let shared = shared_offsets();
    let slot = |i: usize| shared + (i * size_of::<usize>()) as u32;
    // (a, b): the sources ended and the outputs emitted before the tile.
    let mut a = search::merge_path(first * SPREAD_TILE, n, at);
    let mut b = first * SPREAD_TILE - a;
    // Every condition below is the same for all threads of the block: the barriers are safe.
    for tile in first..last {
        let end = ((tile + 1) * SPREAD_TILE).min(n + total);
        let a_end = search::merge_path(end, n, at);
        let b_end = end - a_end;
        if b < b_end {
            // The tile's outputs belong to sources a..=min(a_end, n - 1): at most SPREAD_TILE + 1.
            let m = a_end.min(n - 1) - a + 1;
            let mut i = t;
            while i < m {
                // SAFETY: i < m <= SPREAD_TILE + 1, the buffer's length.
                unsafe { usize::store_shared(slot(i), at(a + i)) };
                i += step;
            }
            device::sync_threads();
            // SAFETY: every slot below m was stored before the barrier.
            let local = |i: usize| unsafe { usize::load_shared(slot(i)) };
            let mut k = b + t;
            while k < b_end {
                let i = search::last_at_most(m, local, k);
                emit(load(a + i), k - local(i), k);
                k += step;
            }
            // The next tile overwrites the offsets.
            device::sync_threads();
        }
        (a, b) = (a_end, b_end);
    }
}

/// The shared-space address of the block's buffer of `SPREAD_TILE + 1` offsets for the tiles
/// strategy. Declared in a nested scope of the kernel (PTX allows it), so [`spread`] calls it
/// once.
#[inline(always)]
fn shared_offsets() -> u32 {
    device::shared_buffer!("accel_spread_offsets", 8, (SPREAD_TILE + 1) * size_of::<usize>())
}
