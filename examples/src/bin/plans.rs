//! Writes the kernel plans of every example as Graphviz files, fused and unfused, into the
//! directory given as argument (default `docs/fusion`); `scripts/render-plans.sh` turns them
//! into the SVG pictures of docs/fusion.md.

use accel::Plan;
use accel_examples::{black_scholes, blur, dotp, filter, histogram, mandelbrot, saxpy, stats};
use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "docs/fusion".into()));
    std::fs::create_dir_all(&dir)?;
    // (name, the program as written, the fused plan)
    let plans = [
        ("dotp", dotp::dotp::program(), dotp::dotp::plan()),
        ("saxpy", saxpy::saxpy::program(), saxpy::saxpy::plan()),
        ("black_scholes", black_scholes::black_scholes::program(), black_scholes::black_scholes::plan()),
        ("histogram", histogram::histogram::program(), histogram::histogram::plan()),
        ("mandelbrot", mandelbrot::mandelbrot::program(), mandelbrot::mandelbrot::plan()),
        ("blur", blur::blur::program(), blur::blur::plan()),
        ("primes", filter::primes::program(), filter::primes::plan()),
        ("mean", stats::mean::program(), stats::mean::plan()),
        ("moments", stats::moments::program(), stats::moments::plan()),
        ("normalise", stats::normalise::program(), stats::normalise::plan()),
    ];
    for (name, source, fused) in plans {
        let unfused = Plan::build(source);
        std::fs::write(dir.join(format!("{name}.dot")), fused.to_dot())?;
        std::fs::write(dir.join(format!("{name}-unfused.dot")), unfused.to_dot())?;
        println!("{fused}  (unfused: {} kernels)\n", unfused.kernel_count());
    }
    Ok(())
}
