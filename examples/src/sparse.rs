//! Nested data parallelism over irregular rows (`Nested::map` with parallel code per row,
//! flattened at build time): a sparse matrix-vector product with the matrix's rows in CSR form,
//! and the mean and variance of each of a set of irregular rows.
//!
//! Each row function is written as if for one row; `accel_core::flatten` turns it into segmented
//! operations over all rows at once (a `fold_seg` per reduction of a row, elementwise work over
//! the values of all rows), which fusion then fuses like any other program: the product is one
//! segmented reduction reading the matrix once.

use accel::prelude::*;

/// `A x` for the sparse matrix `A` whose row `i` holds the `(column, value)` pairs of its
/// nonzeros.
#[accel]
pub fn spmv(rows: Nested<(u32, f32)>, x: Vector<f32>) -> Vector<f32> {
    rows.map(|row| row.map(|(c, v)| v * x[c as usize]).sum())
}

/// The mean of every row (0 for an empty row).
#[accel]
pub fn row_means(rows: Nested<f32>) -> Vector<f32> {
    rows.map(|row| row.sum().get() / (row.len() as f32).max(1.0))
}

/// The variance of every row around its own mean (0 for an empty row): the mean, a per-row
/// scalar, centres the row's values before they are squared and summed.
#[accel]
pub fn row_variances(rows: Nested<f32>) -> Vector<f32> {
    rows.map(|row| {
        let n = (row.len() as f32).max(1.0);
        let mean = row.sum().get() / n;
        row.map(|x| (x - mean) * (x - mean)).sum().get() / n
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    fn rows(rng: &mut SplitMix64, count: usize, longest: u32) -> Vec<Vec<f32>> {
        (0..count)
            .map(|_| {
                let len = rng.below(longest) as usize;
                rng.vec_f32(len, -1.0, 1.0)
            })
            .collect()
    }

    #[test]
    fn plans_have_the_flat_kernel_counts() {
        // The product is one segmented reduction, like `fold_seg` written by hand; the variance
        // two (the sum, then the squares around the mean, divided in the reduction's write).
        assert_eq!(spmv::plan().kernel_count(), 1);
        assert_eq!(row_means::plan().kernel_count(), 1);
        assert_eq!(row_variances::plan().kernel_count(), 2);
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(11);
        for (count, longest) in [(0, 1), (5, 1), (40, 70), (300, 600)] {
            let rs = rows(&mut rng, count, longest);
            let nested = Nested::from_rows(rs.clone());
            let means: Vec<f32> = rs.iter().map(|r| r.iter().sum::<f32>() / (r.len() as f32).max(1.0)).collect();
            let got = row_means(&rt, &nested)?.to_vec();
            check::close("row means vs interpreter", &got, &row_means::reference(&nested)?.to_vec(), 1e-5)?;
            check::close("row means vs oracle", &got, &means, 1e-4)?;
            let got = row_variances(&rt, &nested)?.to_vec();
            check::close("row variances vs interpreter", &got, &row_variances::reference(&nested)?.to_vec(), 1e-5)?;

            let cols = 1 + rng.below(1000);
            let entries: Vec<Vec<(u32, f32)>> =
                rs.iter().map(|r| r.iter().map(|&v| (rng.below(cols), v)).collect()).collect();
            let x = Vector::from_vec(rng.vec_f32(cols as usize, -1.0, 1.0));
            let m = Nested::from_rows(entries.clone());
            let want: Vec<f32> =
                entries.iter().map(|r| r.iter().map(|&(c, v)| v * x.get_linear(c as usize)).sum()).collect();
            let got = spmv(&rt, &m, &x)?.to_vec();
            check::close("spmv vs interpreter", &got, &spmv::reference(&m, &x)?.to_vec(), 1e-5)?;
            check::close("spmv vs oracle", &got, &want, 1e-4)?;
        }
        Ok(())
    }
}
