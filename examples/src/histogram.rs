//! Histogram by scatter: every sample sends a 1 to its bin with `permute`, which adds the ones
//! arriving at the same bin into a `fill(bins, 0)` array of defaults. Samples outside
//! `[lo, hi)` map to `None` and are dropped.
//!
//! `permute` needs an associative and commutative combination (here `+` on integers, so the
//! counts are exact whatever the order of the scatter).

use accel::prelude::*;

/// Counts of the samples `xs` in `bins` (at least 1) equal-width bins covering `[lo, hi)`.
#[accel]
pub fn histogram(xs: Vector<f32>, lo: f32, hi: f32, bins: usize) -> Vector<u32> {
    let width = (hi - lo) / bins as f32;
    xs.map(|_| 1u32).permute(
        fill(bins, 0u32),
        |i| {
            let x = xs[i];
            // Rounding may put a sample just below `hi` one past the last bin.
            if x >= lo && x < hi { Some((((x - lo) / width) as usize).min(bins - 1)) } else { None }
        },
        |a, b| a + b,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    fn oracle(xs: &[f32], lo: f32, hi: f32, bins: usize) -> Vec<u32> {
        let width = (hi - lo) / bins as f32;
        let mut counts = vec![0; bins];
        for &x in xs.iter().filter(|&&x| x >= lo && x < hi) {
            counts[(((x - lo) / width) as usize).min(bins - 1)] += 1;
        }
        counts
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(4);
        for (n, bins) in [(0, 3), (1, 1), (17, 5), (1000, 17), (1000, 1)] {
            // Some samples fall outside [-1, 1) and are dropped; include both ends exactly.
            let mut xs = rng.vec_f32(n, -1.2, 1.2);
            if n > 2 {
                xs[0] = -1.0;
                xs[1] = 1.0;
            }
            let got = histogram(&rt, &Vector::from_vec(xs.clone()), -1.0, 1.0, bins)?.to_vec();
            let want = histogram::reference(&Vector::from_vec(xs.clone()), -1.0, 1.0, bins)?.to_vec();
            check::exact("histogram vs interpreter", &got, &want)?;
            check::exact("histogram vs oracle", &got, &oracle(&xs, -1.0, 1.0, bins))?;
        }
        Ok(())
    }
}
