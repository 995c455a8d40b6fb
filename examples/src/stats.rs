//! Statistics of a vector, the shapes fusion is made for (ICFP'13 §4 and beyond):
//!
//! - [`mean`]: a sum, then a division of the one result: the division is the reduction's
//!   epilogue, so the whole program is one kernel;
//! - [`moments`]: the sum and the sum of squares read the same vector: sibling fusion computes
//!   both in one pass (one kernel);
//! - [`normalise`]: `x / sum(x)` needs the sum before any element: two kernels, the producer
//!   `|x|` fused into the sum and the division one elementwise pass.

use accel::prelude::*;

/// The arithmetic mean (NaN for an empty vector).
#[accel]
pub fn mean(xs: Vector<f32>) -> Scalar<f32> {
    let total = xs.sum();
    unit(total.get() / xs.len() as f32)
}

/// The sum and the sum of squares, from which mean and variance follow.
#[accel]
pub fn moments(xs: Vector<f32>) -> (Scalar<f32>, Scalar<f32>) {
    (xs.sum(), xs.map(|x| x * x).sum())
}

/// `xs` scaled so that the absolute values sum to one (unchanged when they sum to zero).
#[accel]
pub fn normalise(xs: Vector<f32>) -> Vector<f32> {
    let total = xs.map(|x| x.abs()).sum();
    xs.map(|x| if total.get() > 0.0 { x / total.get() } else { x })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(8);
        for n in [0, 1, 17, 1000, 4099] {
            // Integer-valued floats: every sum below is exact in any grouping.
            let v: Vec<f32> = (0..n).map(|_| rng.below(200) as f32 - 100.0).collect();
            let xs = Vector::from_vec(v.clone());
            let sum: f32 = v.iter().sum();
            let squares: f32 = v.iter().map(|x| x * x).sum();
            let (s, q) = moments(&rt, &xs)?;
            assert_eq!((s.get(), q.get()), (sum, squares));
            let m = mean(&rt, &xs)?.get();
            assert!(m.to_bits() == (sum / n as f32).to_bits(), "{m} vs {}", sum / n as f32);
            let abs: f32 = v.iter().map(|x| x.abs()).sum();
            let want: Vec<f32> = v.iter().map(|&x| if abs > 0.0 { x / abs } else { x }).collect();
            check::exact("normalise", &normalise(&rt, &xs)?.to_vec(), &want)?;
            check::exact(
                "normalise vs interpreter",
                &normalise(&rt, &xs)?.to_vec(),
                &normalise::reference(&xs)?.to_vec(),
            )?;
        }
        Ok(())
    }

    #[test]
    fn plans_have_the_fused_kernel_counts() {
        assert_eq!(mean::plan().kernel_count(), 1);
        assert_eq!(moments::plan().kernel_count(), 1);
        assert_eq!(normalise::plan().kernel_count(), 2);
    }
}
