//! Reductions: `sum product maximum minimum` of vectors and matrix rows for every numeric type,
//! `fold fold1 fold_all fold1_all` (with non-commutative combining functions that catch
//! reordering: 2x2 matrix products, affine maps, first/last pairs, first maximum), tuple and
//! nested-tuple accumulators, `fold_seg fold1_seg`.
//!
//! Products of integers run on `x | 1`, so that they never collapse to zero; float products run
//! on values near 1. Float sums are compared within the tolerance relative to the sum of the
//! absolute values (computed here, in `f64`); float data is centred on zero so that the
//! interpreter's sequential `f32` sum over 2^26 elements stays accurate.
//!
//! Reductions: `fold fold1 fold_all fold1_all sum product maximum minimum fold_seg fold1_seg`.
//!
//! Integer reductions are exact: wrapping arithmetic is associative, and backends may regroup but
//! never reorder operands, so even non-commutative combining functions (the composition of affine
//! maps, `(a, b) ∘ (c, d) = (a c, b c + d)`, and "first maximum" with its index) give the one
//! sequential answer. Float sums and products differ by regrouping: they are compared with the
//! rigorous bound of [`sum_bound`] / [`product_bound`] against a compensated `f64` oracle, and
//! again exactly on integer-valued floats, whose sums are exact in any order (so that a lost or
//! duplicated element cannot hide inside the rounding bound). `max`/`min` are exact in any
//! grouping and are compared with `==`.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::Error;
use accel::prelude::*;
use libtest_mimic::Failed;
use proptest::prelude::*;

#[accel]
fn sums_i32(xs: Vector<i32>) -> (Scalar<i32>, Scalar<i32>) {
    (xs.sum(), xs.map(|x| x | 1).product())
}

#[accel]
fn extrema_i32(xs: Vector<i32>) -> (Scalar<i32>, Scalar<i32>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sums_i32(m: Matrix<i32>) -> (Vector<i32>, Vector<i32>) {
    (m.sum(), m.map(|x| x | 1).product())
}

#[accel]
fn row_extrema_i32(m: Matrix<i32>) -> (Vector<i32>, Vector<i32>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn sums_i64(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) {
    (xs.sum(), xs.map(|x| x | 1).product())
}

#[accel]
fn extrema_i64(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sums_i64(m: Matrix<i64>) -> (Vector<i64>, Vector<i64>) {
    (m.sum(), m.map(|x| x | 1).product())
}

#[accel]
fn row_extrema_i64(m: Matrix<i64>) -> (Vector<i64>, Vector<i64>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn sums_u32(xs: Vector<u32>) -> (Scalar<u32>, Scalar<u32>) {
    (xs.sum(), xs.map(|x| x | 1).product())
}

#[accel]
fn extrema_u32(xs: Vector<u32>) -> (Scalar<u32>, Scalar<u32>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sums_u32(m: Matrix<u32>) -> (Vector<u32>, Vector<u32>) {
    (m.sum(), m.map(|x| x | 1).product())
}

#[accel]
fn row_extrema_u32(m: Matrix<u32>) -> (Vector<u32>, Vector<u32>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn sums_u64(xs: Vector<u64>) -> (Scalar<u64>, Scalar<u64>) {
    (xs.sum(), xs.map(|x| x | 1).product())
}

#[accel]
fn extrema_u64(xs: Vector<u64>) -> (Scalar<u64>, Scalar<u64>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sums_u64(m: Matrix<u64>) -> (Vector<u64>, Vector<u64>) {
    (m.sum(), m.map(|x| x | 1).product())
}

#[accel]
fn row_extrema_u64(m: Matrix<u64>) -> (Vector<u64>, Vector<u64>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn sums_usize(xs: Vector<usize>) -> (Scalar<usize>, Scalar<usize>) {
    (xs.sum(), xs.map(|x| x | 1).product())
}

#[accel]
fn extrema_usize(xs: Vector<usize>) -> (Scalar<usize>, Scalar<usize>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sums_usize(m: Matrix<usize>) -> (Vector<usize>, Vector<usize>) {
    (m.sum(), m.map(|x| x | 1).product())
}

#[accel]
fn row_extrema_usize(m: Matrix<usize>) -> (Vector<usize>, Vector<usize>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn sum_f32(xs: Vector<f32>) -> Scalar<f32> {
    xs.sum()
}

#[accel]
fn product_f32(xs: Vector<f32>) -> Scalar<f32> {
    xs.product()
}

#[accel]
fn extrema_f32(xs: Vector<f32>) -> (Scalar<f32>, Scalar<f32>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sum_f32(m: Matrix<f32>) -> Vector<f32> {
    m.sum()
}

#[accel]
fn row_product_f32(m: Matrix<f32>) -> Vector<f32> {
    m.product()
}

#[accel]
fn row_extrema_f32(m: Matrix<f32>) -> (Vector<f32>, Vector<f32>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn sum_f64(xs: Vector<f64>) -> Scalar<f64> {
    xs.sum()
}

#[accel]
fn product_f64(xs: Vector<f64>) -> Scalar<f64> {
    xs.product()
}

#[accel]
fn extrema_f64(xs: Vector<f64>) -> (Scalar<f64>, Scalar<f64>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn row_sum_f64(m: Matrix<f64>) -> Vector<f64> {
    m.sum()
}

#[accel]
fn row_product_f64(m: Matrix<f64>) -> Vector<f64> {
    m.product()
}

#[accel]
fn row_extrema_f64(m: Matrix<f64>) -> (Vector<f64>, Vector<f64>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn fold_f32(xs: Vector<f32>, z: f32) -> Scalar<f32> {
    xs.fold(z, |a, b| a + b)
}

#[accel]
fn fold_rows_f64(m: Matrix<f64>) -> Vector<f64> {
    m.fold(0.5, |a, b| a + b)
}

#[accel]
fn fold_rows_i32(m: Matrix<i32>) -> Vector<i32> {
    m.fold(7, |a, b| a + b)
}

#[accel]
fn fold_mat2(xs: Vector<(i64, i64, i64, i64)>) -> Scalar<(i64, i64, i64, i64)> {
    xs.fold((1, 0, 0, 1), |p, q| {
        (p.0 * q.0 + p.1 * q.2, p.0 * q.1 + p.1 * q.3, p.2 * q.0 + p.3 * q.2, p.2 * q.1 + p.3 * q.3)
    })
}

#[accel]
fn fold_mat2_rows(m: Matrix<(i64, i64, i64, i64)>) -> Vector<(i64, i64, i64, i64)> {
    m.fold((1, 0, 0, 1), |p, q| {
        (p.0 * q.0 + p.1 * q.2, p.0 * q.1 + p.1 * q.3, p.2 * q.0 + p.3 * q.2, p.2 * q.1 + p.3 * q.3)
    })
}

#[accel]
fn fold_affine_rows(m: Matrix<(u32, u32)>) -> Vector<(u32, u32)> {
    m.fold((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn sum_and_count(xs: Vector<f32>) -> Scalar<(f32, i32)> {
    xs.map(|x| (x, 1)).fold((0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

#[accel]
fn first_argmax(xs: Vector<f32>) -> Scalar<(f32, i32)> {
    xs.imap(|i, x| (x, i as i32)).fold1(|a, b| if b.0 > a.0 { b } else { a })
}

#[accel]
fn fold_nested(xs: Vector<((i32, f32), u64)>) -> Scalar<((i32, f32), u64)> {
    xs.fold(((0, f32::MIN), 0), |a, b| ((a.0.0 + b.0.0, a.0.1.max(b.0.1)), a.1 ^ b.1))
}

#[accel]
fn fold1_i64(xs: Vector<i64>) -> Scalar<i64> {
    xs.fold1(|a, b| a + b)
}

#[accel]
fn fold1_u32_rows(m: Matrix<u32>) -> Vector<u32> {
    m.fold1(|a, b| a ^ b)
}

#[accel]
fn fold1_affine(xs: Vector<(i32, i32)>) -> Scalar<(i32, i32)> {
    xs.fold1(|p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn fold1_first_last_rows(m: Matrix<(f32, i32)>) -> Vector<(f32, i32)> {
    m.fold1(|a, b| (a.0, b.1))
}

#[accel]
fn fold_all_f64(m: Matrix<f64>) -> Scalar<f64> {
    m.fold_all(0.0, |a, b| a + b)
}

#[accel]
fn fold_all_mat2(m: Matrix<(i64, i64, i64, i64)>) -> Scalar<(i64, i64, i64, i64)> {
    m.fold_all((1, 0, 0, 1), |p, q| {
        (p.0 * q.0 + p.1 * q.2, p.0 * q.1 + p.1 * q.3, p.2 * q.0 + p.3 * q.2, p.2 * q.1 + p.3 * q.3)
    })
}

#[accel]
fn fold_all_cube(a: Array<u64, 3>) -> Scalar<u64> {
    a.fold_all(7, |x, y| x + y)
}

#[accel]
fn fold1_all_min(m: Matrix<f32>) -> Scalar<f32> {
    m.fold1_all(|a, b| a.min(b))
}

#[accel]
fn fold1_all_affine(m: Matrix<(u64, u64)>) -> Scalar<(u64, u64)> {
    m.fold1_all(|p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
pub fn seg_sum_i64(xs: Vector<i64>, lens: Vector<i32>) -> Vector<i64> {
    xs.fold_seg(0, |a, b| a + b, lens)
}

#[accel]
fn seg_affine_rows(m: Matrix<(i64, i64)>, lens: Vector<usize>) -> Matrix<(i64, i64)> {
    m.fold_seg((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1), lens)
}

#[accel]
fn seg_sum_f64(xs: Vector<f64>, lens: Vector<u64>) -> Vector<f64> {
    xs.fold_seg(0.25, |a, b| a + b, lens)
}

#[accel]
fn seg_sum_f32_rows(m: Matrix<f32>, lens: Vector<u32>) -> Matrix<f32> {
    m.fold_seg(0.0, |a, b| a + b, lens)
}

#[accel]
fn seg1_max_rows(m: Matrix<f32>, lens: Vector<i64>) -> Matrix<f32> {
    m.fold1_seg(|a, b| a.max(b), lens)
}

#[accel]
fn seg1_affine(xs: Vector<(u32, u32)>, lens: Vector<u32>) -> Vector<(u32, u32)> {
    xs.fold1_seg(|p, q| (p.0 * q.0, p.1 * q.0 + q.1), lens)
}

/// Integer reductions of vectors (exact) for one element type.
macro_rules! int_vector_trial {
    ($fn_name:ident, $name:literal, $t:ty, $sums:ident, $extrema:ident) => {
        fn $fn_name(on: &Target) -> Check {
            on.each_size($name, Tier::Medium, |n, rng| {
                let xs = Vector::from_vec(rng.vec::<$t>(n));
                let ((gs, gp), (rs, rp)) = both!(on, $sums(&xs));
                same("sum", &gs, &rs)?;
                same("product of x | 1", &gp, &rp)?;
                if n > 0 {
                    let ((gx, gn), (rx, rn)) = both!(on, $extrema(&xs));
                    same("maximum", &gx, &rx)?;
                    same("minimum", &gn, &rn)?;
                }
                Ok(())
            })
        }
    };
}

/// Integer reductions of matrix rows (exact) for one element type.
macro_rules! int_rows_trial {
    ($fn_name:ident, $name:literal, $t:ty, $sums:ident, $extrema:ident) => {
        fn $fn_name(on: &Target) -> Check {
            on.each_shape($name, Tier::Medium, |r, c, rng| {
                let m = Matrix::from_shape_vec([r, c], rng.vec::<$t>(r * c))?;
                let ((gs, gp), (rs, rp)) = both!(on, $sums(&m));
                same("sum of rows", &gs, &rs)?;
                same("product of rows of x | 1", &gp, &rp)?;
                // Rows of length 0 have no maximum: the error trials check that.
                if c > 0 || r == 0 {
                    let ((gx, gn), (rx, rn)) = both!(on, $extrema(&m));
                    same("maximum of rows", &gx, &rx)?;
                    same("minimum of rows", &gn, &rn)?;
                }
                Ok(())
            })
        }
    };
}

int_vector_trial!(vector_i32, "reduce::vector::i32", i32, sums_i32, extrema_i32);
int_vector_trial!(vector_i64, "reduce::vector::i64", i64, sums_i64, extrema_i64);
int_vector_trial!(vector_u32, "reduce::vector::u32", u32, sums_u32, extrema_u32);
int_vector_trial!(vector_u64, "reduce::vector::u64", u64, sums_u64, extrema_u64);
int_vector_trial!(vector_usize, "reduce::vector::usize", usize, sums_usize, extrema_usize);
int_rows_trial!(rows_i32, "reduce::rows::i32", i32, row_sums_i32, row_extrema_i32);
int_rows_trial!(rows_i64, "reduce::rows::i64", i64, row_sums_i64, row_extrema_i64);
int_rows_trial!(rows_u32, "reduce::rows::u32", u32, row_sums_u32, row_extrema_u32);
int_rows_trial!(rows_u64, "reduce::rows::u64", u64, row_sums_u64, row_extrema_u64);
int_rows_trial!(rows_usize, "reduce::rows::usize", usize, row_sums_usize, row_extrema_usize);

/// `Σ |x|` of each row (as `F`): the scale of a float row sum's rounding.
fn row_abs_sums<F: Float>(data: &[F], cols: usize, rows: usize, seed: f64, to: fn(f64) -> F) -> Vec<F> {
    (0..rows)
        .map(|i| to(seed.abs() + data[i * cols..(i + 1) * cols].iter().map(|x| x.to_f64().abs()).sum::<f64>()))
        .collect()
}

/// Float reductions of vectors: sums within the bound, products (of values near 1) within the
/// bound relative to the product, extrema exactly.
macro_rules! float_vector_trial {
    ($fn_name:ident, $name:literal, $tier:expr, $t:ty, $sum:ident, $product:ident, $extrema:ident) => {
        fn $fn_name(on: &Target) -> Check {
            on.each_size($name, $tier, |n, rng| {
                let data: Vec<$t> = rng.vec::<$t>(n);
                let xs = Vector::from_vec(data.clone());
                let (g, r) = both!(on, $sum(&xs));
                let abs = data.iter().map(|x| f64::from(x.abs())).sum::<f64>() as $t;
                summed("sum", &[g.get()], &[r.get()], &[abs])?;
                if n > 0 {
                    let ((gx, gn), (rx, rn)) = both!(on, $extrema(&xs));
                    same("maximum", &gx, &rx)?;
                    same("minimum", &gn, &rn)?;
                }
                if n <= 65_537 {
                    let near_one: Vec<$t> = (0..n).map(|_| rng.f64_in(0.98, 1.02) as $t).collect();
                    let ps = Vector::from_vec(near_one);
                    let (g, r) = both!(on, $product(&ps));
                    summed("product", &[g.get()], &[r.get()], &[r.get().abs()])?;
                }
                Ok(())
            })
        }
    };
}

float_vector_trial!(vector_f32, "reduce::vector::f32", Tier::Large, f32, sum_f32, product_f32, extrema_f32);
float_vector_trial!(vector_f64, "reduce::vector::f64", Tier::Medium, f64, sum_f64, product_f64, extrema_f64);

/// Float reductions of matrix rows.
macro_rules! float_rows_trial {
    ($fn_name:ident, $name:literal, $t:ty, $sum:ident, $product:ident, $extrema:ident) => {
        fn $fn_name(on: &Target) -> Check {
            on.each_shape($name, Tier::Medium, |r, c, rng| {
                let data: Vec<$t> = rng.vec::<$t>(r * c);
                let m = Matrix::from_shape_vec([r, c], data.clone())?;
                let (g, w) = both!(on, $sum(&m));
                let abs = row_abs_sums(&data, c, r, 0.0, |x| x as $t);
                summed("sum of rows", &g.to_vec(), &w.to_vec(), &abs)?;
                if c > 0 || r == 0 {
                    let ((gx, gn), (rx, rn)) = both!(on, $extrema(&m));
                    same("maximum of rows", &gx, &rx)?;
                    same("minimum of rows", &gn, &rn)?;
                }
                if c <= 65_537 {
                    let near_one: Vec<$t> = (0..r * c).map(|_| rng.f64_in(0.98, 1.02) as $t).collect();
                    let ps = Matrix::from_shape_vec([r, c], near_one)?;
                    let (g, w) = both!(on, $product(&ps));
                    let w = w.to_vec();
                    let abs: Vec<$t> = w.iter().map(|x| x.abs()).collect();
                    summed("product of rows", &g.to_vec(), &w, &abs)?;
                }
                Ok(())
            })
        }
    };
}

float_rows_trial!(rows_f32, "reduce::rows::f32", f32, row_sum_f32, row_product_f32, row_extrema_f32);
float_rows_trial!(rows_f64, "reduce::rows::f64", f64, row_sum_f64, row_product_f64, row_extrema_f64);

fn fold_seeded_f32(on: &Target) -> Check {
    on.each_size("reduce::fold::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let z = rng.f64_in(-50.0, 50.0) as f32;
        let (g, r) = both!(on, fold_f32(&Vector::from_vec(data.clone()), z));
        let abs = (f64::from(z.abs()) + data.iter().map(|x| f64::from(x.abs())).sum::<f64>()) as f32;
        summed("fold with a seed", &[g.get()], &[r.get()], &[abs])
    })
}

fn fold_rows_f64_seeded(on: &Target) -> Check {
    on.each_shape("reduce::fold::rows_f64", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f64>(r * c);
        let (g, w) = both!(on, fold_rows_f64(&Matrix::from_shape_vec([r, c], data.clone())?));
        summed("fold of rows with a seed", &g.to_vec(), &w.to_vec(), &row_abs_sums(&data, c, r, 0.5, |x| x))
    })
}

fn fold_rows_i32_large(on: &Target) -> Check {
    on.each_shape("reduce::fold::rows_i32", Tier::Large, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?;
        let (g, w) = both!(on, fold_rows_i32(&m));
        same("fold of rows", &g, &w)
    })
}

fn fold_mat2_product(on: &Target) -> Check {
    on.each_size("reduce::fold::mat2_i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.mat2s(n));
        let (g, r) = both!(on, fold_mat2(&xs));
        same("fold of 2x2 matrix products", &g, &r)
    })?;
    on.each_shape("reduce::fold::mat2_i64_rows", Tier::Small, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.mat2s(r * c))?;
        let (g, w) = both!(on, fold_mat2_rows(&m));
        same("fold of rows of 2x2 matrix products", &g, &w)
    })
}

fn fold_affine_u32_rows(on: &Target) -> Check {
    on.each_shape("reduce::fold::affine_u32_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_u32(r * c))?;
        let (g, w) = both!(on, fold_affine_rows(&m));
        same("fold of rows of affine maps", &g, &w)
    })
}

fn fold_tuples(on: &Target) -> Check {
    on.each_size("reduce::fold::tuple_f32_i32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let xs = Vector::from_vec(data.clone());
        let (g, r) = both!(on, sum_and_count(&xs));
        let abs = data.iter().map(|x| f64::from(x.abs())).sum::<f64>() as f32;
        summed("(sum, count) .0", &[g.get().0], &[r.get().0], &[abs])?;
        exact("(sum, count) .1", &[g.get().1], &[r.get().1])?;
        if n > 0 {
            // Ties included: a few repeated values.
            let mut data = data;
            for _ in 0..n / 10 {
                let (i, j) = (rng.below(n), rng.below(n));
                data[i] = data[j];
            }
            let (g, r) = both!(on, first_argmax(&Vector::from_vec(data)));
            same("first maximum and its index", &g, &r)?;
        }
        Ok(())
    })
}

fn fold_nested_tuples(on: &Target) -> Check {
    on.each_size("reduce::fold::nested_tuple", Tier::Medium, |n, rng| {
        let (a, b, c) = (rng.vec::<i32>(n), rng.vec::<f32>(n), rng.vec::<u64>(n));
        let xs: Vector<((i32, f32), u64)> = (0..n).map(|i| ((a[i], b[i]), c[i])).collect();
        let (g, r) = both!(on, fold_nested(&xs));
        same("fold of ((i32, f32), u64)", &g, &r)
    })
}

fn fold1_vectors(on: &Target) -> Check {
    on.each_size("reduce::fold1::i64_and_affine", Tier::Medium, |n, rng| {
        if n == 0 {
            return Ok(());
        }
        let (g, r) = both!(on, fold1_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("fold1 (+)", &g, &r)?;
        let (g, r) = both!(on, fold1_affine(&Vector::from_vec(rng.affine_i32(n))));
        same("fold1 of affine maps", &g, &r)
    })
}

fn fold1_rows(on: &Target) -> Check {
    on.each_shape("reduce::fold1::rows", Tier::Medium, |r, c, rng| {
        if c == 0 && r > 0 {
            return Ok(());
        }
        let (g, w) = both!(on, fold1_u32_rows(&Matrix::from_shape_vec([r, c], rng.vec::<u32>(r * c))?));
        same("fold1 of rows (xor)", &g, &w)?;
        let pairs: Vec<(f32, i32)> = rng.vec::<f32>(r * c).into_iter().zip(rng.vec::<i32>(r * c)).collect();
        let (g, w) = both!(on, fold1_first_last_rows(&Matrix::from_shape_vec([r, c], pairs)?));
        same("fold1 of rows of (first, last)", &g, &w)
    })
}

fn fold_all_f64_matrix(on: &Target) -> Check {
    on.each_shape("reduce::fold_all::f64", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f64>(r * c);
        let (g, w) = both!(on, fold_all_f64(&Matrix::from_shape_vec([r, c], data.clone())?));
        let abs: f64 = data.iter().map(|x| x.abs()).sum();
        summed("fold_all", &[g.get()], &[w.get()], &[abs])
    })
}

fn fold_all_mat2_matrix(on: &Target) -> Check {
    on.each_shape("reduce::fold_all::mat2_i64", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, fold_all_mat2(&Matrix::from_shape_vec([r, c], rng.mat2s(r * c))?));
        same("fold_all of 2x2 matrix products", &g, &w)
    })
}

fn fold_all_rank3(on: &Target) -> Check {
    for (a, b, c) in [(0, 3, 3), (1, 1, 1), (3, 5, 7), (2, 129, 257), (5, 1, 65_537), (64, 128, 129)] {
        let mut rng = Rng::new("reduce::fold_all::u64_rank3", a * b * c);
        let x = Array::from_shape_vec([a, b, c], rng.vec::<u64>(a * b * c))?;
        let (g, w) = both!(on, fold_all_cube(&x));
        same(&format!("fold_all (rank 3, {a}x{b}x{c})"), &g, &w)?;
    }
    Ok(())
}

fn fold1_all_kinds(on: &Target) -> Check {
    on.each_shape("reduce::fold1_all::min_and_affine", Tier::Medium, |r, c, rng| {
        if r * c == 0 {
            return Ok(());
        }
        let (g, w) = both!(on, fold1_all_min(&Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?));
        same("fold1_all (min)", &g, &w)?;
        let maps: Vec<(u64, u64)> = (0..r * c).map(|_| (rng.next_u64() | 1, rng.next_u64())).collect();
        let (g, w) = both!(on, fold1_all_affine(&Matrix::from_shape_vec([r, c], maps)?));
        same("fold1_all of affine maps", &g, &w)
    })
}

fn fold_seg_i64(on: &Target) -> Check {
    on.each_size("reduce::fold_seg::i64", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let lens = Vector::from_vec(rng.lengths(n, false).into_iter().map(|l| l as i32).collect());
        let (g, r) = both!(on, seg_sum_i64(&xs, &lens));
        same("fold_seg", &g, &r)
    })
}

fn fold_seg_affine_rows(on: &Target) -> Check {
    on.each_shape("reduce::fold_seg::affine_i64_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_i64(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, false));
        let (g, w) = both!(on, seg_affine_rows(&m, &lens));
        same("fold_seg of rows of affine maps", &g, &w)
    })
}

fn fold_seg_floats(on: &Target) -> Check {
    on.each_size("reduce::fold_seg::f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let lens = Vector::from_vec(rng.lengths(n, false).into_iter().map(|l| l as u64).collect());
        let (g, r) = both!(on, seg_sum_f64(&Vector::from_vec(data.clone()), &lens));
        let abs = reference!(seg_sum_f64(&Vector::from_vec(abs_all(&data)), &lens));
        summed_arrays("fold_seg (f64)", &g, &r, &abs)
    })?;
    on.each_shape("reduce::fold_seg::f32_rows", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f32>(r * c);
        let lens = Vector::from_vec(rng.lengths(c, false).into_iter().map(|l| l as u32).collect());
        let (g, w) = both!(on, seg_sum_f32_rows(&Matrix::from_shape_vec([r, c], data.clone())?, &lens));
        let abs = reference!(seg_sum_f32_rows(&Matrix::from_shape_vec([r, c], abs_all(&data))?, &lens));
        summed_arrays("fold_seg of rows (f32)", &g, &w, &abs)
    })
}

fn fold1_seg_kinds(on: &Target) -> Check {
    on.each_shape("reduce::fold1_seg::max_f32_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, true).into_iter().map(|l| l as i64).collect());
        let (g, w) = both!(on, seg1_max_rows(&m, &lens));
        same("fold1_seg of rows (max)", &g, &w)
    })?;
    on.each_size("reduce::fold1_seg::affine_u32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.affine_u32(n));
        let lens = Vector::from_vec(rng.lengths(n, true).into_iter().map(|l| l as u32).collect());
        let (g, r) = both!(on, seg1_affine(&xs, &lens));
        same("fold1_seg of affine maps", &g, &r)
    })
}

fn sweeps() -> Vec<Test> {
    vec![
        case("reduce::vector::i32", vector_i32),
        case("reduce::vector::i64", vector_i64),
        case("reduce::vector::u32", vector_u32),
        case("reduce::vector::u64", vector_u64),
        case("reduce::vector::usize", vector_usize),
        heavy("reduce::vector::f32", vector_f32),
        case("reduce::vector::f64", vector_f64),
        case("reduce::rows::i32", rows_i32),
        case("reduce::rows::i64", rows_i64),
        case("reduce::rows::u32", rows_u32),
        case("reduce::rows::u64", rows_u64),
        case("reduce::rows::usize", rows_usize),
        case("reduce::rows::f32", rows_f32),
        case("reduce::rows::f64", rows_f64),
        case("reduce::fold::f32", fold_seeded_f32),
        case("reduce::fold::rows_f64", fold_rows_f64_seeded),
        heavy("reduce::fold::rows_i32", fold_rows_i32_large),
        case("reduce::fold::mat2_i64", fold_mat2_product),
        case("reduce::fold::affine_u32_rows", fold_affine_u32_rows),
        case("reduce::fold::tuple_f32_i32", fold_tuples),
        case("reduce::fold::nested_tuple", fold_nested_tuples),
        case("reduce::fold1::i64_and_affine", fold1_vectors),
        case("reduce::fold1::rows", fold1_rows),
        case("reduce::fold_all::f64", fold_all_f64_matrix),
        case("reduce::fold_all::mat2_i64", fold_all_mat2_matrix),
        case("reduce::fold_all::u64_rank3", fold_all_rank3),
        case("reduce::fold1_all::min_and_affine", fold1_all_kinds),
        heavy("reduce::fold_seg::i64", fold_seg_i64),
        case("reduce::fold_seg::affine_i64_rows", fold_seg_affine_rows),
        case("reduce::fold_seg::floats", fold_seg_floats),
        case("reduce::fold1_seg::kinds", fold1_seg_kinds),
    ]
}

#[accel]
fn fold_affine(xs: Vector<(i64, i64)>) -> Scalar<(i64, i64)> {
    xs.fold((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn fold_all_affine(m: Matrix<(i64, i64)>) -> Scalar<(i64, i64)> {
    m.fold_all((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn sum_product_i32(xs: Vector<i32>) -> (Scalar<i32>, Scalar<i32>) {
    (xs.sum(), xs.product())
}

#[accel]
fn sum_product_i64(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) {
    (xs.sum(), xs.product())
}

#[accel]
fn sum_product_u32(xs: Vector<u32>) -> (Scalar<u32>, Scalar<u32>) {
    (xs.sum(), xs.product())
}

#[accel]
fn sum_product_u64(xs: Vector<u64>) -> (Scalar<u64>, Scalar<u64>) {
    (xs.sum(), xs.product())
}

#[accel]
fn sum_max_usize(xs: Vector<usize>) -> (Scalar<usize>, Scalar<usize>) {
    (xs.sum(), xs.maximum())
}

#[accel]
fn row_sum_product_i64(m: Matrix<i64>) -> (Vector<i64>, Vector<i64>) {
    (m.sum(), m.product())
}

#[accel]
fn row_max_f64(m: Matrix<f64>) -> Vector<f64> {
    m.maximum()
}

#[accel]
fn cube_sum(a: Array<i32, 3>) -> Matrix<i32> {
    a.sum()
}

/// Composition of affine maps on wrapping integers: associative, not commutative.
macro_rules! affine {
    ($t:ty) => {
        |p: ($t, $t), q: ($t, $t)| (p.0.wrapping_mul(q.0), p.1.wrapping_mul(q.0).wrapping_add(q.1))
    };
}

fn pairs_i64(n: usize) -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((i64s(), i64s()), n).prop_map(|mut v| {
        if v.first().is_some_and(|p| *p == (0, 0)) {
            v[0] = (3, 1);
        }
        v
    })
}

fn pairs_u32(n: usize) -> impl Strategy<Value = Vec<(u32, u32)>> {
    prop::collection::vec((u32s(), u32s()), n).prop_map(|mut v| {
        if v.first().is_some_and(|p| *p == (0, 0)) {
            v[0] = (3, 1);
        }
        v
    })
}

/// Checks a float reduction of each row against the compensated oracle with the rounding bound
/// of summing `terms` values (seed included).
fn check_sums<T: Float>(on: &Target, what: &str, cpu: &[T], interp: &[T], rows: &[Vec<f64>]) -> Check {
    let want: Vec<f64> = rows.iter().map(|r| exact_sum(r.iter().copied())).collect();
    let bound: Vec<f64> = rows.iter().map(|r| sum_bound::<T>(r.len(), r.iter().map(|x| x.abs()).sum())).collect();
    all_close(on, what, cpu, interp, &want, &bound)
}

/// The expected result of a reduction that may be `EmptyReduction`.
fn expect_empty_reduction<T: std::fmt::Debug>(what: &str, r: accel::Result<T>) -> Check {
    match r {
        Err(Error::EmptyReduction { .. }) => Ok(()),
        other => Err(Failed::from(format!("{what}: expected EmptyReduction, got {other:?}"))),
    }
}

fn fold_sums_floats_with_a_seed(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), f32s()), |(xs, z)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, fold_f32(&v, z));
        let terms: Vec<f64> = std::iter::once(z).chain(xs.iter().copied()).map(f64::from).collect();
        check_sums(on, "fold f32", &[cpu.get()], &[interp.get()], &[terms])?;
        Ok(())
    })
}

fn fold_of_integer_valued_floats_is_exact(on: &Target) -> Check {
    props(24, vec_sized(int_f32s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, fold_f32(&v, 0.5));
        let want = xs.iter().fold(0.5f32, |a, b| a + b);
        all_same_bits(on, "fold f32 (exact)", &[cpu.get()], &[interp.get()], &[want])?;
        Ok(())
    })
}

fn fold_rows_of_matrices(on: &Target) -> Check {
    props(24, matrix_of(f64s()), |((r, c), data)| {
        let m = Matrix::from_shape_vec([r, c], data.clone()).unwrap();
        let (cpu, interp) = both!(on, fold_rows_f64(&m));
        check_eq!(cpu.shape(), [r]);
        check_eq!(interp.shape(), [r]);
        let rows: Vec<Vec<f64>> =
            (0..r).map(|i| std::iter::once(0.5).chain(row(&data, c, i).iter().copied()).collect()).collect();
        check_sums(on, "fold (matrix rows)", &cpu.to_vec(), &interp.to_vec(), &rows)?;
        Ok(())
    })
}

fn fold_keeps_the_order_of_operands(on: &Target) -> Check {
    props(24, (size().prop_flat_map(pairs_i64), with_shape(|r, c| pairs_u32(r * c))), |(xs, ((r, c), m))| {
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let (cpu, interp) = both!(on, fold_affine(&v));
        let want = xs.iter().copied().fold((1i64, 0i64), affine!(i64));
        all_same(on, "fold (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, fold_affine_rows(&mm));
        let want = fold_rows(&m, c, r, (1u32, 0u32), affine!(u32));
        all_same(on, "fold rows (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn fold_with_tuple_elements(on: &Target) -> Check {
    props(24, vec_sized(f32s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, sum_and_count(&v));
        let ((s_cpu, n_cpu), (s_int, n_int)) = (cpu.get(), interp.get());
        all_same(on, "fold (f32, i32) count", &[n_cpu], &[n_int], &[xs.len() as i32])?;
        let terms: Vec<f64> = xs.iter().copied().map(f64::from).collect();
        check_sums(on, "fold (f32, i32) sum", &[s_cpu], &[s_int], &[terms])?;
        if !xs.is_empty() {
            let (cpu, interp) = both!(on, first_argmax(&v));
            let want = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| (x, i as i32))
                .reduce(|a, b| if b.0 > a.0 { b } else { a })
                .unwrap();
            all_same(on, "fold1 first argmax", &[cpu.get()], &[interp.get()], &[want])?;
        }
        Ok(())
    })
}

fn fold1_reduces_without_a_seed(on: &Target) -> Check {
    props(
        24,
        (
            vec_sized(i64s(), size()),
            matrix_of(u32s()),
            size().prop_flat_map(|n| prop::collection::vec((i32s(), i32s()), n)),
        ),
        |(xs, ((r, c), m), ps)| {
            let v = Vector::from_vec(xs.clone());
            match xs.iter().copied().reduce(i64::wrapping_add) {
                Some(want) => {
                    let (cpu, interp) = both!(on, fold1_i64(&v));
                    all_same(on, "fold1 i64", &[cpu.get()], &[interp.get()], &[want])?;
                }
                None => {
                    expect_empty_reduction("fold1 (CPU) of []", fold1_i64(on.rt()?, &v))?;
                    expect_empty_reduction("fold1 (interpreter) of []", fold1_i64::reference(&v))?;
                }
            }
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            match crate::compare::fold1_rows(&m, c, r, |a, b| a ^ b) {
                Some(want) => {
                    let (cpu, interp) = both!(on, fold1_u32_rows(&mm));
                    all_same(on, "fold1 rows u32", &cpu.to_vec(), &interp.to_vec(), &want)?;
                }
                None => {
                    expect_empty_reduction("fold1 rows (CPU)", fold1_u32_rows(on.rt()?, &mm))?;
                    expect_empty_reduction("fold1 rows (interpreter)", fold1_u32_rows::reference(&mm))?;
                }
            }
            let pv: Vector<(i32, i32)> = ps.iter().copied().collect();
            if let Some(want) = ps.iter().copied().reduce(affine!(i32)) {
                let (cpu, interp) = both!(on, fold1_affine(&pv));
                all_same(on, "fold1 (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
            }
            Ok(())
        },
    )
}

fn fold_all_in_row_major_order(on: &Target) -> Check {
    props(
        24,
        (with_shape(|r, c| pairs_i64(r * c)), matrix_of(f64s()), (0usize..5, 0usize..7, 0usize..11), any::<u64>()),
        |(((r, c), m), ((r2, c2), fm), (a, b, d), seed)| {
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let (cpu, interp) = both!(on, fold_all_affine(&mm));
            let want = m.iter().copied().fold((1i64, 0i64), affine!(i64));
            all_same(on, "fold_all (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
            let fmm = Matrix::from_shape_vec([r2, c2], fm.clone()).unwrap();
            let (cpu, interp) = both!(on, fold_all_f64(&fmm));
            check_sums(on, "fold_all f64", &[cpu.get()], &[interp.get()], std::slice::from_ref(&fm))?;
            let mut rng = SplitMix::new(seed);
            let cube: Vec<u64> = (0..a * b * d).map(|_| rng.next_u64()).collect();
            let arr = Array::from_shape_vec([a, b, d], cube.clone()).unwrap();
            let (cpu, interp) = both!(on, fold_all_cube(&arr));
            let want = cube.iter().fold(7u64, |x, &y| x.wrapping_add(y));
            all_same(on, "fold_all (rank 3)", &[cpu.get()], &[interp.get()], &[want])?;
            Ok(())
        },
    )
}

fn fold1_all_of_matrices(on: &Target) -> Check {
    props(
        24,
        (matrix_of(f32s()), with_shape(|r, c| prop::collection::vec((u64s(), u64s()), r * c))),
        |(((r, c), fm), ((r2, c2), m))| {
            let fmm = Matrix::from_shape_vec([r, c], fm.clone()).unwrap();
            match fm.iter().copied().reduce(f32::min) {
                Some(want) => {
                    let (cpu, interp) = both!(on, fold1_all_min(&fmm));
                    all_same(on, "fold1_all min", &[cpu.get()], &[interp.get()], &[want])?;
                }
                None => {
                    expect_empty_reduction("fold1_all (CPU) of empty", fold1_all_min(on.rt()?, &fmm))?;
                    expect_empty_reduction("fold1_all (interpreter) of empty", fold1_all_min::reference(&fmm))?;
                }
            }
            let mm = Matrix::from_shape_vec([r2, c2], m.clone()).unwrap();
            if let Some(want) = m.iter().copied().reduce(affine!(u64)) {
                let (cpu, interp) = both!(on, fold1_all_affine(&mm));
                all_same(on, "fold1_all (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
            }
            Ok(())
        },
    )
}

fn sum_product_maximum_minimum_i32(on: &Target) -> Check {
    props(24, vec_sized(i32s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(on, sum_product_i32(&v));
        let s = xs.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        let p = xs.iter().fold(1i32, |a, &b| a.wrapping_mul(b));
        all_same(on, "sum i32", &[s_cpu.get()], &[s_int.get()], &[s])?;
        all_same(on, "product i32", &[p_cpu.get()], &[p_int.get()], &[p])?;
        if !xs.is_empty() {
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_i32(&v));
            all_same(on, "maximum i32", &[mx_cpu.get()], &[mx_int.get()], &[*xs.iter().max().unwrap()])?;
            all_same(on, "minimum i32", &[mn_cpu.get()], &[mn_int.get()], &[*xs.iter().min().unwrap()])?;
        }
        Ok(())
    })
}

fn sum_product_maximum_minimum_i64(on: &Target) -> Check {
    props(24, vec_sized(i64s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(on, sum_product_i64(&v));
        let s = xs.iter().fold(0i64, |a, &b| a.wrapping_add(b));
        let p = xs.iter().fold(1i64, |a, &b| a.wrapping_mul(b));
        all_same(on, "sum i64", &[s_cpu.get()], &[s_int.get()], &[s])?;
        all_same(on, "product i64", &[p_cpu.get()], &[p_int.get()], &[p])?;
        if !xs.is_empty() {
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_i64(&v));
            all_same(on, "maximum i64", &[mx_cpu.get()], &[mx_int.get()], &[*xs.iter().max().unwrap()])?;
            all_same(on, "minimum i64", &[mn_cpu.get()], &[mn_int.get()], &[*xs.iter().min().unwrap()])?;
        }
        Ok(())
    })
}

fn sum_product_maximum_minimum_unsigned(on: &Target) -> Check {
    props(
        24,
        (vec_sized(u32s(), size()), vec_sized(u64s(), size()), vec_sized(0usize..1 << 40, size())),
        |(xs, ys, zs)| {
            let v = Vector::from_vec(xs.clone());
            let ((s_cpu, p_cpu), (s_int, p_int)) = both!(on, sum_product_u32(&v));
            all_same(
                on,
                "sum u32",
                &[s_cpu.get()],
                &[s_int.get()],
                &[xs.iter().fold(0u32, |a, &b| a.wrapping_add(b))],
            )?;
            all_same(
                on,
                "product u32",
                &[p_cpu.get()],
                &[p_int.get()],
                &[xs.iter().fold(1u32, |a, &b| a.wrapping_mul(b))],
            )?;
            if !xs.is_empty() {
                let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_u32(&v));
                all_same(on, "maximum u32", &[mx_cpu.get()], &[mx_int.get()], &[*xs.iter().max().unwrap()])?;
                all_same(on, "minimum u32", &[mn_cpu.get()], &[mn_int.get()], &[*xs.iter().min().unwrap()])?;
            }
            let v = Vector::from_vec(ys.clone());
            let ((s_cpu, p_cpu), (s_int, p_int)) = both!(on, sum_product_u64(&v));
            all_same(
                on,
                "sum u64",
                &[s_cpu.get()],
                &[s_int.get()],
                &[ys.iter().fold(0u64, |a, &b| a.wrapping_add(b))],
            )?;
            all_same(
                on,
                "product u64",
                &[p_cpu.get()],
                &[p_int.get()],
                &[ys.iter().fold(1u64, |a, &b| a.wrapping_mul(b))],
            )?;
            if !ys.is_empty() {
                let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_u64(&v));
                all_same(on, "maximum u64", &[mx_cpu.get()], &[mx_int.get()], &[*ys.iter().max().unwrap()])?;
                all_same(on, "minimum u64", &[mn_cpu.get()], &[mn_int.get()], &[*ys.iter().min().unwrap()])?;
            }
            if !zs.is_empty() {
                let v = Vector::from_vec(zs.clone());
                let ((s_cpu, m_cpu), (s_int, m_int)) = both!(on, sum_max_usize(&v));
                all_same(on, "sum usize", &[s_cpu.get()], &[s_int.get()], &[zs.iter().sum::<usize>()])?;
                all_same(on, "maximum usize", &[m_cpu.get()], &[m_int.get()], &[*zs.iter().max().unwrap()])?;
            }
            Ok(())
        },
    )
}

fn sum_product_maximum_minimum_f32(on: &Target) -> Check {
    props(
        24,
        (vec_sized(f32s(), size()), vec_sized(f32_near_one(), size()), vec_sized(int_f32s(), size())),
        |(xs, ps, is)| {
            let v = Vector::from_vec(xs.clone());
            let (cpu, interp) = both!(on, sum_f32(&v));
            check_sums(on, "sum f32", &[cpu.get()], &[interp.get()], &[xs.iter().map(|&x| x as f64).collect()])?;
            let v = Vector::from_vec(is.clone());
            let (cpu, interp) = both!(on, sum_f32(&v));
            all_same_bits(
                on,
                "sum f32 (integer-valued, exact)",
                &[cpu.get()],
                &[interp.get()],
                &[is.iter().fold(0.0f32, |a, b| a + b)],
            )?;
            let v = Vector::from_vec(ps.clone());
            let (cpu, interp) = both!(on, product_f32(&v));
            let p: f64 = ps.iter().map(|&x| x as f64).product();
            all_close(on, "product f32", &[cpu.get()], &[interp.get()], &[p], &[product_bound::<f32>(ps.len(), p)])?;
            if !xs.is_empty() {
                let v = Vector::from_vec(xs.clone());
                let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_f32(&v));
                let mx = xs.iter().copied().reduce(f32::max).unwrap();
                let mn = xs.iter().copied().reduce(f32::min).unwrap();
                all_same(on, "maximum f32", &[mx_cpu.get()], &[mx_int.get()], &[mx])?;
                all_same(on, "minimum f32", &[mn_cpu.get()], &[mn_int.get()], &[mn])?;
            }
            Ok(())
        },
    )
}

fn sum_product_maximum_minimum_f64(on: &Target) -> Check {
    props(24, (vec_sized(f64s(), size()), vec_sized(f64_near_one(), size())), |(xs, ps)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, sum_f64(&v));
        check_sums(on, "sum f64", &[cpu.get()], &[interp.get()], std::slice::from_ref(&xs))?;
        let v = Vector::from_vec(ps.clone());
        let (cpu, interp) = both!(on, product_f64(&v));
        // The f64 oracle itself rounds n times: twice the bound covers both.
        let p: f64 = ps.iter().product();
        all_close(on, "product f64", &[cpu.get()], &[interp.get()], &[p], &[2.0 * product_bound::<f64>(ps.len(), p)])?;
        if !xs.is_empty() {
            let v = Vector::from_vec(xs.clone());
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_f64(&v));
            let mx = xs.iter().copied().reduce(f64::max).unwrap();
            let mn = xs.iter().copied().reduce(f64::min).unwrap();
            all_same(on, "maximum f64", &[mx_cpu.get()], &[mx_int.get()], &[mx])?;
            all_same(on, "minimum f64", &[mn_cpu.get()], &[mn_int.get()], &[mn])?;
        }
        Ok(())
    })
}

fn row_reductions_of_matrices(on: &Target) -> Check {
    props(
        24,
        (matrix_of(i64s()), matrix_of(i32s()), matrix_of(f32s()), matrix_of(f64s())),
        |(((r, c), m), ((r2, c2), m2), ((r3, c3), m3), ((r4, c4), m4))| {
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let ((s_cpu, p_cpu), (s_int, p_int)) = both!(on, row_sum_product_i64(&mm));
            all_same(on, "sum rows i64", &s_cpu.to_vec(), &s_int.to_vec(), &fold_rows(&m, c, r, 0, i64::wrapping_add))?;
            all_same(
                on,
                "product rows i64",
                &p_cpu.to_vec(),
                &p_int.to_vec(),
                &fold_rows(&m, c, r, 1, i64::wrapping_mul),
            )?;
            let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
            match (crate::compare::fold1_rows(&m2, c2, r2, i32::max), crate::compare::fold1_rows(&m2, c2, r2, i32::min))
            {
                (Some(mx), Some(mn)) => {
                    let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, row_extrema_i32(&mm));
                    all_same(on, "maximum rows i32", &mx_cpu.to_vec(), &mx_int.to_vec(), &mx)?;
                    all_same(on, "minimum rows i32", &mn_cpu.to_vec(), &mn_int.to_vec(), &mn)?;
                }
                _ => {
                    // Rows of length 0: `maximum` has no value.
                    expect_empty_reduction("maximum of empty rows (CPU)", row_extrema_i32(on.rt()?, &mm))?;
                    expect_empty_reduction("maximum of empty rows (interpreter)", row_extrema_i32::reference(&mm))?;
                }
            }
            let mm = Matrix::from_shape_vec([r3, c3], m3.clone()).unwrap();
            let (cpu, interp) = both!(on, row_sum_f32(&mm));
            let rows: Vec<Vec<f64>> = (0..r3).map(|i| row(&m3, c3, i).iter().map(|&x| x as f64).collect()).collect();
            check_sums(on, "sum rows f32", &cpu.to_vec(), &interp.to_vec(), &rows)?;
            let mm = Matrix::from_shape_vec([r4, c4], m4.clone()).unwrap();
            if let Some(want) = crate::compare::fold1_rows(&m4, c4, r4, f64::max) {
                let (cpu, interp) = both!(on, row_max_f64(&mm));
                all_same(on, "maximum rows f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
            }
            Ok(())
        },
    )
}

fn sum_of_rank3_reduces_the_innermost(on: &Target) -> Check {
    props(24, (0usize..5, 0usize..7, 0usize..11, any::<u64>()), |(a, b, d, seed)| {
        let data = SplitMix::new(seed).i32s(a * b * d);
        let arr = Array::from_shape_vec([a, b, d], data.clone()).unwrap();
        let (cpu, interp) = both!(on, cube_sum(&arr));
        check_eq!(cpu.shape(), [a, b]);
        check_eq!(interp.shape(), [a, b]);
        all_same(
            on,
            "sum (rank 3)",
            &cpu.to_vec(),
            &interp.to_vec(),
            &fold_rows(&data, d, a * b, 0, i32::wrapping_add),
        )?;
        Ok(())
    })
}

fn fold_seg_reduces_each_segment(on: &Target) -> Check {
    props(24, size().prop_flat_map(|n| (vec_of(i64s(), n), lengths_summing_to(n))), |(xs, lens)| {
        let v = Vector::from_vec(xs.clone());
        let l = Vector::from_vec(lens.iter().map(|&x| x as i32).collect());
        let (cpu, interp) = both!(on, seg_sum_i64(&v, &l));
        let want: Vec<i64> =
            segment_ranges(&lens).into_iter().map(|r| xs[r].iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        all_same(on, "fold_seg i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn fold_seg_of_matrix_rows_keeps_operand_order(on: &Target) -> Check {
    props(24, with_shape(|r, c| (pairs_i64(r * c), lengths_summing_to(c))), |((r, c), (m, lens))| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let l = Vector::from_vec(lens.clone());
        let (cpu, interp) = both!(on, seg_affine_rows(&mm, &l));
        check_eq!(cpu.shape(), [r, lens.len()]);
        check_eq!(interp.shape(), [r, lens.len()]);
        let mut want = Vec::new();
        for i in 0..r {
            for s in segment_ranges(&lens) {
                want.push(row(&m, c, i)[s].iter().copied().fold((1i64, 0i64), affine!(i64)));
            }
        }
        all_same(on, "fold_seg rows (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn fold_seg_of_floats(on: &Target) -> Check {
    props(
        24,
        (
            size().prop_flat_map(|n| (vec_of(f64s(), n), lengths_summing_to(n))),
            with_shape(|r, c| (vec_of(int_f32s(), r * c), lengths_summing_to(c))),
        ),
        |((xs, lens), ((r, c), (m, lens2)))| {
            let v = Vector::from_vec(xs.clone());
            let l = Vector::from_vec(lens.iter().map(|&x| x as u64).collect());
            let (cpu, interp) = both!(on, seg_sum_f64(&v, &l));
            let segs: Vec<Vec<f64>> = segment_ranges(&lens)
                .into_iter()
                .map(|r| std::iter::once(0.25).chain(xs[r].iter().copied()).collect())
                .collect();
            check_sums(on, "fold_seg f64", &cpu.to_vec(), &interp.to_vec(), &segs)?;
            // Integer-valued: exact in any grouping.
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let l = Vector::from_vec(lens2.iter().map(|&x| x as u32).collect());
            let (cpu, interp) = both!(on, seg_sum_f32_rows(&mm, &l));
            let mut want = Vec::new();
            for i in 0..r {
                for s in segment_ranges(&lens2) {
                    want.push(row(&m, c, i)[s].iter().fold(0.0f32, |a, b| a + b));
                }
            }
            all_same_bits(on, "fold_seg rows f32 (exact)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn fold1_seg_reduces_nonempty_segments(on: &Target) -> Check {
    props(
        24,
        (
            with_shape(|r, c| (vec_of(f32s(), r * c), positive_lengths_summing_to(c))),
            size().prop_flat_map(|n| (pairs_u32(n), positive_lengths_summing_to(n))),
        ),
        |(((r, c), (m, lens)), (ps, lens2))| {
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let l = Vector::from_vec(lens.iter().map(|&x| x as i64).collect());
            let (cpu, interp) = both!(on, seg1_max_rows(&mm, &l));
            let mut want = Vec::new();
            for i in 0..r {
                for s in segment_ranges(&lens) {
                    want.push(row(&m, c, i)[s].iter().copied().reduce(f32::max).unwrap());
                }
            }
            all_same(on, "fold1_seg rows max", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let v: Vector<(u32, u32)> = ps.iter().copied().collect();
            let l = Vector::from_vec(lens2.iter().map(|&x| x as u32).collect());
            let (cpu, interp) = both!(on, seg1_affine(&v, &l));
            let want: Vec<(u32, u32)> = segment_ranges(&lens2)
                .into_iter()
                .map(|s| ps[s].iter().copied().reduce(affine!(u32)).unwrap())
                .collect();
            all_same(on, "fold1_seg (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

/// Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
fn large_reductions(on: &Target) -> Check {
    props(4, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let xs = rng.f32s(n, -100.0, 100.0);
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, sum_f32(&v));
        check_sums(on, "sum f32 (large)", &[cpu.get()], &[interp.get()], &[xs.iter().map(|&x| x as f64).collect()])?;
        let is = rng.int_f32s(n);
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(on, fold_f32(&v, 0.5));
        all_same_bits(
            on,
            "fold f32 (large, integer-valued, exact)",
            &[cpu.get()],
            &[interp.get()],
            &[is.iter().fold(0.5f32, |a, b| a + b)],
        )?;
        let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(on, extrema_f32(&v));
        all_same(
            on,
            "maximum f32 (large)",
            &[mx_cpu.get()],
            &[mx_int.get()],
            &[is.iter().copied().reduce(f32::max).unwrap()],
        )?;
        all_same(
            on,
            "minimum f32 (large)",
            &[mn_cpu.get()],
            &[mn_int.get()],
            &[is.iter().copied().reduce(f32::min).unwrap()],
        )?;
        let ps: Vec<(i64, i64)> = (0..n).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let v: Vector<(i64, i64)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(on, fold_affine(&v));
        all_same(
            on,
            "fold (large, affine maps)",
            &[cpu.get()],
            &[interp.get()],
            &[ps.iter().copied().fold((1, 0), affine!(i64))],
        )?;
        Ok(())
    })
}

fn large_row_and_segment_reductions(on: &Target) -> Check {
    props(4, (prop::sample::select(vec![1usize, 3, 257]), large_size(), any::<u64>()), |(rows, n, seed)| {
        let mut rng = SplitMix::new(seed);
        let c = n / rows;
        let m = rng.i64s(rows * c);
        let mm = Matrix::from_shape_vec([rows, c], m.clone()).unwrap();
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(on, row_sum_product_i64(&mm));
        all_same(
            on,
            "sum rows (large)",
            &s_cpu.to_vec(),
            &s_int.to_vec(),
            &fold_rows(&m, c, rows, 0, i64::wrapping_add),
        )?;
        all_same(
            on,
            "product rows (large)",
            &p_cpu.to_vec(),
            &p_int.to_vec(),
            &fold_rows(&m, c, rows, 1, i64::wrapping_mul),
        )?;
        // Segments from very short to longer than a chunk.
        let mut lens = Vec::new();
        let mut left = n;
        while left > 0 {
            let l = match rng.below(4) {
                0 => 0,
                1 => rng.below(4) as usize,
                2 => rng.below(1000) as usize,
                _ => rng.below(40_000) as usize,
            }
            .min(left);
            lens.push(l);
            left -= l;
        }
        let xs = rng.i64s(n);
        let v = Vector::from_vec(xs.clone());
        let l = Vector::from_vec(lens.iter().map(|&x| x as i32).collect());
        let (cpu, interp) = both!(on, seg_sum_i64(&v, &l));
        let want: Vec<i64> =
            segment_ranges(&lens).into_iter().map(|r| xs[r].iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        all_same(on, "fold_seg (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("reduce::fold_sums_floats_with_a_seed", fold_sums_floats_with_a_seed),
        case("reduce::fold_of_integer_valued_floats_is_exact", fold_of_integer_valued_floats_is_exact),
        case("reduce::fold_rows_of_matrices", fold_rows_of_matrices),
        case("reduce::fold_keeps_the_order_of_operands", fold_keeps_the_order_of_operands),
        case("reduce::fold_with_tuple_elements", fold_with_tuple_elements),
        exclusive("reduce::fold1_reduces_without_a_seed", fold1_reduces_without_a_seed),
        case("reduce::fold_all_in_row_major_order", fold_all_in_row_major_order),
        exclusive("reduce::fold1_all_of_matrices", fold1_all_of_matrices),
        case("reduce::sum_product_maximum_minimum_i32", sum_product_maximum_minimum_i32),
        case("reduce::sum_product_maximum_minimum_i64", sum_product_maximum_minimum_i64),
        case("reduce::sum_product_maximum_minimum_unsigned", sum_product_maximum_minimum_unsigned),
        case("reduce::sum_product_maximum_minimum_f32", sum_product_maximum_minimum_f32),
        case("reduce::sum_product_maximum_minimum_f64", sum_product_maximum_minimum_f64),
        exclusive("reduce::row_reductions_of_matrices", row_reductions_of_matrices),
        case("reduce::sum_of_rank3_reduces_the_innermost", sum_of_rank3_reduces_the_innermost),
        case("reduce::fold_seg_reduces_each_segment", fold_seg_reduces_each_segment),
        case("reduce::fold_seg_of_matrix_rows_keeps_operand_order", fold_seg_of_matrix_rows_keeps_operand_order),
        case("reduce::fold_seg_of_floats", fold_seg_of_floats),
        case("reduce::fold1_seg_reduces_nonempty_segments", fold1_seg_reduces_nonempty_segments),
        case("reduce::large_reductions", large_reductions),
        case("reduce::large_row_and_segment_reductions", large_row_and_segment_reductions),
    ]);
    tests
}
