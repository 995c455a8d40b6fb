//! Fusion: every consumer that computes a producer in place (`fold_all fold fold_seg scanl1
//! scanl_seg permute stencil3x3 filter expand`), epilogues after reductions and scans, and errors
//! raised inside fused code.
//!
//! Two kinds of programs. The `chain_*` ones are written as users write them (a `map`,
//! `zip_with`, `backpermute` or `fill` feeding the consumer, a scalar function of a reduction's
//! result): the fusion passes rewrite them into the fused forms of `accel_core::fusion`. The
//! `fused_*` ones are already in those forms as the front end lowers them: a `generate` written
//! directly as the consumer's operand is a delayed operand, and `imap` directly on a reduction or
//! scan is an epilogue, so they exercise the fused device code whether or not the passes run.
//! Both are compared with the interpreter, like every other trial.
//!
//! Fusion, end to end: each rule's program has the kernel count its plan promises, and the
//! backend's result on the fused program equals the interpreter's on the source program.
//!
//! Integer element types keep the comparisons exact; float programs use integer-valued floats
//! where they reduce (sums of those are exact in any grouping). `fusion_off` checks the switch.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::Error;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn chain_dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
    xs.zip_with(ys, |x, y| x * y).sum()
}

#[accel]
fn fused_dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
    generate(xs.len(), |i| xs[i] * ys[i]).sum()
}

#[accel]
fn chain_row_squares(m: Matrix<f64>) -> Vector<f64> {
    m.map(|x| x * x).sum()
}

#[accel]
fn fused_row_squares(m: Matrix<f64>) -> Vector<f64> {
    generate(m.shape(), |(i, j)| m[(i, j)] * m[(i, j)]).sum()
}

#[accel]
fn chain_seg_sums(xs: Vector<i64>, lens: Vector<i32>) -> Vector<i64> {
    xs.map(|x| x * 3 - 1).fold_seg(0, |a, b| a + b, lens)
}

#[accel]
fn fused_seg_sums(xs: Vector<i64>, lens: Vector<i32>) -> Vector<i64> {
    generate(xs.len(), |i| xs[i] * 3 - 1).fold_seg(0, |a, b| a + b, lens)
}

#[accel]
fn chain_prefix_squares(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x * x).scanl1(|a, b| a + b)
}

#[accel]
fn fused_prefix_squares(xs: Vector<i32>) -> Vector<i32> {
    generate(xs.len(), |i| xs[i] * xs[i]).scanl1(|a, b| a + b)
}

#[accel]
fn chain_seg_scan_reversed(xs: Vector<i64>, lens: Vector<u32>) -> Vector<i64> {
    let n = xs.len();
    xs.backpermute(n, |i| n - 1 - i).scanl_seg(7, |a, b| a + b, lens)
}

#[accel]
fn fused_seg_scan_reversed(xs: Vector<i64>, lens: Vector<u32>) -> Vector<i64> {
    let n = xs.len();
    generate(n, |i| xs[n - 1 - i]).scanl_seg(7, |a, b| a + b, lens)
}

#[accel]
fn chain_histogram(keys: Vector<u32>, bins: usize) -> Vector<i32> {
    keys.map(|k| (k % 7) as i32).permute(fill(bins, 0), |i| (keys[i] as usize) % bins, |a, b| a + b)
}

#[accel]
fn fused_histogram(keys: Vector<u32>, bins: usize) -> Vector<i32> {
    let defaults = generate(bins, |j| j as i32);
    generate(keys.len(), |i| (keys[i] % 7) as i32).permute(defaults, |i| (keys[i] as usize) % bins, |a, b| a + b)
}

#[accel]
fn fused_histogram_delayed_defaults(keys: Vector<u32>, bins: usize) -> Vector<i32> {
    keys.map(|k| (k % 7) as i32).permute(generate(bins, |j| j as i32 * 3), |i| (keys[i] as usize) % bins, |a, b| a + b)
}

#[accel]
fn fused_scatter_pairs(xs: Vector<u32>, dst: Vector<usize>, n: usize) -> Vector<(u32, u32)> {
    // Pairs take the lock path; `+` and `max` make the result independent of the order.
    generate(xs.len(), |i| (xs[i], xs[i] ^ 5)).permute(
        generate(n, |j| (j as u32, 0u32)),
        |i| dst[i],
        |a, b| (a.0 + b.0, a.1.max(b.1)),
    )
}

#[accel]
fn chain_blur(m: Matrix<f32>) -> Matrix<f32> {
    m.map(|x| x * 0.5 + 1.0).stencil3x3(Clamp, |n| {
        (n[0][0] + n[0][2] + n[2][0] + n[2][2]) * 0.0625
            + (n[0][1] + n[1][0] + n[1][2] + n[2][1]) * 0.125
            + n[1][1] * 0.25
    })
}

#[accel]
fn fused_blur(m: Matrix<f32>) -> (Matrix<f32>, Matrix<f32>) {
    (
        generate(m.shape(), |(i, j)| m[(i, j)] * 0.5 + 1.0).stencil3x3(Clamp, |n| {
            (n[0][0] + n[0][2] + n[2][0] + n[2][2]) * 0.0625
                + (n[0][1] + n[1][0] + n[1][2] + n[2][1]) * 0.125
                + n[1][1] * 0.25
        }),
        generate(m.shape(), |(i, j)| m[(i, j)] - (i as f32))
            .stencil3x3(Constant(2.0), |n| n[0][0] - n[2][2] * 0.5 + n[1][1]),
    )
}

#[accel]
fn fused_stencil3(xs: Vector<i64>) -> Vector<i64> {
    generate(xs.len(), |i| xs[i] * 2 + i as i64).stencil3(Wrap, |l, c, r| l + c * 10 + r * 100)
}

#[accel]
fn chain_positive_squares(xs: Vector<f64>) -> Vector<f64> {
    xs.map(|x| x * x - 2500.0).filter(|y| y > 0.0)
}

#[accel]
fn fused_positive_squares(xs: Vector<f64>) -> (Vector<f64>, Vector<(f64, usize)>) {
    (
        generate(xs.len(), |i| xs[i] * xs[i] - 2500.0).filter(|y| y > 0.0),
        generate(xs.len(), |i| (xs[i], i)).filter(|p| p.0 < 0.0 && p.1 % 3 != 0),
    )
}

#[accel]
fn chain_expand(xs: Vector<u32>) -> Vector<u32> {
    xs.map(|x| x / 3).expand(|x| x % 5, |x, i| x + i as u32)
}

#[accel]
fn fused_expand(xs: Vector<u32>) -> Vector<u32> {
    generate(xs.len(), |i| xs[i] / 3).expand(|x| x % 5, |x, i| x + i as u32)
}

#[accel]
fn chain_mean(xs: Vector<f32>) -> Scalar<f32> {
    let n = xs.len() as f32;
    let s = xs.sum();
    unit(s.get() / n)
}

#[accel]
fn fused_mean(xs: Vector<f32>) -> Scalar<f32> {
    let n = xs.len() as f32;
    xs.sum().imap(|_, s| s / n)
}

#[accel]
fn chain_scan_then_map(xs: Vector<i32>) -> Vector<i64> {
    xs.scanl1(|a, b| a + b).map(|s| (s as i64) * 2 + 1)
}

#[accel]
fn fused_scan_then_map(xs: Vector<i32>) -> Vector<i64> {
    generate(xs.len(), |i| xs[i] * xs[i]).scanl1(|a, b| a + b).imap(|i, s| (s as i64) * (i as i64 + 1))
}

#[accel]
fn fused_epilogues(m: Matrix<i32>, lens: Vector<u64>) -> (Vector<f64>, Matrix<(i32, usize)>, Matrix<i64>, Matrix<u32>) {
    let k = 0.5f64;
    (
        m.sum().imap(|i, s| s as f64 * k + i as f64),
        m.fold_seg(1, |a, b| a * b, lens).imap(|(i, j), p| (p, i * 1000 + j)),
        m.scanr(-3, |a, b| a + b).imap(|(i, j), s| (s as i64) * 16 + (i + j) as i64),
        generate(m.shape(), |(i, j)| m[(i, j)] + (j as i32))
            .scanl_seg(2, |a, b| a ^ b, lens)
            .imap(|_, x| (x & 255) as u32),
    )
}

#[accel]
fn chain_sum_and_squares(xs: Vector<f64>) -> Scalar<(f64, f64)> {
    xs.map(|x| (x, x * x)).fold_all((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

#[accel]
fn fused_sum_and_squares(xs: Vector<f64>) -> (Scalar<(f64, f64)>, Scalar<f64>) {
    let n = xs.len() as f64;
    (
        generate(xs.len(), |i| (xs[i], xs[i] * xs[i])).fold_all((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1)),
        generate(xs.len(), |i| (xs[i], xs[i] * xs[i]))
            .fold_all((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
            .imap(|_, t| t.1 / n - (t.0 / n) * (t.0 / n)),
    )
}

#[accel]
fn fused_divide_sum(xs: Vector<i32>, ds: Vector<i32>) -> Scalar<i32> {
    generate(xs.len(), |i| xs[i] / ds[i]).sum()
}

#[accel]
fn fused_gather_sum(xs: Vector<i64>, idx: Vector<usize>) -> Scalar<i64> {
    generate(idx.len(), |i| xs[idx[i]]).sum().imap(|_, s| s * 2)
}

#[accel]
fn fused_fold1_rows(m: Matrix<f32>) -> Vector<f32> {
    generate(m.shape(), |(i, j)| m[(i, j)] + 1.0).fold1(|a, b| a.max(b)).imap(|_, x| x * 2.0)
}

/// `Σ |x * y|` in `f64`: the scale of a dot product's rounding.
fn abs_dot(xs: &[f32], ys: &[f32]) -> f32 {
    xs.iter().zip(ys).map(|(x, y)| (f64::from(*x) * f64::from(*y)).abs()).sum::<f64>() as f32
}

fn dot_products(on: &Target) -> Check {
    on.each_size("fusion::dotp", Tier::Large, |n, rng| {
        let (a, b) = (rng.vec::<f32>(n), rng.vec::<f32>(n));
        let (xs, ys) = (Vector::from_vec(a.clone()), Vector::from_vec(b.clone()));
        let abs = abs_dot(&a, &b);
        let (g, r) = both!(on, chain_dotp(&xs, &ys));
        summed("zip_with then sum", &[g.get()], &[r.get()], &[abs])?;
        let (g, r) = both!(on, fused_dotp(&xs, &ys));
        summed("sum of a delayed zip", &[g.get()], &[r.get()], &[abs])
    })
}

fn row_reductions(on: &Target) -> Check {
    on.each_shape("fusion::row_squares", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f64>(r * c);
        let m = Matrix::from_shape_vec([r, c], data.clone())?;
        let squares: Vec<f64> = data.iter().map(|x| x * x).collect();
        let abs = reference!(chain_row_squares(&Matrix::from_shape_vec([r, c], squares)?));
        let (g, w) = both!(on, chain_row_squares(&m));
        summed_arrays("map then sum of rows", &g, &w, &abs)?;
        let (g, w) = both!(on, fused_row_squares(&m));
        summed_arrays("sum of rows of a delayed matrix", &g, &w, &abs)?;
        if c > 0 || r == 0 {
            let data = rng.vec::<f32>(r * c);
            let (g, w) = both!(on, fused_fold1_rows(&Matrix::from_shape_vec([r, c], data)?));
            same("fold1 of delayed rows under an epilogue", &g, &w)?;
        }
        Ok(())
    })
}

fn segmented(on: &Target) -> Check {
    on.each_size("fusion::segmented", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let lens = rng.lengths(n, false);
        let l32 = Vector::from_vec(lens.iter().map(|&l| l as i32).collect());
        let (g, r) = both!(on, chain_seg_sums(&xs, &l32));
        same("map then fold_seg", &g, &r)?;
        let (g, r) = both!(on, fused_seg_sums(&xs, &l32));
        same("fold_seg of a delayed vector", &g, &r)?;
        let lu = Vector::from_vec(lens.iter().map(|&l| l as u32).collect());
        let (g, r) = both!(on, chain_seg_scan_reversed(&xs, &lu));
        same("backpermute then scanl_seg", &g, &r)?;
        let (g, r) = both!(on, fused_seg_scan_reversed(&xs, &lu));
        same("scanl_seg of a delayed vector", &g, &r)
    })
}

fn scans(on: &Target) -> Check {
    on.each_size("fusion::scans", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both!(on, chain_prefix_squares(&xs));
        same("map then scanl1", &g, &r)?;
        let (g, r) = both!(on, fused_prefix_squares(&xs));
        same("scanl1 of a delayed vector", &g, &r)?;
        let (g, r) = both!(on, chain_scan_then_map(&xs));
        same("scanl1 then map", &g, &r)?;
        let (g, r) = both!(on, fused_scan_then_map(&xs));
        same("scanl1 of a delayed vector under an epilogue", &g, &r)
    })
}

fn permutes(on: &Target) -> Check {
    on.each_size("fusion::permute", Tier::Medium, |n, rng| {
        let keys = Vector::from_vec(rng.vec::<u32>(n));
        let bins = 1 + rng.below(n.clamp(1, 5000));
        let (g, r) = both!(on, chain_histogram(&keys, bins));
        same("map then permute into fill", &g, &r)?;
        let (g, r) = both!(on, fused_histogram(&keys, bins));
        same("permute of a delayed source", &g, &r)?;
        let (g, r) = both!(on, fused_histogram_delayed_defaults(&keys, bins));
        same("permute into delayed defaults", &g, &r)?;
        let dst = Vector::from_vec(rng.indices(n, bins));
        let (g, r) = both!(on, fused_scatter_pairs(&Vector::from_vec(rng.vec::<u32>(n)), &dst, bins));
        same("permute of delayed pairs into delayed defaults", &g, &r)
    })
}

fn stencils(on: &Target) -> Check {
    on.each_shape("fusion::stencil3x3", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(on, chain_blur(&m));
        close_arrays(on, "map then stencil3x3", &g, &w, 100.0)?;
        let ((g0, g1), (w0, w1)) = both!(on, fused_blur(&m));
        close_arrays(on, "stencil3x3 Clamp of a delayed matrix", &g0, &w0, 100.0)?;
        close_arrays(on, "stencil3x3 Constant of a delayed matrix", &g1, &w1, 100.0 + r as f64)
    })?;
    on.each_size("fusion::stencil3", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, fused_stencil3(&Vector::from_vec(rng.vec::<i64>(n))));
        same("stencil3 Wrap of a delayed vector", &g, &r)
    })
}

fn filters_and_expand(on: &Target) -> Check {
    on.each_size("fusion::filter_expand", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(on, chain_positive_squares(&xs));
        close_arrays(on, "map then filter", &g, &r, 2500.0)?;
        let ((g0, g1), (r0, r1)) = both!(on, fused_positive_squares(&xs));
        close_arrays(on, "filter of a delayed vector", &g0, &r0, 2500.0)?;
        same("filter of delayed pairs", &g1, &r1)?;
        let us = Vector::from_vec(rng.vec::<u32>(n));
        let (g, r) = both!(on, chain_expand(&us));
        same("map then expand", &g, &r)?;
        let (g, r) = both!(on, fused_expand(&us));
        same("expand of a delayed vector", &g, &r)
    })
}

fn epilogues(on: &Target) -> Check {
    on.each_size("fusion::mean", Tier::Large, |n, rng| {
        let data = rng.vec::<f32>(n);
        let xs = Vector::from_vec(data.clone());
        let abs = (data.iter().map(|x| f64::from(x.abs())).sum::<f64>() / n.max(1) as f64) as f32;
        let (g, r) = both!(on, chain_mean(&xs));
        summed("sum then a scalar division", &[g.get()], &[r.get()], &[abs])?;
        let (g, r) = both!(on, fused_mean(&xs));
        summed("sum under an epilogue", &[g.get()], &[r.get()], &[abs])
    })?;
    on.each_shape("fusion::epilogues", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, false).into_iter().map(|l| l as u64).collect());
        let ((g0, g1, g2, g3), (w0, w1, w2, w3)) = both!(on, fused_epilogues(&m, &lens));
        same("fold of rows under an epilogue", &g0, &w0)?;
        same("fold_seg under an epilogue (to pairs)", &g1, &w1)?;
        same("scanr of rows under an epilogue", &g2, &w2)?;
        same("scanl_seg of a delayed matrix under an epilogue (to u32)", &g3, &w3)
    })
}

fn tuple_reductions(on: &Target) -> Check {
    on.each_size("fusion::sum_and_squares", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let xs = Vector::from_vec(data.clone());
        let abs = data.iter().map(|x| x.abs()).sum::<f64>();
        let sq = data.iter().map(|x| x * x).sum::<f64>();
        let (g, r) = both!(on, chain_sum_and_squares(&xs));
        summed("map to pairs then fold_all .0", &[g.get().0], &[r.get().0], &[abs])?;
        summed("map to pairs then fold_all .1", &[g.get().1], &[r.get().1], &[sq])?;
        let ((g, gv), (r, rv)) = both!(on, fused_sum_and_squares(&xs));
        summed("fold_all of delayed pairs .0", &[g.get().0], &[r.get().0], &[abs])?;
        summed("fold_all of delayed pairs .1", &[g.get().1], &[r.get().1], &[sq])?;
        // The variance cancels: bound it by the mean square it comes from.
        let scale = sq / n.max(1) as f64 + (abs / n.max(1) as f64).powi(2);
        summed("variance as an epilogue", &[gv.get()], &[rv.get()], &[scale])
    })
}

/// Errors raised inside fused code are the interpreter's, then the device is usable again.
fn errors_in_fused_code(on: &Target) -> Check {
    for n in [1, 2, 33, 257, 4097, 65_537, (1 << 20) + 1].into_iter().filter(|&n| on.fits(n)) {
        let mut rng = Rng::new("fusion::errors", n);
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let mut ds: Vec<i32> = (0..n).map(|_| 1 + rng.below(50) as i32).collect();
        let at = rng.below(n);
        ds[at] = 0;
        let (g, r) = both_raw!(on, fused_divide_sum(&xs, &Vector::from_vec(ds)));
        let e = same_error(on, &format!("x / 0 in a delayed operand (n = {n}, at {at})"), g, r)?;
        is_variant("x / 0 in a delayed operand", &e, "DivisionByZero")?;

        let ys = Vector::from_vec(rng.vec::<i64>(n));
        let mut idx = rng.indices(n + 5, n);
        let at = rng.below(idx.len());
        idx[at] = n + rng.below(10);
        let (g, r) = both_raw!(on, fused_gather_sum(&ys, &Vector::from_vec(idx)));
        let e = same_error(on, &format!("xs[j] out of range in a delayed operand (n = {n}, at {at})"), g, r)?;
        is_variant("xs[j] out of range in a delayed operand", &e, "IndexOutOfBounds")?;
    }
    for (r, c) in [(1, 0), (4097, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<f32>::new())?;
        let (g, w) = both_raw!(on, fused_fold1_rows(&m));
        // The error names the reduction, not the epilogue that launched it.
        let (gd, wd) = (format!("{:?}", g.as_ref().err()), format!("{:?}", w.as_ref().err()));
        let e = same_error(on, &format!("fold1 of {r} empty delayed rows under an epilogue"), g, w)?;
        is_variant("fold1 of empty rows", &e, "EmptyReduction")?;
        if gd != wd {
            return Err(format!("fold1 of empty rows: the GPU says {gd}, the interpreter {wd}").into());
        }
    }
    let xs = Vector::from_vec(vec![3i32, 4]);
    let (g, r) = both!(on, fused_prefix_squares(&xs));
    same("a good fused program after the errors", &g, &r)
}

fn sweeps() -> Vec<Test> {
    vec![
        heavy("fusion::dotp", dot_products),
        case("fusion::row_squares", row_reductions),
        case("fusion::segmented", segmented),
        heavy("fusion::scans", scans),
        case("fusion::permute", permutes),
        case("fusion::stencils", stencils),
        case("fusion::filter_expand", filters_and_expand),
        heavy("fusion::epilogues", epilogues),
        case("fusion::sum_and_squares", tuple_reductions),
        exclusive("fusion::errors", errors_in_fused_code),
    ]
}

#[accel]
fn dotp(xs: Vector<i64>, ys: Vector<i64>) -> Scalar<i64> {
    xs.zip_with(ys, |x, y| x * y).fold_all(0, |a, b| a + b)
}

#[accel(fusion = false)]
fn dotp_unfused(xs: Vector<i64>, ys: Vector<i64>) -> Scalar<i64> {
    xs.zip_with(ys, |x, y| x * y).fold_all(0, |a, b| a + b)
}

#[accel]
fn map_chain(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x + 1).map(|x| x * 3).imap(|i, x| x - i as i32).reverse()
}

#[accel]
fn sum_and_squares(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) {
    (xs.sum(), xs.map(|x| x * x).sum())
}

#[accel]
fn mean(xs: Vector<f64>) -> Scalar<f64> {
    let s = xs.sum();
    unit(s.get() / xs.len().max(1) as f64)
}

#[accel]
fn normalise(xs: Vector<f64>) -> Vector<f64> {
    let s = xs.map(|x| x.abs()).sum();
    xs.map(|x| x / s.get().max(1.0))
}

#[accel]
fn histogram(xs: Vector<u32>, bins: usize) -> Vector<u32> {
    xs.map(|_| 1u32).permute(
        fill(bins, 0u32),
        |i| if bins > 0 { Some(xs[i] as usize % bins) } else { None },
        |a, b| a + b,
    )
}

#[accel]
fn scan_then_map(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x - 3).scanl1(|a, b| a + b).map(|x| x * 2)
}

#[accel]
fn rows_of_a_map(m: Matrix<i64>) -> Vector<i64> {
    m.map(|x| x * x).fold(0, |a, b| a + b)
}

/// The matrix product as a fold of a rank-3 `generate`: `a[(i, p)]` is read unchecked
/// (`accel_core::in_bounds`: each component ranges over `a`'s matching dimension), `b[(p, j)]`
/// keeps its check (`p` ranges over `a`'s columns), so a `b` with too few rows is an index error.
#[accel]
fn matrix_product(a: Matrix<i64>, b: Matrix<i64>) -> Matrix<i64> {
    generate([a.rows(), b.cols(), a.cols()], |(i, j, p)| a[(i, p)] * b[(p, j)]).fold(0, |x, y| x + y)
}

/// An outer product over two lengths, one bound by a `let`: both reads unchecked.
#[accel]
fn outer_product(xs: Vector<i64>, ys: Vector<i64>) -> Matrix<i64> {
    let n = xs.len();
    generate([n, ys.len()], |(i, j)| xs[i] * ys[j] - j as i64)
}

#[accel]
fn stencil_of_a_map(m: Matrix<i32>) -> Matrix<i32> {
    m.map(|x| x * 2).stencil3x3(Clamp, |n| n[0][0] + n[1][1] - n[2][2])
}

#[accel]
fn segments_of_a_map(xs: Vector<i32>, lens: Vector<usize>) -> (Vector<i32>, Vector<i32>) {
    (xs.map(|x| x * 3).fold_seg(0, |a, b| a + b, lens), xs.map(|x| x - 1).scanl1_seg(|a, b| a.max(b), lens))
}

#[accel]
fn filter_of_a_map(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x * 7 + 1).filter(|x| x % 3 == 0)
}

#[accel]
fn shared_costly(xs: Vector<f32>) -> Vector<f32> {
    let ys = xs.map(|x| x.exp());
    ys.zip_with(ys.reverse(), |a, b| a + b)
}

#[accel]
fn gather_of_a_map(xs: Vector<i32>, shift: usize) -> Vector<i32> {
    xs.map(|x| x + 1).backpermute(xs.len(), |i| i + shift)
}

/// Runs `f` on the CPU backend and on the interpreter and asserts equal results.
macro_rules! same {
    ($on:ident, $f:ident($($arg:expr),* $(,)?)) => {{
        let (got, want) = both!($on, $f($($arg),*));
        check_eq!(got, want);
    }};
}

/// The plan's kernel count, so that a test says which rule it checks.
fn kernels(plan: accel::Plan) -> usize {
    plan.kernel_count()
}

fn plans_have_the_promised_kernel_counts(_on: &Target) -> Check {
    assert_eq!(kernels(dotp::plan()), 1);
    assert_eq!(kernels(dotp_unfused::plan()), 2);
    assert_eq!(kernels(map_chain::plan()), 1);
    assert_eq!(kernels(sum_and_squares::plan()), 1);
    assert_eq!(kernels(mean::plan()), 1);
    assert_eq!(kernels(normalise::plan()), 2);
    assert!(kernels(histogram::plan()) <= 2);
    assert_eq!(kernels(scan_then_map::plan()), 1);
    assert_eq!(kernels(rows_of_a_map::plan()), 1);
    assert_eq!(kernels(stencil_of_a_map::plan()), 1);
    // Each segmented consumer builds its segments from `lens` (a scan) and fuses the map.
    assert_eq!(kernels(segments_of_a_map::plan()), 4);
    assert_eq!(kernels(filter_of_a_map::plan()), 1);
    assert_eq!(kernels(shared_costly::plan()), 2);
    assert_eq!(kernels(gather_of_a_map::plan()), 1);
    let text = dotp::plan().to_string();
    assert!(text.contains("[zip_with + fold_all]"), "{text}");
    Ok(())
}

/// Integer-valued floats in a range where every sum of a few thousand is exact.
fn whole_f64s(n: usize) -> impl Strategy<Value = Vec<f64>> {
    vec_of((-1000i32..1000).prop_map(f64::from), n)
}

fn reductions_with_fused_producers(on: &Target) -> Check {
    props(64, (size(), any::<u64>()), |(n, seed)| {
        let xs = Vector::from_vec(pseudo_i64(n, seed));
        let ys = Vector::from_vec(pseudo_i64(n + seed as usize % 3, seed ^ 1));
        same!(on, dotp(&xs, &ys));
        same!(on, dotp_unfused(&xs, &ys));
        check_eq!(dotp(on.rt()?, &xs, &ys).unwrap(), dotp_unfused(on.rt()?, &xs, &ys).unwrap());
        same!(on, sum_and_squares(&xs));
        Ok(())
    })
}

fn elementwise_chains(on: &Target) -> Check {
    props(64, size().prop_flat_map(|n| vec_of(i32s(), n)), |xs| {
        let xs = Vector::from_vec(xs);
        same!(on, map_chain(&xs));
        same!(on, scan_then_map(&xs));
        same!(on, filter_of_a_map(&xs));
        same!(on, gather_of_a_map(&xs, 0));
        Ok(())
    })
}

fn epilogues_and_siblings_on_floats(on: &Target) -> Check {
    props(64, size().prop_flat_map(whole_f64s), |xs| {
        let xs = Vector::from_vec(xs);
        same!(on, mean(&xs));
        same!(on, normalise(&xs));
        Ok(())
    })
}

fn permute_and_segments(on: &Target) -> Check {
    props(64, (size().prop_flat_map(|n| vec_of(u32s(), n)), 0usize..40), |(xs, bins)| {
        let v = Vector::from_vec(xs.clone());
        same!(on, histogram(&v, bins));
        let ints = Vector::from_vec(xs.iter().map(|&x| x as i32).collect::<Vec<_>>());
        let mut lens = Vec::new();
        let mut left = xs.len();
        for (k, &x) in xs.iter().enumerate() {
            if left == 0 {
                break;
            }
            let l = (x as usize % 9).min(left);
            lens.push(if k % 4 == 3 { 0 } else { l });
            left -= lens[lens.len() - 1];
        }
        lens.push(left);
        let lens = Vector::from_vec(lens);
        same!(on, segments_of_a_map(&ints, &lens));
        Ok(())
    })
}

fn matrices(on: &Target) -> Check {
    props(64, matrix_of(i32s()), |(shape, m)| {
        let m = Matrix::from_shape_vec([shape.0, shape.1], m).unwrap();
        same!(on, stencil_of_a_map(&m));
        let wide =
            Matrix::from_shape_vec([shape.0, shape.1], m.to_vec().iter().map(|&x| i64::from(x)).collect()).unwrap();
        same!(on, rows_of_a_map(&wide));
        Ok(())
    })
}

fn reads_proved_dimension_by_dimension(on: &Target) -> Check {
    // `b` has `k + extra` rows: a product when `extra >= 0` (the rows past `k` unread), an index
    // error of `b`'s read when it is negative (and `a · b` has elements).
    props(48, (0usize..40, 0usize..40, 0usize..70, -2isize..3, any::<u64>()), |(n, m, k, extra, seed)| {
        let rows_b = (k as isize + extra).max(0) as usize;
        let a = Matrix::from_shape_vec([n, k], pseudo_i64(n * k, seed)).unwrap();
        let b = Matrix::from_shape_vec([rows_b, m], pseudo_i64(rows_b * m, seed ^ 1)).unwrap();
        let (got, want) = both_raw!(on, matrix_product(&a, &b));
        if rows_b < k && n > 0 && m > 0 {
            // Which of the failing reads a parallel backend reports first may differ.
            check!(matches!(got, Err(Error::IndexOutOfBounds { .. })), "{got:?}");
            check!(matches!(want, Err(Error::IndexOutOfBounds { .. })), "{want:?}");
        } else {
            check_eq!(got.map_err(|e| e.to_string())?, want.map_err(|e| e.to_string())?);
        }
        let (xs, ys) = (Vector::from_vec(pseudo_i64(n * 7, seed ^ 2)), Vector::from_vec(pseudo_i64(m + k, seed ^ 3)));
        same!(on, outer_product(&xs, &ys));
        Ok(())
    })
}

fn shared_arrays_are_computed_once(on: &Target) -> Check {
    props(64, size().prop_flat_map(|n| vec_of(f32s(), n)), |xs| {
        let xs = Vector::from_vec(xs.iter().map(|x| x.clamp(-20.0, 20.0)).collect());
        // `exp` on the GPU is within a few ulp of the host's; sums of positives do not cancel.
        let (got, want) = both!(on, shared_costly(&xs));
        close_arrays(on, "exp shared by two readers", &got, &want, 0.0)
    })
}

/// Deterministic pseudo-random `i64`s in `-1000..1000` (small enough that products and sums
/// of a few thousand never wrap, though wrapping would be exact too).
fn pseudo_i64(n: usize, seed: u64) -> Vec<i64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((s >> 33) % 2000) as i64 - 1000
        })
        .collect()
}

fn a_fused_gather_reports_its_source_out_of_range(on: &Target) -> Check {
    let xs = Vector::from_vec(vec![1, 2, 3, 4, 5]);
    let got = gather_of_a_map(on.rt()?, &xs, 2);
    let want = gather_of_a_map::reference(&xs, 2);
    check_eq!(&got, &want);
    check!(matches!(got, Err(Error::IndexOutOfBounds { .. })), "{got:?}");
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("fusion::reductions_with_fused_producers", reductions_with_fused_producers),
        case("fusion::elementwise_chains", elementwise_chains),
        case("fusion::epilogues_and_siblings_on_floats", epilogues_and_siblings_on_floats),
        case("fusion::permute_and_segments", permute_and_segments),
        case("fusion::matrices", matrices),
        case("fusion::reads_proved_dimension_by_dimension", reads_proved_dimension_by_dimension),
        case("fusion::shared_arrays_are_computed_once", shared_arrays_are_computed_once),
        case("fusion::plans_have_the_promised_kernel_counts", plans_have_the_promised_kernel_counts),
        case("fusion::a_fused_gather_reports_its_source_out_of_range", a_fused_gather_reports_its_source_out_of_range),
    ]);
    tests
}
