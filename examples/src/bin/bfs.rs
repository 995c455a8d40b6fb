//! Breadth-first search with `expand` fused into `permute` inside `awhile`, on accel's backend,
//! checked against the interpreter on a small graph and against a sequential search on a large
//! one.

use accel::prelude::*;
use accel_examples::bfs::{bfs_levels, sequential_levels};
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

/// Nodes of the large graph, and its out-degree: up to `2 * DEGREE` edges per node.
const NODES: u32 = 1 << 20;
const DEGREE: u32 = 4;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "bfs: {NODES} nodes of up to {} edges, {:?} backend with {} threads",
        2 * DEGREE,
        rt.backend(),
        rt.threads()
    );
    let mut rng = SplitMix64::new(5);
    let mut graph = |n: u32| -> Vec<Vec<u32>> {
        (0..n).map(|_| (0..rng.below(2 * DEGREE + 1)).map(|_| rng.below(n)).collect()).collect()
    };
    let small = graph(2000);
    let g = Nested::from_rows(small.clone());
    check::exact(
        "levels of a small graph",
        &bfs_levels(&rt, &g, 0)?.to_vec(),
        &bfs_levels::reference(&g, 0)?.to_vec(),
    )?;
    let large = graph(NODES);
    let g = Nested::from_rows(large.clone());
    let (levels, t) = timed(&rt, || bfs_levels(&rt, &g, 0));
    let levels = levels?.to_vec();
    check::exact("levels of the large graph", &levels, &sequential_levels(&large, 0))?;
    let reached = levels.iter().filter(|&&l| l >= 0).count();
    let depth = levels.iter().max().copied().unwrap_or(0);
    println!("  {reached} nodes reached in {depth} levels, in {t:.2?}");
    println!("{}", bfs_levels::plan());
    Ok(())
}
