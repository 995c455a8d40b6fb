//! The sum of 2^26 random f32: accel's `xs.sum()` on the CPU backend against rayon's
//! `par_iter().sum()`, in one criterion group.

use accel::{Runtime, Vector};
use accel_benches::{random_f32, sum};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Duration;

const N: usize = 1 << 26;

fn bench_sum(c: &mut Criterion) {
    let values = random_f32(N, 42);
    let xs = Vector::from_slice(&values);
    // Both run on one thread per core: the runtime's own pool and rayon's global pool.
    let rt = Runtime::cpu();
    assert_eq!(rt.threads(), rayon::current_num_threads());

    let mut group = c.benchmark_group("sum_f32");
    group.sample_size(10).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Bytes((N * size_of::<f32>()) as u64));
    group.bench_function(BenchmarkId::new("accel_cpu", N), |b| {
        b.iter(|| sum(&rt, black_box(&xs)).expect("sum runs").get())
    });
    group.bench_function(BenchmarkId::new("rayon_par_iter", N), |b| {
        b.iter(|| black_box(&values).par_iter().sum::<f32>())
    });
    group.finish();
}

criterion_group!(benches, bench_sum);
criterion_main!(benches);
