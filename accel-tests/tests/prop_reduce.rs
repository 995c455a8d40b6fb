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

#[macro_use]
mod common;

use accel::Error;
use accel::prelude::*;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[accel]
fn fold_f32(xs: Vector<f32>, z: f32) -> Scalar<f32> {
    xs.fold(z, |a, b| a + b)
}

#[accel]
fn fold_f64_rows(m: Matrix<f64>) -> Vector<f64> {
    m.fold(0.5, |a, b| a + b)
}

#[accel]
fn fold_affine(xs: Vector<(i64, i64)>) -> Scalar<(i64, i64)> {
    xs.fold((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn fold_affine_rows(m: Matrix<(u32, u32)>) -> Vector<(u32, u32)> {
    m.fold((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn first_argmax(xs: Vector<f32>) -> Scalar<(f32, i32)> {
    xs.imap(|i, x| (x, i as i32)).fold1(|a, b| if b.0 > a.0 { b } else { a })
}

#[accel]
fn sum_and_count(xs: Vector<f32>) -> Scalar<(f32, i32)> {
    xs.map(|x| (x, 1)).fold((0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
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
fn fold_all_affine(m: Matrix<(i64, i64)>) -> Scalar<(i64, i64)> {
    m.fold_all((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn fold_all_f64(m: Matrix<f64>) -> Scalar<f64> {
    m.fold_all(0.0, |a, b| a + b)
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
fn sums_i32(xs: Vector<i32>) -> (Scalar<i32>, Scalar<i32>) {
    (xs.sum(), xs.product())
}

#[accel]
fn extrema_i32(xs: Vector<i32>) -> (Scalar<i32>, Scalar<i32>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn sums_i64(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) {
    (xs.sum(), xs.product())
}

#[accel]
fn extrema_i64(xs: Vector<i64>) -> (Scalar<i64>, Scalar<i64>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn sums_u32(xs: Vector<u32>) -> (Scalar<u32>, Scalar<u32>) {
    (xs.sum(), xs.product())
}

#[accel]
fn extrema_u32(xs: Vector<u32>) -> (Scalar<u32>, Scalar<u32>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn sums_u64(xs: Vector<u64>) -> (Scalar<u64>, Scalar<u64>) {
    (xs.sum(), xs.product())
}

#[accel]
fn extrema_u64(xs: Vector<u64>) -> (Scalar<u64>, Scalar<u64>) {
    (xs.maximum(), xs.minimum())
}

#[accel]
fn sums_usize(xs: Vector<usize>) -> (Scalar<usize>, Scalar<usize>) {
    (xs.sum(), xs.maximum())
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
fn row_sums_i64(m: Matrix<i64>) -> (Vector<i64>, Vector<i64>) {
    (m.sum(), m.product())
}

#[accel]
fn row_extrema_i32(m: Matrix<i32>) -> (Vector<i32>, Vector<i32>) {
    (m.maximum(), m.minimum())
}

#[accel]
fn row_sum_f32(m: Matrix<f32>) -> Vector<f32> {
    m.sum()
}

#[accel]
fn row_max_f64(m: Matrix<f64>) -> Vector<f64> {
    m.maximum()
}

#[accel]
fn cube_sum(a: Array<i32, 3>) -> Matrix<i32> {
    a.sum()
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
fn check_sums<T: Float>(what: &str, cpu: &[T], interp: &[T], rows: &[Vec<f64>]) -> Check {
    let want: Vec<f64> = rows.iter().map(|r| exact_sum(r.iter().copied())).collect();
    let bound: Vec<f64> = rows.iter().map(|r| sum_bound::<T>(r.len(), r.iter().map(|x| x.abs()).sum())).collect();
    all_close(what, cpu, interp, &want, &bound)
}

/// The expected result of a reduction that may be `EmptyReduction`.
fn expect_empty_reduction<T: std::fmt::Debug>(what: &str, r: accel::Result<T>) -> Check {
    match r {
        Err(Error::EmptyReduction { .. }) => Ok(()),
        other => Err(TestCaseError::fail(format!("{what}: expected EmptyReduction, got {other:?}"))),
    }
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn fold_sums_floats_with_a_seed(xs in vec_sized(f32s(), size()), z in f32s()) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(fold_f32(&v, z));
        let terms: Vec<f64> = std::iter::once(z).chain(xs.iter().copied()).map(f64::from).collect();
        check_sums("fold f32", &[cpu.get()], &[interp.get()], &[terms])?;
    }

    #[test]
    fn fold_of_integer_valued_floats_is_exact(xs in vec_sized(int_f32s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(fold_f32(&v, 0.5));
        let want = xs.iter().fold(0.5f32, |a, b| a + b);
        all_same_bits("fold f32 (exact)", &[cpu.get()], &[interp.get()], &[want])?;
    }

    #[test]
    fn fold_rows_of_matrices(((r, c), data) in matrix_of(f64s())) {
        let m = Matrix::from_shape_vec([r, c], data.clone()).unwrap();
        let (cpu, interp) = both!(fold_f64_rows(&m));
        prop_assert_eq!(cpu.shape(), [r]);
        prop_assert_eq!(interp.shape(), [r]);
        let rows: Vec<Vec<f64>> =
            (0..r).map(|i| std::iter::once(0.5).chain(row(&data, c, i).iter().copied()).collect()).collect();
        check_sums("fold (matrix rows)", &cpu.to_vec(), &interp.to_vec(), &rows)?;
    }

    #[test]
    fn fold_keeps_the_order_of_operands(
        xs in size().prop_flat_map(pairs_i64),
        ((r, c), m) in with_shape(|r, c| pairs_u32(r * c)),
    ) {
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let (cpu, interp) = both!(fold_affine(&v));
        let want = xs.iter().copied().fold((1i64, 0i64), affine!(i64));
        all_same("fold (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(fold_affine_rows(&mm));
        let want = fold_rows(&m, c, r, (1u32, 0u32), affine!(u32));
        all_same("fold rows (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn fold_with_tuple_elements(xs in vec_sized(f32s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(sum_and_count(&v));
        let ((s_cpu, n_cpu), (s_int, n_int)) = (cpu.get(), interp.get());
        all_same("fold (f32, i32) count", &[n_cpu], &[n_int], &[xs.len() as i32])?;
        let terms: Vec<f64> = xs.iter().copied().map(f64::from).collect();
        check_sums("fold (f32, i32) sum", &[s_cpu], &[s_int], &[terms])?;
        if !xs.is_empty() {
            let (cpu, interp) = both!(first_argmax(&v));
            let want = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| (x, i as i32))
                .reduce(|a, b| if b.0 > a.0 { b } else { a })
                .unwrap();
            all_same("fold1 first argmax", &[cpu.get()], &[interp.get()], &[want])?;
        }
    }

    #[test]
    fn fold1_reduces_without_a_seed(
        xs in vec_sized(i64s(), size()),
        ((r, c), m) in matrix_of(u32s()),
        ps in size().prop_flat_map(|n| prop::collection::vec((i32s(), i32s()), n)),
    ) {
        let v = Vector::from_vec(xs.clone());
        match xs.iter().copied().reduce(i64::wrapping_add) {
            Some(want) => {
                let (cpu, interp) = both!(fold1_i64(&v));
                all_same("fold1 i64", &[cpu.get()], &[interp.get()], &[want])?;
            }
            None => {
                expect_empty_reduction("fold1 (CPU) of []", fold1_i64(rt(), &v))?;
                expect_empty_reduction("fold1 (interpreter) of []", fold1_i64::reference(&v))?;
            }
        }
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        match fold1_rows(&m, c, r, |a, b| a ^ b) {
            Some(want) => {
                let (cpu, interp) = both!(fold1_u32_rows(&mm));
                all_same("fold1 rows u32", &cpu.to_vec(), &interp.to_vec(), &want)?;
            }
            None => {
                expect_empty_reduction("fold1 rows (CPU)", fold1_u32_rows(rt(), &mm))?;
                expect_empty_reduction("fold1 rows (interpreter)", fold1_u32_rows::reference(&mm))?;
            }
        }
        let pv: Vector<(i32, i32)> = ps.iter().copied().collect();
        if let Some(want) = ps.iter().copied().reduce(affine!(i32)) {
            let (cpu, interp) = both!(fold1_affine(&pv));
            all_same("fold1 (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
        }
    }

    #[test]
    fn fold_all_in_row_major_order(
        ((r, c), m) in with_shape(|r, c| pairs_i64(r * c)),
        ((r2, c2), fm) in matrix_of(f64s()),
        (a, b, d) in (0usize..5, 0usize..7, 0usize..11),
        seed in any::<u64>(),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(fold_all_affine(&mm));
        let want = m.iter().copied().fold((1i64, 0i64), affine!(i64));
        all_same("fold_all (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
        let fmm = Matrix::from_shape_vec([r2, c2], fm.clone()).unwrap();
        let (cpu, interp) = both!(fold_all_f64(&fmm));
        check_sums("fold_all f64", &[cpu.get()], &[interp.get()], std::slice::from_ref(&fm))?;
        let mut rng = SplitMix::new(seed);
        let cube: Vec<u64> = (0..a * b * d).map(|_| rng.next_u64()).collect();
        let arr = Array::from_shape_vec([a, b, d], cube.clone()).unwrap();
        let (cpu, interp) = both!(fold_all_cube(&arr));
        let want = cube.iter().fold(7u64, |x, &y| x.wrapping_add(y));
        all_same("fold_all (rank 3)", &[cpu.get()], &[interp.get()], &[want])?;
    }

    #[test]
    fn fold1_all_of_matrices(
        ((r, c), fm) in matrix_of(f32s()),
        ((r2, c2), m) in with_shape(|r, c| prop::collection::vec((u64s(), u64s()), r * c)),
    ) {
        let fmm = Matrix::from_shape_vec([r, c], fm.clone()).unwrap();
        match fm.iter().copied().reduce(f32::min) {
            Some(want) => {
                let (cpu, interp) = both!(fold1_all_min(&fmm));
                all_same("fold1_all min", &[cpu.get()], &[interp.get()], &[want])?;
            }
            None => {
                expect_empty_reduction("fold1_all (CPU) of empty", fold1_all_min(rt(), &fmm))?;
                expect_empty_reduction("fold1_all (interpreter) of empty", fold1_all_min::reference(&fmm))?;
            }
        }
        let mm = Matrix::from_shape_vec([r2, c2], m.clone()).unwrap();
        if let Some(want) = m.iter().copied().reduce(affine!(u64)) {
            let (cpu, interp) = both!(fold1_all_affine(&mm));
            all_same("fold1_all (affine maps)", &[cpu.get()], &[interp.get()], &[want])?;
        }
    }

    #[test]
    fn sum_product_maximum_minimum_i32(xs in vec_sized(i32s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(sums_i32(&v));
        let s = xs.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        let p = xs.iter().fold(1i32, |a, &b| a.wrapping_mul(b));
        all_same("sum i32", &[s_cpu.get()], &[s_int.get()], &[s])?;
        all_same("product i32", &[p_cpu.get()], &[p_int.get()], &[p])?;
        if !xs.is_empty() {
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_i32(&v));
            all_same("maximum i32", &[mx_cpu.get()], &[mx_int.get()], &[*xs.iter().max().unwrap()])?;
            all_same("minimum i32", &[mn_cpu.get()], &[mn_int.get()], &[*xs.iter().min().unwrap()])?;
        }
    }

    #[test]
    fn sum_product_maximum_minimum_i64(xs in vec_sized(i64s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(sums_i64(&v));
        let s = xs.iter().fold(0i64, |a, &b| a.wrapping_add(b));
        let p = xs.iter().fold(1i64, |a, &b| a.wrapping_mul(b));
        all_same("sum i64", &[s_cpu.get()], &[s_int.get()], &[s])?;
        all_same("product i64", &[p_cpu.get()], &[p_int.get()], &[p])?;
        if !xs.is_empty() {
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_i64(&v));
            all_same("maximum i64", &[mx_cpu.get()], &[mx_int.get()], &[*xs.iter().max().unwrap()])?;
            all_same("minimum i64", &[mn_cpu.get()], &[mn_int.get()], &[*xs.iter().min().unwrap()])?;
        }
    }

    #[test]
    fn sum_product_maximum_minimum_unsigned(
        xs in vec_sized(u32s(), size()),
        ys in vec_sized(u64s(), size()),
        zs in vec_sized(0usize..1 << 40, size()),
    ) {
        let v = Vector::from_vec(xs.clone());
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(sums_u32(&v));
        all_same("sum u32", &[s_cpu.get()], &[s_int.get()], &[xs.iter().fold(0u32, |a, &b| a.wrapping_add(b))])?;
        all_same("product u32", &[p_cpu.get()], &[p_int.get()], &[xs.iter().fold(1u32, |a, &b| a.wrapping_mul(b))])?;
        if !xs.is_empty() {
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_u32(&v));
            all_same("maximum u32", &[mx_cpu.get()], &[mx_int.get()], &[*xs.iter().max().unwrap()])?;
            all_same("minimum u32", &[mn_cpu.get()], &[mn_int.get()], &[*xs.iter().min().unwrap()])?;
        }
        let v = Vector::from_vec(ys.clone());
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(sums_u64(&v));
        all_same("sum u64", &[s_cpu.get()], &[s_int.get()], &[ys.iter().fold(0u64, |a, &b| a.wrapping_add(b))])?;
        all_same("product u64", &[p_cpu.get()], &[p_int.get()], &[ys.iter().fold(1u64, |a, &b| a.wrapping_mul(b))])?;
        if !ys.is_empty() {
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_u64(&v));
            all_same("maximum u64", &[mx_cpu.get()], &[mx_int.get()], &[*ys.iter().max().unwrap()])?;
            all_same("minimum u64", &[mn_cpu.get()], &[mn_int.get()], &[*ys.iter().min().unwrap()])?;
        }
        if !zs.is_empty() {
            let v = Vector::from_vec(zs.clone());
            let ((s_cpu, m_cpu), (s_int, m_int)) = both!(sums_usize(&v));
            all_same("sum usize", &[s_cpu.get()], &[s_int.get()], &[zs.iter().sum::<usize>()])?;
            all_same("maximum usize", &[m_cpu.get()], &[m_int.get()], &[*zs.iter().max().unwrap()])?;
        }
    }

    #[test]
    fn sum_product_maximum_minimum_f32(
        xs in vec_sized(f32s(), size()),
        ps in vec_sized(f32_near_one(), size()),
        is in vec_sized(int_f32s(), size()),
    ) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(sum_f32(&v));
        check_sums("sum f32", &[cpu.get()], &[interp.get()], &[xs.iter().map(|&x| x as f64).collect()])?;
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(sum_f32(&v));
        all_same_bits(
            "sum f32 (integer-valued, exact)",
            &[cpu.get()],
            &[interp.get()],
            &[is.iter().fold(0.0f32, |a, b| a + b)],
        )?;
        let v = Vector::from_vec(ps.clone());
        let (cpu, interp) = both!(product_f32(&v));
        let p: f64 = ps.iter().map(|&x| x as f64).product();
        all_close("product f32", &[cpu.get()], &[interp.get()], &[p], &[product_bound::<f32>(ps.len(), p)])?;
        if !xs.is_empty() {
            let v = Vector::from_vec(xs.clone());
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_f32(&v));
            let mx = xs.iter().copied().reduce(f32::max).unwrap();
            let mn = xs.iter().copied().reduce(f32::min).unwrap();
            all_same("maximum f32", &[mx_cpu.get()], &[mx_int.get()], &[mx])?;
            all_same("minimum f32", &[mn_cpu.get()], &[mn_int.get()], &[mn])?;
        }
    }

    #[test]
    fn sum_product_maximum_minimum_f64(xs in vec_sized(f64s(), size()), ps in vec_sized(f64_near_one(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(sum_f64(&v));
        check_sums("sum f64", &[cpu.get()], &[interp.get()], std::slice::from_ref(&xs))?;
        let v = Vector::from_vec(ps.clone());
        let (cpu, interp) = both!(product_f64(&v));
        // The f64 oracle itself rounds n times: twice the bound covers both.
        let p: f64 = ps.iter().product();
        all_close("product f64", &[cpu.get()], &[interp.get()], &[p], &[2.0 * product_bound::<f64>(ps.len(), p)])?;
        if !xs.is_empty() {
            let v = Vector::from_vec(xs.clone());
            let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_f64(&v));
            let mx = xs.iter().copied().reduce(f64::max).unwrap();
            let mn = xs.iter().copied().reduce(f64::min).unwrap();
            all_same("maximum f64", &[mx_cpu.get()], &[mx_int.get()], &[mx])?;
            all_same("minimum f64", &[mn_cpu.get()], &[mn_int.get()], &[mn])?;
        }
    }

    #[test]
    fn row_reductions_of_matrices(
        ((r, c), m) in matrix_of(i64s()),
        ((r2, c2), m2) in matrix_of(i32s()),
        ((r3, c3), m3) in matrix_of(f32s()),
        ((r4, c4), m4) in matrix_of(f64s()),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(row_sums_i64(&mm));
        all_same("sum rows i64", &s_cpu.to_vec(), &s_int.to_vec(), &fold_rows(&m, c, r, 0, i64::wrapping_add))?;
        all_same("product rows i64", &p_cpu.to_vec(), &p_int.to_vec(), &fold_rows(&m, c, r, 1, i64::wrapping_mul))?;
        let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
        match (fold1_rows(&m2, c2, r2, i32::max), fold1_rows(&m2, c2, r2, i32::min)) {
            (Some(mx), Some(mn)) => {
                let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(row_extrema_i32(&mm));
                all_same("maximum rows i32", &mx_cpu.to_vec(), &mx_int.to_vec(), &mx)?;
                all_same("minimum rows i32", &mn_cpu.to_vec(), &mn_int.to_vec(), &mn)?;
            }
            _ => {
                // Rows of length 0: `maximum` has no value.
                expect_empty_reduction("maximum of empty rows (CPU)", row_extrema_i32(rt(), &mm))?;
                expect_empty_reduction("maximum of empty rows (interpreter)", row_extrema_i32::reference(&mm))?;
            }
        }
        let mm = Matrix::from_shape_vec([r3, c3], m3.clone()).unwrap();
        let (cpu, interp) = both!(row_sum_f32(&mm));
        let rows: Vec<Vec<f64>> = (0..r3).map(|i| row(&m3, c3, i).iter().map(|&x| x as f64).collect()).collect();
        check_sums("sum rows f32", &cpu.to_vec(), &interp.to_vec(), &rows)?;
        let mm = Matrix::from_shape_vec([r4, c4], m4.clone()).unwrap();
        if let Some(want) = fold1_rows(&m4, c4, r4, f64::max) {
            let (cpu, interp) = both!(row_max_f64(&mm));
            all_same("maximum rows f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        }
    }

    #[test]
    fn sum_of_rank3_reduces_the_innermost(a in 0usize..5, b in 0usize..7, d in 0usize..11, seed in any::<u64>()) {
        let data = SplitMix::new(seed).i32s(a * b * d);
        let arr = Array::from_shape_vec([a, b, d], data.clone()).unwrap();
        let (cpu, interp) = both!(cube_sum(&arr));
        prop_assert_eq!(cpu.shape(), [a, b]);
        prop_assert_eq!(interp.shape(), [a, b]);
        all_same("sum (rank 3)", &cpu.to_vec(), &interp.to_vec(), &fold_rows(&data, d, a * b, 0, i32::wrapping_add))?;
    }

    #[test]
    fn fold_seg_reduces_each_segment(
        (xs, lens) in size().prop_flat_map(|n| (vec_of(i64s(), n), lengths_summing_to(n))),
    ) {
        let v = Vector::from_vec(xs.clone());
        let l = Vector::from_vec(lens.iter().map(|&x| x as i32).collect());
        let (cpu, interp) = both!(seg_sum_i64(&v, &l));
        let want: Vec<i64> =
            segment_ranges(&lens).into_iter().map(|r| xs[r].iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        all_same("fold_seg i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn fold_seg_of_matrix_rows_keeps_operand_order(
        ((r, c), (m, lens)) in with_shape(|r, c| (pairs_i64(r * c), lengths_summing_to(c))),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let l = Vector::from_vec(lens.clone());
        let (cpu, interp) = both!(seg_affine_rows(&mm, &l));
        prop_assert_eq!(cpu.shape(), [r, lens.len()]);
        prop_assert_eq!(interp.shape(), [r, lens.len()]);
        let mut want = Vec::new();
        for i in 0..r {
            for s in segment_ranges(&lens) {
                want.push(row(&m, c, i)[s].iter().copied().fold((1i64, 0i64), affine!(i64)));
            }
        }
        all_same("fold_seg rows (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn fold_seg_of_floats(
        (xs, lens) in size().prop_flat_map(|n| (vec_of(f64s(), n), lengths_summing_to(n))),
        ((r, c), (m, lens2)) in with_shape(|r, c| (vec_of(int_f32s(), r * c), lengths_summing_to(c))),
    ) {
        let v = Vector::from_vec(xs.clone());
        let l = Vector::from_vec(lens.iter().map(|&x| x as u64).collect());
        let (cpu, interp) = both!(seg_sum_f64(&v, &l));
        let segs: Vec<Vec<f64>> = segment_ranges(&lens)
            .into_iter()
            .map(|r| std::iter::once(0.25).chain(xs[r].iter().copied()).collect())
            .collect();
        check_sums("fold_seg f64", &cpu.to_vec(), &interp.to_vec(), &segs)?;
        // Integer-valued: exact in any grouping.
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let l = Vector::from_vec(lens2.iter().map(|&x| x as u32).collect());
        let (cpu, interp) = both!(seg_sum_f32_rows(&mm, &l));
        let mut want = Vec::new();
        for i in 0..r {
            for s in segment_ranges(&lens2) {
                want.push(row(&m, c, i)[s].iter().fold(0.0f32, |a, b| a + b));
            }
        }
        all_same_bits("fold_seg rows f32 (exact)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn fold1_seg_reduces_nonempty_segments(
        ((r, c), (m, lens)) in with_shape(|r, c| (vec_of(f32s(), r * c), positive_lengths_summing_to(c))),
        (ps, lens2) in size().prop_flat_map(|n| (pairs_u32(n), positive_lengths_summing_to(n))),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let l = Vector::from_vec(lens.iter().map(|&x| x as i64).collect());
        let (cpu, interp) = both!(seg1_max_rows(&mm, &l));
        let mut want = Vec::new();
        for i in 0..r {
            for s in segment_ranges(&lens) {
                want.push(row(&m, c, i)[s].iter().copied().reduce(f32::max).unwrap());
            }
        }
        all_same("fold1_seg rows max", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v: Vector<(u32, u32)> = ps.iter().copied().collect();
        let l = Vector::from_vec(lens2.iter().map(|&x| x as u32).collect());
        let (cpu, interp) = both!(seg1_affine(&v, &l));
        let want: Vec<(u32, u32)> =
            segment_ranges(&lens2).into_iter().map(|s| ps[s].iter().copied().reduce(affine!(u32)).unwrap()).collect();
        all_same("fold1_seg (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }
}

proptest! {
    // Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
    #![proptest_config(config(4))]

    #[test]
    fn large_reductions(n in large_size(), seed in any::<u64>()) {
        let mut rng = SplitMix::new(seed);
        let xs = rng.f32s(n, -100.0, 100.0);
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(sum_f32(&v));
        check_sums("sum f32 (large)", &[cpu.get()], &[interp.get()], &[xs.iter().map(|&x| x as f64).collect()])?;
        let is = rng.int_f32s(n);
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(fold_f32(&v, 0.5));
        all_same_bits(
            "fold f32 (large, integer-valued, exact)",
            &[cpu.get()],
            &[interp.get()],
            &[is.iter().fold(0.5f32, |a, b| a + b)],
        )?;
        let ((mx_cpu, mn_cpu), (mx_int, mn_int)) = both!(extrema_f32(&v));
        all_same(
            "maximum f32 (large)",
            &[mx_cpu.get()],
            &[mx_int.get()],
            &[is.iter().copied().reduce(f32::max).unwrap()],
        )?;
        all_same(
            "minimum f32 (large)",
            &[mn_cpu.get()],
            &[mn_int.get()],
            &[is.iter().copied().reduce(f32::min).unwrap()],
        )?;
        let ps: Vec<(i64, i64)> = (0..n).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let v: Vector<(i64, i64)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(fold_affine(&v));
        all_same(
            "fold (large, affine maps)",
            &[cpu.get()],
            &[interp.get()],
            &[ps.iter().copied().fold((1, 0), affine!(i64))],
        )?;
    }

    #[test]
    fn large_row_and_segment_reductions(
        rows in prop::sample::select(vec![1usize, 3, 257]),
        n in large_size(),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix::new(seed);
        let c = n / rows;
        let m = rng.i64s(rows * c);
        let mm = Matrix::from_shape_vec([rows, c], m.clone()).unwrap();
        let ((s_cpu, p_cpu), (s_int, p_int)) = both!(row_sums_i64(&mm));
        all_same("sum rows (large)", &s_cpu.to_vec(), &s_int.to_vec(), &fold_rows(&m, c, rows, 0, i64::wrapping_add))?;
        all_same(
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
        let (cpu, interp) = both!(seg_sum_i64(&v, &l));
        let want: Vec<i64> =
            segment_ranges(&lens).into_iter().map(|r| xs[r].iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        all_same("fold_seg (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }
}
