//! Errors are values: each failing program returns the same `accel::Error` variant (with the same
//! index and shape, where it has them) on the CPU backend and in the interpreter. Also the
//! non-errors next to them: `fold` of nothing is its seed, `None` drops a `permute` source,
//! `zip_with` of different shapes takes the intersection, float division by zero is IEEE, and
//! every combinator accepts empty arrays.

#[macro_use]
mod common;

use accel::Error;
use accel::prelude::*;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

#[accel]
fn read_at(xs: Vector<f32>, i: usize) -> Scalar<f32> {
    unit(xs[i])
}

#[accel]
fn gather_through(xs: Vector<i64>, idx: Vector<usize>) -> Vector<i64> {
    idx.map(|j| xs[j])
}

#[accel]
fn read_matrix(m: Matrix<i32>, i: usize, j: usize) -> Scalar<i32> {
    unit(m[(i, j)])
}

#[accel]
fn shifted_gather(xs: Vector<u32>, k: usize) -> Vector<u32> {
    xs.backpermute(xs.len(), |i| if i == 0 { k } else { i - 1 })
}

#[accel]
fn matrix_gather(m: Matrix<f64>, k: usize) -> Matrix<f64> {
    let (r, c) = m.shape();
    m.backpermute((r, c), |(i, j)| if i + j == 0 { (r - 1, c - 1 + k) } else { (i, j) })
}

#[accel]
fn scatter_to(xs: Vector<i32>, dst: Vector<usize>, n: usize) -> Vector<i32> {
    xs.permute(fill(n, 0), |i| dst[i], |a, b| a + b)
}

#[accel]
fn scatter_some_to(xs: Vector<i32>, dst: Vector<i64>, n: usize) -> Vector<i32> {
    xs.permute(fill(n, 0), |i| if dst[i] < 0 { None } else { Some(dst[i] as usize) }, |a, b| a + b)
}

#[accel]
fn scatter_matrix(xs: Vector<u64>, r: usize, c: usize, bad: usize) -> Matrix<u64> {
    xs.permute(fill((r, c), 0u64), |i| if i == bad { Some((r, 0)) } else { Some((i % r, i % c)) }, |a, b| a ^ b)
}

#[accel]
fn slice_row_of(m: Matrix<i64>, i: usize) -> Vector<i64> {
    m.slice_row(i)
}

#[accel]
fn slice_col_of(m: Matrix<i64>, j: usize) -> Vector<i64> {
    m.slice_col(j)
}

#[accel]
fn seeded_reductions(
    xs: Vector<f32>,
    m: Matrix<i64>,
) -> (Scalar<f32>, Scalar<f32>, Scalar<f32>, Vector<i64>, Scalar<i64>, Vector<i64>) {
    (
        xs.fold(2.5, |a, b| a + b),
        xs.sum(),
        xs.product(),
        m.fold(-4, |a, b| a * b),
        m.fold_all(9, |a, b| a + b),
        m.product(),
    )
}

#[accel]
fn fold1_of(xs: Vector<f32>) -> Scalar<f32> {
    xs.fold1(|a, b| a + b)
}

#[accel]
fn maximum_of(xs: Vector<i32>) -> Scalar<i32> {
    xs.maximum()
}

#[accel]
fn minimum_of(xs: Vector<u64>) -> Scalar<u64> {
    xs.minimum()
}

#[accel]
fn fold1_all_of(m: Matrix<f64>) -> Scalar<f64> {
    m.fold1_all(|a, b| a.max(b))
}

#[accel]
fn maximum_rows(m: Matrix<i32>) -> Vector<i32> {
    m.maximum()
}

#[accel]
fn fold1_seg_of(xs: Vector<i32>, lens: Vector<i32>) -> Vector<i32> {
    xs.fold1_seg(|a, b| a + b, lens)
}

#[accel]
fn nested_maximum(n: Nested<i32>) -> Vector<i32> {
    n.maximum()
}

#[accel]
fn seg_sum(xs: Vector<i64>, lens: Vector<i32>) -> Vector<i64> {
    xs.fold_seg(0, |a, b| a + b, lens)
}

#[accel]
fn seg_scan(xs: Vector<i64>, lens: Vector<i64>) -> Vector<i64> {
    xs.scanl_seg(0, |a, b| a + b, lens)
}

#[accel]
fn seg_scan1_rows(m: Matrix<f32>, lens: Vector<i32>) -> Matrix<f32> {
    m.scanl1_seg(|a, b| a + b, lens)
}

#[accel]
fn nested_from(lens: Vector<i32>, xs: Vector<f32>) -> Nested<f32> {
    Nested::from_lengths(lens, xs)
}

#[accel]
fn reshape_to(xs: Vector<i32>, r: usize, c: usize) -> Matrix<i32> {
    xs.reshape((r, c))
}

#[accel]
fn reshape_matrix(m: Matrix<i32>, n: usize) -> Vector<i32> {
    m.reshape(n)
}

#[accel]
fn divide(xs: Vector<i32>, d: i32) -> Vector<i32> {
    xs.map(|x| x / d)
}

#[accel]
fn remainder(xs: Vector<u64>, ys: Vector<u64>) -> Vector<u64> {
    xs.zip_with(ys, |x, y| x % y)
}

#[accel]
fn divide_scalars(a: i64, b: i64) -> Scalar<i64> {
    unit(a / b)
}

#[accel]
fn divide_by_index(n: usize) -> Vector<usize> {
    generate(n, |i| 100 / (i % 3))
}

#[accel]
fn float_division(xs: Vector<f64>) -> Vector<f64> {
    xs.map(|x| x / 0.0)
}

#[accel]
fn expand_signed(xs: Vector<i32>) -> Vector<i32> {
    xs.expand(|x| x, |x, i| x + i as i32)
}

#[accel]
fn expand_i64(xs: Vector<i64>) -> Vector<i64> {
    xs.expand(|x| x - 1, |x, i| x)
}

#[accel]
fn zip_shapes(a: Matrix<i32>, b: Matrix<i32>) -> Matrix<i32> {
    a.zip_with(b, |x, y| x - y)
}

/// Checks that both backends failed with the same variant (and, for an index error, the same
/// index and shape), and returns the CPU backend's error for further checks.
fn same_error(what: &str, cpu: Error, interp: Error) -> Result<Error, TestCaseError> {
    let agree = match (&cpu, &interp) {
        (
            Error::IndexOutOfBounds { index: i1, shape: s1, .. },
            Error::IndexOutOfBounds { index: i2, shape: s2, .. },
        ) => i1 == i2 && s1 == s2,
        _ => std::mem::discriminant(&cpu) == std::mem::discriminant(&interp),
    };
    if !agree {
        return Err(TestCaseError::fail(format!(
            "{what}: the backends disagree:\n  CPU backend: {cpu:?}\n  interpreter: {interp:?}"
        )));
    }
    Ok(cpu)
}

/// `IndexOutOfBounds` with exactly this index and shape.
fn expect_index_error(what: &str, e: &Error, index: &[usize], shape: &[usize]) -> Check {
    match e {
        Error::IndexOutOfBounds { index: i, shape: s, .. } if i == index && s == shape => Ok(()),
        other => Err(TestCaseError::fail(format!(
            "{what}: expected IndexOutOfBounds {{ index: {index:?}, shape: {shape:?} }}, got {other:?}"
        ))),
    }
}

fn expect_variant(what: &str, e: &Error, want: &str) -> Check {
    let name = format!("{e:?}");
    if name.starts_with(want) {
        Ok(())
    } else {
        Err(TestCaseError::fail(format!("{what}: expected {want}, got {e:?}")))
    }
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn out_of_range_reads_are_index_errors(xs in vec_sized(f32s(), small_size()), past in 0usize..100) {
        let n = xs.len();
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both_err!(read_at(&v, n + past));
        let e = same_error("xs[i]", cpu, interp)?;
        expect_index_error("xs[i] past the end", &e, &[n + past], &[n])?;
        if n > 0 {
            let (cpu, interp) = both!(read_at(&v, n - 1));
            all_same_bits("xs[len - 1]", &[cpu.get()], &[interp.get()], &[xs[n - 1]])?;
        }
    }

    #[test]
    fn out_of_range_reads_inside_a_map(n in 1usize..3000, at in any::<prop::sample::Index>(), past in 0usize..10) {
        // One bad index among good ones: the error names it.
        let xs: Vec<i64> = (0..n as i64).map(|x| x * 3 - 7).collect();
        let mut idx: Vec<usize> = (0..n).rev().collect();
        let bad = at.index(n);
        idx[bad] = n + past;
        let (v, iv) = (Vector::from_vec(xs), Vector::from_vec(idx));
        let (cpu, interp) = both_err!(gather_through(&v, &iv));
        let e = same_error("idx.map(|j| xs[j])", cpu, interp)?;
        expect_index_error("xs[j] in a map", &e, &[n + past], &[n])?;
    }

    #[test]
    fn out_of_range_matrix_reads((r, c) in nonempty_shape(), past in 0usize..5, row_or_col in any::<bool>()) {
        let m = Matrix::from_shape_vec([r, c], (0..(r * c) as i32).collect()).unwrap();
        let (i, j) = if row_or_col { (r + past, 0) } else { (r - 1, c + past) };
        let (cpu, interp) = both_err!(read_matrix(&m, i, j));
        let e = same_error("m[(i, j)]", cpu, interp)?;
        expect_index_error("m[(i, j)]", &e, &[i, j], &[r, c])?;
        let (cpu, interp) = both!(read_matrix(&m, r - 1, c - 1));
        all_same("m[(r - 1, c - 1)]", &[cpu.get()], &[interp.get()], &[(r * c - 1) as i32])?;
    }

    #[test]
    fn backpermute_sources_out_of_range(
        xs in vec_sized(u32s(), small_size()).prop_filter("non-empty", |v| !v.is_empty()),
        past in 0usize..5,
        (r, c) in nonempty_shape(),
    ) {
        let n = xs.len();
        let v = Vector::from_vec(xs);
        let (cpu, interp) = both_err!(shifted_gather(&v, n + past));
        let e = same_error("backpermute", cpu, interp)?;
        expect_index_error("backpermute source", &e, &[n + past], &[n])?;
        let m = Matrix::from_shape_vec([r, c], vec![1.5f64; r * c]).unwrap();
        let (cpu, interp) = both_err!(matrix_gather(&m, 1 + past));
        let e = same_error("backpermute (matrix)", cpu, interp)?;
        expect_index_error("backpermute source (matrix)", &e, &[r - 1, c + past], &[r, c])?;
    }

    #[test]
    fn permute_destinations_out_of_range(
        n in 1usize..50,
        m in 1usize..3000,
        bad in any::<prop::sample::Index>(),
        past in 0usize..5,
    ) {
        let xs: Vec<i32> = (0..m as i32).collect();
        let mut dst: Vec<usize> = (0..m).map(|i| i % n).collect();
        let bad = bad.index(m);
        dst[bad] = n + past;
        let (v, d) = (Vector::from_vec(xs.clone()), Vector::from_vec(dst.clone()));
        let (cpu, interp) = both_err!(scatter_to(&v, &d, n));
        let e = same_error("permute", cpu, interp)?;
        expect_index_error("permute destination", &e, &[n + past], &[n])?;
        // `None` drops the source instead: no bounds check, no effect.
        let signed: Vec<i64> = dst.iter().enumerate().map(|(i, &t)| if i == bad { -1 } else { t as i64 }).collect();
        let d = Vector::from_vec(signed);
        let (cpu, interp) = both!(scatter_some_to(&v, &d, n));
        let mut want = vec![0i32; n];
        for (i, &t) in dst.iter().enumerate() {
            if i != bad {
                want[t] += xs[i];
            }
        }
        all_same("permute with None", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn permute_matrix_destination_out_of_range(
        (r, c) in nonempty_shape(),
        m in 1usize..500,
        bad in any::<prop::sample::Index>(),
    ) {
        let v = Vector::from_vec((0..m as u64).collect());
        let (cpu, interp) = both_err!(scatter_matrix(&v, r, c, bad.index(m)));
        let e = same_error("permute (matrix)", cpu, interp)?;
        expect_index_error("permute destination (matrix)", &e, &[r, 0], &[r, c])?;
    }

    #[test]
    fn slices_out_of_range((r, c) in shape(), past in 0usize..5) {
        let m = Matrix::from_shape_vec([r, c], (0..(r * c) as i64).collect()).unwrap();
        let (cpu, interp) = both_err!(slice_row_of(&m, r + past));
        let e = same_error("slice_row", cpu, interp)?;
        // The index of the error is an index of the matrix: the row, and column 0.
        expect_index_error("slice_row", &e, &[r + past, 0], &[r, c])?;
        let (cpu, interp) = both_err!(slice_col_of(&m, c + past));
        let e = same_error("slice_col", cpu, interp)?;
        expect_index_error("slice_col", &e, &[0, c + past], &[r, c])?;
    }

    #[test]
    fn invalid_segment_lengths(n in 0usize..200, extra in 1i32..5) {
        let xs: Vec<i64> = (0..n as i64).map(|x| x + 1).collect();
        let v = Vector::from_vec(xs);
        // Lengths that sum past the end or short of it, and a negative length where the sum is
        // right.
        let half = n as i32 / 2;
        for lens in [
            vec![n as i32 + extra],
            vec![half, n as i32 - half + extra],
            vec![n as i32 - extra],
            vec![n as i32 + 1, -1],
        ] {
            let l = Vector::from_vec(lens.clone());
            let (cpu, interp) = both_err!(seg_sum(&v, &l));
            let e = same_error(&format!("fold_seg with lengths {lens:?}"), cpu, interp)?;
            expect_variant("fold_seg", &e, "InvalidSegments")?;
            let l64 = Vector::from_vec(lens.iter().map(|&x| x as i64).collect());
            let (cpu, interp) = both_err!(seg_scan(&v, &l64));
            let e = same_error(&format!("scanl_seg with lengths {lens:?}"), cpu, interp)?;
            expect_variant("scanl_seg", &e, "InvalidSegments")?;
            let f = Vector::from_vec(vec![1.0f32; n]);
            let (cpu, interp) = both_err!(nested_from(&l, &f));
            let e = same_error(&format!("Nested::from_lengths {lens:?}"), cpu, interp)?;
            expect_variant("Nested::from_lengths", &e, "InvalidSegments")?;
        }
    }

    #[test]
    fn reshape_size_mismatch(n in 0usize..500, r in 0usize..30, c in 0usize..30) {
        prop_assume!(r * c != n);
        let v = Vector::from_vec((0..n as i32).collect());
        let (cpu, interp) = both_err!(reshape_to(&v, r, c));
        let e = same_error("reshape", cpu, interp)?;
        expect_variant("reshape", &e, "ShapeMismatch")?;
        let m = Matrix::from_shape_vec([1, n], (0..n as i32).collect()).unwrap();
        let (cpu, interp) = both_err!(reshape_matrix(&m, n + 1 + r));
        let e = same_error("reshape (matrix)", cpu, interp)?;
        expect_variant("reshape (matrix)", &e, "ShapeMismatch")?;
    }

    #[test]
    fn integer_division_by_zero(
        xs in vec_sized(i32s(), small_size()),
        ys in vec_sized(1u64..1000, small_size()),
        zero in any::<prop::sample::Index>(),
    ) {
        let v = Vector::from_vec(xs.clone());
        if !xs.is_empty() {
            let (cpu, interp) = both_err!(divide(&v, 0));
            let e = same_error("x / 0", cpu, interp)?;
            expect_variant("x / 0", &e, "DivisionByZero")?;
        }
        // Dividing nothing by zero is no error.
        let empty = Vector::from_vec(Vec::<i32>::new());
        let (cpu, interp) = both!(divide(&empty, 0));
        prop_assert!(cpu.is_empty() && interp.is_empty());
        if !ys.is_empty() {
            let mut ds = ys.clone();
            ds[zero.index(ys.len())] = 0;
            let (a, b) = (Vector::from_vec(ys.clone()), Vector::from_vec(ds));
            let (cpu, interp) = both_err!(remainder(&a, &b));
            let e = same_error("x % 0", cpu, interp)?;
            expect_variant("x % 0", &e, "DivisionByZero")?;
        }
    }
}

#[test]
fn division_by_zero_in_scalar_code() -> Check {
    let (cpu, interp) = both_err!(divide_scalars(7, 0));
    expect_variant("a / 0", &same_error("a / 0", cpu, interp)?, "DivisionByZero")?;
    let (cpu, interp) = both_err!(divide_scalars(i64::MIN, 0));
    expect_variant("MIN / 0", &same_error("MIN / 0", cpu, interp)?, "DivisionByZero")?;
    // MIN / -1 wraps rather than failing.
    let (cpu, interp) = both!(divide_scalars(i64::MIN, -1));
    all_same("MIN / -1", &[cpu.get()], &[interp.get()], &[i64::MIN])?;
    let (cpu, interp) = both_err!(divide_by_index(5));
    expect_variant("100 / (i % 3)", &same_error("100 / (i % 3)", cpu, interp)?, "DivisionByZero")?;
    let (cpu, interp) = both!(divide_by_index(0));
    all_same("generate of nothing divides nothing", &cpu.to_vec(), &interp.to_vec(), &[])?;
    // Floats divide by zero as IEEE says.
    let v = Vector::from_vec(vec![1.0f64, -2.0, 0.0]);
    let (cpu, interp) = both!(float_division(&v));
    all_same_bits("x / 0.0", &cpu.to_vec(), &interp.to_vec(), &[f64::INFINITY, f64::NEG_INFINITY, f64::NAN])
}

#[test]
fn reductions_of_nothing() -> Check {
    // `fold` of nothing is its seed; `fold1`, `maximum`, `minimum` of nothing have no value.
    let none = Vector::from_vec(Vec::<f32>::new());
    for (r, c) in [(0, 0), (0, 3), (3, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<i64>::new()).unwrap();
        let ((f_c, s_c, p_c, rows_c, all_c, prod_c), (f_i, s_i, p_i, rows_i, all_i, prod_i)) =
            both!(seeded_reductions(&none, &m));
        all_same_bits("fold of []", &[f_c.get()], &[f_i.get()], &[2.5])?;
        all_same_bits("sum of []", &[s_c.get()], &[s_i.get()], &[0.0])?;
        all_same_bits("product of []", &[p_c.get()], &[p_i.get()], &[1.0])?;
        all_same(&format!("fold of {r}x{c} rows"), &rows_c.to_vec(), &rows_i.to_vec(), &vec![-4; r])?;
        all_same(&format!("fold_all of {r}x{c}"), &[all_c.get()], &[all_i.get()], &[9])?;
        all_same(&format!("product of {r}x{c} rows"), &prod_c.to_vec(), &prod_i.to_vec(), &vec![1; r])?;
    }
    let (cpu, interp) = both_err!(fold1_of(&none));
    expect_variant("fold1 of []", &same_error("fold1 of []", cpu, interp)?, "EmptyReduction")?;
    let (cpu, interp) = both_err!(maximum_of(&Vector::from_vec(vec![])));
    expect_variant("maximum of []", &same_error("maximum of []", cpu, interp)?, "EmptyReduction")?;
    let (cpu, interp) = both_err!(minimum_of(&Vector::from_vec(vec![])));
    expect_variant("minimum of []", &same_error("minimum of []", cpu, interp)?, "EmptyReduction")?;
    for (r, c) in [(0, 0), (0, 4), (4, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<f64>::new()).unwrap();
        let (cpu, interp) = both_err!(fold1_all_of(&m));
        expect_variant("fold1_all of empty", &same_error("fold1_all of empty", cpu, interp)?, "EmptyReduction")?;
    }
    // Rows of length 0: an error when there is a row, an empty result when there is none.
    let m = Matrix::from_shape_vec([3, 0], Vec::<i32>::new()).unwrap();
    let (cpu, interp) = both_err!(maximum_rows(&m));
    expect_variant("maximum of 3 empty rows", &same_error("maximum of 3 empty rows", cpu, interp)?, "EmptyReduction")?;
    let m = Matrix::from_shape_vec([0, 0], Vec::<i32>::new()).unwrap();
    let (cpu, interp) = both!(maximum_rows(&m));
    all_same("maximum of no rows", &cpu.to_vec(), &interp.to_vec(), &[])?;
    // An empty segment or an empty nested row has no maximum.
    let (v, l) = (Vector::from_vec(vec![1, 2, 3]), Vector::from_vec(vec![2, 0, 1]));
    let (cpu, interp) = both_err!(fold1_seg_of(&v, &l));
    expect_variant("fold1_seg with an empty segment", &same_error("fold1_seg", cpu, interp)?, "EmptyReduction")?;
    let (v, l) = (Vector::from_vec(vec![1, 2, 3]), Vector::from_vec(vec![2, 1]));
    let (cpu, interp) = both!(fold1_seg_of(&v, &l));
    all_same("fold1_seg", &cpu.to_vec(), &interp.to_vec(), &[3, 3])?;
    let n = Nested::from_rows(vec![vec![4, 1], vec![], vec![2]]);
    let (cpu, interp) = both_err!(nested_maximum(&n));
    expect_variant(
        "Nested::maximum with an empty row",
        &same_error("Nested::maximum", cpu, interp)?,
        "EmptyReduction",
    )?;
    let n = Nested::from_rows(Vec::<Vec<i32>>::new());
    let (cpu, interp) = both!(nested_maximum(&n));
    all_same("Nested::maximum of no rows", &cpu.to_vec(), &interp.to_vec(), &[])
}

#[test]
fn segments_that_do_not_cover_the_rows() -> Check {
    let m = Matrix::from_shape_vec([2, 3], vec![1.0f32; 6]).unwrap();
    for lens in [vec![2, 2], vec![1, 1], vec![4], vec![], vec![3, -1, 1]] {
        let l = Vector::from_vec(lens.clone());
        let (cpu, interp) = both_err!(seg_scan1_rows(&m, &l));
        expect_variant(&format!("scanl1_seg {lens:?}"), &same_error("scanl1_seg", cpu, interp)?, "InvalidSegments")?;
    }
    let f = Vector::from_vec(vec![1.0f32; 5]);
    for lens in [vec![2, 2], vec![6], vec![]] {
        let l = Vector::from_vec(lens.clone());
        let (cpu, interp) = both_err!(nested_from(&l, &f));
        expect_variant(
            &format!("Nested::from_lengths {lens:?}"),
            &same_error("Nested::from_lengths", cpu, interp)?,
            "InvalidSegments",
        )?;
    }
    // Zero segments over zero elements are fine.
    let (e, l) = (Vector::from_vec(Vec::<i64>::new()), Vector::from_vec(Vec::<i32>::new()));
    let (cpu, interp) = both!(seg_sum(&e, &l));
    all_same("fold_seg of nothing", &cpu.to_vec(), &interp.to_vec(), &[])
}

#[test]
fn negative_expand_counts() -> Check {
    let v = Vector::from_vec(vec![2, 0, 3, -1, 4]);
    let (cpu, interp) = both_err!(expand_signed(&v));
    expect_variant("expand with a count of -1", &same_error("expand", cpu, interp)?, "InvalidArgument")?;
    let v = Vector::from_vec(vec![1i64, 3, 0, 2]);
    let (cpu, interp) = both_err!(expand_i64(&v));
    expect_variant("expand with a count of -1 (i64)", &same_error("expand", cpu, interp)?, "InvalidArgument")?;
    let v = Vector::from_vec(vec![2, 0, 3]);
    let (cpu, interp) = both!(expand_signed(&v));
    all_same("expand", &cpu.to_vec(), &interp.to_vec(), &[2, 3, 3, 4, 5])
}

#[test]
fn zip_with_of_different_shapes_intersects() -> Check {
    let a = Matrix::from_shape_vec([2, 5], (0..10).collect()).unwrap();
    let b = Matrix::from_shape_vec([4, 3], (0..12).map(|x| x * 100).collect()).unwrap();
    let (cpu, interp) = both!(zip_shapes(&a, &b));
    all_same("zip_with 2x5 4x3", &cpu.to_vec(), &interp.to_vec(), &[0, -99, -198, -295, -394, -493])?;
    assert_eq!((cpu.shape(), interp.shape()), ([2, 3], [2, 3]));
    let e = Matrix::from_shape_vec([0, 7], vec![]).unwrap();
    let (cpu, interp) = both!(zip_shapes(&a, &e));
    assert_eq!((cpu.shape(), interp.shape()), ([0, 5], [0, 5]));
    Ok(())
}

// Every combinator on empty arrays.

#[accel]
fn empty_build(n: usize) -> (Vector<f32>, Matrix<i32>, Vector<i32>, Matrix<(u32, bool)>, Array<u64, 3>) {
    (
        generate(n, |i| i as f32),
        generate((n, 3), |(i, j)| (i + j) as i32),
        iota(n),
        fill((2, n), (1u32, true)),
        generate((2, n, 2), |(i, j, k)| (i + j + k) as u64),
    )
}

#[accel]
fn empty_elementwise(
    xs: Vector<f32>,
    ys: Vector<i32>,
) -> (Vector<f32>, Vector<f32>, Vector<(f32, i32)>, Vector<f32>, Vector<i32>, Vector<f32>) {
    let z = xs.zip(ys);
    let (a, b) = z.unzip();
    (xs.map(|x| x + 1.0), xs.imap(|i, x| x * i as f32), z, a, b, xs.zip_with(ys, |x, y| x - y as f32))
}

#[accel]
fn empty_scans(
    xs: Vector<f32>,
) -> (Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>, (Vector<f32>, Scalar<f32>), (Vector<f32>, Scalar<f32>)) {
    (
        xs.scanl(1.0, |a, b| a + b),
        xs.scanl1(|a, b| a + b),
        xs.scanr(2.0, |a, b| a + b),
        xs.scanr1(|a, b| a + b),
        xs.scanl_total(3.0, |a, b| a + b),
        xs.scanr_total(4.0, |a, b| a + b),
    )
}

#[accel]
fn empty_matrix_scans(
    m: Matrix<i64>,
) -> (Matrix<i64>, Matrix<i64>, Matrix<i64>, Matrix<i64>, (Matrix<i64>, Vector<i64>), Matrix<i64>) {
    (
        m.scanl(1, |a, b| a + b),
        m.scanl1(|a, b| a + b),
        m.scanr(2, |a, b| a + b),
        m.scanr1(|a, b| a + b),
        m.scanl_total(3, |a, b| a + b),
        m.reverse(),
    )
}

#[accel]
fn empty_segmented(xs: Vector<i64>, lens: Vector<i32>) -> (Vector<i64>, Vector<i64>, Vector<i64>, Vector<i64>) {
    (
        xs.fold_seg(5, |a, b| a + b, lens),
        xs.fold1_seg(|a, b| a + b, lens),
        xs.scanl_seg(6, |a, b| a + b, lens),
        xs.scanl1_seg(|a, b| a + b, lens),
    )
}

#[accel]
fn empty_moves(
    xs: Vector<u32>,
    m: Matrix<u32>,
) -> (Vector<u32>, Vector<u32>, Matrix<u32>, Vector<u32>, (Vector<u32>, Vector<u32>), Vector<u32>) {
    (
        xs.backpermute(xs.len(), |i| i),
        xs.permute(fill(3, 7u32), |i| i % 3, |a, b| a + b),
        m.transpose(),
        m.reshape(m.len()),
        (xs.take(3), xs.drop(3)),
        xs.concat(xs).reverse(),
    )
}

#[accel]
fn empty_matrix_moves(
    xs: Vector<u32>,
    m: Matrix<u32>,
    k: usize,
) -> (Matrix<u32>, Matrix<u32>, Matrix<u32>, Matrix<u32>, Matrix<u32>, Matrix<u32>) {
    (
        xs.replicate_rows(k),
        xs.replicate_cols(k),
        m.take(1),
        m.drop(1),
        m.concat(m),
        m.backpermute(m.shape(), |(i, j)| (i, j)),
    )
}

#[accel]
fn empty_stencils(xs: Vector<f64>, m: Matrix<f64>) -> (Vector<f64>, Vector<f64>, Matrix<f64>, Matrix<f64>) {
    (
        xs.stencil3(Mirror, |l, c, r| l + c + r),
        xs.stencil5(Constant(1.0), |a, b, c, d, e| a + b + c + d + e),
        m.stencil3x3(Wrap, |n| n[0][0] + n[2][2]),
        m.stencil5x5(Clamp, |n| n[0][0] - n[4][4]),
    )
}

#[accel]
fn empty_irregular(
    xs: Vector<i32>,
    n: Nested<i32>,
) -> (Vector<i32>, Vector<i32>, Vector<i32>, Vector<usize>, Vector<usize>, Vector<i32>) {
    (xs.expand(|x| x, |x, i| x), xs.filter(|x| x > 0), n.values(), n.lengths(), n.offsets(), n.sum())
}

#[accel]
fn empty_control(xs: Vector<i32>) -> (Vector<i32>, Vector<i32>) {
    let a = if xs.len() == 0 { xs.map(|x| x + 1) } else { xs };
    (a, awhile(xs, |v| unit(v.len() > 0), |v| v.drop(1)))
}

#[test]
fn every_combinator_accepts_empty_arrays() -> Check {
    let ((a, b, c, d, e), (ra, rb, rc, rd, re)) = both!(empty_build(0));
    assert_eq!((a.shape(), b.shape(), c.shape(), d.shape(), e.shape()), ([0], [0, 3], [0], [2, 0], [2, 0, 2]));
    assert_eq!((ra.shape(), rb.shape(), rc.shape(), rd.shape(), re.shape()), ([0], [0, 3], [0], [2, 0], [2, 0, 2]));

    let (xs, ys) = (Vector::from_vec(Vec::<f32>::new()), Vector::from_vec(vec![1, 2, 3]));
    let (cpu, interp) = both!(empty_elementwise(&xs, &ys));
    for (k, (len_c, len_i)) in [
        (cpu.0.len(), interp.0.len()),
        (cpu.1.len(), interp.1.len()),
        (cpu.2.len(), interp.2.len()),
        (cpu.3.len(), interp.3.len()),
        (cpu.4.len(), interp.4.len()),
        (cpu.5.len(), interp.5.len()),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!((len_c, len_i), (0, 0), "elementwise result {k}");
    }

    let (cpu, interp) = both!(empty_scans(&xs));
    for (what, c, i, want) in [
        ("scanl", cpu.0.to_vec(), interp.0.to_vec(), vec![1.0]),
        ("scanl1", cpu.1.to_vec(), interp.1.to_vec(), vec![]),
        ("scanr", cpu.2.to_vec(), interp.2.to_vec(), vec![2.0]),
        ("scanr1", cpu.3.to_vec(), interp.3.to_vec(), vec![]),
        ("scanl_total prefixes", cpu.4.0.to_vec(), interp.4.0.to_vec(), vec![]),
        ("scanl_total total", cpu.4.1.to_vec(), interp.4.1.to_vec(), vec![3.0]),
        ("scanr_total suffixes", cpu.5.0.to_vec(), interp.5.0.to_vec(), vec![]),
        ("scanr_total total", cpu.5.1.to_vec(), interp.5.1.to_vec(), vec![4.0]),
    ] {
        all_same_bits(&format!("{what} of []"), &c, &i, &want)?;
    }

    for (r, c) in [(0, 0), (0, 4), (3, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<i64>::new()).unwrap();
        let (cpu, interp) = both!(empty_matrix_scans(&m));
        for (what, c_, i_, want) in [
            ("scanl", cpu.0.to_vec(), interp.0.to_vec(), vec![1; r]),
            ("scanl1", cpu.1.to_vec(), interp.1.to_vec(), vec![]),
            ("scanr", cpu.2.to_vec(), interp.2.to_vec(), vec![2; r]),
            ("scanr1", cpu.3.to_vec(), interp.3.to_vec(), vec![]),
            ("scanl_total prefixes", cpu.4.0.to_vec(), interp.4.0.to_vec(), vec![]),
            ("scanl_total totals", cpu.4.1.to_vec(), interp.4.1.to_vec(), vec![3; r]),
            ("reverse", cpu.5.to_vec(), interp.5.to_vec(), vec![]),
        ] {
            all_same(&format!("{what} of {r}x{c}"), &c_, &i_, &want)?;
        }
        assert_eq!((cpu.0.shape(), interp.0.shape()), ([r, c + 1], [r, c + 1]));
    }

    let e = Vector::from_vec(Vec::<i64>::new());
    for lens in [vec![], vec![0, 0]] {
        let l = Vector::from_vec(lens.clone());
        if lens.is_empty() {
            let (cpu, interp) = both!(empty_segmented(&e, &l));
            for (c, i) in [(cpu.0, interp.0), (cpu.1, interp.1), (cpu.2, interp.2), (cpu.3, interp.3)] {
                all_same("segmented ops, no segments", &c.to_vec(), &i.to_vec(), &[])?;
            }
        } else {
            // Two empty segments: `fold1_seg` has no value for them.
            let (cpu, interp) = both_err!(empty_segmented(&e, &l));
            expect_variant("fold1_seg of empty segments", &same_error("segmented", cpu, interp)?, "EmptyReduction")?;
        }
    }

    let (u, m) = (Vector::from_vec(Vec::<u32>::new()), Matrix::from_shape_vec([0, 5], Vec::<u32>::new()).unwrap());
    let (cpu, interp) = both!(empty_moves(&u, &m));
    all_same("backpermute of []", &cpu.0.to_vec(), &interp.0.to_vec(), &[])?;
    all_same("permute of []", &cpu.1.to_vec(), &interp.1.to_vec(), &[7, 7, 7])?;
    assert_eq!((cpu.2.shape(), interp.2.shape()), ([5, 0], [5, 0]));
    for (c, i) in [(cpu.3, interp.3), (cpu.4.0, interp.4.0), (cpu.4.1, interp.4.1), (cpu.5, interp.5)] {
        all_same("moves of []", &c.to_vec(), &i.to_vec(), &[])?;
    }
    for (r, c, k) in [(0, 5, 0), (4, 0, 3), (0, 0, 2)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<u32>::new()).unwrap();
        let (cpu, interp) = both!(empty_matrix_moves(&u, &m, k));
        let shapes_c = [cpu.0.shape(), cpu.1.shape(), cpu.2.shape(), cpu.3.shape(), cpu.4.shape(), cpu.5.shape()];
        let shapes_i = [
            interp.0.shape(),
            interp.1.shape(),
            interp.2.shape(),
            interp.3.shape(),
            interp.4.shape(),
            interp.5.shape(),
        ];
        let want = [[k, 0], [0, k], [r, c.min(1)], [r, c.saturating_sub(1)], [r, 2 * c], [r, c]];
        assert_eq!(shapes_c, want, "CPU backend, matrix moves of {r}x{c}");
        assert_eq!(shapes_i, want, "interpreter, matrix moves of {r}x{c}");
    }

    for (r, c) in [(0, 0), (0, 3), (3, 0)] {
        let (v, m) = (Vector::from_vec(Vec::<f64>::new()), Matrix::from_shape_vec([r, c], Vec::<f64>::new()).unwrap());
        let (cpu, interp) = both!(empty_stencils(&v, &m));
        assert!(cpu.0.is_empty() && cpu.1.is_empty() && interp.0.is_empty() && interp.1.is_empty());
        assert_eq!(
            (cpu.2.shape(), cpu.3.shape(), interp.2.shape(), interp.3.shape()),
            ([r, c], [r, c], [r, c], [r, c])
        );
    }

    let (v, n) = (Vector::from_vec(Vec::<i32>::new()), Nested::from_rows(Vec::<Vec<i32>>::new()));
    let (cpu, interp) = both!(empty_irregular(&v, &n));
    all_same("expand of []", &cpu.0.to_vec(), &interp.0.to_vec(), &[])?;
    all_same("filter of []", &cpu.1.to_vec(), &interp.1.to_vec(), &[])?;
    all_same("Nested::values of no rows", &cpu.2.to_vec(), &interp.2.to_vec(), &[])?;
    all_same("Nested::lengths of no rows", &cpu.3.to_vec(), &interp.3.to_vec(), &[])?;
    all_same("Nested::offsets of no rows", &cpu.4.to_vec(), &interp.4.to_vec(), &[0])?;
    all_same("Nested::sum of no rows", &cpu.5.to_vec(), &interp.5.to_vec(), &[])?;
    let n = Nested::from_rows(vec![Vec::<i32>::new(), vec![]]);
    let (cpu, interp) = both!(empty_irregular(&v, &n));
    all_same("Nested::lengths of empty rows", &cpu.3.to_vec(), &interp.3.to_vec(), &[0, 0])?;
    all_same("Nested::offsets of empty rows", &cpu.4.to_vec(), &interp.4.to_vec(), &[0, 0, 0])?;
    all_same("Nested::sum of empty rows", &cpu.5.to_vec(), &interp.5.to_vec(), &[0, 0])?;

    let ((a, b), (ra, rb)) = both!(empty_control(&v));
    assert!(a.is_empty() && b.is_empty() && ra.is_empty() && rb.is_empty());
    let w = Vector::from_vec(vec![1, 2, 3]);
    let ((a, b), (ra, rb)) = both!(empty_control(&w));
    all_same("array if (non-empty)", &a.to_vec(), &ra.to_vec(), &[1, 2, 3])?;
    all_same("awhile down to empty", &b.to_vec(), &rb.to_vec(), &[])
}
