//! Conway's Game of Life on a torus: a board of cells, 1 alive and 0 dead, where a live cell
//! with two or three live neighbours survives, a dead cell with exactly three comes alive and
//! every other cell is dead in the next generation.
//!
//! One generation is a `stencil3x3` whose `Wrap` boundary joins the left edge to the right and
//! the top to the bottom ([`generation`]); the rule is a scalar helper of its own ([`rule`]),
//! called from the stencil's closure. [`life`] runs generations inside `awhile`, its count a
//! `Scalar` of the loop's state, each generation one kernel.

use accel::prelude::*;

/// The next state of a cell that is `alive` (1 or 0) with `neighbours` live neighbours.
#[accel]
pub fn rule(alive: u32, neighbours: u32) -> u32 {
    if neighbours == 3 || (alive == 1 && neighbours == 2) { 1 } else { 0 }
}

/// The generation after `board`, whose cells are 1 (alive) or 0, on a torus: the neighbours
/// of a cell on an edge are read from the opposite edge (a board of one row or column is its
/// own neighbour).
#[accel]
pub fn generation(board: Matrix<u32>) -> Matrix<u32> {
    board.stencil3x3(Wrap, |n| {
        let above = n[0][0] + n[0][1] + n[0][2];
        let below = n[2][0] + n[2][1] + n[2][2];
        rule(n[1][1], above + n[1][0] + n[1][2] + below)
    })
}

/// `board` after `generations` generations.
#[accel]
pub fn life(board: Matrix<u32>, generations: u32) -> Matrix<u32> {
    let run =
        awhile((board, unit(0u32)), |s| unit(s.1.get() < generations), |s| (generation(s.0), unit(s.1.get() + 1)));
    run.0
}

/// What [`generation`] computes, by a plain loop over a row-major `rows × cols` board: the
/// oracle of the example and its tests.
pub fn sequential_generation(board: &[u32], rows: usize, cols: usize) -> Vec<u32> {
    let at = |i: usize, di: usize, j: usize, dj: usize| {
        board[(i + di + rows - 1) % rows * cols + (j + dj + cols - 1) % cols]
    };
    let mut next = Vec::with_capacity(board.len());
    for i in 0..rows {
        for j in 0..cols {
            let neighbours: u32 = (0..3)
                .flat_map(|di| (0..3).map(move |dj| (di, dj)))
                .filter(|&d| d != (1, 1))
                .map(|(di, dj)| at(i, di, j, dj))
                .sum();
            let alive = board[i * cols + j];
            next.push(u32::from(neighbours == 3 || (alive == 1 && neighbours == 2)));
        }
    }
    next
}

/// A `rows × cols` board with a glider (the five cells that move one cell diagonally every four
/// generations) whose top-left corner is at `(top, left)`, wrapped around the edges.
pub fn glider(rows: usize, cols: usize, top: usize, left: usize) -> Vec<u32> {
    let mut board = vec![0; rows * cols];
    for (i, j) in [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)] {
        board[(top + i) % rows * cols + (left + j) % cols] = 1;
    }
    board
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(15);
        for (rows, cols) in [(0, 0), (0, 3), (1, 1), (1, 6), (2, 2), (5, 7), (31, 17), (64, 65)] {
            // About a third of the cells alive.
            let cells: Vec<u32> = (0..rows * cols).map(|_| u32::from(rng.below(3) == 0)).collect();
            let board = Matrix::from_shape_vec([rows, cols], cells.clone())?;
            let mut want = cells;
            for generations in 0..4 {
                let got = life(&rt, &board, generations)?;
                assert_eq!(got.shape(), [rows, cols]);
                let what = format!("{rows} x {cols} after {generations}");
                check::exact(&format!("{what} vs oracle"), &got.to_vec(), &want)?;
                check::exact(
                    &format!("{what} vs interpreter"),
                    &got.to_vec(),
                    &life::reference(&board, generations)?.to_vec(),
                )?;
                want = sequential_generation(&want, rows, cols);
            }
        }
        Ok(())
    }

    #[test]
    fn a_glider_moves_one_cell_diagonally_every_four_generations() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let (rows, cols) = (9, 11);
        let board = Matrix::from_shape_vec([rows, cols], glider(rows, cols, 0, 0))?;
        for laps in 1..=12 {
            let moved = life(&rt, &board, 4 * laps)?;
            // Past the bottom-right corner it comes back at the top left.
            check::exact(
                &format!("after {laps} laps"),
                &moved.to_vec(),
                &glider(rows, cols, laps as usize, laps as usize),
            )?;
        }
        // In between it has other shapes, of five cells still.
        let between = life(&rt, &board, 2)?;
        assert_ne!(between.to_vec(), glider(rows, cols, 0, 0));
        assert_eq!(between.iter().sum::<u32>(), 5);
        Ok(())
    }

    #[test]
    fn the_rule() -> accel::Result<()> {
        let births: Vec<u32> = (0..=8).map(|n| rule(0, n)).collect::<accel::Result<_>>()?;
        let survivals: Vec<u32> = (0..=8).map(|n| rule(1, n)).collect::<accel::Result<_>>()?;
        assert_eq!(births, [0, 0, 0, 1, 0, 0, 0, 0, 0]);
        assert_eq!(survivals, [0, 0, 1, 1, 0, 0, 0, 0, 0]);
        Ok(())
    }
}
