//! Dot product, the first example of ICFP'13 (§2.1): `zip_with (*)` then `fold (+) 0`.
//!
//! The elementwise products are a producer that fusion inlines into the reduction, so no
//! intermediate vector is needed. The sum is regrouped by the parallel reduction: results agree
//! with a sequential sum within rounding.

use accel::prelude::*;

/// `Σ xs[i] * ys[i]` over the common length of `xs` and `ys`.
#[accel]
pub fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
    xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(1);
        for n in [0, 1, 17, 1000] {
            // `ys` is longer: `zip_with` stops at the shorter vector.
            let xs = rng.vec_f32(n, -1.0, 1.0);
            let ys = rng.vec_f32(n + 3, -1.0, 1.0);
            let oracle: f64 = xs.iter().zip(&ys).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum();
            let (xs, ys) = (Vector::from_vec(xs), Vector::from_vec(ys));
            let got = dotp(&rt, &xs, &ys)?.get();
            let want = dotp::reference(&xs, &ys)?.get();
            // Sums of up to 1000 terms of magnitude below 1: rounding is far below 1e-4.
            check::close("dotp vs interpreter", &[got], &[want], 1e-4)?;
            check::close("dotp vs oracle", &[f64::from(got)], &[oracle], 1e-4)?;
        }
        Ok(())
    }
}
