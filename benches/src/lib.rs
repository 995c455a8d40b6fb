//! accel programs that the benchmarks in `benches/` time against baselines.
//!
//! - `cargo bench -p accel-benches --bench sum` compares [`sum()`] on the CPU backend with rayon's
//!   `par_iter().sum()`;
//! - `cargo bench -p accel-benches --bench gpu` times these programs and those of the examples on
//!   the GPU, for `benches/baselines` to compare with CUB, cuBLAS, CuPy and PyTorch
//!   (docs/benchmarks.md).

use accel::prelude::*;

/// The sum of a vector: `fold` with `+` over its one dimension.
#[accel]
pub fn sum(xs: Vector<f32>) -> Scalar<f32> {
    xs.sum()
}

/// The running sums of a vector: `scanl1` with `+`.
#[accel]
pub fn running_sum(xs: Vector<f32>) -> Vector<f32> {
    xs.scanl1(|a, b| a + b)
}

/// The sum of each segment of `xs`, whose lengths are `lens`.
#[accel]
pub fn segment_sums(xs: Vector<f32>, lens: Vector<i32>) -> Vector<f32> {
    xs.fold_seg(0.0, |a, b| a + b, lens)
}

/// A histogram of `xs` over `bins` equal bins of `[lo, hi)` (values outside are dropped), the
/// way CUB's `HistogramEven` bins a sample: `(x - lo) * (bins / (hi - lo))`, a multiplication
/// (the example's histogram divides by the bin width).
#[accel]
pub fn histogram_even(xs: Vector<f32>, lo: f32, hi: f32, bins: usize) -> Vector<u32> {
    let scale = bins as f32 / (hi - lo);
    xs.map(|_| 1u32).permute(
        fill(bins, 0u32),
        |i| {
            let x = xs[i];
            if x >= lo && x < hi { Some((((x - lo) * scale) as usize).min(bins - 1)) } else { None }
        },
        |a, b| a + b,
    )
}

/// Segment lengths covering `n` elements: `len` each (the last one shorter when `len` does not
/// divide `n`), or for `len == 0` the mixed pattern `2^(5k mod 17)` (1 to 65536), the last cut
/// to fit. The same pattern as `benches/baselines`.
pub fn segment_lengths(n: usize, len: usize) -> Vec<i32> {
    let mut lens = Vec::new();
    let mut total = 0;
    let mut k = 0;
    while total < n {
        let l = if len > 0 { len } else { 1 << ((5 * k) % 17) }.min(n - total);
        lens.push(l as i32);
        total += l;
        k += 1;
    }
    lens
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
    fn segment_lengths_cover_exactly() {
        for (n, len) in [(0, 4), (10, 4), (1 << 20, 32), (1 << 20, 0), (100_000, 0)] {
            let lens = segment_lengths(n, len);
            assert_eq!(lens.iter().map(|&l| l as usize).sum::<usize>(), n, "{n} {len}");
            assert!(lens.iter().all(|&l| l > 0));
        }
        let mixed = segment_lengths(1 << 20, 0);
        assert_eq!(&mixed[..4], &[1, 32, 1024, 32768]);
    }

    #[test]
    fn the_even_histogram_counts_every_sample_in_range() -> accel::Result<()> {
        let rt = Runtime::cpu();
        for (n, bins) in [(0, 3), (1, 1), (1000, 256), (4097, 7)] {
            let xs = Vector::from_vec(random_f32(n, 9));
            let got = histogram_even(&rt, &xs, 0.0, 1.0, bins)?;
            assert_eq!(got, histogram_even::reference(&xs, 0.0, 1.0, bins)?);
            assert_eq!(got.iter().map(|c| c as usize).sum::<usize>(), n);
        }
        Ok(())
    }

    #[test]
    fn running_and_segment_sums_agree_with_the_interpreter() -> accel::Result<()> {
        let rt = Runtime::cpu();
        for (n, len) in [(0, 3), (1, 1), (1000, 7), (70_001, 0)] {
            let xs = Vector::from_vec(random_f32(n, 3));
            let lens = Vector::from_vec(segment_lengths(n, len));
            let close = |a: &[f32], b: &[f32]| {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-2 * y.abs().max(1.0))
            };
            assert!(close(&running_sum(&rt, &xs)?.to_vec(), &running_sum::reference(&xs)?.to_vec()));
            assert!(close(&segment_sums(&rt, &xs, &lens)?.to_vec(), &segment_sums::reference(&xs, &lens)?.to_vec()));
        }
        Ok(())
    }

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
