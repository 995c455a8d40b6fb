//! accel programs that the benchmarks in `benches/` time against hand-written baselines.
//!
//! `cargo bench -p accel-benches --bench sum` compares [`sum()`] on the CPU backend with rayon's
//! `par_iter().sum()`.

use accel::prelude::*;

/// The sum of a vector: `fold` with `+` over its one dimension.
#[accel]
pub fn sum(xs: Vector<f32>) -> Scalar<f32> {
    xs.sum()
}

/// `n` pseudo-random values in `[0, 1)`, the same on every run (SplitMix64).
pub fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_agrees_with_the_interpreter_and_a_plain_sum() -> accel::Result<()> {
        let rt = Runtime::cpu();
        for n in [0, 1, 17, 1000, 100_003] {
            let xs = random_f32(n, n as u64);
            assert!(n == 0 || xs.iter().any(|&x| x != 0.0));
            let exact: f64 = xs.iter().map(|&x| f64::from(x)).sum();
            let xs = Vector::from_vec(xs);
            let got = f64::from(sum(&rt, &xs)?.get());
            let want = f64::from(sum::reference(&xs)?.get());
            assert!((got - exact).abs() <= 1e-5 * exact.max(1.0), "{n}: {got} vs {exact}");
            assert!((got - want).abs() <= 1e-4 * exact.max(1.0), "{n}: {got} vs {want}");
        }
        Ok(())
    }
}
