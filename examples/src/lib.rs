//! Runnable accel programs, each with a binary in `src/bin/` that runs it on random input, checks
//! it against the reference interpreter and prints its kernel plan.
//!
//! | module | program | combinators |
//! | --- | --- | --- |
//! | [`dotp`] | dot product | `zip_with`, `fold_all` |
//! | [`saxpy`] | `a * x + y` | `zip_with` with a scalar parameter |
//! | [`black_scholes`] | European option prices (ICFP'13, Fig. 1) | `zip`, `zip_with`, `unzip` |
//! | [`histogram`] | counts per bin | `map`, `permute` into `fill` |
//! | [`canny`] | Canny edge detection (ICFP'13) | `stencil5x5`, `stencil3x3` of tuple elements, `generate` reading neighbours, `awhile` until a `fold_all` finds no change |
//! | [`fluid`] | Stam's stable fluids: diffusion, projection, advection (ICFP'13) | Jacobi sweeps of a `stencil3x3` over a `zip` inside `awhile`, `generate` with bilinear interpolation at computed indices, `awhile` over a tuple of matrices |
//! | [`mandelbrot`] | escape-time fractal | `generate`, scalar `while_loop` |
//! | [`nbody`] | gravitation of all pairs of bodies, one step of a simulation (ICFP'13) | `generate` with a scalar `iterate` reading arrays, nested `unzip`, a call of an `#[accel]` function returning a tuple |
//! | [`blur`] | 3×3 binomial blur | `stencil3x3` with `Clamp` |
//! | [`filter`] | the primes of a vector | `filter`, scalar `while_loop` |
//! | [`stats`] | mean, sum of squares, normalisation | `fold` with epilogue and sibling fusion |
//! | [`sparse`] | CSR sparse matrix-vector product, per-row mean and variance | `Nested::map` with parallel code per row |
//! | [`bfs`] | breadth-first search levels of a graph | `expand` fused into `permute`, `filter`, `awhile` |
//! | [`sieve`] | the primes below `n` (Sieve of Eratosthenes) | `expand` fused into `permute`, `filter`, `awhile` |
//! | [`kmeans`] | k-means clustering of points in the plane | calls of `#[accel]` functions and a scalar helper, `iterate`, `permute` of `f64` sums, `awhile` |
//! | [`life`] | Conway's Game of Life on a torus | `stencil3x3` with `Wrap`, a scalar helper, `awhile` |
//! | [`radix`] | radix sort of `u32` keys, one bit per pass (ICFP'13) | `scanl_total`, `permute` as a permutation, a call inside `awhile` |
//! | [`quicksort`] | a vector in order (every segment partitioned around its pivot each round) | `Nested::map` with reads of the row, tuple results, `permute`, `expand`, `filter`, `awhile` |
//!
//! `cargo run --release -p accel-examples --bin demo` runs them all.

pub mod bfs;
pub mod black_scholes;
pub mod blur;
pub mod canny;
pub mod check;
pub mod dotp;
pub mod filter;
pub mod fluid;
pub mod histogram;
pub mod kmeans;
pub mod life;
pub mod mandelbrot;
pub mod nbody;
pub mod quicksort;
pub mod radix;
pub mod rng;
pub mod saxpy;
pub mod sieve;
pub mod sparse;
pub mod stats;

use accel::Runtime;
use std::time::{Duration, Instant};

/// Runs `f`, returning its result and how long it took, up to the end of the work it queued on
/// `rt` (see [`Runtime::synchronize`]).
pub fn timed<T>(rt: &Runtime, f: impl FnOnce() -> accel::Result<T>) -> (accel::Result<T>, Duration) {
    let start = Instant::now();
    let out = f().and_then(|out| rt.synchronize().map(|()| out));
    (out, start.elapsed())
}
