//! Runs every example in turn; stops at the first failure.

#[path = "bfs.rs"]
mod bfs;
#[path = "black_scholes.rs"]
mod black_scholes;
#[path = "blur.rs"]
mod blur;
#[path = "canny.rs"]
mod canny;
#[path = "dotp.rs"]
mod dotp;
#[path = "filter.rs"]
mod filter;
#[path = "fluid.rs"]
mod fluid;
#[path = "histogram.rs"]
mod histogram;
#[path = "kmeans.rs"]
mod kmeans;
#[path = "life.rs"]
mod life;
#[path = "mandelbrot.rs"]
mod mandelbrot;
#[path = "nbody.rs"]
mod nbody;
#[path = "quicksort.rs"]
mod quicksort;
#[path = "radix.rs"]
mod radix;
#[path = "saxpy.rs"]
mod saxpy;
#[path = "sieve.rs"]
mod sieve;
#[path = "sparse.rs"]
mod sparse;
#[path = "stats.rs"]
mod stats;

use std::error::Error;
use std::time::Instant;

/// An example's `main`.
type Example = fn() -> Result<(), Box<dyn Error>>;

fn main() -> Result<(), Box<dyn Error>> {
    let start = Instant::now();
    let examples: [(&str, Example); 18] = [
        ("dotp", dotp::main),
        ("saxpy", saxpy::main),
        ("black_scholes", black_scholes::main),
        ("histogram", histogram::main),
        ("mandelbrot", mandelbrot::main),
        ("blur", blur::main),
        ("filter", filter::main),
        ("stats", stats::main),
        ("sparse", sparse::main),
        ("sieve", sieve::main),
        ("bfs", bfs::main),
        ("quicksort", quicksort::main),
        ("kmeans", kmeans::main),
        ("life", life::main),
        ("nbody", nbody::main),
        ("radix", radix::main),
        ("canny", canny::main),
        ("fluid", fluid::main),
    ];
    for (name, run) in examples {
        println!("=== {name}");
        run().map_err(|e| format!("{name}: {e}"))?;
    }
    println!("=== all {} examples agree with the reference interpreter ({:.1?})", examples.len(), start.elapsed());
    Ok(())
}
