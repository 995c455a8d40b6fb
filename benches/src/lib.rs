//! accel programs that the benchmarks in `benches/` time against baselines.
//!
//! - `cargo bench -p accel-benches --bench sum` compares [`sum()`] on the CPU backend with rayon's
//!   `par_iter().sum()`;
//! - `cargo bench -p accel-benches --bench cpu` compares the dot product, saxpy, a 3×3 stencil,
//!   [`below()`], Black-Scholes, a histogram, CSR SpMV, [`running_sum()`] and [`matmul()`] on
//!   the CPU backend with the same programs written with rayon;
//! - `cargo bench -p accel-benches --bench gpu` times these programs and those of the examples on
//!   the GPU, for `benches/baselines` to compare with CUB, cuBLAS, CuPy and PyTorch
//!   (docs/benchmarks.md), and the fused expand and permute against the same programs compiled
//!   without that fusion (`#[accel(expand_permute = false)]`) and under each forced strategy.

use accel::prelude::*;

/// The sum of a vector: `fold` with `+` over its one dimension.
#[accel]
pub fn sum(xs: Vector<f32>) -> Scalar<f32> {
    xs.sum()
}

/// The matrix product `a · b` as an array language writes it: the products `a[i][p] * b[p][j]`
/// as a rank-3 `generate` over `[rows of a, columns of b, columns of a]`, folded along its
/// innermost dimension. A `b` with fewer rows than `a` has columns is an index error.
#[accel]
pub fn matmul(a: Matrix<f32>, b: Matrix<f32>) -> Matrix<f32> {
    generate([a.rows(), b.cols(), a.cols()], |(i, j, p)| a[(i, p)] * b[(p, j)]).fold(0.0, |x, y| x + y)
}

/// The running sums of a vector: `scanl1` with `+`.
#[accel]
pub fn running_sum(xs: Vector<f32>) -> Vector<f32> {
    xs.scanl1(|a, b| a + b)
}

/// The elements of `xs` below `t`, in order: `filter`, a compaction.
#[accel]
pub fn below(xs: Vector<f32>, t: f32) -> Vector<f32> {
    xs.filter(|x| x < t)
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

/// Each source `(count, seed)` expands to `count` hashed outputs; the kept ones (`keep` in 1000)
/// add a 1 into one of `bins` bins: the micro-benchmarks of the thesis on expand/permute (§5.1),
/// fused into one kernel.
#[accel]
pub fn expand_scatter(src: Vector<(u32, u32)>, bins: usize, keep: u32) -> Vector<u32> {
    let e = src.expand(|(c, _)| c, |(_, seed), j| (seed ^ j as u32) * 2654435761u32);
    e.map(|_| 1u32).permute(
        fill(bins, 0u32),
        |i| if e[i] % 1000 < keep { Some((e[i] / 1000) as usize % bins) } else { None },
        |a, b| a + b,
    )
}

/// [`expand_scatter`] without the fusion of expand and permute (the expanded array written,
/// then scattered; every other fusion on): the baseline the fused kernel is measured against.
#[accel(expand_permute = false)]
pub fn expand_scatter_unfused(src: Vector<(u32, u32)>, bins: usize, keep: u32) -> Vector<u32> {
    let e = src.expand(|(c, _)| c, |(_, seed), j| (seed ^ j as u32) * 2654435761u32);
    e.map(|_| 1u32).permute(
        fill(bins, 0u32),
        |i| if e[i] % 1000 < keep { Some((e[i] / 1000) as usize % bins) } else { None },
        |a, b| a + b,
    )
}

/// The example's Sieve of Eratosthenes (`accel_examples::sieve::primes_below`) without the
/// fusion of expand and permute, for the same comparison.
#[accel(expand_permute = false)]
pub fn primes_below_unfused(n: u32) -> Vector<u32> {
    let sieved = awhile(
        (fill(1, 2u32), unit(3u32)),
        |s| unit(s.1.get() < n),
        |s| {
            let c = s.1.get();
            let end = if c <= n / c { c * c } else { n };
            let multiples = s.0.expand(|p| (end - 1) / p - (c - 1) / p, |p, j| ((c - 1) / p + 1 + j as u32) * p);
            let left = multiples.map(|_| 0u32).permute(
                generate((end - c) as usize, |i| c + i as u32),
                |i| Some((multiples[i] - c) as usize),
                |a, b| a.min(b),
            );
            (s.0.concat(left.filter(|x| x > 0)), unit(end))
        },
    );
    sieved.0.filter(|p| p < n)
}

/// `n` sources `(count, seed)` for [`expand_scatter`]: with probability `p` (the parts sum to 1)
/// a count uniform in `lo..=hi`, as the thesis names its distributions (`90% 0-10; 10%
/// 3000-3500`).
pub fn expand_sources(n: usize, parts: &[(f64, u32, u32)], seed: u64) -> Vec<(u32, u32)> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|_| {
            let mut u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let &(_, lo, hi) = parts
                .iter()
                .find(|&&(p, _, _)| {
                    u -= p;
                    u < 0.0
                })
                .unwrap_or(&parts[parts.len() - 1]);
            let count = lo + (next() % u64::from(hi - lo + 1)) as u32;
            (count, next() as u32)
        })
        .collect()
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
    (0..n as u64).map(|k| unit_f32(draw(seed, k))).collect()
}

/// Draw `k` of the SplitMix64 stream that starts at `seed` (the same as `benches/baselines`).
pub fn draw(seed: u64, k: u64) -> u64 {
    let mut z = seed.wrapping_add(k.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A draw as a value in `[0, 1)`: its top 24 bits.
fn unit_f32(z: u64) -> f32 {
    (z >> 40) as f32 / (1u64 << 24) as f32
}

/// A square sparse matrix of `rows` rows in CSR form (offsets, then each nonzero's column and
/// value): `per_row` nonzeros in every row, or for `per_row == 0` power-law row lengths
/// `floor(11 u^(-2/3))` for `u` uniform in `(0, 1]` (a Pareto tail of exponent 1.5: a mean of about
/// 32, rows up to 720 896 long); columns uniform, values in `[0, 1)`. The same matrix as
/// `benches/baselines` (SplitMix64 streams `seed` for the lengths, `seed + 1` for the columns,
/// `seed + 2` for the values).
pub fn sparse_matrix(rows: usize, per_row: usize, seed: u64) -> (Vec<usize>, Vec<u32>, Vec<f32>) {
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0);
    for k in 0..rows as u64 {
        let length = if per_row > 0 {
            per_row
        } else {
            let u = ((draw(seed, k) >> 40) + 1) as f64 / (1u64 << 24) as f64;
            (11.0 * u.powf(-2.0 / 3.0)).floor() as usize
        };
        offsets.push(offsets[offsets.len() - 1] + length);
    }
    let nonzeros = offsets[rows] as u64;
    let columns = (0..nonzeros).map(|k| (draw(seed + 1, k) % rows as u64) as u32).collect();
    let values = (0..nonzeros).map(|k| unit_f32(draw(seed + 2, k))).collect();
    (offsets, columns, values)
}

/// [`accel_examples::sparse::spmv`] written flat by hand: the products over the values, summed
/// per row by `fold_seg`.
#[accel]
pub fn spmv_flat(rows: Nested<(u32, f32)>, x: Vector<f32>) -> Vector<f32> {
    let products = rows.values().map(|(c, v)| v * x[c as usize]);
    products.fold_seg(0.0, |a, b| a + b, rows.lengths())
}

/// [`accel_examples::sparse::row_variances`] written flat by hand: the sums, the means, the row
/// of every value (`expand` of the lengths), the squares around their row's mean, their sums.
#[accel]
pub fn row_variances_flat(rows: Nested<f32>) -> Vector<f32> {
    let lengths = rows.lengths();
    let values = rows.values();
    let n = lengths.map(|l| (l as f32).max(1.0));
    let means = values.fold_seg(0.0, |a, b| a + b, lengths).zip_with(n, |s, n| s / n);
    let row_of = iota::<usize>(rows.len()).expand(|r| lengths[r], |r, _| r);
    let squares = values.zip_with(row_of, |x, r| (x - means[r]) * (x - means[r]));
    squares.fold_seg(0.0, |a, b| a + b, lengths).zip_with(n, |s, n| s / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_sources_follow_their_distribution() {
        let src = expand_sources(100_000, &[(0.9, 0, 10), (0.1, 3000, 3500)], 5);
        let long = src.iter().filter(|(c, _)| *c >= 3000).count();
        assert!((9_000..11_000).contains(&long), "{long} long counts");
        assert!(src.iter().all(|&(c, _)| c <= 10 || (3000..=3500).contains(&c)));
        assert!(expand_sources(1000, &[(1.0, 1, 1)], 1).iter().all(|&(c, _)| c == 1));
    }

    #[test]
    fn fused_and_unfused_scatters_and_sieves_agree() -> accel::Result<()> {
        let rt = Runtime::cpu();
        for (n, parts, keep) in [(0, &[(1.0, 0, 10)][..], 1000), (5000, &[(0.75, 1, 1), (0.25, 0, 0)][..], 750)] {
            let src = Vector::from_vec(expand_sources(n, parts, 3));
            let bins = 1000;
            let fused = expand_scatter(&rt, &src, bins, keep)?;
            assert_eq!(fused, expand_scatter_unfused(&rt, &src, bins, keep)?);
            assert_eq!(fused, expand_scatter::reference(&src, bins, keep)?);
        }
        assert!(expand_scatter::plan().to_string().contains("expand_permute"));
        assert!(!expand_scatter_unfused::plan().to_string().contains("expand_permute"));
        for n in [2, 3, 50, 10_007] {
            let got = primes_below_unfused(&rt, n)?;
            assert_eq!(got, accel_examples::sieve::primes_below(&rt, n)?);
        }
        Ok(())
    }

    #[test]
    fn nested_and_flat_programs_agree_on_the_sparse_matrices() -> accel::Result<()> {
        let rt = Runtime::cpu();
        for (rows, per_row) in [(0, 32), (1, 0), (1000, 32), (20_000, 0)] {
            let (offsets, columns, values) = sparse_matrix(rows, per_row, 7);
            assert_eq!((offsets.len(), offsets[rows]), (rows + 1, columns.len()));
            assert!(columns.iter().all(|&c| (c as usize) < rows) && values.iter().all(|v| (0.0..1.0).contains(v)));
            let m = Nested::from_parts(offsets.clone(), columns.into_iter().zip(values.iter().copied()).collect())?;
            let x = Vector::from_vec(random_f32(rows, 8));
            // The same products and sums in the same order: the same bits.
            assert_eq!(accel_examples::sparse::spmv(&rt, &m, &x)?, spmv_flat(&rt, &m, &x)?);
            let v = Nested::from_parts(offsets, values)?;
            assert_eq!(accel_examples::sparse::row_variances(&rt, &v)?, row_variances_flat(&rt, &v)?);
        }
        // The power law: a mean of about 32 nonzeros a row, and a heavy tail.
        let (offsets, _, _) = sparse_matrix(1 << 16, 0, 7);
        let longest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        assert!((28..38).contains(&(offsets[1 << 16] >> 16)) && longest > 5000, "{} {longest}", offsets[1 << 16]);
        Ok(())
    }

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
