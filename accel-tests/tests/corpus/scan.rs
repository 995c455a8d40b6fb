//! Scans: `scanl scanl1 scanr scanr1 scanl_total scanr_total scanl_seg scanl1_seg` on vectors
//! and matrix rows. Integer scans are exact; the non-commutative ones (2x2 matrix products,
//! affine maps, first/last pairs) fail if the device reorders operands. Float scans are
//! compared within the tolerance relative to the same scan of the absolute values.
//!
//! Scans: `scanl scanl1 scanr scanr1 scanl_total scanr_total scanl_seg scanl1_seg`.
//!
//! As for reductions, integer scans are exact even with a non-commutative combining function (the
//! composition of affine maps), because backends regroup but never reorder operands. Float scans
//! are compared per element with the rounding bound of the prefix (or suffix) that element sums,
//! and exactly on integer-valued floats.

use crate::compare::*;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn scanl_i64(xs: Vector<i64>) -> Vector<i64> {
    xs.scanl(5, |a, b| a + b)
}

#[accel]
fn scanl_f32(xs: Vector<f32>) -> Vector<f32> {
    xs.scanl(0.5, |a, b| a + b)
}

#[accel]
fn scanl_affine(xs: Vector<(i64, i64)>) -> Vector<(i64, i64)> {
    xs.scanl((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scanl_rows_i32(m: Matrix<i32>) -> Matrix<i32> {
    m.scanl(-1, |a, b| a + b)
}

#[accel]
fn scanl1_i32(xs: Vector<i32>) -> Vector<i32> {
    xs.scanl1(|a, b| a + b)
}

#[accel]
fn scanl1_f64(xs: Vector<f64>) -> Vector<f64> {
    xs.scanl1(|a, b| a + b)
}

#[accel]
fn scanl1_mat2(xs: Vector<(i64, i64, i64, i64)>) -> Vector<(i64, i64, i64, i64)> {
    xs.scanl1(|p, q| (p.0 * q.0 + p.1 * q.2, p.0 * q.1 + p.1 * q.3, p.2 * q.0 + p.3 * q.2, p.2 * q.1 + p.3 * q.3))
}

#[accel]
fn scanl1_first_last(xs: Vector<(f32, i32)>) -> Vector<(f32, i32)> {
    xs.scanl1(|a, b| (a.0, b.1))
}

#[accel]
fn scanl1_nested(xs: Vector<((i32, f32), u64)>) -> Vector<((i32, f32), u64)> {
    xs.scanl1(|a, b| ((a.0.0 + b.0.0, a.0.1.max(b.0.1)), a.1 ^ b.1))
}

/// Elements whose Rust layout is padded: a thread's items of the single pass overflow the block's
/// exchange buffer, so its warps load and emit them in the blocked arrangement instead.
#[accel]
fn scanl1_padded(xs: Vector<(u8, f64)>) -> Vector<(u8, f64)> {
    xs.scanl1(|a, b| (a.0 ^ b.0, b.1))
}

#[accel]
fn scanr1_padded(xs: Vector<(i8, f64, u16)>) -> Vector<(i8, f64, u16)> {
    xs.scanr1(|a, b| (a.0, a.1.max(b.1), a.2 + b.2))
}

#[accel]
fn scanl1_rows_f32(m: Matrix<f32>) -> Matrix<f32> {
    m.scanl1(|a, b| a + b)
}

#[accel]
fn scanl1_affine_rows(m: Matrix<(u32, u32)>) -> Matrix<(u32, u32)> {
    m.scanl1(|p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scanr_u64(xs: Vector<u64>) -> Vector<u64> {
    xs.scanr(3, |a, b| a + b)
}

#[accel]
fn scanr_f64(xs: Vector<f64>) -> Vector<f64> {
    xs.scanr(0.0, |a, b| a + b)
}

#[accel]
fn scanr_affine(xs: Vector<(i64, i64)>) -> Vector<(i64, i64)> {
    xs.scanr((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scanr_rows_i64(m: Matrix<i64>) -> Matrix<i64> {
    m.scanr(2, |a, b| a + b)
}

#[accel]
fn scanr1_u32(xs: Vector<u32>) -> Vector<u32> {
    xs.scanr1(|a, b| a ^ b)
}

#[accel]
fn scanr1_f32(xs: Vector<f32>) -> Vector<f32> {
    xs.scanr1(|a, b| a + b)
}

#[accel]
fn scanr1_affine(xs: Vector<(i64, i64)>) -> Vector<(i64, i64)> {
    xs.scanr1(|p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scanr1_affine_rows(m: Matrix<(i32, i32)>) -> Matrix<(i32, i32)> {
    m.scanr1(|p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scan_extrema_f32(xs: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
    (xs.scanl1(|a, b| a.max(b)), xs.scanr1(|a, b| a.min(b)))
}

#[accel]
fn scanl_total_i64(xs: Vector<i64>) -> (Vector<i64>, Scalar<i64>) {
    xs.scanl_total(0, |a, b| a + b)
}

#[accel]
fn scanl_total_f32(xs: Vector<f32>) -> (Vector<f32>, Scalar<f32>) {
    xs.scanl_total(0.0, |a, b| a + b)
}

#[accel]
fn scanl_total_affine_rows(m: Matrix<(i64, i64)>) -> (Matrix<(i64, i64)>, Vector<(i64, i64)>) {
    m.scanl_total((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scanr_total_affine(xs: Vector<(u64, u64)>) -> (Vector<(u64, u64)>, Scalar<(u64, u64)>) {
    xs.scanr_total((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scanr_total_rows(m: Matrix<i32>) -> (Matrix<i32>, Vector<i32>) {
    m.scanr_total(7, |a, b| a + b)
}

#[accel]
fn scanr_total_f64(xs: Vector<f64>) -> (Vector<f64>, Scalar<f64>) {
    xs.scanr_total(0.0, |a, b| a + b)
}

#[accel]
fn scanl_seg_i64(xs: Vector<i64>, lens: Vector<i32>) -> Vector<i64> {
    xs.scanl_seg(10, |a, b| a + b, lens)
}

#[accel]
fn scanl_seg_affine_rows(m: Matrix<(i64, i64)>, lens: Vector<usize>) -> Matrix<(i64, i64)> {
    m.scanl_seg((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1), lens)
}

#[accel]
fn scanl_seg_f64(xs: Vector<f64>, lens: Vector<u32>) -> Vector<f64> {
    xs.scanl_seg(0.0, |a, b| a + b, lens)
}

#[accel]
fn scanl1_seg_affine(xs: Vector<(u32, u32)>, lens: Vector<u64>) -> Vector<(u32, u32)> {
    xs.scanl1_seg(|p, q| (p.0 * q.0, p.1 * q.0 + q.1), lens)
}

#[accel]
fn scanl1_seg_rows_f32(m: Matrix<f32>, lens: Vector<i64>) -> Matrix<f32> {
    m.scanl1_seg(|a, b| a + b, lens)
}

fn scanl_ints(on: &Target) -> Check {
    on.each_size("scan::scanl::i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, scanl_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("scanl", &g, &r)
    })
}

fn scanl_floats(on: &Target) -> Check {
    on.each_size("scan::scanl::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let (g, r) = both!(on, scanl_f32(&Vector::from_vec(data.clone())));
        let abs = reference!(scanl_f32(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanl (f32)", &g, &r, &abs)
    })
}

fn scanl_affine_maps(on: &Target) -> Check {
    on.each_size("scan::scanl::affine_i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, scanl_affine(&Vector::from_vec(rng.affine_i64(n))));
        same("scanl of affine maps", &g, &r)
    })
}

fn scanl_rows(on: &Target) -> Check {
    on.each_shape("scan::scanl::rows_i32", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, scanl_rows_i32(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("scanl of rows", &g, &w)
    })
}

fn scanl1_ints(on: &Target) -> Check {
    on.each_size("scan::scanl1::i32", Tier::Large, |n, rng| {
        let (g, r) = both!(on, scanl1_i32(&Vector::from_vec(rng.vec::<i32>(n))));
        same("scanl1", &g, &r)
    })
}

fn scanl1_floats(on: &Target) -> Check {
    on.each_size("scan::scanl1::f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let (g, r) = both!(on, scanl1_f64(&Vector::from_vec(data.clone())));
        let abs = reference!(scanl1_f64(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanl1 (f64)", &g, &r, &abs)
    })
}

fn scanl1_matrices(on: &Target) -> Check {
    on.each_size("scan::scanl1::mat2_i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, scanl1_mat2(&Vector::from_vec(rng.mat2s(n))));
        same("scanl1 of 2x2 matrix products", &g, &r)
    })
}

fn scanl1_tuples(on: &Target) -> Check {
    on.each_size("scan::scanl1::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(on, scanl1_first_last(&xs));
        same("scanl1 of (first, last)", &g, &r)
    })
}

fn scans_of_padded_tuples(on: &Target) -> Check {
    on.each_size("scan::scanl1::padded_tuples", Tier::Medium, |n, rng| {
        let xs: Vector<(u8, f64)> = rng.vec::<u8>(n).into_iter().zip(rng.vec::<f64>(n)).collect();
        let (g, r) = both!(on, scanl1_padded(&xs));
        same("scanl1 of (u8, f64)", &g, &r)?;
        let (a, b, c) = (rng.vec::<i8>(n), rng.vec::<f64>(n), rng.vec::<u16>(n));
        let xs: Vector<(i8, f64, u16)> = (0..n).map(|i| (a[i], b[i], c[i])).collect();
        let (g, r) = both!(on, scanr1_padded(&xs));
        same("scanr1 of (i8, f64, u16)", &g, &r)
    })
}

fn scanl1_nested_tuples(on: &Target) -> Check {
    on.each_size("scan::scanl1::nested_tuple", Tier::Medium, |n, rng| {
        let (a, b, c) = (rng.vec::<i32>(n), rng.vec::<f32>(n), rng.vec::<u64>(n));
        let xs: Vector<((i32, f32), u64)> = (0..n).map(|i| ((a[i], b[i]), c[i])).collect();
        let (g, r) = both!(on, scanl1_nested(&xs));
        same("scanl1 of ((i32, f32), u64)", &g, &r)
    })
}

fn scanl1_rows(on: &Target) -> Check {
    on.each_shape("scan::scanl1::rows", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f32>(r * c);
        let (g, w) = both!(on, scanl1_rows_f32(&Matrix::from_shape_vec([r, c], data.clone())?));
        let abs = reference!(scanl1_rows_f32(&Matrix::from_shape_vec([r, c], abs_all(&data))?));
        summed_arrays("scanl1 of rows (f32)", &g, &w, &abs)?;
        let (g, w) = both!(on, scanl1_affine_rows(&Matrix::from_shape_vec([r, c], rng.affine_u32(r * c))?));
        same("scanl1 of rows of affine maps", &g, &w)
    })
}

fn scanr_ints(on: &Target) -> Check {
    on.each_size("scan::scanr::u64", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, scanr_u64(&Vector::from_vec(rng.vec::<u64>(n))));
        same("scanr", &g, &r)?;
        let (g, r) = both!(on, scanr_affine(&Vector::from_vec(rng.affine_i64(n))));
        same("scanr of affine maps", &g, &r)
    })
}

fn scanr_floats(on: &Target) -> Check {
    on.each_size("scan::scanr::f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let (g, r) = both!(on, scanr_f64(&Vector::from_vec(data.clone())));
        let abs = reference!(scanr_f64(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanr (f64)", &g, &r, &abs)
    })
}

fn scanr_rows(on: &Target) -> Check {
    on.each_shape("scan::scanr::rows_i64", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, scanr_rows_i64(&Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?));
        same("scanr of rows", &g, &w)
    })
}

fn scanr1_ints(on: &Target) -> Check {
    on.each_size("scan::scanr1::u32", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, scanr1_u32(&Vector::from_vec(rng.vec::<u32>(n))));
        same("scanr1 (xor)", &g, &r)?;
        let (g, r) = both!(on, scanr1_affine(&Vector::from_vec(rng.affine_i64(n))));
        same("scanr1 of affine maps", &g, &r)
    })
}

fn scanr1_floats(on: &Target) -> Check {
    on.each_size("scan::scanr1::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let (g, r) = both!(on, scanr1_f32(&Vector::from_vec(data.clone())));
        let abs = reference!(scanr1_f32(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanr1 (f32)", &g, &r, &abs)?;
        let ((gx, gn), (rx, rn)) = both!(on, scan_extrema_f32(&Vector::from_vec(data)));
        same("scanl1 (max)", &gx, &rx)?;
        same("scanr1 (min)", &gn, &rn)
    })
}

fn scanr1_rows(on: &Target) -> Check {
    on.each_shape("scan::scanr1::affine_i32_rows", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, scanr1_affine_rows(&Matrix::from_shape_vec([r, c], rng.affine_i32(r * c))?));
        same("scanr1 of rows of affine maps", &g, &w)
    })
}

fn scanl_total_ints(on: &Target) -> Check {
    on.each_size("scan::scanl_total::i64", Tier::Large, |n, rng| {
        let ((gs, gt), (rs, rt)) = both!(on, scanl_total_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("scanl_total prefixes", &gs, &rs)?;
        same("scanl_total total", &gt, &rt)
    })
}

fn scanl_total_floats(on: &Target) -> Check {
    on.each_size("scan::scanl_total::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let ((gs, gt), (rs, rt)) = both!(on, scanl_total_f32(&Vector::from_vec(data.clone())));
        let (abs_s, abs_t) = reference!(scanl_total_f32(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanl_total prefixes (f32)", &gs, &rs, &abs_s)?;
        summed_arrays("scanl_total total (f32)", &gt, &rt, &abs_t)
    })
}

fn scanl_total_rows(on: &Target) -> Check {
    on.each_shape("scan::scanl_total::affine_i64_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_i64(r * c))?;
        let ((gs, gt), (rs, rt)) = both!(on, scanl_total_affine_rows(&m));
        same("scanl_total prefixes of rows", &gs, &rs)?;
        same("scanl_total totals of rows", &gt, &rt)
    })
}

fn scanr_total_kinds(on: &Target) -> Check {
    on.each_size("scan::scanr_total::affine_u64", Tier::Medium, |n, rng| {
        let maps: Vec<(u64, u64)> = (0..n).map(|_| (rng.next_u64() | 1, rng.next_u64())).collect();
        let ((gs, gt), (rs, rt)) = both!(on, scanr_total_affine(&Vector::from_vec(maps)));
        same("scanr_total suffixes", &gs, &rs)?;
        same("scanr_total total", &gt, &rt)?;
        let data = rng.vec::<f64>(n);
        let ((gs, gt), (rs, rt)) = both!(on, scanr_total_f64(&Vector::from_vec(data.clone())));
        let (abs_s, abs_t) = reference!(scanr_total_f64(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanr_total suffixes (f64)", &gs, &rs, &abs_s)?;
        summed_arrays("scanr_total total (f64)", &gt, &rt, &abs_t)
    })
}

fn scanr_total_of_rows(on: &Target) -> Check {
    on.each_shape("scan::scanr_total::rows_i32", Tier::Medium, |r, c, rng| {
        let ((gs, gt), (rs, rt)) = both!(on, scanr_total_rows(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("scanr_total suffixes of rows", &gs, &rs)?;
        same("scanr_total totals of rows", &gt, &rt)
    })
}

fn scanl_seg_kinds(on: &Target) -> Check {
    on.each_size("scan::scanl_seg::i64_and_f64", Tier::Medium, |n, rng| {
        let lens = rng.lengths(n, false);
        let l32 = Vector::from_vec(lens.iter().map(|&l| l as i32).collect());
        let (g, r) = both!(on, scanl_seg_i64(&Vector::from_vec(rng.vec::<i64>(n)), &l32));
        same("scanl_seg", &g, &r)?;
        let data = rng.vec::<f64>(n);
        let lu32 = Vector::from_vec(lens.iter().map(|&l| l as u32).collect());
        let (g, r) = both!(on, scanl_seg_f64(&Vector::from_vec(data.clone()), &lu32));
        let abs = reference!(scanl_seg_f64(&Vector::from_vec(abs_all(&data)), &lu32));
        summed_arrays("scanl_seg (f64)", &g, &r, &abs)
    })
}

fn scanl_seg_rows(on: &Target) -> Check {
    on.each_shape("scan::scanl_seg::affine_i64_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_i64(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, false));
        let (g, w) = both!(on, scanl_seg_affine_rows(&m, &lens));
        same("scanl_seg of rows of affine maps", &g, &w)
    })
}

fn scanl1_seg_kinds(on: &Target) -> Check {
    on.each_size("scan::scanl1_seg::affine_u32", Tier::Medium, |n, rng| {
        let lens = Vector::from_vec(rng.lengths(n, false).into_iter().map(|l| l as u64).collect());
        let (g, r) = both!(on, scanl1_seg_affine(&Vector::from_vec(rng.affine_u32(n)), &lens));
        same("scanl1_seg of affine maps", &g, &r)
    })?;
    on.each_shape("scan::scanl1_seg::rows_f32", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f32>(r * c);
        let lens = Vector::from_vec(rng.lengths(c, false).into_iter().map(|l| l as i64).collect());
        let (g, w) = both!(on, scanl1_seg_rows_f32(&Matrix::from_shape_vec([r, c], data.clone())?, &lens));
        let abs = reference!(scanl1_seg_rows_f32(&Matrix::from_shape_vec([r, c], abs_all(&data))?, &lens));
        summed_arrays("scanl1_seg of rows (f32)", &g, &w, &abs)
    })
}

fn sweeps() -> Vec<Test> {
    vec![
        case("scan::scanl::i64", scanl_ints),
        case("scan::scanl::f32", scanl_floats),
        case("scan::scanl::affine_i64", scanl_affine_maps),
        case("scan::scanl::rows_i32", scanl_rows),
        heavy("scan::scanl1::i32", scanl1_ints),
        case("scan::scanl1::f64", scanl1_floats),
        case("scan::scanl1::mat2_i64", scanl1_matrices),
        case("scan::scanl1::tuple_f32_i32", scanl1_tuples),
        case("scan::scanl1::nested_tuple", scanl1_nested_tuples),
        case("scan::scanl1::padded_tuples", scans_of_padded_tuples),
        case("scan::scanl1::rows", scanl1_rows),
        case("scan::scanr::u64_and_affine", scanr_ints),
        case("scan::scanr::f64", scanr_floats),
        case("scan::scanr::rows_i64", scanr_rows),
        case("scan::scanr1::u32_and_affine", scanr1_ints),
        case("scan::scanr1::f32", scanr1_floats),
        case("scan::scanr1::affine_i32_rows", scanr1_rows),
        heavy("scan::scanl_total::i64", scanl_total_ints),
        case("scan::scanl_total::f32", scanl_total_floats),
        case("scan::scanl_total::affine_i64_rows", scanl_total_rows),
        case("scan::scanr_total::affine_u64_and_f64", scanr_total_kinds),
        case("scan::scanr_total::rows_i32", scanr_total_of_rows),
        case("scan::scanl_seg::i64_and_f64", scanl_seg_kinds),
        case("scan::scanl_seg::affine_i64_rows", scanl_seg_rows),
        case("scan::scanl1_seg::affine_u32_and_rows_f32", scanl1_seg_kinds),
    ]
}

#[accel]
fn scanl1_product_i32(xs: Vector<i32>) -> Vector<i32> {
    xs.scanl1(|a, b| a * b)
}

#[accel]
fn scan_keep_right(xs: Vector<i64>) -> (Vector<i64>, Vector<i64>) {
    // `|a, b| b` is associative but not commutative: the left scan copies the input, the right
    // scan is the seed everywhere.
    (xs.scanl(-1, |a, b| b), xs.scanr(-1, |a, b| b))
}

#[accel]
fn scanr_product_rows_i64(m: Matrix<i64>) -> Matrix<i64> {
    m.scanr(2, |a, b| a * b)
}

/// Composition of affine maps on wrapping integers: associative, not commutative.
macro_rules! affine {
    ($t:ty) => {
        |p: ($t, $t), q: ($t, $t)| (p.0.wrapping_mul(q.0), p.1.wrapping_mul(q.0).wrapping_add(q.1))
    };
}

// The oracles: docs/semantics.md, "Scan", written as loops.

/// `z, f(z, x0), f(f(z, x0), x1), ..`: `n + 1` results.
pub(crate) fn scanl<T: Copy>(z: T, f: impl Fn(T, T) -> T, xs: &[T]) -> Vec<T> {
    let mut out = vec![z];
    let mut acc = z;
    for &x in xs {
        acc = f(acc, x);
        out.push(acc);
    }
    out
}

/// `x0, f(x0, x1), ..`: `n` results.
fn scanl1<T: Copy>(f: impl Fn(T, T) -> T, xs: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(xs.len());
    for &x in xs {
        let next = match out.last() {
            Some(&acc) => f(acc, x),
            None => x,
        };
        out.push(next);
    }
    out
}

/// `n + 1` results, the last `z`, result `i` is `f(x_i, result_{i+1})`.
fn scanr<T: Copy>(z: T, f: impl Fn(T, T) -> T, xs: &[T]) -> Vec<T> {
    let mut out = vec![z; xs.len() + 1];
    for i in (0..xs.len()).rev() {
        out[i] = f(xs[i], out[i + 1]);
    }
    out
}

/// `n` results, the last `x(n-1)`.
fn scanr1<T: Copy>(f: impl Fn(T, T) -> T, xs: &[T]) -> Vec<T> {
    let mut out = xs.to_vec();
    for i in (0..xs.len().saturating_sub(1)).rev() {
        out[i] = f(xs[i], out[i + 1]);
    }
    out
}

/// A scan of every row of a row-major matrix, concatenated.
fn per_row<T: Copy>(data: &[T], rows: usize, cols: usize, scan: impl Fn(&[T]) -> Vec<T>) -> Vec<T> {
    (0..rows).flat_map(|r| scan(row(data, cols, r))).collect()
}

/// The accurate inclusive prefix sums of `terms` (running Neumaier summation in `f64`) and the
/// rounding bound of each: that of summing `i + 1` terms of the prefix's absolute sum, in any
/// grouping.
fn prefix_sums<T: Float>(terms: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut sums = Vec::with_capacity(terms.len());
    let mut bounds = Vec::with_capacity(terms.len());
    let (mut s, mut c, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for (i, &x) in terms.iter().enumerate() {
        let t = s + x;
        c += if s.abs() >= x.abs() { (s - t) + x } else { (x - t) + s };
        s = t;
        abs += x.abs();
        sums.push(s + c);
        bounds.push(sum_bound::<T>(i + 1, abs));
    }
    (sums, bounds)
}

/// The same for suffixes: element `i` sums `terms[i..]`.
fn suffix_sums<T: Float>(terms: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let reversed: Vec<f64> = terms.iter().rev().copied().collect();
    let (mut sums, mut bounds) = prefix_sums::<T>(&reversed);
    sums.reverse();
    bounds.reverse();
    (sums, bounds)
}

fn to_f64<T: Float>(xs: &[T]) -> Vec<f64> {
    xs.iter().map(|x| x.to_f64()).collect()
}

fn pairs_i64(n: usize) -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((i64s(), i64s()), n)
}

fn pairs_u32(n: usize) -> impl Strategy<Value = Vec<(u32, u32)>> {
    prop::collection::vec((u32s(), u32s()), n)
}

fn scans_of_integers(on: &Target) -> Check {
    props(
        24,
        (vec_sized(i64s(), size()), vec_sized(i32s(), size()), vec_sized(u64s(), size()), vec_sized(u32s(), size())),
        |(xs, ys, zs, ws)| {
            let v = Vector::from_vec(xs.clone());
            let (cpu, interp) = both!(on, scanl_i64(&v));
            all_same(on, "scanl i64", &cpu.to_vec(), &interp.to_vec(), &scanl(5, i64::wrapping_add, &xs))?;
            let v = Vector::from_vec(ys.clone());
            let (cpu, interp) = both!(on, scanl1_product_i32(&v));
            all_same(on, "scanl1 i32 (product)", &cpu.to_vec(), &interp.to_vec(), &scanl1(i32::wrapping_mul, &ys))?;
            let v = Vector::from_vec(zs.clone());
            let (cpu, interp) = both!(on, scanr_u64(&v));
            all_same(on, "scanr u64", &cpu.to_vec(), &interp.to_vec(), &scanr(3, u64::wrapping_add, &zs))?;
            let v = Vector::from_vec(ws.clone());
            let (cpu, interp) = both!(on, scanr1_u32(&v));
            all_same(on, "scanr1 u32 (xor)", &cpu.to_vec(), &interp.to_vec(), &scanr1(|a, b| a ^ b, &ws))?;
            Ok(())
        },
    )
}

fn scans_keep_the_order_of_operands(on: &Target) -> Check {
    props(24, size().prop_flat_map(pairs_i64), |xs| {
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let (cpu, interp) = both!(on, scanl_affine(&v));
        all_same(on, "scanl (affine maps)", &cpu.to_vec(), &interp.to_vec(), &scanl((1, 0), affine!(i64), &xs))?;
        let (cpu, interp) = both!(on, scanr_affine(&v));
        all_same(on, "scanr (affine maps)", &cpu.to_vec(), &interp.to_vec(), &scanr((1, 0), affine!(i64), &xs))?;
        check_eq!(cpu.shape(), [xs.len() + 1]);
        Ok(())
    })
}

fn scans_of_matrix_rows(on: &Target) -> Check {
    props(
        24,
        (
            with_shape(|r, c| pairs_u32(r * c)),
            with_shape(|r, c| prop::collection::vec((i32s(), i32s()), r * c)),
            matrix_of(i32s()),
            matrix_of(i64s()),
        ),
        |(((r, c), m), ((r2, c2), m2), ((r3, c3), m3), ((r4, c4), m4))| {
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let (cpu, interp) = both!(on, scanl1_affine_rows(&mm));
            all_same(
                on,
                "scanl1 rows (affine maps)",
                &cpu.to_vec(),
                &interp.to_vec(),
                &per_row(&m, r, c, |x| scanl1(affine!(u32), x)),
            )?;
            check_eq!(cpu.shape(), [r, c]);
            let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
            let (cpu, interp) = both!(on, scanr1_affine_rows(&mm));
            all_same(
                on,
                "scanr1 rows (affine maps)",
                &cpu.to_vec(),
                &interp.to_vec(),
                &per_row(&m2, r2, c2, |x| scanr1(affine!(i32), x)),
            )?;
            let mm = Matrix::from_shape_vec([r3, c3], m3.clone()).unwrap();
            let (cpu, interp) = both!(on, scanl_rows_i32(&mm));
            all_same(
                on,
                "scanl rows i32",
                &cpu.to_vec(),
                &interp.to_vec(),
                &per_row(&m3, r3, c3, |x| scanl(-1, i32::wrapping_add, x)),
            )?;
            check_eq!(cpu.shape(), [r3, c3 + 1]);
            check_eq!(interp.shape(), [r3, c3 + 1]);
            let mm = Matrix::from_shape_vec([r4, c4], m4.clone()).unwrap();
            let (cpu, interp) = both!(on, scanr_product_rows_i64(&mm));
            all_same(
                on,
                "scanr rows i64 (product)",
                &cpu.to_vec(),
                &interp.to_vec(),
                &per_row(&m4, r4, c4, |x| scanr(2, i64::wrapping_mul, x)),
            )?;
            check_eq!(interp.shape(), [r4, c4 + 1]);
            Ok(())
        },
    )
}

fn scan_totals(on: &Target) -> Check {
    props(
        24,
        (
            vec_sized(i64s(), size()),
            with_shape(|r, c| pairs_i64(r * c)),
            size().prop_flat_map(|n| prop::collection::vec((u64s(), u64s()), n)),
            matrix_of(i32s()),
        ),
        |(xs, ((r, c), m), ps, ((r2, c2), m2))| {
            let v = Vector::from_vec(xs.clone());
            let ((p_cpu, t_cpu), (p_int, t_int)) = both!(on, scanl_total_i64(&v));
            let full = scanl(0, i64::wrapping_add, &xs);
            all_same(on, "scanl_total prefixes", &p_cpu.to_vec(), &p_int.to_vec(), &full[..xs.len()])?;
            all_same(on, "scanl_total total", &[t_cpu.get()], &[t_int.get()], &full[xs.len()..])?;

            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let ((p_cpu, t_cpu), (p_int, t_int)) = both!(on, scanl_total_affine_rows(&mm));
            let prefixes = per_row(&m, r, c, |x| scanl((1, 0), affine!(i64), x)[..c].to_vec());
            let totals = fold_rows(&m, c, r, (1, 0), affine!(i64));
            all_same(on, "scanl_total rows prefixes", &p_cpu.to_vec(), &p_int.to_vec(), &prefixes)?;
            all_same(on, "scanl_total rows totals", &t_cpu.to_vec(), &t_int.to_vec(), &totals)?;
            check_eq!(p_cpu.shape(), [r, c]);
            check_eq!(t_int.shape(), [r]);

            // `scanr_total`: the exclusive suffixes (the last `n` results of `scanr`) and the total
            // (its first).
            let v: Vector<(u64, u64)> = ps.iter().copied().collect();
            let ((s_cpu, t_cpu), (s_int, t_int)) = both!(on, scanr_total_affine(&v));
            let full = scanr((1, 0), affine!(u64), &ps);
            all_same(on, "scanr_total suffixes", &s_cpu.to_vec(), &s_int.to_vec(), &full[1..])?;
            all_same(on, "scanr_total total", &[t_cpu.get()], &[t_int.get()], &full[..1])?;

            let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
            let ((s_cpu, t_cpu), (s_int, t_int)) = both!(on, scanr_total_rows(&mm));
            let suffixes = per_row(&m2, r2, c2, |x| scanr(7, i32::wrapping_add, x)[1..].to_vec());
            let totals: Vec<i32> = (0..r2).map(|i| scanr(7, i32::wrapping_add, row(&m2, c2, i))[0]).collect();
            all_same(on, "scanr_total rows suffixes", &s_cpu.to_vec(), &s_int.to_vec(), &suffixes)?;
            all_same(on, "scanr_total rows totals", &t_cpu.to_vec(), &t_int.to_vec(), &totals)?;
            Ok(())
        },
    )
}

fn scans_of_floats(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), vec_sized(f64s(), size())), |(xs, ys)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, scanl_f32(&v));
        let terms: Vec<f64> = std::iter::once(0.5).chain(to_f64(&xs)).collect();
        let (want, bound) = prefix_sums::<f32>(&terms);
        all_close(on, "scanl f32", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;

        let (cpu, interp) = both!(on, scanr1_f32(&v));
        let (want, bound) = suffix_sums::<f32>(&to_f64(&xs));
        all_close(on, "scanr1 f32", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;

        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, scanl1_f64(&v));
        let (want, bound) = prefix_sums::<f64>(&ys);
        all_close(on, "scanl1 f64", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;

        let (cpu, interp) = both!(on, scanr_f64(&v));
        // Result i sums x_i .. x_(n-1) and the seed.
        let terms: Vec<f64> = ys.iter().copied().chain(std::iter::once(0.0)).collect();
        let (want, bound) = suffix_sums::<f64>(&terms);
        all_close(on, "scanr f64", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;
        Ok(())
    })
}

fn float_scans_of_integer_values_are_exact(on: &Target) -> Check {
    props(
        24,
        (vec_sized(int_f32s(), size()), matrix_of(int_f32s()), vec_sized(f32s(), size())),
        |(xs, ((r, c), m), ys)| {
            let v = Vector::from_vec(xs.clone());
            let (cpu, interp) = both!(on, scanl_f32(&v));
            all_same_bits(on, "scanl f32 (exact)", &cpu.to_vec(), &interp.to_vec(), &scanl(0.5, |a, b| a + b, &xs))?;
            let ((p_cpu, t_cpu), (p_int, t_int)) = both!(on, scanl_total_f32(&v));
            let full = scanl(0.0f32, |a, b| a + b, &xs);
            all_same_bits(on, "scanl_total f32 (exact)", &p_cpu.to_vec(), &p_int.to_vec(), &full[..xs.len()])?;
            all_same_bits(on, "scanl_total f32 total (exact)", &[t_cpu.get()], &[t_int.get()], &full[xs.len()..])?;
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let (cpu, interp) = both!(on, scanl1_rows_f32(&mm));
            all_same_bits(
                on,
                "scanl1 rows f32 (exact)",
                &cpu.to_vec(),
                &interp.to_vec(),
                &per_row(&m, r, c, |x| scanl1(|a, b| a + b, x)),
            )?;
            // max / min are exact in any grouping.
            let v = Vector::from_vec(ys.clone());
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, scan_extrema_f32(&v));
            all_same(on, "scanl1 max f32", &mx_cpu.to_vec(), &mx_int.to_vec(), &scanl1(f32::max, &ys))?;
            all_same(on, "scanr1 min f32", &mn_cpu.to_vec(), &mn_int.to_vec(), &scanr1(f32::min, &ys))?;
            Ok(())
        },
    )
}

fn scanl_seg_scans_each_segment(on: &Target) -> Check {
    props(
        24,
        (
            size().prop_flat_map(|n| (vec_of(i64s(), n), lengths_summing_to(n))),
            with_shape(|r, c| (pairs_i64(r * c), lengths_summing_to(c))),
        ),
        |((xs, lens), ((r, c), (m, lens2)))| {
            let v = Vector::from_vec(xs.clone());
            let l = Vector::from_vec(lens.iter().map(|&x| x as i32).collect());
            let (cpu, interp) = both!(on, scanl_seg_i64(&v, &l));
            let want: Vec<i64> =
                segment_ranges(&lens).into_iter().flat_map(|s| scanl(10, i64::wrapping_add, &xs[s])).collect();
            all_same(on, "scanl_seg i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(cpu.shape(), [xs.len() + lens.len()]);

            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let l = Vector::from_vec(lens2.clone());
            let (cpu, interp) = both!(on, scanl_seg_affine_rows(&mm, &l));
            let want = per_row(&m, r, c, |x| {
                segment_ranges(&lens2).into_iter().flat_map(|s| scanl((1, 0), affine!(i64), &x[s])).collect()
            });
            all_same(on, "scanl_seg rows (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(interp.shape(), [r, c + lens2.len()]);
            Ok(())
        },
    )
}

fn scanl1_seg_scans_each_segment(on: &Target) -> Check {
    props(
        24,
        (
            size().prop_flat_map(|n| (pairs_u32(n), lengths_summing_to(n))),
            with_shape(|r, c| (vec_of(int_f32s(), r * c), lengths_summing_to(c))),
        ),
        |((ps, lens), ((r, c), (m, lens2)))| {
            let v: Vector<(u32, u32)> = ps.iter().copied().collect();
            let l = Vector::from_vec(lens.iter().map(|&x| x as u64).collect());
            let (cpu, interp) = both!(on, scanl1_seg_affine(&v, &l));
            let want: Vec<(u32, u32)> =
                segment_ranges(&lens).into_iter().flat_map(|s| scanl1(affine!(u32), &ps[s])).collect();
            all_same(on, "scanl1_seg (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;

            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let l = Vector::from_vec(lens2.iter().map(|&x| x as i64).collect());
            let (cpu, interp) = both!(on, scanl1_seg_rows_f32(&mm, &l));
            let want = per_row(&m, r, c, |x| {
                segment_ranges(&lens2).into_iter().flat_map(|s| scanl1(|a, b| a + b, &x[s])).collect()
            });
            all_same_bits(on, "scanl1_seg rows f32 (exact)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(cpu.shape(), [r, c]);
            Ok(())
        },
    )
}

fn scanl_seg_of_floats(on: &Target) -> Check {
    props(24, small_size().prop_flat_map(|n| (vec_of(f64s(), n), lengths_summing_to(n))), |(xs, lens)| {
        let v = Vector::from_vec(xs.clone());
        let l = Vector::from_vec(lens.iter().map(|&x| x as u32).collect());
        let (cpu, interp) = both!(on, scanl_seg_f64(&v, &l));
        let (mut want, mut bound) = (Vec::new(), Vec::new());
        for s in segment_ranges(&lens) {
            let terms: Vec<f64> = std::iter::once(0.0).chain(xs[s].iter().copied()).collect();
            let (w, b) = prefix_sums::<f64>(&terms);
            want.extend(w);
            bound.extend(b);
        }
        all_close(on, "scanl_seg f64", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;
        Ok(())
    })
}

/// Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
fn large_scans(on: &Target) -> Check {
    props(4, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let xs = rng.i64s(n);
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, scanl_i64(&v));
        all_same(on, "scanl (large)", &cpu.to_vec(), &interp.to_vec(), &scanl(5, i64::wrapping_add, &xs))?;
        let ps: Vec<(i64, i64)> = (0..n).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let v: Vector<(i64, i64)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(on, scanr_affine(&v));
        all_same(on, "scanr (large, affine maps)", &cpu.to_vec(), &interp.to_vec(), &scanr((1, 0), affine!(i64), &ps))?;
        let fs = rng.int_f32s(n);
        let v = Vector::from_vec(fs.clone());
        let ((p_cpu, t_cpu), (p_int, t_int)) = both!(on, scanl_total_f32(&v));
        let full = scanl(0.0f32, |a, b| a + b, &fs);
        all_same_bits(on, "scanl_total (large, exact)", &p_cpu.to_vec(), &p_int.to_vec(), &full[..n])?;
        all_same_bits(on, "scanl_total total (large, exact)", &[t_cpu.get()], &[t_int.get()], &full[n..])?;
        let gs = rng.f64s(n, -100.0, 100.0);
        let v = Vector::from_vec(gs.clone());
        let (cpu, interp) = both!(on, scanl1_f64(&v));
        let (want, bound) = prefix_sums::<f64>(&gs);
        all_close(on, "scanl1 f64 (large)", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;
        Ok(())
    })
}

fn large_right_scans(on: &Target) -> Check {
    props(4, (large_size(), 1usize..4, any::<u64>()), |(n, rows, seed)| {
        let mut rng = SplitMix::new(seed);
        let ps: Vec<(i64, i64)> = (0..n).map(|_| (rng.next_u64() as i64 | 1, rng.next_u64() as i64)).collect();
        let v: Vector<(i64, i64)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(on, scanr1_affine(&v));
        all_same(on, "scanr1 (large, affine maps)", &cpu.to_vec(), &interp.to_vec(), &scanr1(affine!(i64), &ps))?;
        let pv: Vector<(u64, u64)> = ps.iter().map(|&(a, b)| (a as u64, b as u64)).collect();
        let ((s_cpu, t_cpu), (s_int, t_int)) = both!(on, scanr_total_affine(&pv));
        let pu: Vec<(u64, u64)> = pv.to_vec();
        let full = scanr((1, 0), affine!(u64), &pu);
        all_same(on, "scanr_total (large) suffixes", &s_cpu.to_vec(), &s_int.to_vec(), &full[1..])?;
        all_same(on, "scanr_total (large) total", &[t_cpu.get()], &[t_int.get()], &full[..1])?;
        let xs: Vec<i64> = (0..n as i64).collect();
        let v = Vector::from_vec(xs.clone());
        let ((l_cpu, r_cpu), (l_int, r_int)) = both!(on, scan_keep_right(&v));
        all_same(on, "scanl keep-right (large)", &l_cpu.to_vec(), &l_int.to_vec(), &scanl(-1, |_, b| b, &xs))?;
        all_same(on, "scanr keep-right (large)", &r_cpu.to_vec(), &r_int.to_vec(), &scanr(-1, |_, b| b, &xs))?;
        // Long rows of a matrix take the same chunked path, row by row.
        let c = n / rows;
        let m: Vec<(i32, i32)> = (0..rows * c).map(|_| (rng.next_u64() as i32 | 1, rng.next_u64() as i32)).collect();
        let mm = Matrix::from_shape_vec([rows, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, scanr1_affine_rows(&mm));
        all_same(
            on,
            "scanr1 long rows (affine maps)",
            &cpu.to_vec(),
            &interp.to_vec(),
            &per_row(&m, rows, c, |x| scanr1(affine!(i32), x)),
        )?;
        Ok(())
    })
}

fn large_segmented_scans(on: &Target) -> Check {
    props(4, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let mut lens = Vec::new();
        let mut left = n;
        while left > 0 {
            let l = match rng.below(3) {
                0 => rng.below(3) as usize,
                1 => rng.below(500) as usize,
                _ => rng.below(50_000) as usize,
            }
            .min(left);
            lens.push(l);
            left -= l;
        }
        let xs = rng.i64s(n);
        let v = Vector::from_vec(xs.clone());
        let l = Vector::from_vec(lens.iter().map(|&x| x as i32).collect());
        let (cpu, interp) = both!(on, scanl_seg_i64(&v, &l));
        let want: Vec<i64> =
            segment_ranges(&lens).into_iter().flat_map(|s| scanl(10, i64::wrapping_add, &xs[s])).collect();
        all_same(on, "scanl_seg (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let ps: Vec<(u32, u32)> = (0..n).map(|_| (rng.next_u64() as u32, rng.next_u64() as u32)).collect();
        let v: Vector<(u32, u32)> = ps.iter().copied().collect();
        let l = Vector::from_vec(lens.iter().map(|&x| x as u64).collect());
        let (cpu, interp) = both!(on, scanl1_seg_affine(&v, &l));
        let want: Vec<(u32, u32)> =
            segment_ranges(&lens).into_iter().flat_map(|s| scanl1(affine!(u32), &ps[s])).collect();
        all_same(on, "scanl1_seg (large, affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("scan::scans_of_integers", scans_of_integers),
        case("scan::scans_keep_the_order_of_operands", scans_keep_the_order_of_operands),
        case("scan::scans_of_matrix_rows", scans_of_matrix_rows),
        case("scan::scan_totals", scan_totals),
        case("scan::scans_of_floats", scans_of_floats),
        case("scan::float_scans_of_integer_values_are_exact", float_scans_of_integer_values_are_exact),
        case("scan::scanl_seg_scans_each_segment", scanl_seg_scans_each_segment),
        case("scan::scanl1_seg_scans_each_segment", scanl1_seg_scans_each_segment),
        case("scan::scanl_seg_of_floats", scanl_seg_of_floats),
        case("scan::large_scans", large_scans),
        case("scan::large_right_scans", large_right_scans),
        case("scan::large_segmented_scans", large_segmented_scans),
    ]);
    tests
}
