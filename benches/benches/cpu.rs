//! The CPU backend against hand-written rayon, in one criterion group per program, at 2^22
//! elements (dot product, saxpy, a 3×3 stencil, filter, Black-Scholes, histogram, CSR SpMV,
//! scan) and a 256³ matrix product: what a skilled user writes with `par_iter` (vectorisable, one pass), beside the
//! same program as an `#[accel]` function run on `Runtime::cpu()`. Every accel result is checked
//! against the rayon one before it is timed. The `call` group measures the fixed cost of a call.

use accel::{Matrix, Nested, Runtime, Segments, Vector};
use accel_benches::{below, matmul, random_f32, running_sum, sparse_matrix};
use accel_examples::check::{close, exact};
use accel_examples::{
    black_scholes::black_scholes, blur::blur, dotp::dotp, histogram::histogram, saxpy::saxpy, sparse::spmv,
};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Duration;

const N: usize = 1 << 22;

/// A group of 20 samples over 4 s, reporting the essential traffic of `bytes` per call.
fn new_group<'a>(c: &'a mut Criterion, name: &str, bytes: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(bytes as u64));
    group
}

fn bench_cpu(c: &mut Criterion) {
    let rt = Runtime::cpu();
    assert_eq!(rt.threads(), rayon::current_num_threads());
    let (x, y) = (random_f32(N, 1), random_f32(N, 2));
    let (xs, ys) = (Vector::from_slice(&x), Vector::from_slice(&y));

    let dot_rayon = || x.par_iter().zip(&y).map(|(a, b)| a * b).sum::<f32>();
    let want = dot_rayon();
    close("dotp", &[dotp(&rt, &xs, &ys).expect("dotp runs").get()], &[want], 1e-3).expect("dotp is right");
    let mut group = new_group(c, "dot", 8 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| dotp(&rt, black_box(&xs), black_box(&ys)).expect("dotp runs").get())
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(dot_rayon())));
    group.finish();

    let a = 2.5f32;
    let saxpy_rayon = || x.par_iter().zip(&y).map(|(x, y)| a * x + y).collect::<Vec<f32>>();
    exact("saxpy", &saxpy(&rt, a, &xs, &ys).expect("saxpy runs").to_vec(), &saxpy_rayon()).expect("saxpy is right");
    let mut group = new_group(c, "saxpy", 12 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| saxpy(&rt, a, black_box(&xs), black_box(&ys)).expect("saxpy runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(saxpy_rayon())));
    group.finish();
}

/// The 3×3 binomial blur of the `rows × cols` image `img`, edges clamped, as a rayon user writes
/// it: a row per task, the interior of the row in a loop over three row slices (which
/// vectorises), its two edge pixels apart. The sums in `blur`'s order, so the results are equal.
fn blur_rayon(img: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; img.len()];
    let row = |i: isize| {
        let i = i.clamp(0, rows as isize - 1) as usize;
        &img[i * cols..(i + 1) * cols]
    };
    out.par_chunks_mut(cols).enumerate().for_each(|(i, out)| {
        let (up, at, down) = (row(i as isize - 1), row(i as isize), row(i as isize + 1));
        let pixel = |l: usize, c: usize, r: usize| {
            let edges = up[c] + at[l] + at[r] + down[c];
            let corners = up[l] + up[r] + down[l] + down[r];
            (4.0 * at[c] + 2.0 * edges + corners) / 16.0
        };
        let last = cols - 1;
        for (c, o) in out.iter_mut().enumerate().take(last).skip(1) {
            *o = pixel(c - 1, c, c + 1);
        }
        out[0] = pixel(0, 0, 1.min(last));
        out[last] = pixel(last.saturating_sub(1), last, last);
    });
    out
}

/// Black-Scholes as `black_scholes` prices an option, for a rayon map over the zipped inputs.
fn black_scholes_one(s: f32, k: f32, t: f32) -> (f32, f32) {
    let (riskfree, volatility) = (0.02f32, 0.30f32);
    let v_sqrt_t = volatility * t.sqrt();
    let d1 = ((s / k).ln() + (riskfree + 0.5 * volatility * volatility) * t) / v_sqrt_t;
    let d2 = d1 - v_sqrt_t;
    let cnd = |d: f32| {
        let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
        let p = k * (0.319_381_53 + k * (-0.356_563_78 + k * (1.781_477_9 + k * (-1.821_256 + k * 1.330_274_4))));
        let w = 0.398_942_3 * (-0.5 * d * d).exp() * p;
        if d > 0.0 { 1.0 - w } else { w }
    };
    let (cnd_d1, cnd_d2) = (cnd(d1), cnd(d2));
    let k_exp_rt = k * (-riskfree * t).exp();
    (s * cnd_d1 - k_exp_rt * cnd_d2, k_exp_rt * (1.0 - cnd_d2) - s * (1.0 - cnd_d1))
}

fn bench_elementwise(c: &mut Criterion) {
    let rt = Runtime::cpu();
    // A 2048 × 2048 image: 2^22 pixels.
    let side = 2048;
    let pixels = random_f32(side * side, 9);
    let img = Matrix::from_shape_vec([side, side], pixels.clone()).expect("a square image");
    exact("blur", &blur(&rt, &img).expect("blur runs").to_vec(), &blur_rayon(&pixels, side, side))
        .expect("blur is right");
    let mut group = new_group(c, "stencil3x3", 8 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| blur(&rt, black_box(&img)).expect("blur runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(blur_rayon(&pixels, side, side))));
    group.finish();

    let x = random_f32(N, 10);
    let xs = Vector::from_slice(&x);
    let below_rayon = || x.par_iter().copied().filter(|&v| v < 0.5).collect::<Vec<f32>>();
    exact("filter", &below(&rt, &xs, 0.5).expect("filter runs").to_vec(), &below_rayon()).expect("filter is right");
    let mut group = new_group(c, "filter", 6 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| below(&rt, black_box(&xs), 0.5).expect("filter runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(below_rayon())));
    group.finish();

    // Prices in [5, 30), strikes in [1, 100), maturities in [0.25, 10) years (ICFP'13's ranges).
    let scale = |v: Vec<f32>, lo: f32, hi: f32| v.into_iter().map(|u| lo + (hi - lo) * u).collect::<Vec<f32>>();
    let (s, k, t) = (
        scale(random_f32(N, 11), 5.0, 30.0),
        scale(random_f32(N, 12), 1.0, 100.0),
        scale(random_f32(N, 13), 0.25, 10.0),
    );
    let (ss, ks, ts) = (Vector::from_slice(&s), Vector::from_slice(&k), Vector::from_slice(&t));
    let bs_rayon = || {
        s.par_iter()
            .zip(&k)
            .zip(&t)
            .map(|((&s, &k), &t)| black_scholes_one(s, k, t))
            .unzip::<f32, f32, Vec<f32>, Vec<f32>>()
    };
    let (calls, puts) = black_scholes(&rt, &ss, &ks, &ts).expect("black_scholes runs");
    let (want_calls, want_puts) = bs_rayon();
    exact("black_scholes calls", &calls.to_vec(), &want_calls).expect("black_scholes is right");
    exact("black_scholes puts", &puts.to_vec(), &want_puts).expect("black_scholes is right");
    let mut group = new_group(c, "black_scholes", 20 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| black_scholes(&rt, black_box(&ss), black_box(&ks), black_box(&ts)).expect("black_scholes runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(bs_rayon())));
    group.finish();
}

/// The 256-bin histogram of `xs` over `[0, 1)` as a rayon user writes it: a private histogram
/// per task, added together.
fn histogram_rayon(xs: &[f32], bins: usize) -> Vec<u32> {
    let (lo, hi) = (0.0f32, 1.0f32);
    let width = (hi - lo) / bins as f32;
    xs.par_chunks(1 << 14)
        .fold(
            || vec![0u32; bins],
            |mut h, part| {
                for &x in part {
                    if x >= lo && x < hi {
                        h[(((x - lo) / width) as usize).min(bins - 1)] += 1;
                    }
                }
                h
            },
        )
        .reduce(
            || vec![0u32; bins],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
                a
            },
        )
}

/// `A x` for the CSR matrix `(offsets, columns, values)`, a row per task.
fn spmv_rayon(offsets: &[usize], columns: &[u32], values: &[f32], x: &[f32]) -> Vec<f32> {
    offsets.par_windows(2).map(|row| (row[0]..row[1]).map(|k| values[k] * x[columns[k] as usize]).sum()).collect()
}

/// The inclusive running sum of `xs` in two passes over chunks: their totals, then each chunk
/// scanned from the sum of the totals before it.
fn running_sum_rayon(xs: &[f32]) -> Vec<f32> {
    let chunk = xs.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let totals: Vec<f32> = xs.par_chunks(chunk).map(|c| c.iter().sum()).collect();
    let starts: Vec<f32> = totals
        .iter()
        .scan(0.0, |acc, t| {
            let start = *acc;
            *acc += t;
            Some(start)
        })
        .collect();
    let mut out = vec![0.0f32; xs.len()];
    out.par_chunks_mut(chunk).zip(xs.par_chunks(chunk)).zip(&starts).for_each(|((out, xs), &start)| {
        let mut acc = start;
        for (o, x) in out.iter_mut().zip(xs) {
            acc += x;
            *o = acc;
        }
    });
    out
}

fn bench_irregular(c: &mut Criterion) {
    let rt = Runtime::cpu();
    let x = random_f32(N, 3);
    let xs = Vector::from_slice(&x);

    let bins = 256;
    let want = histogram_rayon(&x, bins);
    exact("histogram", &histogram(&rt, &xs, 0.0, 1.0, bins).expect("histogram runs").to_vec(), &want)
        .expect("histogram is right");
    let mut group = new_group(c, "histogram", 4 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| histogram(&rt, black_box(&xs), 0.0, 1.0, bins).expect("histogram runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(histogram_rayon(&x, bins))));
    group.finish();

    // 2^17 rows of 32 nonzeros: 2^22 values.
    let rows = N / 32;
    let (offsets, columns, values) = sparse_matrix(rows, 32, 7);
    let v = random_f32(rows, 8);
    let entries = Vector::from_vec(columns.iter().copied().zip(values.iter().copied()).collect());
    let m = Nested::from_segments(Segments::from_offsets(offsets.clone()).expect("CSR offsets"), entries)
        .expect("CSR rows");
    let vs = Vector::from_slice(&v);
    let want = spmv_rayon(&offsets, &columns, &values, &v);
    close("spmv", &spmv(&rt, &m, &vs).expect("spmv runs").to_vec(), &want, 1e-4).expect("spmv is right");
    let mut group = new_group(c, "spmv", 12 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| spmv(&rt, black_box(&m), black_box(&vs)).expect("spmv runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| {
        b.iter(|| black_box(spmv_rayon(&offsets, &columns, &values, &v)))
    });
    group.finish();

    let want = running_sum_rayon(&x);
    close("running_sum", &running_sum(&rt, &xs).expect("running_sum runs").to_vec(), &want, 1e-3)
        .expect("running_sum is right");
    let mut group = new_group(c, "scan", 8 * N);
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| running_sum(&rt, black_box(&xs)).expect("running_sum runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", N), |b| b.iter(|| black_box(running_sum_rayon(&x))));
    group.finish();
}

/// The product of the `n × k` matrix `a` and the `k × m` matrix `b` as a rayon user writes it
/// for the cache: a row of the result per task, accumulated over the rows of `b` in turn
/// (`c[i][..] += a[i][p] * b[p][..]`, a loop over contiguous rows that vectorises). Each element
/// is summed in the order of `p`, as `matmul` folds it.
fn matmul_rayon(a: &[f32], b: &[f32], n: usize, k: usize, m: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * m];
    c.par_chunks_mut(m.max(1)).take(n).enumerate().for_each(|(i, row)| {
        for (p, b_row) in b.chunks_exact(m.max(1)).take(k).enumerate() {
            let a_ip = a[i * k + p];
            for (c_ij, &b_pj) in row.iter_mut().zip(b_row) {
                *c_ij += a_ip * b_pj;
            }
        }
    });
    c
}

fn bench_matmul(c: &mut Criterion) {
    let rt = Runtime::cpu();
    let side = 256;
    let (a, b) = (random_f32(side * side, 14), random_f32(side * side, 15));
    let (am, bm) = (
        Matrix::from_shape_vec([side, side], a.clone()).expect("a square matrix"),
        Matrix::from_shape_vec([side, side], b.clone()).expect("a square matrix"),
    );
    let want = matmul_rayon(&a, &b, side, side, side);
    close("matmul", &matmul(&rt, &am, &bm).expect("matmul runs").to_vec(), &want, 1e-5).expect("matmul is right");
    let mut group = new_group(c, "matmul", 12 * side * side);
    group.bench_function(BenchmarkId::new("accel_cpu", side), |bench| {
        bench.iter(|| matmul(&rt, black_box(&am), black_box(&bm)).expect("matmul runs"))
    });
    group.bench_function(BenchmarkId::new("rayon", side), |bench| {
        bench.iter(|| black_box(matmul_rayon(&a, &b, side, side, side)))
    });
    group.finish();
}

/// The fixed cost of a call: saxpy of 1 and 1000 elements (too few to split), on the default
/// runtime (rayon's global pool: the call stays on the calling thread) and on one with a pool of
/// its own (entered once per call), beside the same loop written in plain Rust.
fn bench_call(c: &mut Criterion) {
    let own = Runtime::cpu_with_threads(rayon::current_num_threads()).expect("a pool starts");
    for n in [1, 1000] {
        let (x, y) = (random_f32(n, 4), random_f32(n, 5));
        let (xs, ys) = (Vector::from_slice(&x), Vector::from_slice(&y));
        let plain = || x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect::<Vec<f32>>();
        let mut group = new_group(c, "call", 12 * n);
        for (name, rt) in [("accel_cpu", &Runtime::cpu()), ("accel_cpu_own_pool", &own)] {
            exact("saxpy", &saxpy(rt, 2.5, &xs, &ys).expect("saxpy runs").to_vec(), &plain()).expect("saxpy is right");
            group.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| saxpy(rt, 2.5, black_box(&xs), black_box(&ys)).expect("saxpy runs"))
            });
        }
        group.bench_function(BenchmarkId::new("plain_rust", n), |b| b.iter(|| black_box(plain())));
        group.finish();
    }
}

criterion_group!(benches, bench_cpu, bench_elementwise, bench_irregular, bench_matmul, bench_call);
criterion_main!(benches);
