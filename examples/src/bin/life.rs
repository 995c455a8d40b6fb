//! Conway's Game of Life on a torus on accel's backend, one `stencil3x3` per generation inside
//! `awhile`: a glider checked to move one cell diagonally every four generations, and a random
//! board checked against the interpreter and against a sequential loop.

use accel::prelude::*;
use accel_examples::life::{glider, life, sequential_generation};
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const SIZE: usize = 1024;
const GENERATIONS: u32 = 100;
/// The interpreter runs the top-left `CHECKED × CHECKED` corner (as a board of its own).
const CHECKED: usize = 64;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "life: a {SIZE} x {SIZE} torus for {GENERATIONS} generations, {:?} backend with {} threads",
        rt.backend(),
        rt.threads()
    );
    let board = Matrix::from_shape_vec([16, 16], glider(16, 16, 3, 5))?;
    check::exact("a glider after 8 generations", &life(&rt, &board, 8)?.to_vec(), &glider(16, 16, 5, 7))?;

    let mut rng = SplitMix64::new(15);
    let cells: Vec<u32> = (0..SIZE * SIZE).map(|_| u32::from(rng.below(3) == 0)).collect();
    let board = Matrix::from_shape_vec([SIZE, SIZE], cells.clone())?;
    let (got, t) = timed(&rt, || life(&rt, &board, GENERATIONS));
    let got = got?;
    let want = (0..GENERATIONS).fold(cells, |b, _| sequential_generation(&b, SIZE, SIZE));
    check::exact("the board", &got.to_vec(), &want)?;
    println!(
        "  {} of {} cells alive after {GENERATIONS} generations, in {t:.2?}",
        got.iter().sum::<u32>(),
        SIZE * SIZE
    );

    let corner = Matrix::from_shape_fn([CHECKED, CHECKED], |[i, j]| board.get_linear(i * SIZE + j));
    check::exact(
        "the corner",
        &life(&rt, &corner, GENERATIONS)?.to_vec(),
        &life::reference(&corner, GENERATIONS)?.to_vec(),
    )?;
    println!("  the {CHECKED} x {CHECKED} corner, run on its own, agrees with the interpreter");
    println!("{}", life::plan());
    Ok(())
}
