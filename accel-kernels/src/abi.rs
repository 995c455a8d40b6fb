//! What the host and the device agree on: launch shape, the warp tile, the error slot and how
//! scalars travel as kernel parameters.
//!
//! Every kernel parameter is a `u64` word: pointers as addresses, floats as their bits, integers
//! sign- or zero-extended (`as u64`), `bool` as 0 or 1. The error slot is a zeroed buffer of
//! [`ERROR_SLOT_WORDS`] words; the first failing thread claims it (compare-and-swap of the low
//! 32 bits of word 0 from 0 to its code) and fills in the rest:
//!
//! | word | meaning |
//! | --- | --- |
//! | `[0]` | [`code`] |
//! | `[1]` | [`site`] |
//! | `[2]` | rank of the index |
//! | `[3..6]` | index |
//! | `[6..9]` | shape |
//! | `[9]` | value (a negative count or length) |

/// Threads per block of every launch (1-D grids).
pub const BLOCK_THREADS: u32 = 256;
/// Threads per warp.
pub const WARP: usize = 32;
/// Consecutive elements each lane handles in a warp tile.
pub const ITEMS: usize = 4;
/// Elements per warp tile.
pub const TILE: usize = WARP * ITEMS;
/// Elements each thread of an elementwise kernel computes per step (`generate`): a block's step
/// is a tile of `BLOCK_THREADS * GENERATE_UNROLL` consecutive elements.
pub const GENERATE_UNROLL: usize = 4;
/// Elements each thread of a single-pass scan (`crate::scan::scan_single_pass`) takes, for
/// elements of `bytes` bytes (the sum of their scalars'): about 128 bytes' worth, from 1 to 32.
/// A block's tile is `BLOCK_THREADS` times as many. (The items wait in shared memory, not in
/// registers, while the tile looks back.)
pub const fn scan_items(bytes: usize) -> usize {
    let items = 128 / if bytes == 0 { 1 } else { bytes };
    if items < 1 {
        1
    } else if items > 32 {
        32
    } else {
        items
    }
}

/// The fewest parts of a row that the second launch of a commutative reduction
/// (`crate::reduce::finish_rows_striped`) folds with a whole block instead of one warp: from
/// here one warp's fold takes two or more round trips to L2 (a batch of 256 partials each), a
/// block's eight warps one.
pub const FINISH_BLOCK_PARTS: usize = 512;

/// Warps that fold each row of `parts` parts in the second launch of a commutative reduction: a
/// block's (`BLOCK_THREADS / WARP`) from [`FINISH_BLOCK_PARTS`] parts on, else one. The kernel
/// folds by it and the executor sizes every second launch by it (an order-preserving finish,
/// which folds a row with one warp, leaves the other warps without a row).
pub const fn finish_warps(parts: usize) -> usize {
    if parts >= FINISH_BLOCK_PARTS { BLOCK_THREADS as usize / WARP } else { 1 }
}

/// Elements of a tile of a single-pass scan (`crate::scan::scan_single_pass`) of `items`
/// elements a thread: tile `k` of a row holds its elements `k * tile ..`, the last shorter. The
/// kernel cuts rows by it and the executor counts a row's tiles by it.
pub const fn single_pass_tile(items: usize) -> usize {
    BLOCK_THREADS as usize * items
}

/// The widest element (in bytes of its Rust layout) that a single-pass scan takes: a block's
/// warps exchange their totals in shared slots of this size. An element of `k` scalars takes at
/// most `8 * k` bytes, so the host gives the single pass elements of at most
/// `SCAN_SLOT / 8` scalars.
pub const SCAN_SLOT: usize = 256;
/// Elements each thread of a one-block `filter` takes a step (`crate::expand::compact_in_block`).
pub const COMPACT_ITEMS: usize = 4;
/// The longest `filter` that runs in one block (`crate::expand::compact_in_block`, four steps):
/// longer ones count, scan the counts and write in three launches over the grid.
pub const COMPACT_MAX: usize = 4 * BLOCK_THREADS as usize * COMPACT_ITEMS;
/// Merged items (sources plus outputs) of one tile of the output-balanced strategy of a fused
/// `expand` and `permute` ([`spread::TILES`]): four per thread of a block.
pub const SPREAD_TILE: usize = BLOCK_THREADS as usize * 4;
/// Consecutive values each lane of the length-independent segmented reduction folds
/// (`crate::ranges`).
pub const RANGE_ITEMS: usize = 8;
/// Values of one range of the length-independent segmented reduction over short rows
/// (`crate::ranges::reduce_ranges`): one warp's. Wide ranges have a width of their own
/// ([`walk::wide_width`]).
pub const RANGE: usize = WARP * RANGE_ITEMS;
/// Blocks of [`BLOCK_THREADS`] that the first kernel of the length-independent segmented
/// reduction keeps resident on a multiprocessor (its PTX entry declares it, so that ptxas keeps
/// its registers within 80): the kernel waits on its loads, and the reads a lane issues before it
/// works anything out (8 values with their columns, in a CSR product) otherwise take it to 86
/// registers and 2 blocks (H200: the product 9% slower, docs/benchmarks.md). The same kernel is
/// also built for [`RANGE_DENSE_BLOCKS_PER_SM`].
pub const RANGE_BLOCKS_PER_SM: u32 = 3;
/// Blocks of [`BLOCK_THREADS`] of the second build of the same kernel, which the host launches
/// when it needs no more local memory than the first: more warps waiting on their loads where
/// ptxas fits the walk in 64 registers without spilling (`fold_seg` of `f32` rows of 4 and 32
/// values 7–10% faster on an H200, eleventh session), the first where that spills (a CSR product,
/// 124 bytes of spill: 19% slower).
pub const RANGE_DENSE_BLOCKS_PER_SM: u32 = 4;
/// Blocks of [`BLOCK_THREADS`] that a node's scan kernel, and the module-wide offsets scan, keep
/// resident on a multiprocessor (their PTX entries declare it, so that ptxas keeps their
/// registers within 80). A block of the single pass
/// (`crate::scan::scan_single_pass`) spends much of a tile waiting at its barriers for the
/// look-back of its first warp; left to itself, ptxas gives the `f32` pass 96 registers and 2
/// blocks, which then wait together. H200, `scanl1` of 2^28 `f32`: 1591 µs with 2 blocks,
/// 1214 µs with 3 (no spill), 1175 µs with 4 (64 registers, 124 bytes of spill), in the fourth
/// session; in the tenth, 947 µs with 3 (212 bytes of spill), then, with the tile's thread index
/// read where it is used (`device::thread_idx_here`), 882–900 µs with 3 (24 bytes) and 850 µs
/// with 4 (64 bytes), tiles of 16 items a thread held in registers. In the nineteenth, with the
/// items held in shared memory and 32 a thread (tiles of 8192 `f32`, 36 KB of shared memory a
/// block): 816–819 µs with 3, 974–976 µs with 4 (main's 848–861 µs in the same calls).
pub const SCAN_BLOCKS_PER_SM: u32 = 3;
/// How a segmented reduction over a vector walks its input: its rows split into parts
/// (`crate::reduce`, the node's reduce and finish kernels), fixed ranges of [`RANGE`] values a
/// warp, a lane's values consecutive (`crate::ranges::reduce_ranges`), or wide ranges of
/// thousands of values a warp, its lanes striped over each row's piece
/// (`crate::ranges::reduce_wide`); the host chooses per run ([`walk::select`]).
pub mod walk {
    use super::{RANGE, WARP};

    /// A walk of a segmented reduction over a vector.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Walk {
        /// Rows split into the same number of parts, a group of lanes a part.
        Rows,
        /// Ranges of [`RANGE`] values, a warp each, [`super::RANGE_ITEMS`] consecutive values a
        /// lane: short rows.
        Ranges,
        /// Ranges of [`wide_width`] values, a warp each, which folds the piece of each row in
        /// its range with all its lanes: long rows, even or not.
        Wide,
    }

    /// Rows at least this long on average are walked by wide ranges: each piece of a row keeps
    /// a whole warp's loads coalesced. Shorter rows are walked by ranges of [`RANGE`] values,
    /// whose lanes take consecutive values and so many rows at once.
    pub const WIDE_FROM: usize = 512;

    /// The walk of a segmented reduction of `total` values in `rows` rows.
    ///
    /// The rows walk is not chosen by size: it splits every row into the same number of parts,
    /// so uneven rows leave some warps far behind the others (rows of 1 to 65536 values on an
    /// H200: 2.2x CUB's time), and wide ranges give every warp the same number of values
    /// whatever the lengths. It stays for the runtime to force (`Strategy::Thread` or `Warp`).
    pub fn select(rows: usize, total: usize) -> Walk {
        if rows == 0 || total < WIDE_FROM.saturating_mul(rows) { Walk::Ranges } else { Walk::Wide }
    }

    /// Wide ranges each warp of a full grid walks, so that the warps finish together: the
    /// values of a warp differ by at most one range's in this many.
    pub const WIDE_PER_WARP: usize = 2;

    /// Values of a wide range are a multiple of this (a warp's quads of 4 values).
    pub const WIDE_STEP: usize = 4 * WARP;

    /// The fewest values of a wide range: a range's fixed cost (its start row, its partials, the
    /// reduction of each of its pieces across the warp) stays small beside its loads.
    pub const WIDE_MIN: usize = 4096;

    /// Values of each wide range for `total` values and a grid of `warps` warps: about
    /// [`WIDE_PER_WARP`] ranges a warp, a multiple of [`WIDE_STEP`], at least [`WIDE_MIN`].
    pub fn wide_width(total: usize, warps: usize) -> usize {
        let ranges = warps.saturating_mul(WIDE_PER_WARP).max(1);
        total.div_ceil(ranges).next_multiple_of(WIDE_STEP).max(WIDE_MIN)
    }

    /// The ranges of `width` values over `total` values: at least one, so that the empty rows
    /// of no values are emitted.
    pub fn ranges(total: usize, width: usize) -> usize {
        total.div_ceil(width).max(1)
    }

    /// [`ranges`] of [`RANGE`] values.
    pub fn narrow_ranges(total: usize) -> usize {
        ranges(total, RANGE)
    }
}
/// The alignment, in bytes, that the host guarantees of every array column it passes: each is
/// a whole device allocation, which the driver aligns to 256 bytes. Kernels state it to LLVM
/// (`view::column`), which then merges a thread's loads of consecutive elements into vector loads,
/// and rely on it for the 16-byte streaming loads of a run of a column
/// (`device::StreamWord::load_streaming_run`, from a multiple of the run's length).
pub const COLUMN_ALIGN: usize = 16;
const _: () = assert!(COLUMN_ALIGN.is_multiple_of(16), "runs of a column are read 16 bytes a load from its start");

/// Length of the error slot in `u64` words.
pub const ERROR_SLOT_WORDS: usize = 16;

/// Error codes (word 0 of the error slot).
pub mod code {
    pub const NONE: u32 = 0;
    pub const INDEX_OUT_OF_BOUNDS: u32 = 1;
    pub const DIVISION_BY_ZERO: u32 = 2;
    pub const REMAINDER_BY_ZERO: u32 = 3;
    pub const EMPTY_REDUCTION: u32 = 4;
    pub const NEGATIVE_COUNT: u32 = 5;
    pub const NEGATIVE_LENGTH: u32 = 6;
    /// An expansion's counts may add up to more than a run can address (`spread::too_many`):
    /// the sources in index 0, the longest count in the value.
    pub const TOO_MANY_OUTPUTS: u32 = 7;
    pub const DIV_EUCLID_BY_ZERO: u32 = 8;
    pub const REM_EUCLID_BY_ZERO: u32 = 9;
}

/// How the kernel of an `expand` fused with `permute` spreads the outputs of its sources over
/// the grid (a scratch word of the kernel; the host chooses, `accel_core::kernel::Strategy`).
pub mod spread {
    /// The strategy for `sources` sources whose counts add up to `total`, the longest `longest`
    /// (measured on an H200, docs/benchmarks.md): a source per thread while the longest count
    /// is at most 128 (a thread's loop is then short, and the cheapest way through many small
    /// counts); a source per warp or, for counts averaging over 2048, per block, when there are
    /// enough sources to fill the device and the counts are even (the longest at most 16 times
    /// the mean); output-balanced tiles otherwise (a few long counts, or skewed ones: the
    /// Sieve's first primes).
    pub fn select(sources: usize, total: usize, longest: usize) -> u64 {
        if longest <= 128 {
            THREAD
        } else if sources >= 1024 && longest.saturating_mul(sources) <= total.saturating_mul(16) {
            if total / sources <= 2048 { WARP } else { BLOCK }
        } else {
            TILES
        }
    }

    /// One source per thread, its outputs in a loop.
    pub const THREAD: u64 = 0;
    /// One source per warp, its outputs over the lanes.
    pub const WARP: u64 = 1;
    /// One source per block, its outputs over the threads.
    pub const BLOCK: u64 = 2;
    /// Tiles of [`super::SPREAD_TILE`] sources plus outputs per block (merge path), each output's
    /// source found by binary search in shared memory.
    pub const TILES: u64 = 3;
    /// No strategy yet: the kernel reads the sizes the counts kernel left and takes the one
    /// [`select`] gives (`accel_kernels::expand::chosen`), so that the host does not wait for
    /// them. The host passes it with the offsets scanned (tiles may be chosen) and a grid of one
    /// wave, which every strategy walks by grid stride.
    pub const ON_DEVICE: u64 = 4;
    /// Whether `sources` sources whose longest count is `longest` may have counts adding up to
    /// more than a run can address (`isize::MAX`): their total is then not known exactly.
    pub fn too_many(sources: usize, longest: usize) -> bool {
        sources.checked_mul(longest).is_none_or(|bound| bound > isize::MAX as usize)
    }
}

/// Which operation failed (word 1 of the error slot).
pub mod site {
    pub const INDEX: u64 = 0;
    pub const BACKPERMUTE: u64 = 1;
    pub const PERMUTE: u64 = 2;
    /// The site of the first read written in the source (`xs[i]`, numbered by the front end);
    /// read `n` is `SOURCE + n`.
    pub const SOURCE: u64 = 3;

    /// The site of source read `n`.
    #[inline(always)]
    pub const fn source(n: u32) -> u64 {
        SOURCE + n as u64
    }

    /// The number of the source read at `site`, if it is one.
    pub fn source_number(site: u64) -> Option<u32> {
        site.checked_sub(SOURCE).and_then(|n| u32::try_from(n).ok())
    }
}

/// A scalar that travels as one `u64` kernel parameter.
pub trait Word: Copy {
    fn from_word(w: u64) -> Self;
    fn to_word(self) -> u64;
}

macro_rules! int_word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline(always)]
            fn from_word(w: u64) -> Self {
                w as $t
            }
            #[inline(always)]
            fn to_word(self) -> u64 {
                self as u64
            }
        }
    )*};
}

int_word!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl Word for bool {
    #[inline(always)]
    fn from_word(w: u64) -> Self {
        w != 0
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self as u64
    }
}

impl Word for f32 {
    #[inline(always)]
    fn from_word(w: u64) -> Self {
        f32::from_bits(w as u32)
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Word for f64 {
    #[inline(always)]
    fn from_word(w: u64) -> Self {
        f64::from_bits(w)
    }
    #[inline(always)]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_strategy_follows_the_sizes() {
        use spread::*;
        assert_eq!(select(0, 0, 0), THREAD);
        assert_eq!(select(1 << 20, 50 << 20, 100), THREAD);
        assert_eq!(select(1 << 16, 21_000_000, 3500), WARP);
        assert_eq!(select(1 << 14, 50_000_000, 4000), BLOCK);
        // Few sources, or skewed counts: tiles.
        assert_eq!(select(10, 10_000_000, 1_000_000), TILES);
        assert_eq!(select(446, 25_000_000, 5_000_000), TILES);
    }

    #[test]
    fn segmented_reductions_walk_wide_ranges_when_rows_are_long() {
        use walk::*;
        // Short rows on average (power law, a CSR matrix), or none: ranges.
        assert_eq!(select(1 << 22, 136_000_000), Walk::Ranges);
        assert_eq!(select(1 << 22, 1 << 27), Walk::Ranges);
        assert_eq!(select(0, 0), Walk::Ranges);
        assert_eq!(select(3, 0), Walk::Ranges);
        // Long rows, even or not: wide ranges.
        assert_eq!(select(4096, 1 << 28), Walk::Wide);
        assert_eq!(select(34_816, 1 << 28), Walk::Wide);
        assert_eq!(select(1, WIDE_FROM), Walk::Wide);
        assert_eq!(narrow_ranges(0), 1);
        assert_eq!(narrow_ranges(RANGE + 1), 2);
    }

    #[test]
    fn wide_ranges_give_each_warp_about_the_same_values() {
        use walk::*;
        // 2^28 values over 132 multiprocessors of 48 warps: two ranges a warp.
        let warps = 132 * 48;
        let width = wide_width(1 << 28, warps);
        assert_eq!(width % WIDE_STEP, 0);
        assert!(ranges(1 << 28, width) <= WIDE_PER_WARP * warps);
        assert!(ranges(1 << 28, width) > WIDE_PER_WARP * warps - warps / 8);
        // Few values: the smallest range, however many warps.
        assert_eq!(wide_width(10_000, warps), WIDE_MIN);
        assert_eq!(wide_width(0, 0), WIDE_MIN);
        assert_eq!(ranges(0, WIDE_MIN), 1);
        assert_eq!(ranges(WIDE_MIN + 1, WIDE_MIN), 2);
    }

    #[test]
    fn scan_tiles_hold_about_128_bytes_a_thread() {
        assert_eq!(scan_items(4), 32);
        assert_eq!(scan_items(8), 16);
        assert_eq!(scan_items(12), 10);
        assert_eq!(scan_items(32), 4);
        // Narrow elements stop at 32 items, wide ones take one.
        assert_eq!((scan_items(1), scan_items(0)), (32, 32));
        assert_eq!((scan_items(129), scan_items(SCAN_SLOT)), (1, 1));
    }

    #[test]
    fn long_rows_of_partials_are_finished_by_a_block() {
        assert_eq!(finish_warps(FINISH_BLOCK_PARTS - 1), 1);
        assert_eq!(finish_warps(FINISH_BLOCK_PARTS), BLOCK_THREADS as usize / WARP);
        // A `fold_all` of 2^28 elements on 132 multiprocessors: a part per resident warp.
        assert_eq!(finish_warps(132 * 32), 8);
    }

    #[test]
    fn words_round_trip() {
        assert_eq!(i32::from_word((-5i32).to_word()), -5);
        assert_eq!((-5i32).to_word(), u64::MAX - 4);
        assert_eq!(f32::from_word(1.5f32.to_word()), 1.5);
        assert_eq!(f64::from_word((-0.0f64).to_word()).to_bits(), (-0.0f64).to_bits());
        assert!(bool::from_word(true.to_word()) && !bool::from_word(0));
        assert_eq!(usize::from_word(usize::MAX.to_word()), usize::MAX);
    }
}
