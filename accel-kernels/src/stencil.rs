//! The 2-D stencil skeleton (`stencil3x3`, `stencil5x5`): a block covers a tile of the output,
//! each thread walks down one column of it with the neighbourhood in registers.
//!
//! Algorithm: the output is cut into tiles of `BLOCK_THREADS` columns by up to `MAX_TILE_ROWS`
//! rows; block `b` takes tiles `b, b + grid, ...` (the host launches one wave of resident
//! blocks). Thread `t` owns column `t` of its tile and holds the `K x K` window of the input
//! around its current output in registers: moving one row down shifts the window up and loads the
//! `K` elements of its new bottom row, so an output costs `K` loads (3 for a 3 x 3 stencil)
//! instead of `K * K`, and no index is divided. The loads of the next `ROWS_IN_FLIGHT` rows are
//! issued together, and before the outputs of the rows loaded last are computed and stored, so
//! that a warp always has a batch of rows in flight: one row of a warp is a single 128-byte
//! line, too little alone to keep the memory busy, and a batch loaded only after the last one's
//! stores (a load is never moved above a store that may alias it) leaves the warp with nothing in
//! flight while it computes.
//!
//! Memory traffic: every output element is written once, by coalesced stores (a warp writes 32
//! consecutive elements of a row). A warp's loads of one input row are 32 consecutive elements
//! shifted by `-r..=r` columns: the same cache lines, so each input row is read from memory about
//! once per tile; a tile of `h` rows reads `h + 2r` input rows (the halo rows also being read by
//! the tiles above and below, mostly from L2).
//!
//! Boundaries: whether a tile's windows all lie inside the input is decided once per tile. Inside
//! tiles read at their positions with no check ([`Reads::inside`]); the tiles along the rim read
//! every neighbour through the boundary rule ([`Reads::edge`], which takes positions that may be
//! negative or past the end).
//!
//! Limits: rank 2 only (1-D stencils are the elementwise skeleton with constant offsets); columns
//! past the input's width idle in the last tile of a row; fewer rows per tile (down to one) when
//! the array has too few rows for every block to get tiles, which costs more halo reads.

use crate::device;

/// The most rows of one tile: the halo costs `2r / MAX_TILE_ROWS` more input reads. Of 8, 16, 32
/// and 64 rows, 32 ran fastest (8192² `f32`, H200: 16 and 64 rows 2% slower, 8 rows 7%), and
/// tiles taken band by band, all blocks crossing a band of rows together, ran 20% faster than
/// runs of rows down column strips (docs/benchmarks.md, eighteenth session).
const MAX_TILE_ROWS: usize = 32;

/// Rows a batch of loads covers; a thread has one or two batches in flight. Four rows a batch,
/// the next batch's loads issued before this one's stores, ran 4% faster than eight rows loaded
/// only after the previous batch's stores, in the same 48 registers (8192² `f32`, H200,
/// docs/benchmarks.md); eight rows a batch issued that way ran as fast in 68 registers.
const ROWS_IN_FLIGHT: usize = 4;

/// How a stencil reads its input (`rows x cols`, row-major).
pub struct Reads<I, E> {
    /// The element at `(row, col)`, both inside the input.
    pub inside: I,
    /// The element at `(row, col)` through the boundary rule: either may be outside the input.
    pub edge: E,
}

/// Stores `f(window)` with `store(i, v)` for every output position `i = row * cols + col` of a
/// `rows x cols` input, where `window[k][c]` is the input at `(row - r + k, col - r + c)` and
/// `r = K / 2` (read with `reads.inside` or `reads.edge`, see the module documentation).
///
/// # Safety
/// Called from every thread of a 1-D launch; `reads.inside` must be safe for every position
/// inside the input and `reads.edge` for every position; `store` for every output position, and
/// no `store` may change what a read returns.
#[inline(always)]
pub unsafe fn stencil2d<T: Copy, U, const K: usize>(
    rows: usize,
    cols: usize,
    reads: Reads<impl Fn(usize, usize) -> T, impl Fn(isize, isize) -> T>,
    f: impl Fn(&[[T; K]; K]) -> U,
    store: impl Fn(usize, U),
) {
    let r = K / 2;
    let (block, grid) = (device::block_dim(), device::grid_dim());
    let col_tiles = cols.div_ceil(block);
    // About two tiles a launched block, within 1 to 32 rows a tile: short tiles when the grid is
    // large for the array (its halo rows then cost more reads), 32 rows once the grid is capped.
    let tile_rows = (rows * col_tiles).div_ceil(2 * grid).clamp(1, MAX_TILE_ROWS);
    let tiles = rows.div_ceil(tile_rows) * col_tiles;
    let mut tile = device::block_idx();
    while tile < tiles {
        let (first, c0) = ((tile / col_tiles) * tile_rows, (tile % col_tiles) * block);
        let end = (first + tile_rows).min(rows);
        let col = c0 + device::thread_idx();
        if col < cols {
            let out = |row: usize, v: U| store(row * cols + col, v);
            if first >= r && end + r <= rows && c0 >= r && c0 + block + r <= cols {
                // Row `row` of the window starts at column `col - r`: all inside.
                let load = |row: isize, c: usize| (reads.inside)(row as usize, col - r + c);
                walk::<T, U, K>(first, end, load, &f, out);
            } else {
                let left = col as isize - r as isize;
                let load = |row: isize, c: usize| (reads.edge)(row, left + c as isize);
                walk::<T, U, K>(first, end, load, &f, out);
            }
        }
        tile += grid;
    }
}

/// The outputs of rows `first..end` of one column, `load(row, c)` giving column `c` of the
/// window's row `row` (which may be outside the input where `load` allows it).
#[inline(always)]
fn walk<T: Copy, U, const K: usize>(
    first: usize,
    end: usize,
    load: impl Fn(isize, usize) -> T,
    f: &impl Fn(&[[T; K]; K]) -> U,
    store: impl Fn(usize, U),
) {
    let r = (K / 2) as isize;
    let row_at = |row: isize| -> [T; K] { core::array::from_fn(|c| load(row, c)) };
    // Before the first output, rows 1.. of the window hold its top K - 1 rows; row 0 is shifted
    // out by the first step (a copy of row 1, so that nothing outside is read).
    let top = row_at(first as isize - r);
    let mut window: [[T; K]; K] =
        core::array::from_fn(|k| if k <= 1 { top } else { row_at(first as isize - r + k as isize - 1) });
    let step = |window: &mut [[T; K]; K], row: usize, bottom: [T; K]| {
        for k in 0..K - 1 {
            window[k] = window[k + 1];
        }
        window[K - 1] = bottom;
        store(row, f(window));
    };
    let mut row = first;
    // The bottom rows of ROWS_IN_FLIGHT outputs are loaded together, and the next batch's loads
    // are issued before this batch's outputs are stored (see the module documentation).
    // Written out for 4: LLVM leaves a loop over an array of rows rolled, in local memory.
    const { assert!(ROWS_IN_FLIGHT == 4) };
    if row + ROWS_IN_FLIGHT <= end {
        let batch = |at: usize| {
            let below = |d: usize| row_at((at + d) as isize + r);
            (below(0), below(1), below(2), below(3))
        };
        let mut current = batch(row);
        loop {
            let next_row = row + ROWS_IN_FLIGHT;
            let more = next_row + ROWS_IN_FLIGHT <= end;
            // Reuses this batch's rows when there is no next one, rather than loading any.
            let next = if more { batch(next_row) } else { current };
            let (b0, b1, b2, b3) = current;
            step(&mut window, row, b0);
            step(&mut window, row + 1, b1);
            step(&mut window, row + 2, b2);
            step(&mut window, row + 3, b3);
            row = next_row;
            if !more {
                break;
            }
            current = next;
        }
    }
    // The last rows (fewer than ROWS_IN_FLIGHT) in one batch too: the loads of rows past `end`
    // repeat row `end - 1`'s (inside whatever `load` allows for the tile), their steps skipped.
    if row < end {
        let below = |d: usize| row_at((row + d).min(end - 1) as isize + r);
        let (b0, b1, b2) = (below(0), below(1), below(2));
        // Written out, as above (a loop over the array of rows would leave it in local memory).
        step(&mut window, row, b0);
        let more = |d: usize| row + d < end;
        if more(1) {
            step(&mut window, row + 1, b1);
        }
        if more(2) {
            step(&mut window, row + 2, b2);
        }
    }
}
