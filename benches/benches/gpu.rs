//! accel's skeletons on the GPU, timed for comparison with CUB, cuBLAS, CuPy and PyTorch.
//!
//! ```sh
//! cargo bench -p accel-benches --bench gpu -- [--runs N] [--max-log2 K] > accel.jsonl
//! ```
//!
//! Every case is timed the way `benches/baselines` times its baselines: CUDA events around each
//! call (`Gpu::time`), 3 warm-up calls (the first uploads the host inputs, which then stay on
//! the device), the median and minimum of `--runs` (default 20) timed calls. A call's time is
//! everything it puts on the stream: its kernels, and the few bytes of the error slot it reads
//! back. Results stay on the device, as the peers' do (a reduction's `Scalar` is not read into
//! host memory while timed). Inputs are uniform random (SplitMix64), never zeros, and each case checks one result
//! against a host computation before it is timed. The device-copy bandwidth (`cuMemcpyDtoD`) is
//! measured in the same run, at every size.
//!
//! With `--load` it only measures the first call of a program in this process, which loads the
//! module (see `first_call`); with `--icfp` only the programs of ICFP'13's benchmarks beside their
//! peers (N-body, Mandelbrot, radix sort, Canny edges, fluid flow; see `icfp`).
//!
//! Prints one JSON object per line on stdout (`impl`, `bench`, `n`, `param`, `median_us`,
//! `min_us`, `bytes`: the essential traffic, inputs read and outputs written once) and a readable
//! line per case on stderr. Without a GPU it says so and exits successfully.

use accel::Strategy;
use accel::prelude::*;
use accel::{Gpu, Result};
use accel_benches::{
    draw, expand_scatter, expand_scatter_unfused, expand_sources, histogram_even, primes_below_unfused, random_f32,
    row_variances_flat, running_sum, segment_lengths, segment_sums, sparse_matrix, spmv_flat, sum,
};
use accel_examples::{
    bfs::bfs_levels,
    black_scholes::{black_scholes, black_scholes_fast},
    blur::blur,
    canny::{edges, sequential_edges, test_image},
    dotp::dotp,
    fluid::{Fluid, Params, sequential_step, step},
    mandelbrot::mandelbrot,
    nbody::{accelerations, accelerations_fast, random_bodies, sequential_acceleration},
    quicksort::quicksort,
    radix::radix_sort,
    saxpy::saxpy,
    sieve::primes_below,
    sparse::{row_variances, spmv},
};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Options: runs per case and the largest size, or only the module load time, or only the
/// nested maps (`--nested`), or only the fused expand and permute with the Sieve, BFS and
/// quicksort (`--expand`), or only the ICFP'13 programs (`--icfp`); `--only NAME[,NAME..]` times
/// only the cases whose benchmark name contains one of the names (the others' results are still
/// checked).
struct Options {
    runs: usize,
    max_log2: u32,
    only: Option<String>,
    load_only: bool,
    nested_only: bool,
    expand_only: bool,
    icfp_only: bool,
}

fn main() {
    let options = match parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!(
                "{e}\nusage: gpu [--runs N] [--max-log2 K] [--only NAME[,NAME..]] [--load | --nested | --expand | --icfp]   (cargo bench passes --bench, which is \
                 ignored)"
            );
            std::process::exit(2);
        }
    };
    let started = Instant::now();
    let rt = match Runtime::cuda() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("no GPU, nothing to measure: {e}");
            return;
        }
    };
    let result = if options.load_only { first_call(&rt, started) } else { run(&rt, &options) };
    if let Err(e) = result {
        eprintln!("benchmark failed: {e}");
        std::process::exit(1);
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> std::result::Result<Options, String> {
    let mut o = Options {
        runs: 20,
        max_log2: 28,
        only: None,
        load_only: false,
        nested_only: false,
        expand_only: false,
        icfp_only: false,
    };
    while let Some(a) = args.next() {
        let mut value =
            |name: &str| args.next().and_then(|v| v.parse::<u32>().ok()).ok_or(format!("{name} needs a number"));
        match a.as_str() {
            "--runs" => o.runs = value("--runs")?.max(1) as usize,
            "--only" => o.only = Some(args.next().ok_or("--only needs a benchmark name")?),
            "--max-log2" => o.max_log2 = value("--max-log2")?.clamp(16, 28),
            "--load" => o.load_only = true,
            "--nested" => o.nested_only = true,
            "--expand" => o.expand_only = true,
            "--icfp" => o.icfp_only = true,
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(o)
}

/// What the cases share: the GPU, the run count and the output, and which cases to time.
struct Bench<'a> {
    gpu: &'a Gpu,
    runs: usize,
    only: Option<&'a str>,
}

impl Bench<'_> {
    /// Times `call` (3 warm-up calls, then `runs` timed ones) and prints the case.
    fn case<T>(&self, bench: &str, n: usize, param: &str, bytes: usize, call: impl FnMut() -> Result<T>) -> Result<()> {
        self.case_as("accel", bench, n, param, bytes, call)
    }

    /// [`Bench::case`] under another implementation's name (a variant of accel's program).
    fn case_as<T>(
        &self,
        implementation: &str,
        bench: &str,
        n: usize,
        param: &str,
        bytes: usize,
        mut call: impl FnMut() -> Result<T>,
    ) -> Result<()> {
        if self.only.is_some_and(|only| !only.split(',').any(|name| bench.contains(name))) {
            return Ok(());
        }
        for _ in 0..3 {
            black_box(call()?);
        }
        let mut times = Vec::with_capacity(self.runs);
        for _ in 0..self.runs {
            let (value, took) = self.gpu.time(&mut call)?;
            black_box(value);
            times.push(took);
        }
        report(implementation, bench, n, param, bytes, &mut times);
        Ok(())
    }
}

/// Prints one case: a JSON line on stdout, a readable line on stderr.
fn report(implementation: &str, bench: &str, n: usize, param: &str, bytes: usize, times: &mut [Duration]) {
    times.sort();
    let median = times[times.len() / 2].as_secs_f64() * 1e6;
    let min = times[0].as_secs_f64() * 1e6;
    println!(
        "{{\"impl\": \"{implementation}\", \"bench\": \"{bench}\", \"n\": {n}, \"param\": \"{param}\", \"median_us\": \
         {median:.3}, \"min_us\": {min:.3}, \"bytes\": {bytes}}}"
    );
    let gbs = if bytes > 0 { format!("{:8.1} GB/s", bytes as f64 / median / 1e3) } else { String::new() };
    eprintln!("{implementation:<8} {bench:<14} n={n:<10} {param:<10} median {median:10.1} us  min {min:10.1} us {gbs}");
}

/// Fails the run when a result is off: a benchmark of a wrong answer measures nothing.
fn check(what: &str, ok: bool) -> Result<()> {
    if ok { Ok(()) } else { Err(accel::Error::invalid_argument("gpu bench", format!("{what}: wrong result"))) }
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * want.abs().max(1.0)
}

fn run(rt: &Runtime, o: &Options) -> Result<()> {
    let gpu = rt.gpu().expect("a CUDA runtime has a GPU");
    eprintln!("{gpu:?}, median of {} runs", o.runs);
    let b = Bench { gpu, runs: o.runs, only: o.only.as_deref() };
    if o.nested_only {
        return nested(rt, &b);
    }
    if o.expand_only {
        return expand_permute(rt, &b);
    }
    if o.icfp_only {
        return icfp(rt, &b);
    }
    let max = 1usize << o.max_log2;
    let sizes: Vec<usize> = (16..=o.max_log2).step_by(4).map(|k| 1 << k).collect();
    let xs_all = random_f32(max, 42);
    let ys_all = random_f32(max, 43);

    // Device copy: the bandwidth every other case is compared with.
    for &n in &sizes {
        let buffer = gpu.alloc(8 * n)?;
        let bytes = 4 * n;
        for _ in 0..3 {
            gpu.copy(&buffer, bytes, &buffer, 0, bytes)?;
        }
        let mut times = Vec::with_capacity(o.runs);
        for _ in 0..o.runs {
            times.push(gpu.time(|| gpu.copy(&buffer, bytes, &buffer, 0, bytes))?.1);
        }
        report("memcpy", "copy", n, "", 2 * bytes, &mut times);
    }

    for &n in &sizes {
        let xs = Vector::from_slice(&xs_all[..n]);
        let ys = Vector::from_slice(&ys_all[..n]);
        let z = saxpy(rt, 2.5, &xs, &ys)?;
        check("saxpy", (0..n).step_by(n / 7).all(|i| z.get_linear(i) == 2.5 * xs_all[i] + ys_all[i]))?;
        b.case("saxpy", n, "", 12 * n, || saxpy(rt, 2.5, &xs, &ys))?;

        let exact: f64 = xs_all[..n].iter().map(|&x| f64::from(x)).sum();
        check("fold_all", close(f64::from(sum(rt, &xs)?.get()), exact, 1e-4))?;
        // Timed as the peers are, the result left on the device (CUB's `d_out`, torch's tensor):
        // reading it into host memory adds a round trip the peers' timings do not have (the
        // latency section measures it).
        b.case("fold_all", n, "", 4 * n, || sum(rt, &xs))?;

        let exact: f64 = xs_all[..n].iter().zip(&ys_all[..n]).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum();
        check("dotp", close(f64::from(dotp(rt, &xs, &ys)?.get()), exact, 1e-4))?;
        b.case("dotp", n, "", 8 * n, || dotp(rt, &xs, &ys))?;

        let scanned = running_sum(rt, &xs)?.to_vec();
        let mut acc = 0f64;
        let mut ok = true;
        for (i, &x) in xs_all[..n].iter().enumerate() {
            acc += f64::from(x);
            if i % 4099 == 0 || i + 1 == n {
                ok &= close(f64::from(scanned[i]), acc, 1e-3);
            }
        }
        check("scanl1", ok)?;
        b.case("scanl1", n, "", 8 * n, || running_sum(rt, &xs))?;
    }

    let twenty_million = 20_000_000.min(max);
    {
        let n = twenty_million;
        let xs = Vector::from_slice(&xs_all[..n]);
        let ys = Vector::from_slice(&ys_all[..n]);
        let exact: f64 = xs_all[..n].iter().zip(&ys_all[..n]).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum();
        check("dotp", close(f64::from(dotp(rt, &xs, &ys)?.get()), exact, 1e-4))?;
        b.case("dotp", n, "", 8 * n, || dotp(rt, &xs, &ys))?;

        let scale = |v: &[f32], lo: f32, hi: f32| Vector::from_vec(v.iter().map(|&x| lo + (hi - lo) * x).collect());
        let price = scale(&xs_all[..n], 5.0, 30.0);
        let strike = scale(&ys_all[..n], 1.0, 100.0);
        let years = scale(&xs_all[max - n..], 0.25, 10.0);
        let (calls, puts) = black_scholes(rt, &price, &strike, &years)?;
        // Put-call parity: C - P = S - K e^(-rT).
        let parity = (0..n).step_by(n / 11).all(|i| {
            let (s, k, t) = (price.get_linear(i), strike.get_linear(i), years.get_linear(i));
            let want = f64::from(s) - f64::from(k) * (-0.02 * f64::from(t)).exp();
            close(f64::from(calls.get_linear(i) - puts.get_linear(i)), want, 1e-3)
        });
        check("black_scholes", parity)?;
        b.case("black_scholes", n, "", 20 * n, || black_scholes(rt, &price, &strike, &years))?;
        let (fast_calls, _) = black_scholes_fast(rt, &price, &strike, &years)?;
        let agrees = (0..n)
            .step_by(n / 11)
            .all(|i| close(f64::from(fast_calls.get_linear(i)), f64::from(calls.get_linear(i)), 1e-3));
        check("black_scholes (fast math)", agrees)?;
        b.case("black_scholes", n, "fast_math", 20 * n, || black_scholes_fast(rt, &price, &strike, &years))?;
    }

    {
        let xs = Vector::from_slice(&xs_all);
        for len in [4, 32, 1024, 65536, 0] {
            let lens = segment_lengths(max, len);
            let segments = lens.len();
            let sums = segment_sums(rt, &xs, &Vector::from_vec(lens.clone()))?.to_vec();
            let mut start = 0;
            let mut ok = sums.len() == segments;
            for (k, &l) in lens.iter().enumerate() {
                let end = start + l as usize;
                if k % 997 == 0 || k + 1 == segments {
                    let want: f64 = xs_all[start..end].iter().map(|&x| f64::from(x)).sum();
                    ok &= close(f64::from(sums[k]), want, 1e-4);
                }
                start = end;
            }
            check("fold_seg", ok)?;
            let lens = Vector::from_vec(lens);
            let param = if len > 0 { len.to_string() } else { "mixed".into() };
            b.case("fold_seg", max, &param, 4 * max + 4 * segments, || segment_sums(rt, &xs, &lens))?;
        }

        let counts = histogram_even(rt, &xs, 0.0, 1.0, 256)?.to_vec();
        let mut want = vec![0u32; 256];
        xs_all.iter().for_each(|&x| want[((x * 256.0) as usize).min(255)] += 1);
        check("histogram", counts == want)?;
        b.case("histogram", max, "256", 4 * max, || histogram_even(rt, &xs, 0.0, 1.0, 256))?;
    }

    {
        let side = 1usize << (o.max_log2 / 2).min(13);
        let img = Matrix::from_shape_vec([side, side], xs_all[..side * side].to_vec())?;
        let out = blur(rt, &img)?;
        let at = |i: usize, j: usize| xs_all[i * side + j];
        let (i, j) = (side / 2, side / 3);
        let want = (4.0 * at(i, j)
            + 2.0 * (at(i - 1, j) + at(i, j - 1) + at(i, j + 1) + at(i + 1, j))
            + at(i - 1, j - 1)
            + at(i - 1, j + 1)
            + at(i + 1, j - 1)
            + at(i + 1, j + 1))
            / 16.0;
        check("stencil3x3", close(f64::from(out.at([i, j]).unwrap_or(f32::NAN)), f64::from(want), 1e-5))?;
        b.case("stencil3x3", side * side, &format!("{side}x{side}"), 8 * side * side, || blur(rt, &img))?;
    }

    expand_permute(rt, &b)?;
    nested(rt, &b)?;
    icfp(rt, &b)?;
    latency(rt, gpu, o.runs.max(200))
}

/// The programs of ICFP'13's benchmarks beside their peers in `benches/baselines`: N-body
/// accelerations of 2^15 bodies (CuPy's tiled kernel, IEEE and fast math), a 4096² Mandelbrot
/// image of up to 256 steps (a CuPy kernel), a radix sort of 2^24 random `u32`s (CUB's
/// `DeviceRadixSort`), the Canny edges of a 4096² image (CuPy kernels, one per stage) and a
/// step of Stam's stable fluids on 1024 × 2048 cells with 20 Jacobi sweeps per solve (CuPy
/// kernels, one per stage and sweep).
fn icfp(rt: &Runtime, b: &Bench) -> Result<()> {
    let n = 1usize << 15;
    let bodies = random_bodies(n, 21);
    let softening = 0.05f32;
    // A few bodies' components against the f64 oracle, within the rounding of 2^15 f32 terms of
    // their magnitudes (fast math: approximate division and square root, 2 ulps more a term).
    let exact = accelerations(rt, &bodies.px, &bodies.py, &bodies.pz, &bodies.mass, softening)?;
    let fast = accelerations_fast(rt, &bodies.px, &bodies.py, &bodies.pz, &bodies.mass, softening)?;
    for i in [0, 1, n / 2, n - 1] {
        let (want, magnitude) = sequential_acceleration(&bodies, softening, i);
        for (got, what) in [(&exact, "nbody"), (&fast, "nbody (fast math)")] {
            let got = [got.0.get_linear(i), got.1.get_linear(i), got.2.get_linear(i)];
            check(what, (0..3).all(|k| (f64::from(got[k]) - want[k]).abs() <= 1e-3 * magnitude[k]))?;
        }
    }
    let run = || accelerations(rt, &bodies.px, &bodies.py, &bodies.pz, &bodies.mass, softening);
    b.case("nbody", n, "", 28 * n, run)?;
    let run = || accelerations_fast(rt, &bodies.px, &bodies.py, &bodies.pz, &bodies.mass, softening);
    b.case("nbody", n, "fast_math", 28 * n, run)?;

    let (side, steps) = (4096usize, 256u32);
    let image = mandelbrot(rt, side, side, steps)?;
    // The centre row crosses the set (escape after `steps`) and the edges escape at once.
    let centre = image.at([side / 2, side / 2 - side / 10]);
    check("mandelbrot", centre == Some(steps) && image.at([0, 0]) == Some(1))?;
    let param = format!("{side}x{side}, {steps} steps");
    b.case("mandelbrot", side * side, &param, 4 * side * side, || mandelbrot(rt, side, side, steps))?;

    let n = 1usize << 24;
    let keys: Vec<u32> = (0..n as u64).map(|k| (draw(13, k) >> 32) as u32).collect();
    let input = Vector::from_vec(keys.clone());
    let mut want = keys;
    want.sort_unstable();
    check("radix_sort", radix_sort(rt, &input)?.to_vec() == want)?;
    b.case("radix_sort", n, "random u32", 8 * n, || radix_sort(rt, &input))?;

    let side = 4096usize;
    let img = test_image(side, side, 1);
    let (low, high) = (0.5, 1.5);
    check("canny", edges(rt, &img, low, high)?.to_vec() == sequential_edges(&img.to_vec(), side, side, low, high))?;
    let param = format!("{side}x{side}");
    b.case("canny", side * side, &param, 8 * side * side, || edges(rt, &img, low, high))?;

    let (rows, cols, p) = (1024usize, 2048usize, Params::DEFAULT);
    let state = Fluid::test_state(rows, cols, 1);
    let [d, u, v, s, fu, fv] = state.matrices();
    let run = || step(rt, &d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, p.iters);
    let (gd, gu, gv) = run()?;
    let (wd, wu, wv) = sequential_step(&state, p);
    check("fluid", gd.to_vec() == wd && gu.to_vec() == wu && gv.to_vec() == wv)?;
    let sum = |f: &[f32]| f.iter().map(|&x| f64::from(x)).sum::<f64>();
    eprintln!("fluid (accel): sums of density, u, v {:.6e} {:.6e} {:.6e}", sum(&wd), sum(&wu), sum(&wv));
    // The essential traffic: six fields read, three written.
    let param = format!("{rows}x{cols}, {} sweeps", p.iters);
    b.case("fluid", rows * cols, &param, 36 * rows * cols, run)
}

/// `fold_seg` of 2^28 values under each walk (the segment lengths of the `fold_seg` cases), then
/// nested maps against the same programs written flat by hand, on a sparse matrix of 2^22 rows
/// (`accel_benches::sparse_matrix`; the baselines time cuSPARSE's product on the same matrix):
/// the CSR product (`accel_examples::sparse::spmv` against `spmv_flat`) with 32 nonzeros in every
/// row and with power-law rows, and the per-row variance of the power-law rows' values
/// (`row_variances` against `row_variances_flat`).
fn nested(rt: &Runtime, b: &Bench) -> Result<()> {
    // How `fold_seg` walks its values, forced (`tiles`: ranges of 256 values; `warp`: rows split
    // into parts; `block`: wide ranges) beside the automatic choice (`accel`).
    let walks = [
        ("accel", None),
        ("ranges", Some(Strategy::Tiles)),
        ("rows", Some(Strategy::Warp)),
        ("wide", Some(Strategy::Block)),
    ];
    let n = 1usize << 28;
    let xs_host = random_f32(n, 42);
    let xs = Vector::from_slice(&xs_host);
    for len in [4, 32, 1024, 65536, 0] {
        let lens = segment_lengths(n, len);
        let (segments, param) = (lens.len(), if len > 0 { len.to_string() } else { "mixed".into() });
        let lens = Vector::from_vec(lens);
        for (name, walk) in walks {
            rt.set_expand_strategy(walk);
            let sums = segment_sums(rt, &xs, &lens)?;
            let (mut start, mut ok) = (0, sums.len() == segments);
            for (k, l) in lens.iter().enumerate() {
                let end = start + l as usize;
                if k % 997 == 0 || k + 1 == segments {
                    let want: f64 = xs_host[start..end].iter().map(|&x| f64::from(x)).sum();
                    ok &= close(f64::from(sums.get_linear(k)), want, 1e-4);
                }
                start = end;
            }
            check(&format!("fold_seg ({name})"), ok)?;
            b.case_as(name, "fold_seg_walk", n, &param, 4 * n + 4 * segments, || segment_sums(rt, &xs, &lens))?;
        }
    }
    rt.set_expand_strategy(None);
    drop(xs);
    let rows = 1usize << 22;
    for (label, per_row) in [("32 per row", 32), ("power law", 0)] {
        let (offsets, columns, values) = sparse_matrix(rows, per_row, 7);
        let nonzeros = columns.len();
        let x_host = random_f32(rows, 8);
        let x = Vector::from_slice(&x_host);
        let m = Nested::from_parts(offsets.clone(), columns.iter().copied().zip(values.iter().copied()).collect())?;
        let row = |r: usize| offsets[r]..offsets[r + 1];
        let product = |r: usize| row(r).map(|k| f64::from(values[k]) * f64::from(x_host[columns[k] as usize])).sum();
        let checked =
            |y: &Vector<f32>| (0..rows).step_by(4099).all(|r| close(f64::from(y.get_linear(r)), product(r), 1e-4));
        check("spmv", checked(&spmv(rt, &m, &x)?))?;
        check("spmv_flat", checked(&spmv_flat(rt, &m, &x)?))?;
        // The nonzeros and the offsets read, the vector read once and the result written.
        let bytes = 8 * nonzeros + 8 * (rows + 1) + 8 * rows;
        for (name, walk) in walks {
            rt.set_expand_strategy(walk);
            check(&format!("spmv ({name})"), checked(&spmv(rt, &m, &x)?))?;
            b.case_as(name, "spmv", nonzeros, label, bytes, || spmv(rt, &m, &x))?;
        }
        rt.set_expand_strategy(None);
        b.case_as("flat", "spmv", nonzeros, label, bytes, || spmv_flat(rt, &m, &x))?;
        if per_row == 0 {
            let v = Nested::from_parts(offsets.clone(), values.clone())?;
            let variance = |r: usize| {
                let n = (row(r).len() as f64).max(1.0);
                let mean = row(r).map(|k| f64::from(values[k])).sum::<f64>() / n;
                row(r).map(|k| (f64::from(values[k]) - mean).powi(2)).sum::<f64>() / n
            };
            let checked = |y: &Vector<f32>| {
                (0..rows).step_by(4099).all(|r| (f64::from(y.get_linear(r)) - variance(r)).abs() <= 1e-4)
            };
            check("row_variances", checked(&row_variances(rt, &v)?))?;
            check("row_variances_flat", checked(&row_variances_flat(rt, &v)?))?;
            let bytes = 4 * nonzeros + 8 * (rows + 1) + 4 * rows;
            b.case("row_variance", nonzeros, label, bytes, || row_variances(rt, &v))?;
            b.case_as("flat", "row_variance", nonzeros, label, bytes, || row_variances_flat(rt, &v))?;
        }
    }
    Ok(())
}

/// The micro-benchmarks of the thesis on expand/permute (§5.1: counts drawn from the named
/// distributions, each output sent to a random one of `min(total, 1000)` bins, `R`, or dropped,
/// `N`) and the Sieve of Eratosthenes to 10^7 (§5.2): the fused kernel with the strategy it
/// selects (`accel`), the same program without the fusion (`unfused`), and each strategy forced
/// (`thread`, `warp`, `block`, `tiles`). Every variant's result is checked before it is timed.
fn expand_permute(rt: &Runtime, b: &Bench) -> Result<()> {
    type Parts = &'static [(f64, u32, u32)];
    let small: Parts = &[(1.0, 0, 10)];
    let mixed: Parts = &[(0.9, 0, 10), (0.1, 3000, 3500)];
    let cases: [(&str, usize, Parts, u32); 7] = [
        ("100% 0-10 -> R", 1 << 22, small, 1000),
        ("100% 0-100 -> R", 1 << 20, &[(1.0, 0, 100)], 1000),
        ("100% 1000-3000 -> R", 1 << 14, &[(1.0, 1000, 3000)], 1000),
        ("75% 1-1; 25% 0-0 -> R", 1 << 22, &[(0.75, 1, 1), (0.25, 0, 0)], 1000),
        ("90% 0-10; 10% 3000-3500 -> R", 1 << 16, mixed, 1000),
        ("90% 0-10; 10% 3000-3500 -> 0.75R + 0.25N", 1 << 16, mixed, 750),
        ("100% 0-10 -> 0.01R + 0.99N", 1 << 22, small, 10),
    ];
    let strategies = || Strategy::ALL.into_iter().map(|s| (s.name(), Some(s)));
    for (label, n, parts, keep) in cases {
        let sources = expand_sources(n, parts, 77);
        let total: usize = sources.iter().map(|&(c, _)| c as usize).sum();
        let bins = total.clamp(1, 1000);
        let mut want = vec![0u32; bins];
        for &(count, seed) in &sources {
            for j in 0..count {
                let y = (seed ^ j).wrapping_mul(2654435761);
                if y % 1000 < keep {
                    want[(y / 1000) as usize % bins] += 1;
                }
            }
        }
        let src = Vector::from_vec(sources);
        let bytes = 8 * n + 4 * bins;
        check("expand_scatter_unfused", expand_scatter_unfused(rt, &src, bins, keep)?.to_vec() == want)?;
        b.case_as("unfused", "expand_permute", n, label, bytes, || expand_scatter_unfused(rt, &src, bins, keep))?;
        for (name, strategy) in std::iter::once(("accel", None)).chain(strategies()) {
            rt.set_expand_strategy(strategy);
            check(&format!("expand_scatter ({name})"), expand_scatter(rt, &src, bins, keep)?.to_vec() == want)?;
            b.case_as(name, "expand_permute", n, label, bytes, || expand_scatter(rt, &src, bins, keep))?;
        }
        rt.set_expand_strategy(None);
    }
    // π(10^7) = 664 579.
    let n = 10_000_000;
    check("sieve (unfused)", primes_below_unfused(rt, n)?.len() == 664_579)?;
    b.case_as("unfused", "sieve", n as usize, "", 4 * n as usize, || primes_below_unfused(rt, n))?;
    for (name, strategy) in std::iter::once(("accel", None)).chain(strategies()) {
        rt.set_expand_strategy(strategy);
        check(&format!("sieve ({name})"), primes_below(rt, n)?.len() == 664_579)?;
        b.case_as(name, "sieve", n as usize, "", 4 * n as usize, || primes_below(rt, n))?;
    }
    rt.set_expand_strategy(None);
    bfs(rt, b)?;
    sort(rt, b)
}

/// Quicksort as nested data parallelism (`accel_examples::quicksort`: every segment partitioned
/// around its first value each round, inside `awhile`) on 2^20 random `i32`s.
fn sort(rt: &Runtime, b: &Bench) -> Result<()> {
    let n = 1usize << 20;
    let values: Vec<i32> = (0..n as u64).map(|k| (draw(7, k) >> 32) as i32).collect();
    let mut want = values.clone();
    want.sort_unstable();
    let xs = Vector::from_vec(values);
    check("quicksort", quicksort(rt, &xs)?.to_vec() == want)?;
    b.case("quicksort", n, "random i32", 8 * n, || quicksort(rt, &xs))
}

/// Breadth-first search (`accel_examples::bfs`): on a chain of 1000 nodes, 1000 levels of one
/// node each (the call's time over 1000 is the fixed cost of a level), and on a random graph of
/// 2^20 nodes of up to 8 neighbours each.
fn bfs(rt: &Runtime, b: &Bench) -> Result<()> {
    let chain: Vec<Vec<u32>> = (0..1000u32).map(|v| if v < 999 { vec![v + 1] } else { vec![] }).collect();
    let chain = Nested::from_rows(chain);
    check("bfs (chain)", bfs_levels(rt, &chain, 0)?.to_vec() == (0..1000).collect::<Vec<i32>>())?;
    b.case("bfs", 1000, "chain: 1000 levels", 0, || bfs_levels(rt, &chain, 0))?;
    let n = 1usize << 20;
    let mut state = 99u64;
    let mut next = |bound: usize| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % bound
    };
    let rows: Vec<Vec<u32>> = (0..n).map(|_| (0..next(9)).map(|_| next(n) as u32).collect()).collect();
    let edges: usize = rows.iter().map(Vec::len).sum();
    let graph = Nested::from_rows(rows);
    let levels = bfs_levels(rt, &graph, 0)?.to_vec();
    check("bfs (random)", levels[0] == 0 && levels.iter().filter(|&&l| l > 0).count() > n / 2)?;
    b.case("bfs", n, "random, up to 8 neighbours", 4 * edges + 8 * n, || bfs_levels(rt, &graph, 0))
}

/// The time to the end of the first call of a program in a fresh process (`--load`): opening
/// the device, loading the examples' module (from its SASS, or compiling its PTX: the label says
/// which, from `ACCEL_SASS` and `CUDA_CACHE_DISABLE`) and running Black-Scholes on 2^10 options.
fn first_call(rt: &Runtime, started: Instant) -> Result<()> {
    let n = 1 << 10;
    let v = Vector::from_vec(random_f32(n, 1).into_iter().map(|x| 1.0 + x).collect());
    let load = Instant::now();
    black_scholes(rt, &v, &v, &v)?;
    let mut first = [load.elapsed()];
    let mut with_open = [started.elapsed()];
    let sass = std::env::var("ACCEL_SASS").map_or(true, |v| v != "off");
    let label = match (sass, std::env::var("CUDA_CACHE_DISABLE").is_ok_and(|v| v == "1")) {
        (true, _) => "sass",
        (false, true) => "ptx, JIT cache off",
        (false, false) => "ptx, JIT cache on",
    };
    report("accel", "first_call", n, label, 0, &mut first);
    report("accel", "open_and_first_call", n, label, 0, &mut with_open);
    Ok(())
}

/// The wall time of a whole call on 2^10 elements with device-resident inputs, to the end of its
/// work (what a user waits for: the call, then the wait for its result), against launching an
/// empty kernel with cudarc and waiting for it. `chain of 10` is ten dependent saxpy calls, each
/// on the previous one's result, then one wait.
fn latency(rt: &Runtime, gpu: &Gpu, runs: usize) -> Result<()> {
    let n = 1 << 10;
    let xs = Vector::from_vec(random_f32(n, 7));
    let ys = Vector::from_vec(random_f32(n, 8));
    let mut accel_times = wall_times(runs, || {
        saxpy(rt, 2.5, &xs, &ys)?;
        gpu.synchronize()
    })?;
    report("accel", "latency", n, "saxpy", 0, &mut accel_times);
    let mut fold_times = wall_times(runs, || sum(rt, &xs).map(|s| s.get()).map(drop))?;
    report("accel", "latency", n, "fold_all", 0, &mut fold_times);
    // Where fold_all's time goes: the call and its kernel to the end of its work, and the read of
    // a 4-byte result alone.
    let mut call_times = wall_times(runs, || {
        sum(rt, &xs)?;
        gpu.synchronize()
    })?;
    report("accel", "latency", n, "fold_all, no read", 0, &mut call_times);
    let word = gpu.upload(&[1, 2, 3, 4])?;
    let mut read_times = wall_times(runs, || gpu.download(&word, 0, 4).map(drop))?;
    report("accel", "latency", n, "read of 4 bytes", 0, &mut read_times);
    let mut chain_times = wall_times(runs, || {
        let mut x = saxpy(rt, 0.5, &xs, &ys)?;
        for _ in 1..10 {
            x = saxpy(rt, 0.5, &x, &ys)?;
        }
        gpu.synchronize()
    })?;
    report("accel", "latency", n, "chain of 10 saxpy", 0, &mut chain_times);
    match empty_kernel_times(gpu.ordinal(), runs) {
        Ok(mut times) => report("cudarc", "latency", n, "empty kernel", 0, &mut times),
        Err(e) => eprintln!("the empty-kernel launch with cudarc failed: {e:?}"),
    }
    Ok(())
}

fn wall_times(runs: usize, mut call: impl FnMut() -> Result<()>) -> Result<Vec<Duration>> {
    for _ in 0..10 {
        call()?;
    }
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            call().map(|()| start.elapsed())
        })
        .collect()
}

/// Wall times of launching an empty kernel and synchronising its stream, through cudarc's
/// driver layer on the device's primary context.
fn empty_kernel_times(ordinal: usize, runs: usize) -> std::result::Result<Vec<Duration>, cudarc::driver::DriverError> {
    use cudarc::driver::result;
    const PTX: &str = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry empty()\n{\n  ret;\n}\n\0";
    result::init()?;
    let device = result::device::get(ordinal as i32)?;
    // SAFETY: the primary context is retained and released here, the module and stream are
    // created and destroyed here, and the kernel takes no parameters.
    unsafe {
        let context = result::primary_ctx::retain(device)?;
        result::ctx::set_current(context)?;
        let module = result::module::load_data(PTX.as_ptr().cast())?;
        let function = result::module::get_function(module, std::ffi::CString::new("empty").expect("no NUL"))?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let launch = || -> std::result::Result<(), cudarc::driver::DriverError> {
            result::launch_kernel(function, (1, 1, 1), (32, 1, 1), 0, stream, &mut [])?;
            result::stream::synchronize(stream)
        };
        for _ in 0..10 {
            launch()?;
        }
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = Instant::now();
            launch()?;
            times.push(start.elapsed());
        }
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
        result::primary_ctx::release(device)?;
        Ok(times)
    }
}
