//! A sparse matrix-vector product and per-row statistics of irregular rows, written as nested
//! maps (`Nested::map` with parallel code per row), on accel's backend, checked against the
//! interpreter.

use accel::prelude::*;
use accel_examples::rng::SplitMix64;
use accel_examples::sparse::{row_variances, spmv};
use accel_examples::{check, timed};
use std::error::Error;

/// Rows of the matrix; each has up to `2 * AVERAGE` nonzeros.
const ROWS: usize = 1 << 16;
const AVERAGE: u32 = 32;
const COLS: u32 = 1 << 16;
/// Relative tolerance of the row sums: the backend may group a row's terms otherwise.
const TOL: f64 = 1e-4;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "sparse: {ROWS} rows of up to {} nonzeros, {:?} backend with {} threads",
        2 * AVERAGE,
        rt.backend(),
        rt.threads()
    );
    let mut rng = SplitMix64::new(21);
    let rows: Vec<Vec<(u32, f32)>> = (0..ROWS)
        .map(|_| (0..rng.below(2 * AVERAGE)).map(|_| (rng.below(COLS), rng.uniform(-1.0, 1.0))).collect())
        .collect();
    let m = Nested::from_rows(rows.clone());
    let x = Vector::from_vec(rng.vec_f32(COLS as usize, -1.0, 1.0));

    let (y, t) = timed(&rt, || spmv(&rt, &m, &x));
    let y = y?;
    let (want, ti) = timed(&rt, || spmv::reference(&m, &x));
    let err = check::close("spmv", &y.to_vec(), &want?.to_vec(), TOL)?;
    println!(
        "  spmv:      {} nonzeros in {t:.2?} (interpreter {ti:.2?}, largest difference {err:.1e})",
        m.values().len()
    );
    let values = Nested::from_rows(rows.iter().map(|r| r.iter().map(|&(_, v)| v).collect()).collect());
    let (v, t) = timed(&rt, || row_variances(&rt, &values));
    let err = check::close("row variances", &v?.to_vec(), &row_variances::reference(&values)?.to_vec(), TOL)?;
    println!("  variances: every row's in {t:.2?} (largest difference {err:.1e} from the interpreter)");
    println!("{}", spmv::plan());
    Ok(())
}
