//! Scans: `scanl scanl1 scanr scanr1 scanl_total scanr_total scanl_seg scanl1_seg` on vectors
//! and matrix rows. Integer scans are exact; the non-commutative ones (2x2 matrix products,
//! affine maps, first/last pairs) fail if the device reorders operands. Float scans are
//! compared within the tolerance relative to the same scan of the absolute values.

use crate::harness::*;
use accel::prelude::*;

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

fn scanl_ints() -> Check {
    each_size("scan::scanl::i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(scanl_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("scanl", &g, &r)
    })
}

fn scanl_floats() -> Check {
    each_size("scan::scanl::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let (g, r) = both!(scanl_f32(&Vector::from_vec(data.clone())));
        let abs = reference!(scanl_f32(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanl (f32)", &g, &r, &abs)
    })
}

fn scanl_affine_maps() -> Check {
    each_size("scan::scanl::affine_i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(scanl_affine(&Vector::from_vec(rng.affine_i64(n))));
        same("scanl of affine maps", &g, &r)
    })
}

fn scanl_rows() -> Check {
    each_shape("scan::scanl::rows_i32", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(scanl_rows_i32(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("scanl of rows", &g, &w)
    })
}

fn scanl1_ints() -> Check {
    each_size("scan::scanl1::i32", Tier::Large, |n, rng| {
        let (g, r) = both!(scanl1_i32(&Vector::from_vec(rng.vec::<i32>(n))));
        same("scanl1", &g, &r)
    })
}

fn scanl1_floats() -> Check {
    each_size("scan::scanl1::f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let (g, r) = both!(scanl1_f64(&Vector::from_vec(data.clone())));
        let abs = reference!(scanl1_f64(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanl1 (f64)", &g, &r, &abs)
    })
}

fn scanl1_matrices() -> Check {
    each_size("scan::scanl1::mat2_i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(scanl1_mat2(&Vector::from_vec(rng.mat2s(n))));
        same("scanl1 of 2x2 matrix products", &g, &r)
    })
}

fn scanl1_tuples() -> Check {
    each_size("scan::scanl1::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(scanl1_first_last(&xs));
        same("scanl1 of (first, last)", &g, &r)
    })
}

fn scanl1_nested_tuples() -> Check {
    each_size("scan::scanl1::nested_tuple", Tier::Medium, |n, rng| {
        let (a, b, c) = (rng.vec::<i32>(n), rng.vec::<f32>(n), rng.vec::<u64>(n));
        let xs: Vector<((i32, f32), u64)> = (0..n).map(|i| ((a[i], b[i]), c[i])).collect();
        let (g, r) = both!(scanl1_nested(&xs));
        same("scanl1 of ((i32, f32), u64)", &g, &r)
    })
}

fn scanl1_rows() -> Check {
    each_shape("scan::scanl1::rows", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f32>(r * c);
        let (g, w) = both!(scanl1_rows_f32(&Matrix::from_shape_vec([r, c], data.clone())?));
        let abs = reference!(scanl1_rows_f32(&Matrix::from_shape_vec([r, c], abs_all(&data))?));
        summed_arrays("scanl1 of rows (f32)", &g, &w, &abs)?;
        let (g, w) = both!(scanl1_affine_rows(&Matrix::from_shape_vec([r, c], rng.affine_u32(r * c))?));
        same("scanl1 of rows of affine maps", &g, &w)
    })
}

fn scanr_ints() -> Check {
    each_size("scan::scanr::u64", Tier::Medium, |n, rng| {
        let (g, r) = both!(scanr_u64(&Vector::from_vec(rng.vec::<u64>(n))));
        same("scanr", &g, &r)?;
        let (g, r) = both!(scanr_affine(&Vector::from_vec(rng.affine_i64(n))));
        same("scanr of affine maps", &g, &r)
    })
}

fn scanr_floats() -> Check {
    each_size("scan::scanr::f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let (g, r) = both!(scanr_f64(&Vector::from_vec(data.clone())));
        let abs = reference!(scanr_f64(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanr (f64)", &g, &r, &abs)
    })
}

fn scanr_rows() -> Check {
    each_shape("scan::scanr::rows_i64", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(scanr_rows_i64(&Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?));
        same("scanr of rows", &g, &w)
    })
}

fn scanr1_ints() -> Check {
    each_size("scan::scanr1::u32", Tier::Medium, |n, rng| {
        let (g, r) = both!(scanr1_u32(&Vector::from_vec(rng.vec::<u32>(n))));
        same("scanr1 (xor)", &g, &r)?;
        let (g, r) = both!(scanr1_affine(&Vector::from_vec(rng.affine_i64(n))));
        same("scanr1 of affine maps", &g, &r)
    })
}

fn scanr1_floats() -> Check {
    each_size("scan::scanr1::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let (g, r) = both!(scanr1_f32(&Vector::from_vec(data.clone())));
        let abs = reference!(scanr1_f32(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanr1 (f32)", &g, &r, &abs)?;
        let ((gx, gn), (rx, rn)) = both!(scan_extrema_f32(&Vector::from_vec(data)));
        same("scanl1 (max)", &gx, &rx)?;
        same("scanr1 (min)", &gn, &rn)
    })
}

fn scanr1_rows() -> Check {
    each_shape("scan::scanr1::affine_i32_rows", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(scanr1_affine_rows(&Matrix::from_shape_vec([r, c], rng.affine_i32(r * c))?));
        same("scanr1 of rows of affine maps", &g, &w)
    })
}

fn scanl_total_ints() -> Check {
    each_size("scan::scanl_total::i64", Tier::Large, |n, rng| {
        let ((gs, gt), (rs, rt)) = both!(scanl_total_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("scanl_total prefixes", &gs, &rs)?;
        same("scanl_total total", &gt, &rt)
    })
}

fn scanl_total_floats() -> Check {
    each_size("scan::scanl_total::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let ((gs, gt), (rs, rt)) = both!(scanl_total_f32(&Vector::from_vec(data.clone())));
        let (abs_s, abs_t) = reference!(scanl_total_f32(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanl_total prefixes (f32)", &gs, &rs, &abs_s)?;
        summed_arrays("scanl_total total (f32)", &gt, &rt, &abs_t)
    })
}

fn scanl_total_rows() -> Check {
    each_shape("scan::scanl_total::affine_i64_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_i64(r * c))?;
        let ((gs, gt), (rs, rt)) = both!(scanl_total_affine_rows(&m));
        same("scanl_total prefixes of rows", &gs, &rs)?;
        same("scanl_total totals of rows", &gt, &rt)
    })
}

fn scanr_total_kinds() -> Check {
    each_size("scan::scanr_total::affine_u64", Tier::Medium, |n, rng| {
        let maps: Vec<(u64, u64)> = (0..n).map(|_| (rng.next_u64() | 1, rng.next_u64())).collect();
        let ((gs, gt), (rs, rt)) = both!(scanr_total_affine(&Vector::from_vec(maps)));
        same("scanr_total suffixes", &gs, &rs)?;
        same("scanr_total total", &gt, &rt)?;
        let data = rng.vec::<f64>(n);
        let ((gs, gt), (rs, rt)) = both!(scanr_total_f64(&Vector::from_vec(data.clone())));
        let (abs_s, abs_t) = reference!(scanr_total_f64(&Vector::from_vec(abs_all(&data))));
        summed_arrays("scanr_total suffixes (f64)", &gs, &rs, &abs_s)?;
        summed_arrays("scanr_total total (f64)", &gt, &rt, &abs_t)
    })
}

fn scanr_total_of_rows() -> Check {
    each_shape("scan::scanr_total::rows_i32", Tier::Medium, |r, c, rng| {
        let ((gs, gt), (rs, rt)) = both!(scanr_total_rows(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("scanr_total suffixes of rows", &gs, &rs)?;
        same("scanr_total totals of rows", &gt, &rt)
    })
}

fn scanl_seg_kinds() -> Check {
    each_size("scan::scanl_seg::i64_and_f64", Tier::Medium, |n, rng| {
        let lens = rng.lengths(n, false);
        let l32 = Vector::from_vec(lens.iter().map(|&l| l as i32).collect());
        let (g, r) = both!(scanl_seg_i64(&Vector::from_vec(rng.vec::<i64>(n)), &l32));
        same("scanl_seg", &g, &r)?;
        let data = rng.vec::<f64>(n);
        let lu32 = Vector::from_vec(lens.iter().map(|&l| l as u32).collect());
        let (g, r) = both!(scanl_seg_f64(&Vector::from_vec(data.clone()), &lu32));
        let abs = reference!(scanl_seg_f64(&Vector::from_vec(abs_all(&data)), &lu32));
        summed_arrays("scanl_seg (f64)", &g, &r, &abs)
    })
}

fn scanl_seg_rows() -> Check {
    each_shape("scan::scanl_seg::affine_i64_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_i64(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, false));
        let (g, w) = both!(scanl_seg_affine_rows(&m, &lens));
        same("scanl_seg of rows of affine maps", &g, &w)
    })
}

fn scanl1_seg_kinds() -> Check {
    each_size("scan::scanl1_seg::affine_u32", Tier::Medium, |n, rng| {
        let lens = Vector::from_vec(rng.lengths(n, false).into_iter().map(|l| l as u64).collect());
        let (g, r) = both!(scanl1_seg_affine(&Vector::from_vec(rng.affine_u32(n)), &lens));
        same("scanl1_seg of affine maps", &g, &r)
    })?;
    each_shape("scan::scanl1_seg::rows_f32", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f32>(r * c);
        let lens = Vector::from_vec(rng.lengths(c, false).into_iter().map(|l| l as i64).collect());
        let (g, w) = both!(scanl1_seg_rows_f32(&Matrix::from_shape_vec([r, c], data.clone())?, &lens));
        let abs = reference!(scanl1_seg_rows_f32(&Matrix::from_shape_vec([r, c], abs_all(&data))?, &lens));
        summed_arrays("scanl1_seg of rows (f32)", &g, &w, &abs)
    })
}

pub fn cases() -> Vec<Case> {
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
