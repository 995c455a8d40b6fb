//! Reductions: `sum product maximum minimum` of vectors and matrix rows for every numeric type,
//! `fold fold1 fold_all fold1_all` (with non-commutative combining functions that catch
//! reordering: 2x2 matrix products, affine maps, first/last pairs, first maximum), tuple and
//! nested-tuple accumulators, `fold_seg fold1_seg`.
//!
//! Products of integers run on `x | 1`, so that they never collapse to zero; float products run
//! on values near 1. Float sums are compared within the tolerance relative to the sum of the
//! absolute values (computed here, in `f64`); float data is centred on zero so that the
//! interpreter's sequential `f32` sum over 2^26 elements stays accurate.

use crate::harness::*;
use accel::prelude::*;

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
fn seg_sum_i64(xs: Vector<i64>, lens: Vector<i32>) -> Vector<i64> {
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
        fn $fn_name() -> Check {
            each_size($name, Tier::Medium, |n, rng| {
                let xs = Vector::from_vec(rng.vec::<$t>(n));
                let ((gs, gp), (rs, rp)) = both!($sums(&xs));
                same("sum", &gs, &rs)?;
                same("product of x | 1", &gp, &rp)?;
                if n > 0 {
                    let ((gx, gn), (rx, rn)) = both!($extrema(&xs));
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
        fn $fn_name() -> Check {
            each_shape($name, Tier::Medium, |r, c, rng| {
                let m = Matrix::from_shape_vec([r, c], rng.vec::<$t>(r * c))?;
                let ((gs, gp), (rs, rp)) = both!($sums(&m));
                same("sum of rows", &gs, &rs)?;
                same("product of rows of x | 1", &gp, &rp)?;
                // Rows of length 0 have no maximum: the error trials check that.
                if c > 0 || r == 0 {
                    let ((gx, gn), (rx, rn)) = both!($extrema(&m));
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
        .map(|i| to(seed.abs() + data[i * cols..(i + 1) * cols].iter().map(|x| x.f().abs()).sum::<f64>()))
        .collect()
}

/// Float reductions of vectors: sums within the bound, products (of values near 1) within the
/// bound relative to the product, extrema exactly.
macro_rules! float_vector_trial {
    ($fn_name:ident, $name:literal, $tier:expr, $t:ty, $sum:ident, $product:ident, $extrema:ident) => {
        fn $fn_name() -> Check {
            each_size($name, $tier, |n, rng| {
                let data: Vec<$t> = rng.vec::<$t>(n);
                let xs = Vector::from_vec(data.clone());
                let (g, r) = both!($sum(&xs));
                let abs = data.iter().map(|x| f64::from(x.abs())).sum::<f64>() as $t;
                summed("sum", &[g.get()], &[r.get()], &[abs])?;
                if n > 0 {
                    let ((gx, gn), (rx, rn)) = both!($extrema(&xs));
                    same("maximum", &gx, &rx)?;
                    same("minimum", &gn, &rn)?;
                }
                if n <= 65_537 {
                    let near_one: Vec<$t> = (0..n).map(|_| rng.f64_in(0.98, 1.02) as $t).collect();
                    let ps = Vector::from_vec(near_one);
                    let (g, r) = both!($product(&ps));
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
        fn $fn_name() -> Check {
            each_shape($name, Tier::Medium, |r, c, rng| {
                let data: Vec<$t> = rng.vec::<$t>(r * c);
                let m = Matrix::from_shape_vec([r, c], data.clone())?;
                let (g, w) = both!($sum(&m));
                let abs = row_abs_sums(&data, c, r, 0.0, |x| x as $t);
                summed("sum of rows", &g.to_vec(), &w.to_vec(), &abs)?;
                if c > 0 || r == 0 {
                    let ((gx, gn), (rx, rn)) = both!($extrema(&m));
                    same("maximum of rows", &gx, &rx)?;
                    same("minimum of rows", &gn, &rn)?;
                }
                if c <= 65_537 {
                    let near_one: Vec<$t> = (0..r * c).map(|_| rng.f64_in(0.98, 1.02) as $t).collect();
                    let ps = Matrix::from_shape_vec([r, c], near_one)?;
                    let (g, w) = both!($product(&ps));
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

fn fold_seeded_f32() -> Check {
    each_size("reduce::fold::f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let z = rng.f64_in(-50.0, 50.0) as f32;
        let (g, r) = both!(fold_f32(&Vector::from_vec(data.clone()), z));
        let abs = (f64::from(z.abs()) + data.iter().map(|x| f64::from(x.abs())).sum::<f64>()) as f32;
        summed("fold with a seed", &[g.get()], &[r.get()], &[abs])
    })
}

fn fold_rows_f64_seeded() -> Check {
    each_shape("reduce::fold::rows_f64", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f64>(r * c);
        let (g, w) = both!(fold_rows_f64(&Matrix::from_shape_vec([r, c], data.clone())?));
        summed("fold of rows with a seed", &g.to_vec(), &w.to_vec(), &row_abs_sums(&data, c, r, 0.5, |x| x))
    })
}

fn fold_rows_i32_large() -> Check {
    each_shape("reduce::fold::rows_i32", Tier::Large, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?;
        let (g, w) = both!(fold_rows_i32(&m));
        same("fold of rows", &g, &w)
    })
}

fn fold_mat2_product() -> Check {
    each_size("reduce::fold::mat2_i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.mat2s(n));
        let (g, r) = both!(fold_mat2(&xs));
        same("fold of 2x2 matrix products", &g, &r)
    })?;
    each_shape("reduce::fold::mat2_i64_rows", Tier::Small, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.mat2s(r * c))?;
        let (g, w) = both!(fold_mat2_rows(&m));
        same("fold of rows of 2x2 matrix products", &g, &w)
    })
}

fn fold_affine_u32_rows() -> Check {
    each_shape("reduce::fold::affine_u32_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_u32(r * c))?;
        let (g, w) = both!(fold_affine_rows(&m));
        same("fold of rows of affine maps", &g, &w)
    })
}

fn fold_tuples() -> Check {
    each_size("reduce::fold::tuple_f32_i32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let xs = Vector::from_vec(data.clone());
        let (g, r) = both!(sum_and_count(&xs));
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
            let (g, r) = both!(first_argmax(&Vector::from_vec(data)));
            same("first maximum and its index", &g, &r)?;
        }
        Ok(())
    })
}

fn fold_nested_tuples() -> Check {
    each_size("reduce::fold::nested_tuple", Tier::Medium, |n, rng| {
        let (a, b, c) = (rng.vec::<i32>(n), rng.vec::<f32>(n), rng.vec::<u64>(n));
        let xs: Vector<((i32, f32), u64)> = (0..n).map(|i| ((a[i], b[i]), c[i])).collect();
        let (g, r) = both!(fold_nested(&xs));
        same("fold of ((i32, f32), u64)", &g, &r)
    })
}

fn fold1_vectors() -> Check {
    each_size("reduce::fold1::i64_and_affine", Tier::Medium, |n, rng| {
        if n == 0 {
            return Ok(());
        }
        let (g, r) = both!(fold1_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("fold1 (+)", &g, &r)?;
        let (g, r) = both!(fold1_affine(&Vector::from_vec(rng.affine_i32(n))));
        same("fold1 of affine maps", &g, &r)
    })
}

fn fold1_rows() -> Check {
    each_shape("reduce::fold1::rows", Tier::Medium, |r, c, rng| {
        if c == 0 && r > 0 {
            return Ok(());
        }
        let (g, w) = both!(fold1_u32_rows(&Matrix::from_shape_vec([r, c], rng.vec::<u32>(r * c))?));
        same("fold1 of rows (xor)", &g, &w)?;
        let pairs: Vec<(f32, i32)> = rng.vec::<f32>(r * c).into_iter().zip(rng.vec::<i32>(r * c)).collect();
        let (g, w) = both!(fold1_first_last_rows(&Matrix::from_shape_vec([r, c], pairs)?));
        same("fold1 of rows of (first, last)", &g, &w)
    })
}

fn fold_all_f64_matrix() -> Check {
    each_shape("reduce::fold_all::f64", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f64>(r * c);
        let (g, w) = both!(fold_all_f64(&Matrix::from_shape_vec([r, c], data.clone())?));
        let abs: f64 = data.iter().map(|x| x.abs()).sum();
        summed("fold_all", &[g.get()], &[w.get()], &[abs])
    })
}

fn fold_all_mat2_matrix() -> Check {
    each_shape("reduce::fold_all::mat2_i64", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(fold_all_mat2(&Matrix::from_shape_vec([r, c], rng.mat2s(r * c))?));
        same("fold_all of 2x2 matrix products", &g, &w)
    })
}

fn fold_all_rank3() -> Check {
    for (a, b, c) in [(0, 3, 3), (1, 1, 1), (3, 5, 7), (2, 129, 257), (5, 1, 65_537), (64, 128, 129)] {
        let mut rng = Rng::new("reduce::fold_all::u64_rank3", a * b * c);
        let x = Array::from_shape_vec([a, b, c], rng.vec::<u64>(a * b * c))?;
        let (g, w) = both!(fold_all_cube(&x));
        same(&format!("fold_all (rank 3, {a}x{b}x{c})"), &g, &w)?;
    }
    Ok(())
}

fn fold1_all_kinds() -> Check {
    each_shape("reduce::fold1_all::min_and_affine", Tier::Medium, |r, c, rng| {
        if r * c == 0 {
            return Ok(());
        }
        let (g, w) = both!(fold1_all_min(&Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?));
        same("fold1_all (min)", &g, &w)?;
        let maps: Vec<(u64, u64)> = (0..r * c).map(|_| (rng.next_u64() | 1, rng.next_u64())).collect();
        let (g, w) = both!(fold1_all_affine(&Matrix::from_shape_vec([r, c], maps)?));
        same("fold1_all of affine maps", &g, &w)
    })
}

fn fold_seg_i64() -> Check {
    each_size("reduce::fold_seg::i64", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let lens = Vector::from_vec(rng.lengths(n, false).into_iter().map(|l| l as i32).collect());
        let (g, r) = both!(seg_sum_i64(&xs, &lens));
        same("fold_seg", &g, &r)
    })
}

fn fold_seg_affine_rows() -> Check {
    each_shape("reduce::fold_seg::affine_i64_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.affine_i64(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, false));
        let (g, w) = both!(seg_affine_rows(&m, &lens));
        same("fold_seg of rows of affine maps", &g, &w)
    })
}

fn fold_seg_floats() -> Check {
    each_size("reduce::fold_seg::f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let lens = Vector::from_vec(rng.lengths(n, false).into_iter().map(|l| l as u64).collect());
        let (g, r) = both!(seg_sum_f64(&Vector::from_vec(data.clone()), &lens));
        let abs = reference!(seg_sum_f64(&Vector::from_vec(abs_all(&data)), &lens));
        summed_arrays("fold_seg (f64)", &g, &r, &abs)
    })?;
    each_shape("reduce::fold_seg::f32_rows", Tier::Medium, |r, c, rng| {
        let data = rng.vec::<f32>(r * c);
        let lens = Vector::from_vec(rng.lengths(c, false).into_iter().map(|l| l as u32).collect());
        let (g, w) = both!(seg_sum_f32_rows(&Matrix::from_shape_vec([r, c], data.clone())?, &lens));
        let abs = reference!(seg_sum_f32_rows(&Matrix::from_shape_vec([r, c], abs_all(&data))?, &lens));
        summed_arrays("fold_seg of rows (f32)", &g, &w, &abs)
    })
}

fn fold1_seg_kinds() -> Check {
    each_shape("reduce::fold1_seg::max_f32_rows", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let lens = Vector::from_vec(rng.lengths(c, true).into_iter().map(|l| l as i64).collect());
        let (g, w) = both!(seg1_max_rows(&m, &lens));
        same("fold1_seg of rows (max)", &g, &w)
    })?;
    each_size("reduce::fold1_seg::affine_u32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.affine_u32(n));
        let lens = Vector::from_vec(rng.lengths(n, true).into_iter().map(|l| l as u32).collect());
        let (g, r) = both!(seg1_affine(&xs, &lens));
        same("fold1_seg of affine maps", &g, &r)
    })
}

pub fn cases() -> Vec<Case> {
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
