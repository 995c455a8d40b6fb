//! SAXPY, `a * x + y` (BLAS level 1): one `zip_with` whose closure captures the scalar
//! parameter `a`, a pure map that runs at the speed of memory.

use accel::prelude::*;

/// `a * xs[i] + ys[i]` over the common length of `xs` and `ys`.
#[accel]
pub fn saxpy(a: f32, xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.zip_with(ys, |x, y| a * x + y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(2);
        for n in [0, 1, 17, 1000] {
            let a = rng.uniform(-2.0, 2.0);
            let xs = rng.vec_f32(n + 5, -1.0, 1.0);
            let ys = rng.vec_f32(n, -1.0, 1.0);
            // Elementwise: the same operations in the same order, so bit-identical results.
            let oracle: Vec<f32> = xs.iter().zip(&ys).map(|(&x, &y)| a * x + y).collect();
            let (xs, ys) = (Vector::from_vec(xs), Vector::from_vec(ys));
            let got = saxpy(&rt, a, &xs, &ys)?;
            assert_eq!(got.shape(), [n]);
            check::exact("saxpy vs interpreter", &got.to_vec(), &saxpy::reference(a, &xs, &ys)?.to_vec())?;
            check::exact("saxpy vs oracle", &got.to_vec(), &oracle)?;
        }
        Ok(())
    }
}
