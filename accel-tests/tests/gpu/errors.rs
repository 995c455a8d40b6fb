//! Run-time errors on the GPU: the same `accel::Error` as the interpreter's (same variant; for an
//! index error the same index and shape). Each failing input has exactly one bad element, at a
//! random place in inputs of every size, so that the error is determined however the device
//! orders its threads. After each error a good call must succeed: the device stays usable and
//! the error does not leak into the next program.
//!
//! These trials run with the device to themselves (see `harness::own_device`).

use crate::harness::*;
use accel::prelude::*;

#[accel]
fn gather_through(xs: Vector<i64>, idx: Vector<usize>) -> Vector<i64> {
    idx.map(|j| xs[j])
}

#[accel]
fn read_matrix_rows(m: Matrix<i32>, rows: Vector<usize>) -> Vector<i32> {
    rows.imap(|i, r| m[(r, i % m.shape().1)])
}

#[accel]
fn remainder(xs: Vector<u64>, ys: Vector<u64>) -> Vector<u64> {
    xs.zip_with(ys, |x, y| x % y)
}

#[accel]
fn divide_sum(xs: Vector<i32>, ds: Vector<i32>) -> Scalar<i32> {
    xs.zip_with(ds, |x, d| x / d).sum()
}

#[accel]
fn maximum_rows(m: Matrix<i32>) -> Vector<i32> {
    m.maximum()
}

#[accel]
fn fold1_of(xs: Vector<f32>) -> Scalar<f32> {
    xs.fold1(|a, b| a + b)
}

#[accel]
fn fold1_all_of(m: Matrix<f64>) -> Scalar<f64> {
    m.fold1_all(|a, b| a.max(b))
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
fn expand_signed(xs: Vector<i32>) -> Vector<i32> {
    xs.expand(|x| x, |x, i| x + i as i32)
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
fn shifted_gather(xs: Vector<u32>, k: usize) -> Vector<u32> {
    xs.backpermute(xs.len(), |i| if i == 0 { k } else { i - 1 })
}

#[accel]
fn gather_at(xs: Vector<f32>, idx: Vector<usize>) -> Vector<f32> {
    xs.backpermute(idx.len(), |i| idx[i])
}

#[accel]
fn matrix_gather(m: Matrix<f64>, k: usize) -> Matrix<f64> {
    let (r, c) = m.shape();
    m.backpermute((r, c), |(i, j)| if i + j == 0 { (r - 1, c - 1 + k) } else { (i, j) })
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
fn slice_row_of(m: Matrix<i64>, i: usize) -> Vector<i64> {
    m.slice_row(i)
}

#[accel]
fn slice_col_of(m: Matrix<i64>, j: usize) -> Vector<i64> {
    m.slice_col(j)
}

#[accel]
fn reshape_to(xs: Vector<i32>, r: usize, c: usize) -> Matrix<i32> {
    xs.reshape((r, c))
}

/// Sizes of the inputs that hold one bad element.
const ERROR_SIZES: &[usize] = &[1, 2, 33, 257, 4097, 65_537, (1 << 20) + 1];

fn error_sizes() -> impl Iterator<Item = usize> {
    ERROR_SIZES.iter().copied().filter(|&n| fits(n))
}

/// Both sides fail alike, with the expected variant; then a good call succeeds.
fn expect<T: std::fmt::Debug>(what: &str, variant: &str, gpu: accel::Result<T>, reference: accel::Result<T>) -> Check {
    let e = same_error(what, gpu, reference)?;
    is_variant(what, &e, variant)?;
    still_usable(what)
}

/// The device runs a good program after an error, and reports no stale error.
fn still_usable(after: &str) -> Check {
    let xs = Vector::from_vec(vec![5i64, 7, 9]);
    let idx = Vector::from_vec(vec![2usize, 0]);
    let (g, r) = both_raw!(gather_through(&xs, &idx));
    let g = ok(&format!("a good program after `{after}`"), g)?;
    same(&format!("a good program after `{after}`"), &g, &ok("the interpreter", r)?)
}

fn index_in_closure() -> Check {
    for n in error_sizes() {
        let mut rng = Rng::new("errors::index_in_closure", n);
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let mut idx = rng.indices(n + 3, n);
        let at = rng.below(idx.len());
        idx[at] = n + rng.below(10);
        let idx = Vector::from_vec(idx);
        let (g, r) = both_raw!(gather_through(&xs, &idx));
        expect(&format!("xs[j] with j out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let (rows, cols) = (n.div_ceil(4), 4);
        let m = Matrix::from_shape_vec([rows, cols], rng.vec::<i32>(rows * cols))?;
        let mut picks = rng.indices(n, rows);
        let at = rng.below(n);
        picks[at] = rows + rng.below(3);
        let (g, r) = both_raw!(read_matrix_rows(&m, &Vector::from_vec(picks)));
        expect(&format!("m[(r, j)] with r out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
    }
    Ok(())
}

fn division_by_zero() -> Check {
    for n in error_sizes() {
        let mut rng = Rng::new("errors::division_by_zero", n);
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        let mut ys: Vec<u64> = (0..n).map(|_| 1 + rng.below(1000) as u64).collect();
        let at = rng.below(n);
        ys[at] = 0;
        let (g, r) = both_raw!(remainder(&xs, &Vector::from_vec(ys)));
        expect(&format!("x % 0 (n = {n}, at {at})"), "DivisionByZero", g, r)?;
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let mut ds: Vec<i32> = (0..n).map(|_| 1 + rng.below(50) as i32).collect();
        let at = rng.below(n);
        ds[at] = 0;
        let (g, r) = both_raw!(divide_sum(&xs, &Vector::from_vec(ds)));
        expect(&format!("x / 0 inside a sum (n = {n}, at {at})"), "DivisionByZero", g, r)?;
    }
    Ok(())
}

fn empty_reductions() -> Check {
    for r in [1, 3, 4097] {
        let m = Matrix::from_shape_vec([r, 0], Vec::<i32>::new())?;
        let (g, w) = both_raw!(maximum_rows(&m));
        expect(&format!("maximum of {r} empty rows"), "EmptyReduction", g, w)?;
    }
    let (g, r) = both_raw!(fold1_of(&Vector::from_vec(Vec::new())));
    expect("fold1 of an empty vector", "EmptyReduction", g, r)?;
    for (r, c) in [(0, 0), (0, 4), (4, 0)] {
        let (g, w) = both_raw!(fold1_all_of(&Matrix::from_shape_vec([r, c], Vec::new())?));
        expect(&format!("fold1_all of {r}x{c}"), "EmptyReduction", g, w)?;
    }
    for n in error_sizes() {
        let mut rng = Rng::new("errors::empty_reduction", n);
        let mut lens = rng.lengths(n, true);
        let at = rng.below(lens.len() + 1);
        lens.insert(at, 0);
        let lens = Vector::from_vec(lens.into_iter().map(|l| l as i32).collect());
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both_raw!(fold1_seg_of(&xs, &lens));
        expect(&format!("fold1_seg with an empty segment (n = {n}, at {at})"), "EmptyReduction", g, r)?;
        let mut rows: Vec<Vec<i32>> = (0..n.div_ceil(7))
            .map(|_| {
                let len = 1 + rng.below(13);
                rng.vec::<i32>(len)
            })
            .collect();
        let at = rng.below(rows.len() + 1);
        rows.insert(at, Vec::new());
        let (g, r) = both_raw!(nested_maximum(&Nested::from_rows(rows)));
        expect(&format!("maximum of a Nested with an empty row (at {at})"), "EmptyReduction", g, r)?;
    }
    Ok(())
}

fn negative_expand_count() -> Check {
    for n in error_sizes() {
        let mut rng = Rng::new("errors::negative_expand_count", n);
        let mut xs: Vec<i32> = (0..n).map(|_| rng.below(4) as i32).collect();
        let at = rng.below(n);
        xs[at] = -1 - rng.below(5) as i32;
        let (g, r) = both_raw!(expand_signed(&Vector::from_vec(xs)));
        expect(&format!("expand with a negative count (n = {n}, at {at})"), "InvalidArgument", g, r)?;
    }
    Ok(())
}

fn permute_out_of_range() -> Check {
    for n in error_sizes() {
        let mut rng = Rng::new("errors::permute_out_of_range", n);
        let bins = 1 + rng.below(n);
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let mut dst = rng.indices(n, bins);
        let at = rng.below(n);
        dst[at] = bins + rng.below(5);
        let (g, r) = both_raw!(scatter_to(&xs, &Vector::from_vec(dst), bins));
        expect(&format!("permute to a destination out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let mut dst: Vec<i64> = (0..n).map(|_| rng.below(bins + 5) as i64 - 5).collect();
        let at = rng.below(n);
        dst[at] = (bins + rng.below(5)) as i64;
        let (g, r) = both_raw!(scatter_some_to(&xs, &Vector::from_vec(dst), bins));
        expect(&format!("permute (Some/None) out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let (rows, cols) = (1 + rng.below(40), 1 + rng.below(40));
        let bad = rng.below(n);
        let (g, r) = both_raw!(scatter_matrix(&Vector::from_vec(rng.vec::<u64>(n)), rows, cols, bad));
        expect(&format!("permute into a matrix out of range (n = {n}, at {bad})"), "IndexOutOfBounds", g, r)?;
    }
    Ok(())
}

fn backpermute_out_of_range() -> Check {
    for n in error_sizes() {
        let mut rng = Rng::new("errors::backpermute_out_of_range", n);
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        let k = n + rng.below(100);
        let (g, r) = both_raw!(shifted_gather(&xs, k));
        expect(&format!("backpermute from {k} of {n}"), "IndexOutOfBounds", g, r)?;
        let fs = Vector::from_vec(rng.vec::<f32>(n));
        let mut idx = rng.indices(n + 1, n);
        let at = rng.below(n + 1);
        idx[at] = n;
        let (g, r) = both_raw!(gather_at(&fs, &Vector::from_vec(idx)));
        expect(&format!("backpermute by index out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let (rows, cols) = (n.div_ceil(8), 8.min(n));
        let m = Matrix::from_shape_vec([rows, cols], rng.vec::<f64>(rows * cols))?;
        let (g, r) = both_raw!(matrix_gather(&m, 1 + rng.below(3)));
        expect(&format!("backpermute of a {rows}x{cols} matrix out of range"), "IndexOutOfBounds", g, r)?;
    }
    Ok(())
}

fn segments_not_covering() -> Check {
    for n in error_sizes() {
        let mut rng = Rng::new("errors::segments_not_covering", n);
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let good = rng.lengths(n, false);
        let mut cases: Vec<(String, Vec<i64>)> = Vec::new();
        let mut longer: Vec<i64> = good.iter().map(|&l| l as i64).collect();
        let at = rng.below(longer.len());
        longer[at] += 1 + rng.below(3) as i64;
        cases.push((format!("one segment longer (at {at})"), longer));
        let mut shorter: Vec<i64> = good.iter().map(|&l| l as i64).collect();
        shorter.push(-1 - rng.below(3) as i64);
        cases.push(("a negative length at the end".into(), shorter));
        let mut negative: Vec<i64> = good.iter().map(|&l| l as i64).collect();
        let at = rng.below(negative.len());
        negative[at] += 2;
        negative.insert(rng.below(negative.len() + 1), -2);
        cases.push(("a negative length where the sum is right".into(), negative));
        cases.push(("the lengths sum short".into(), vec![n as i64 - 1]));
        for (what, lens) in cases {
            let l32 = Vector::from_vec(lens.iter().map(|&l| l as i32).collect());
            let (g, r) = both_raw!(seg_sum(&xs, &l32));
            expect(&format!("fold_seg: {what} (n = {n})"), "InvalidSegments", g, r)?;
            let l64 = Vector::from_vec(lens.clone());
            let (g, r) = both_raw!(seg_scan(&xs, &l64));
            expect(&format!("scanl_seg: {what} (n = {n})"), "InvalidSegments", g, r)?;
            let fs = Vector::from_vec(rng.vec::<f32>(n));
            let (g, r) = both_raw!(nested_from(&l32, &fs));
            expect(&format!("Nested::from_lengths: {what} (n = {n})"), "InvalidSegments", g, r)?;
        }
    }
    let m = Matrix::from_shape_vec([2, 3], vec![1.0f32; 6])?;
    for lens in [vec![2, 2], vec![1, 1], vec![4], vec![], vec![3, -1, 1]] {
        let (g, r) = both_raw!(seg_scan1_rows(&m, &Vector::from_vec(lens.clone())));
        expect(&format!("scanl1_seg of rows with {lens:?}"), "InvalidSegments", g, r)?;
    }
    Ok(())
}

fn slices_and_reshape() -> Check {
    for (r, c) in [(0, 3), (3, 0), (1, 1), (7, 13), (4097, 3)] {
        let mut rng = Rng::new("errors::slices_and_reshape", r * c);
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let past = rng.below(5);
        let (g, w) = both_raw!(slice_row_of(&m, r + past));
        expect(&format!("slice_row {} of {r}x{c}", r + past), "IndexOutOfBounds", g, w)?;
        let (g, w) = both_raw!(slice_col_of(&m, c + past));
        expect(&format!("slice_col {} of {r}x{c}", c + past), "IndexOutOfBounds", g, w)?;
        let xs = Vector::from_vec(rng.vec::<i32>(r * c));
        let (g, w) = both_raw!(reshape_to(&xs, r + 1, c + 1));
        expect(&format!("reshape {} elements to {}x{}", r * c, r + 1, c + 1), "ShapeMismatch", g, w)?;
    }
    Ok(())
}

pub fn cases() -> Vec<Case> {
    vec![
        exclusive("errors::index_in_closure", index_in_closure),
        exclusive("errors::division_by_zero", division_by_zero),
        exclusive("errors::empty_reductions", empty_reductions),
        exclusive("errors::negative_expand_count", negative_expand_count),
        exclusive("errors::permute_out_of_range", permute_out_of_range),
        exclusive("errors::backpermute_out_of_range", backpermute_out_of_range),
        exclusive("errors::segments_not_covering", segments_not_covering),
        exclusive("errors::slices_and_reshape", slices_and_reshape),
    ]
}
