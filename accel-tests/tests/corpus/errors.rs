//! Run-time errors on the GPU: the same `accel::Error` as the interpreter's (same variant; for an
//! index error the same index and shape). Each failing input has exactly one bad element, at a
//! random place in inputs of every size, so that the error is determined however the device
//! orders its threads. After each error a good call must succeed: the device stays usable and
//! the error does not leak into the next program.
//!
//! These trials run with the device to themselves (see `harness::own_device`).
//!
//! Errors are values: each failing program returns the same `accel::Error` variant (with the same
//! index and shape, where it has them) on the CPU backend and in the interpreter. Also the
//! non-errors next to them: `fold` of nothing is its seed, `None` drops a `permute` source,
//! `zip_with` of different shapes takes the intersection, float division by zero is IEEE, and
//! every combinator accepts empty arrays.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::reduce::seg_sum_i64;
use crate::strategies::*;
use accel::Error;
use accel::prelude::*;
use libtest_mimic::Failed;
use proptest::prelude::*;

#[accel]
fn gather_through(xs: Vector<i64>, idx: Vector<usize>) -> Vector<i64> {
    idx.map(|j| xs[j])
}

/// Two reads by index in one closure, the second of a delayed array (fused into the read).
#[accel]
fn gather_two(idx: Vector<usize>, a: Vector<i64>, b: Vector<i64>) -> Vector<i64> {
    let c = b.map(|x| x * 2);
    idx.map(|i| a[i] + c[i])
}

/// A read inside a called function.
#[accel]
fn pick_then_add(xs: Vector<i64>, idx: Vector<usize>) -> Vector<i64> {
    gather_through(xs, idx).map(|x| x + 1)
}

/// Not associative: `(a - b) - c` is not `a - (b - c)`.
#[accel]
fn fold_by_subtraction(xs: Vector<f32>) -> Scalar<f32> {
    xs.fold_all(0.0, |a, b| a - b)
}

/// Not associative either, in a scan of integers.
#[accel]
fn scan_shifting(xs: Vector<i32>) -> Vector<i32> {
    xs.scanl1(|a, b| a * 2 + b)
}

/// Associative but not commutative: the last source wins, and sources meet in any order.
#[accel]
fn scatter_last_wins(xs: Vector<u32>, dst: Vector<usize>, n: usize) -> Vector<u32> {
    xs.permute(fill(n, 0u32), |i| Some(dst[i]), |_, b| b)
}

/// Lawful: sums and maxima of floats and integers, a histogram.
#[accel]
fn lawful(xs: Vector<f32>, ks: Vector<i64>, dst: Vector<usize>, n: usize) -> (Scalar<f32>, Vector<i64>, Vector<u32>) {
    let hist = dst.map(|_| 1u32).permute(fill(n, 0u32), |i| Some(dst[i]), |a, b| a + b);
    (xs.sum(), ks.scanl1(|a, b| a.max(b)), hist)
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

/// A loop that only an error ends: its condition is the host's own (a counter), and the one
/// failing read is element `at`'s in round `round`.
#[accel]
fn loop_until_failure(xs: Vector<i64>, at: usize, round: i32) -> (Vector<i64>, Scalar<i32>) {
    awhile(
        (xs, unit(0i32)),
        |s| unit(s.1.get() >= 0),
        |s| {
            let k = s.1.get();
            (s.0.imap(|i, x| if i == at && k == round { xs[xs.len() + 1] } else { x ^ i as i64 }), unit(k + 1))
        },
    )
}

/// Sizes of the inputs that hold one bad element.
const ERROR_SIZES: &[usize] = &[1, 2, 33, 257, 4097, 65_537, (1 << 20) + 1];

fn error_sizes(on: &Target) -> impl Iterator<Item = usize> {
    ERROR_SIZES.iter().copied().filter(|&n| on.fits(n))
}

/// Both sides fail alike, with the expected variant; then a good call succeeds.
fn expect<T: std::fmt::Debug>(
    on: &Target,
    what: &str,
    variant: &str,
    gpu: accel::Result<T>,
    reference: accel::Result<T>,
) -> Check {
    let e = same_error(on, what, gpu, reference)?;
    is_variant(what, &e, variant)?;
    still_usable(on, what)
}

/// The device runs a good program after an error, and reports no stale error.
fn still_usable(on: &Target, after: &str) -> Check {
    let xs = Vector::from_vec(vec![5i64, 7, 9]);
    let idx = Vector::from_vec(vec![2usize, 0]);
    let (g, r) = both_raw!(on, gather_through(&xs, &idx));
    let g = ok(&format!("a good program after `{after}`"), g)?;
    same(&format!("a good program after `{after}`"), &g, &ok("the interpreter", r)?)
}

fn index_in_closure(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::index_in_closure", n);
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let mut idx = rng.indices(n + 3, n);
        let at = rng.below(idx.len());
        idx[at] = n + rng.below(10);
        let idx = Vector::from_vec(idx);
        let (g, r) = both_raw!(on, gather_through(&xs, &idx));
        expect(on, &format!("xs[j] with j out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let (rows, cols) = (n.div_ceil(4), 4);
        let m = Matrix::from_shape_vec([rows, cols], rng.vec::<i32>(rows * cols))?;
        let mut picks = rng.indices(n, rows);
        let at = rng.below(n);
        picks[at] = rows + rng.below(3);
        let (g, r) = both_raw!(on, read_matrix_rows(&m, &Vector::from_vec(picks)));
        expect(on, &format!("m[(r, j)] with r out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
    }
    Ok(())
}

/// The line (from 1) of this file that holds `needle`, and the column where it starts.
fn place_of(needle: &str) -> (u32, u32) {
    let source = include_str!("errors.rs");
    let (line, text) = source.lines().enumerate().find(|(_, l)| l.contains(needle)).expect("the needle is in the file");
    (line as u32 + 1, text.find(needle).expect("found") as u32 + 1)
}

/// An index error names the array as written, the function and the place of the read, the same
/// on every backend; a read inside a called function is placed at the call.
fn index_errors_say_where(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::index_errors_say_where", n);
        let (a, b) = (Vector::from_vec(rng.vec::<i64>(n + 5)), Vector::from_vec(rng.vec::<i64>(n)));
        let mut idx = rng.indices(n.max(1), n);
        let at = rng.below(idx.len());
        idx[at] = n + rng.below(5);
        let idx = Vector::from_vec(idx);
        let (g, r) = both_raw!(on, gather_two(&idx, &a, &b));
        let e = same_error(on, &format!("c[i] out of range (n = {n})"), g, r)?;
        let read = e.location().read().ok_or_else(|| Failed::from(format!("no read named: {e}")))?;
        let (line, column) = place_of("c[i])");
        check!(read.array == "c" && read.callee.is_none(), "{read:?}");
        check!((read.line, read.column) == (line, column), "{read:?}, expected {line}:{column}");
        check!(read.file.ends_with("errors.rs"), "{read:?}");
        check!(e.location().function() == Some("gather_two"), "{e:?}");
        let text = e.to_string();
        check!(text.contains(&format!("reading `c` at {}:{line}:{column} (in `gather_two`)", read.file)), "{text}");

        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let mut idx = rng.indices(n + 1, n);
        idx[rng.below(n + 1)] = n;
        let (g, r) = both_raw!(on, pick_then_add(&xs, &Vector::from_vec(idx)));
        let e = same_error(on, &format!("xs[j] in a called function (n = {n})"), g, r)?;
        let read = e.location().read().ok_or_else(|| Failed::from(format!("no read named: {e}")))?;
        check!(read.array == "xs" && read.callee.as_ref().is_some_and(|c| c.ends_with("gather_through")), "{read:?}");
        check!((read.line, read.column) == place_of("gather_through(xs, idx)"), "{read:?}");
        check!(e.location().function() == Some("pick_then_add"), "{e:?}");
    }
    still_usable(on, "an index error that says where")
}

/// Turns checked mode on for one backend's runtime, and off again when dropped (on every path
/// out of a trial).
struct Checked(&'static Runtime);

impl Checked {
    fn on(rt: &'static Runtime) -> Checked {
        rt.set_checked(true);
        Checked(rt)
    }
}

impl Drop for Checked {
    fn drop(&mut self) {
        self.0.set_checked(false);
    }
}

/// The law a checked call reports broken, with the function it names.
fn broken_law<T: std::fmt::Debug>(what: &str, got: accel::Result<T>, function: &str) -> Result<String, Failed> {
    match got {
        Err(Error::InvalidCombine { law, example, at, .. })
            if at.function() == Some(function) && !example.is_empty() =>
        {
            Ok(law)
        }
        other => Err(Failed::from(format!("{what}: expected InvalidCombine in `{function}`, got {other:?}"))),
    }
}

/// Checked mode finds combining functions that are not associative (or, for `permute`, not
/// commutative) on the data, on every backend, and passes lawful ones with their results
/// unchanged; unchecked, the same calls run.
fn checked_mode_finds_unlawful_operators(on: &Target) -> Check {
    let rt = on.rt()?;
    for n in [3, 100, 4097] {
        let mut rng = Rng::new("errors::checked_mode", n);
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let ks = Vector::from_vec(rng.vec::<i64>(n));
        let dst = Vector::from_vec(rng.indices(n, 7));
        let ints = Vector::from_vec(rng.vec::<u32>(n));
        let small = Vector::from_vec((0..n).map(|_| rng.below(100) as i32 + 1).collect());
        // Unchecked: results (wrong ones for the unlawful functions, but results).
        check!(fold_by_subtraction(rt, &xs).is_ok() && scatter_last_wins(rt, &ints, &dst, 7).is_ok());
        let unchecked = lawful(rt, &xs, &ks, &dst, 7)?;
        let _checked = Checked::on(rt);
        let law = broken_law("a - b", fold_by_subtraction(rt, &xs), "fold_by_subtraction")?;
        check!(law == "associative", "{law}");
        let law = broken_law("a * 2 + b", scan_shifting(rt, &small), "scan_shifting")?;
        check!(law == "associative", "{law}");
        let law = broken_law("the last source wins", scatter_last_wins(rt, &ints, &dst, 7), "scatter_last_wins")?;
        check!(law == "commutative", "{law}");
        let (sum, maxima, hist) = lawful(rt, &xs, &ks, &dst, 7)?;
        let scale: f32 = xs.to_vec().iter().map(|x| x.abs()).sum();
        summed("a checked sum", &[sum.get()], &[unchecked.0.get()], &[scale])?;
        same("checked maxima", &maxima, &unchecked.1)?;
        same("a checked histogram", &hist, &unchecked.2)?;
    }
    Ok(())
}

fn division_by_zero(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::division_by_zero", n);
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        let mut ys: Vec<u64> = (0..n).map(|_| 1 + rng.below(1000) as u64).collect();
        let at = rng.below(n);
        ys[at] = 0;
        let (g, r) = both_raw!(on, remainder(&xs, &Vector::from_vec(ys)));
        expect(on, &format!("x % 0 (n = {n}, at {at})"), "DivisionByZero", g, r)?;
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let mut ds: Vec<i32> = (0..n).map(|_| 1 + rng.below(50) as i32).collect();
        let at = rng.below(n);
        ds[at] = 0;
        let (g, r) = both_raw!(on, divide_sum(&xs, &Vector::from_vec(ds)));
        expect(on, &format!("x / 0 inside a sum (n = {n}, at {at})"), "DivisionByZero", g, r)?;
    }
    Ok(())
}

fn empty_reductions(on: &Target) -> Check {
    for r in [1, 3, 4097] {
        let m = Matrix::from_shape_vec([r, 0], Vec::<i32>::new())?;
        let (g, w) = both_raw!(on, maximum_rows(&m));
        expect(on, &format!("maximum of {r} empty rows"), "EmptyReduction", g, w)?;
    }
    let (g, r) = both_raw!(on, fold1_of(&Vector::from_vec(Vec::new())));
    expect(on, "fold1 of an empty vector", "EmptyReduction", g, r)?;
    for (r, c) in [(0, 0), (0, 4), (4, 0)] {
        let (g, w) = both_raw!(on, fold1_all_of(&Matrix::from_shape_vec([r, c], Vec::new())?));
        expect(on, &format!("fold1_all of {r}x{c}"), "EmptyReduction", g, w)?;
    }
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::empty_reduction", n);
        let mut lens = rng.lengths(n, true);
        let at = rng.below(lens.len() + 1);
        lens.insert(at, 0);
        let lens = Vector::from_vec(lens.into_iter().map(|l| l as i32).collect());
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both_raw!(on, fold1_seg_of(&xs, &lens));
        expect(on, &format!("fold1_seg with an empty segment (n = {n}, at {at})"), "EmptyReduction", g, r)?;
        let mut rows: Vec<Vec<i32>> = (0..n.div_ceil(7))
            .map(|_| {
                let len = 1 + rng.below(13);
                rng.vec::<i32>(len)
            })
            .collect();
        let at = rng.below(rows.len() + 1);
        rows.insert(at, Vec::new());
        let (g, r) = both_raw!(on, nested_maximum(&Nested::from_rows(rows)));
        expect(on, &format!("maximum of a Nested with an empty row (at {at})"), "EmptyReduction", g, r)?;
    }
    Ok(())
}

fn negative_expand_count(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::negative_expand_count", n);
        let mut xs: Vec<i32> = (0..n).map(|_| rng.below(4) as i32).collect();
        let at = rng.below(n);
        xs[at] = -1 - rng.below(5) as i32;
        let (g, r) = both_raw!(on, expand_signed(&Vector::from_vec(xs)));
        expect(on, &format!("expand with a negative count (n = {n}, at {at})"), "InvalidArgument", g, r)?;
    }
    Ok(())
}

fn permute_out_of_range(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::permute_out_of_range", n);
        let bins = 1 + rng.below(n);
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let mut dst = rng.indices(n, bins);
        let at = rng.below(n);
        dst[at] = bins + rng.below(5);
        let (g, r) = both_raw!(on, scatter_to(&xs, &Vector::from_vec(dst), bins));
        expect(on, &format!("permute to a destination out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let mut dst: Vec<i64> = (0..n).map(|_| rng.below(bins + 5) as i64 - 5).collect();
        let at = rng.below(n);
        dst[at] = (bins + rng.below(5)) as i64;
        let (g, r) = both_raw!(on, scatter_some_to(&xs, &Vector::from_vec(dst), bins));
        expect(on, &format!("permute (Some/None) out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let (rows, cols) = (1 + rng.below(40), 1 + rng.below(40));
        let bad = rng.below(n);
        let (g, r) = both_raw!(on, scatter_matrix(&Vector::from_vec(rng.vec::<u64>(n)), rows, cols, bad));
        expect(on, &format!("permute into a matrix out of range (n = {n}, at {bad})"), "IndexOutOfBounds", g, r)?;
    }
    Ok(())
}

fn backpermute_out_of_range(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::backpermute_out_of_range", n);
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        let k = n + rng.below(100);
        let (g, r) = both_raw!(on, shifted_gather(&xs, k));
        expect(on, &format!("backpermute from {k} of {n}"), "IndexOutOfBounds", g, r)?;
        let fs = Vector::from_vec(rng.vec::<f32>(n));
        let mut idx = rng.indices(n + 1, n);
        let at = rng.below(n + 1);
        idx[at] = n;
        let (g, r) = both_raw!(on, gather_at(&fs, &Vector::from_vec(idx)));
        expect(on, &format!("backpermute by index out of range (n = {n}, at {at})"), "IndexOutOfBounds", g, r)?;
        let (rows, cols) = (n.div_ceil(8), 8.min(n));
        let m = Matrix::from_shape_vec([rows, cols], rng.vec::<f64>(rows * cols))?;
        let (g, r) = both_raw!(on, matrix_gather(&m, 1 + rng.below(3)));
        expect(on, &format!("backpermute of a {rows}x{cols} matrix out of range"), "IndexOutOfBounds", g, r)?;
    }
    Ok(())
}

fn segments_not_covering(on: &Target) -> Check {
    for n in error_sizes(on) {
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
            let (g, r) = both_raw!(on, seg_sum_i64(&xs, &l32));
            expect(on, &format!("fold_seg: {what} (n = {n})"), "InvalidSegments", g, r)?;
            let l64 = Vector::from_vec(lens.clone());
            let (g, r) = both_raw!(on, seg_scan(&xs, &l64));
            expect(on, &format!("scanl_seg: {what} (n = {n})"), "InvalidSegments", g, r)?;
            let fs = Vector::from_vec(rng.vec::<f32>(n));
            let (g, r) = both_raw!(on, nested_from(&l32, &fs));
            expect(on, &format!("Nested::from_lengths: {what} (n = {n})"), "InvalidSegments", g, r)?;
        }
    }
    let m = Matrix::from_shape_vec([2, 3], vec![1.0f32; 6])?;
    for lens in [vec![2, 2], vec![1, 1], vec![4], vec![], vec![3, -1, 1]] {
        let (g, r) = both_raw!(on, seg_scan1_rows(&m, &Vector::from_vec(lens.clone())));
        expect(on, &format!("scanl1_seg of rows with {lens:?}"), "InvalidSegments", g, r)?;
    }
    Ok(())
}

/// A failed kernel ends a loop whose condition the host computes (the GPU checks for device
/// errors on rounds 1, 2, 4, 8, .. of such a loop, each check seeing the errors up to the one
/// before, so that no round waits for the device).
fn failure_in_a_loop(on: &Target) -> Check {
    for n in error_sizes(on) {
        let mut rng = Rng::new("errors::failure_in_a_loop", n);
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let (at, round) = (rng.below(n), rng.below(7) as i32);
        let (g, r) = both_raw!(on, loop_until_failure(&xs, at, round));
        expect(
            on,
            &format!("a read out of range in round {round} of a loop (n = {n}, at {at})"),
            "IndexOutOfBounds",
            g,
            r,
        )?;
    }
    Ok(())
}

fn slices_and_reshape(on: &Target) -> Check {
    for (r, c) in [(0, 3), (3, 0), (1, 1), (7, 13), (4097, 3)] {
        let mut rng = Rng::new("errors::slices_and_reshape", r * c);
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let past = rng.below(5);
        let (g, w) = both_raw!(on, slice_row_of(&m, r + past));
        expect(on, &format!("slice_row {} of {r}x{c}", r + past), "IndexOutOfBounds", g, w)?;
        let (g, w) = both_raw!(on, slice_col_of(&m, c + past));
        expect(on, &format!("slice_col {} of {r}x{c}", c + past), "IndexOutOfBounds", g, w)?;
        let xs = Vector::from_vec(rng.vec::<i32>(r * c));
        let (g, w) = both_raw!(on, reshape_to(&xs, r + 1, c + 1));
        expect(on, &format!("reshape {} elements to {}x{}", r * c, r + 1, c + 1), "ShapeMismatch", g, w)?;
    }
    Ok(())
}

fn sweeps() -> Vec<Test> {
    vec![
        exclusive("errors::index_in_closure", index_in_closure),
        exclusive("errors::division_by_zero", division_by_zero),
        exclusive("errors::empty_reductions", empty_reductions),
        exclusive("errors::negative_expand_count", negative_expand_count),
        exclusive("errors::permute_out_of_range", permute_out_of_range),
        exclusive("errors::backpermute_out_of_range", backpermute_out_of_range),
        exclusive("errors::segments_not_covering", segments_not_covering),
        exclusive("errors::slices_and_reshape", slices_and_reshape),
        exclusive("errors::failure_in_a_loop", failure_in_a_loop),
    ]
}

#[accel]
fn read_at(xs: Vector<f32>, i: usize) -> Scalar<f32> {
    unit(xs[i])
}

#[accel]
fn read_matrix(m: Matrix<i32>, i: usize, j: usize) -> Scalar<i32> {
    unit(m[(i, j)])
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
fn maximum_of(xs: Vector<i32>) -> Scalar<i32> {
    xs.maximum()
}

#[accel]
fn minimum_of(xs: Vector<u64>) -> Scalar<u64> {
    xs.minimum()
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
fn expand_i64(xs: Vector<i64>) -> Vector<i64> {
    xs.expand(|x| x - 1, |x, i| x)
}

#[accel]
fn zip_shapes(a: Matrix<i32>, b: Matrix<i32>) -> Matrix<i32> {
    a.zip_with(b, |x, y| x - y)
}

/// Checks that both backends failed with the same variant (and, for an index error, the same
/// index and shape), and returns the CPU backend's error for further checks.
fn same_variant(what: &str, cpu: Error, interp: Error) -> Result<Error, Failed> {
    let agree = match (&cpu, &interp) {
        (
            Error::IndexOutOfBounds { index: i1, shape: s1, .. },
            Error::IndexOutOfBounds { index: i2, shape: s2, .. },
        ) => i1 == i2 && s1 == s2,
        _ => std::mem::discriminant(&cpu) == std::mem::discriminant(&interp),
    };
    if !agree {
        return Err(Failed::from(format!(
            "{what}: the backends disagree:\n  CPU backend: {cpu:?}\n  interpreter: {interp:?}"
        )));
    }
    Ok(cpu)
}

/// `IndexOutOfBounds` with exactly this index and shape.
fn expect_index_error(what: &str, e: &Error, index: &[usize], shape: &[usize]) -> Check {
    match e {
        Error::IndexOutOfBounds { index: i, shape: s, .. } if i == index && s == shape => Ok(()),
        other => Err(Failed::from(format!(
            "{what}: expected IndexOutOfBounds {{ index: {index:?}, shape: {shape:?} }}, got {other:?}"
        ))),
    }
}

fn expect_variant(what: &str, e: &Error, want: &str) -> Check {
    let name = format!("{e:?}");
    if name.starts_with(want) { Ok(()) } else { Err(Failed::from(format!("{what}: expected {want}, got {e:?}"))) }
}

fn out_of_range_reads_are_index_errors(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), small_size()), 0usize..100), |(xs, past)| {
        let n = xs.len();
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both_err!(on, read_at(&v, n + past));
        let e = same_variant("xs[i]", cpu, interp)?;
        expect_index_error("xs[i] past the end", &e, &[n + past], &[n])?;
        if n > 0 {
            let (cpu, interp) = both!(on, read_at(&v, n - 1));
            all_same_bits(on, "xs[len - 1]", &[cpu.get()], &[interp.get()], &[xs[n - 1]])?;
        }
        Ok(())
    })
}

fn out_of_range_reads_inside_a_map(on: &Target) -> Check {
    props(24, (1usize..3000, any::<prop::sample::Index>(), 0usize..10), |(n, at, past)| {
        // One bad index among good ones: the error names it.
        let xs: Vec<i64> = (0..n as i64).map(|x| x * 3 - 7).collect();
        let mut idx: Vec<usize> = (0..n).rev().collect();
        let bad = at.index(n);
        idx[bad] = n + past;
        let (v, iv) = (Vector::from_vec(xs), Vector::from_vec(idx));
        let (cpu, interp) = both_err!(on, gather_through(&v, &iv));
        let e = same_variant("idx.map(|j| xs[j])", cpu, interp)?;
        expect_index_error("xs[j] in a map", &e, &[n + past], &[n])?;
        Ok(())
    })
}

fn out_of_range_matrix_reads(on: &Target) -> Check {
    props(24, (nonempty_shape(), 0usize..5, any::<bool>()), |((r, c), past, row_or_col)| {
        let m = Matrix::from_shape_vec([r, c], (0..(r * c) as i32).collect()).unwrap();
        let (i, j) = if row_or_col { (r + past, 0) } else { (r - 1, c + past) };
        let (cpu, interp) = both_err!(on, read_matrix(&m, i, j));
        let e = same_variant("m[(i, j)]", cpu, interp)?;
        expect_index_error("m[(i, j)]", &e, &[i, j], &[r, c])?;
        let (cpu, interp) = both!(on, read_matrix(&m, r - 1, c - 1));
        all_same(on, "m[(r - 1, c - 1)]", &[cpu.get()], &[interp.get()], &[(r * c - 1) as i32])?;
        Ok(())
    })
}

fn backpermute_sources_out_of_range(on: &Target) -> Check {
    props(
        24,
        (vec_sized(u32s(), small_size()).prop_filter("non-empty", |v| !v.is_empty()), 0usize..5, nonempty_shape()),
        |(xs, past, (r, c))| {
            let n = xs.len();
            let v = Vector::from_vec(xs);
            let (cpu, interp) = both_err!(on, shifted_gather(&v, n + past));
            let e = same_variant("backpermute", cpu, interp)?;
            expect_index_error("backpermute source", &e, &[n + past], &[n])?;
            let m = Matrix::from_shape_vec([r, c], vec![1.5f64; r * c]).unwrap();
            let (cpu, interp) = both_err!(on, matrix_gather(&m, 1 + past));
            let e = same_variant("backpermute (matrix)", cpu, interp)?;
            expect_index_error("backpermute source (matrix)", &e, &[r - 1, c + past], &[r, c])?;
            Ok(())
        },
    )
}

fn permute_destinations_out_of_range(on: &Target) -> Check {
    props(24, (1usize..50, 1usize..3000, any::<prop::sample::Index>(), 0usize..5), |(n, m, bad, past)| {
        let xs: Vec<i32> = (0..m as i32).collect();
        let mut dst: Vec<usize> = (0..m).map(|i| i % n).collect();
        let bad = bad.index(m);
        dst[bad] = n + past;
        let (v, d) = (Vector::from_vec(xs.clone()), Vector::from_vec(dst.clone()));
        let (cpu, interp) = both_err!(on, scatter_to(&v, &d, n));
        let e = same_variant("permute", cpu, interp)?;
        expect_index_error("permute destination", &e, &[n + past], &[n])?;
        // `None` drops the source instead: no bounds check, no effect.
        let signed: Vec<i64> = dst.iter().enumerate().map(|(i, &t)| if i == bad { -1 } else { t as i64 }).collect();
        let d = Vector::from_vec(signed);
        let (cpu, interp) = both!(on, scatter_some_to(&v, &d, n));
        let mut want = vec![0i32; n];
        for (i, &t) in dst.iter().enumerate() {
            if i != bad {
                want[t] += xs[i];
            }
        }
        all_same(on, "permute with None", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn permute_matrix_destination_out_of_range(on: &Target) -> Check {
    props(24, (nonempty_shape(), 1usize..500, any::<prop::sample::Index>()), |((r, c), m, bad)| {
        let v = Vector::from_vec((0..m as u64).collect());
        let (cpu, interp) = both_err!(on, scatter_matrix(&v, r, c, bad.index(m)));
        let e = same_variant("permute (matrix)", cpu, interp)?;
        expect_index_error("permute destination (matrix)", &e, &[r, 0], &[r, c])?;
        Ok(())
    })
}

fn slices_out_of_range(on: &Target) -> Check {
    props(24, (shape(), 0usize..5), |((r, c), past)| {
        let m = Matrix::from_shape_vec([r, c], (0..(r * c) as i64).collect()).unwrap();
        let (cpu, interp) = both_err!(on, slice_row_of(&m, r + past));
        let e = same_variant("slice_row", cpu, interp)?;
        // The index of the error is an index of the matrix: the row, and column 0.
        expect_index_error("slice_row", &e, &[r + past, 0], &[r, c])?;
        let (cpu, interp) = both_err!(on, slice_col_of(&m, c + past));
        let e = same_variant("slice_col", cpu, interp)?;
        expect_index_error("slice_col", &e, &[0, c + past], &[r, c])?;
        Ok(())
    })
}

fn invalid_segment_lengths(on: &Target) -> Check {
    props(24, (0usize..200, 1i32..5), |(n, extra)| {
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
            let (cpu, interp) = both_err!(on, seg_sum_i64(&v, &l));
            let e = same_variant(&format!("fold_seg with lengths {lens:?}"), cpu, interp)?;
            expect_variant("fold_seg", &e, "InvalidSegments")?;
            let l64 = Vector::from_vec(lens.iter().map(|&x| x as i64).collect());
            let (cpu, interp) = both_err!(on, seg_scan(&v, &l64));
            let e = same_variant(&format!("scanl_seg with lengths {lens:?}"), cpu, interp)?;
            expect_variant("scanl_seg", &e, "InvalidSegments")?;
            let f = Vector::from_vec(vec![1.0f32; n]);
            let (cpu, interp) = both_err!(on, nested_from(&l, &f));
            let e = same_variant(&format!("Nested::from_lengths {lens:?}"), cpu, interp)?;
            expect_variant("Nested::from_lengths", &e, "InvalidSegments")?;
        }
        Ok(())
    })
}

fn reshape_size_mismatch(on: &Target) -> Check {
    props(24, (0usize..500, 0usize..30, 0usize..30), |(n, r, c)| {
        if r * c == n {
            // Not a reshape error: nothing to check for this input.
            return Ok(());
        }
        let v = Vector::from_vec((0..n as i32).collect());
        let (cpu, interp) = both_err!(on, reshape_to(&v, r, c));
        let e = same_variant("reshape", cpu, interp)?;
        expect_variant("reshape", &e, "ShapeMismatch")?;
        let m = Matrix::from_shape_vec([1, n], (0..n as i32).collect()).unwrap();
        let (cpu, interp) = both_err!(on, reshape_matrix(&m, n + 1 + r));
        let e = same_variant("reshape (matrix)", cpu, interp)?;
        expect_variant("reshape (matrix)", &e, "ShapeMismatch")?;
        Ok(())
    })
}

fn integer_division_by_zero(on: &Target) -> Check {
    props(
        24,
        (vec_sized(i32s(), small_size()), vec_sized(1u64..1000, small_size()), any::<prop::sample::Index>()),
        |(xs, ys, zero)| {
            let v = Vector::from_vec(xs.clone());
            if !xs.is_empty() {
                let (cpu, interp) = both_err!(on, divide(&v, 0));
                let e = same_variant("x / 0", cpu, interp)?;
                expect_variant("x / 0", &e, "DivisionByZero")?;
            }
            // Dividing nothing by zero is no error.
            let empty = Vector::from_vec(Vec::<i32>::new());
            let (cpu, interp) = both!(on, divide(&empty, 0));
            check!(cpu.is_empty() && interp.is_empty());
            if !ys.is_empty() {
                let mut ds = ys.clone();
                ds[zero.index(ys.len())] = 0;
                let (a, b) = (Vector::from_vec(ys.clone()), Vector::from_vec(ds));
                let (cpu, interp) = both_err!(on, remainder(&a, &b));
                let e = same_variant("x % 0", cpu, interp)?;
                expect_variant("x % 0", &e, "DivisionByZero")?;
            }
            Ok(())
        },
    )
}

fn division_by_zero_in_scalar_code(on: &Target) -> Check {
    let (cpu, interp) = both_err!(on, divide_scalars(7, 0));
    expect_variant("a / 0", &same_variant("a / 0", cpu, interp)?, "DivisionByZero")?;
    let (cpu, interp) = both_err!(on, divide_scalars(i64::MIN, 0));
    expect_variant("MIN / 0", &same_variant("MIN / 0", cpu, interp)?, "DivisionByZero")?;
    // MIN / -1 wraps rather than failing.
    let (cpu, interp) = both!(on, divide_scalars(i64::MIN, -1));
    all_same(on, "MIN / -1", &[cpu.get()], &[interp.get()], &[i64::MIN])?;
    let (cpu, interp) = both_err!(on, divide_by_index(5));
    expect_variant("100 / (i % 3)", &same_variant("100 / (i % 3)", cpu, interp)?, "DivisionByZero")?;
    let (cpu, interp) = both!(on, divide_by_index(0));
    all_same(on, "generate of nothing divides nothing", &cpu.to_vec(), &interp.to_vec(), &[])?;
    // Floats divide by zero as IEEE says.
    let v = Vector::from_vec(vec![1.0f64, -2.0, 0.0]);
    let (cpu, interp) = both!(on, float_division(&v));
    all_same_bits(on, "x / 0.0", &cpu.to_vec(), &interp.to_vec(), &[f64::INFINITY, f64::NEG_INFINITY, f64::NAN])
}

fn reductions_of_nothing(on: &Target) -> Check {
    // `fold` of nothing is its seed; `fold1`, `maximum`, `minimum` of nothing have no value.
    let none = Vector::from_vec(Vec::<f32>::new());
    for (r, c) in [(0, 0), (0, 3), (3, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<i64>::new()).unwrap();
        let ((f_c, s_c, p_c, rows_c, all_c, prod_c), (f_i, s_i, p_i, rows_i, all_i, prod_i)) =
            both!(on, seeded_reductions(&none, &m));
        all_same_bits(on, "fold of []", &[f_c.get()], &[f_i.get()], &[2.5])?;
        all_same_bits(on, "sum of []", &[s_c.get()], &[s_i.get()], &[0.0])?;
        all_same_bits(on, "product of []", &[p_c.get()], &[p_i.get()], &[1.0])?;
        all_same(on, &format!("fold of {r}x{c} rows"), &rows_c.to_vec(), &rows_i.to_vec(), &vec![-4; r])?;
        all_same(on, &format!("fold_all of {r}x{c}"), &[all_c.get()], &[all_i.get()], &[9])?;
        all_same(on, &format!("product of {r}x{c} rows"), &prod_c.to_vec(), &prod_i.to_vec(), &vec![1; r])?;
    }
    let (cpu, interp) = both_err!(on, fold1_of(&none));
    expect_variant("fold1 of []", &same_variant("fold1 of []", cpu, interp)?, "EmptyReduction")?;
    let (cpu, interp) = both_err!(on, maximum_of(&Vector::from_vec(vec![])));
    expect_variant("maximum of []", &same_variant("maximum of []", cpu, interp)?, "EmptyReduction")?;
    let (cpu, interp) = both_err!(on, minimum_of(&Vector::from_vec(vec![])));
    expect_variant("minimum of []", &same_variant("minimum of []", cpu, interp)?, "EmptyReduction")?;
    for (r, c) in [(0, 0), (0, 4), (4, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<f64>::new()).unwrap();
        let (cpu, interp) = both_err!(on, fold1_all_of(&m));
        expect_variant("fold1_all of empty", &same_variant("fold1_all of empty", cpu, interp)?, "EmptyReduction")?;
    }
    // Rows of length 0: an error when there is a row, an empty result when there is none.
    let m = Matrix::from_shape_vec([3, 0], Vec::<i32>::new()).unwrap();
    let (cpu, interp) = both_err!(on, maximum_rows(&m));
    expect_variant(
        "maximum of 3 empty rows",
        &same_variant("maximum of 3 empty rows", cpu, interp)?,
        "EmptyReduction",
    )?;
    let m = Matrix::from_shape_vec([0, 0], Vec::<i32>::new()).unwrap();
    let (cpu, interp) = both!(on, maximum_rows(&m));
    all_same(on, "maximum of no rows", &cpu.to_vec(), &interp.to_vec(), &[])?;
    // An empty segment or an empty nested row has no maximum.
    let (v, l) = (Vector::from_vec(vec![1, 2, 3]), Vector::from_vec(vec![2, 0, 1]));
    let (cpu, interp) = both_err!(on, fold1_seg_of(&v, &l));
    expect_variant("fold1_seg with an empty segment", &same_variant("fold1_seg", cpu, interp)?, "EmptyReduction")?;
    let (v, l) = (Vector::from_vec(vec![1, 2, 3]), Vector::from_vec(vec![2, 1]));
    let (cpu, interp) = both!(on, fold1_seg_of(&v, &l));
    all_same(on, "fold1_seg", &cpu.to_vec(), &interp.to_vec(), &[3, 3])?;
    let n = Nested::from_rows(vec![vec![4, 1], vec![], vec![2]]);
    let (cpu, interp) = both_err!(on, nested_maximum(&n));
    expect_variant(
        "Nested::maximum with an empty row",
        &same_variant("Nested::maximum", cpu, interp)?,
        "EmptyReduction",
    )?;
    let n = Nested::from_rows(Vec::<Vec<i32>>::new());
    let (cpu, interp) = both!(on, nested_maximum(&n));
    all_same(on, "Nested::maximum of no rows", &cpu.to_vec(), &interp.to_vec(), &[])
}

fn segments_that_do_not_cover_the_rows(on: &Target) -> Check {
    let m = Matrix::from_shape_vec([2, 3], vec![1.0f32; 6]).unwrap();
    for lens in [vec![2, 2], vec![1, 1], vec![4], vec![], vec![3, -1, 1]] {
        let l = Vector::from_vec(lens.clone());
        let (cpu, interp) = both_err!(on, seg_scan1_rows(&m, &l));
        expect_variant(&format!("scanl1_seg {lens:?}"), &same_variant("scanl1_seg", cpu, interp)?, "InvalidSegments")?;
    }
    let f = Vector::from_vec(vec![1.0f32; 5]);
    for lens in [vec![2, 2], vec![6], vec![]] {
        let l = Vector::from_vec(lens.clone());
        let (cpu, interp) = both_err!(on, nested_from(&l, &f));
        expect_variant(
            &format!("Nested::from_lengths {lens:?}"),
            &same_variant("Nested::from_lengths", cpu, interp)?,
            "InvalidSegments",
        )?;
    }
    // Zero segments over zero elements are fine.
    let (e, l) = (Vector::from_vec(Vec::<i64>::new()), Vector::from_vec(Vec::<i32>::new()));
    let (cpu, interp) = both!(on, seg_sum_i64(&e, &l));
    all_same(on, "fold_seg of nothing", &cpu.to_vec(), &interp.to_vec(), &[])
}

fn negative_expand_counts(on: &Target) -> Check {
    let v = Vector::from_vec(vec![2, 0, 3, -1, 4]);
    let (cpu, interp) = both_err!(on, expand_signed(&v));
    expect_variant("expand with a count of -1", &same_variant("expand", cpu, interp)?, "InvalidArgument")?;
    let v = Vector::from_vec(vec![1i64, 3, 0, 2]);
    let (cpu, interp) = both_err!(on, expand_i64(&v));
    expect_variant("expand with a count of -1 (i64)", &same_variant("expand", cpu, interp)?, "InvalidArgument")?;
    let v = Vector::from_vec(vec![2, 0, 3]);
    let (cpu, interp) = both!(on, expand_signed(&v));
    all_same(on, "expand", &cpu.to_vec(), &interp.to_vec(), &[2, 3, 3, 4, 5])
}

fn zip_with_of_different_shapes_intersects(on: &Target) -> Check {
    let a = Matrix::from_shape_vec([2, 5], (0..10).collect()).unwrap();
    let b = Matrix::from_shape_vec([4, 3], (0..12).map(|x| x * 100).collect()).unwrap();
    let (cpu, interp) = both!(on, zip_shapes(&a, &b));
    all_same(on, "zip_with 2x5 4x3", &cpu.to_vec(), &interp.to_vec(), &[0, -99, -198, -295, -394, -493])?;
    assert_eq!((cpu.shape(), interp.shape()), ([2, 3], [2, 3]));
    let e = Matrix::from_shape_vec([0, 7], vec![]).unwrap();
    let (cpu, interp) = both!(on, zip_shapes(&a, &e));
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

fn every_combinator_accepts_empty_arrays(on: &Target) -> Check {
    let ((a, b, c, d, e), (ra, rb, rc, rd, re)) = both!(on, empty_build(0));
    assert_eq!((a.shape(), b.shape(), c.shape(), d.shape(), e.shape()), ([0], [0, 3], [0], [2, 0], [2, 0, 2]));
    assert_eq!((ra.shape(), rb.shape(), rc.shape(), rd.shape(), re.shape()), ([0], [0, 3], [0], [2, 0], [2, 0, 2]));

    let (xs, ys) = (Vector::from_vec(Vec::<f32>::new()), Vector::from_vec(vec![1, 2, 3]));
    let (cpu, interp) = both!(on, empty_elementwise(&xs, &ys));
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

    let (cpu, interp) = both!(on, empty_scans(&xs));
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
        all_same_bits(on, &format!("{what} of []"), &c, &i, &want)?;
    }

    for (r, c) in [(0, 0), (0, 4), (3, 0)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<i64>::new()).unwrap();
        let (cpu, interp) = both!(on, empty_matrix_scans(&m));
        for (what, c_, i_, want) in [
            ("scanl", cpu.0.to_vec(), interp.0.to_vec(), vec![1; r]),
            ("scanl1", cpu.1.to_vec(), interp.1.to_vec(), vec![]),
            ("scanr", cpu.2.to_vec(), interp.2.to_vec(), vec![2; r]),
            ("scanr1", cpu.3.to_vec(), interp.3.to_vec(), vec![]),
            ("scanl_total prefixes", cpu.4.0.to_vec(), interp.4.0.to_vec(), vec![]),
            ("scanl_total totals", cpu.4.1.to_vec(), interp.4.1.to_vec(), vec![3; r]),
            ("reverse", cpu.5.to_vec(), interp.5.to_vec(), vec![]),
        ] {
            all_same(on, &format!("{what} of {r}x{c}"), &c_, &i_, &want)?;
        }
        assert_eq!((cpu.0.shape(), interp.0.shape()), ([r, c + 1], [r, c + 1]));
    }

    let e = Vector::from_vec(Vec::<i64>::new());
    for lens in [vec![], vec![0, 0]] {
        let l = Vector::from_vec(lens.clone());
        if lens.is_empty() {
            let (cpu, interp) = both!(on, empty_segmented(&e, &l));
            for (c, i) in [(cpu.0, interp.0), (cpu.1, interp.1), (cpu.2, interp.2), (cpu.3, interp.3)] {
                all_same(on, "segmented ops, no segments", &c.to_vec(), &i.to_vec(), &[])?;
            }
        } else {
            // Two empty segments: `fold1_seg` has no value for them.
            let (cpu, interp) = both_err!(on, empty_segmented(&e, &l));
            expect_variant("fold1_seg of empty segments", &same_variant("segmented", cpu, interp)?, "EmptyReduction")?;
        }
    }

    let (u, m) = (Vector::from_vec(Vec::<u32>::new()), Matrix::from_shape_vec([0, 5], Vec::<u32>::new()).unwrap());
    let (cpu, interp) = both!(on, empty_moves(&u, &m));
    all_same(on, "backpermute of []", &cpu.0.to_vec(), &interp.0.to_vec(), &[])?;
    all_same(on, "permute of []", &cpu.1.to_vec(), &interp.1.to_vec(), &[7, 7, 7])?;
    assert_eq!((cpu.2.shape(), interp.2.shape()), ([5, 0], [5, 0]));
    for (c, i) in [(cpu.3, interp.3), (cpu.4.0, interp.4.0), (cpu.4.1, interp.4.1), (cpu.5, interp.5)] {
        all_same(on, "moves of []", &c.to_vec(), &i.to_vec(), &[])?;
    }
    for (r, c, k) in [(0, 5, 0), (4, 0, 3), (0, 0, 2)] {
        let m = Matrix::from_shape_vec([r, c], Vec::<u32>::new()).unwrap();
        let (cpu, interp) = both!(on, empty_matrix_moves(&u, &m, k));
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
        let (cpu, interp) = both!(on, empty_stencils(&v, &m));
        assert!(cpu.0.is_empty() && cpu.1.is_empty() && interp.0.is_empty() && interp.1.is_empty());
        assert_eq!(
            (cpu.2.shape(), cpu.3.shape(), interp.2.shape(), interp.3.shape()),
            ([r, c], [r, c], [r, c], [r, c])
        );
    }

    let (v, n) = (Vector::from_vec(Vec::<i32>::new()), Nested::from_rows(Vec::<Vec<i32>>::new()));
    let (cpu, interp) = both!(on, empty_irregular(&v, &n));
    all_same(on, "expand of []", &cpu.0.to_vec(), &interp.0.to_vec(), &[])?;
    all_same(on, "filter of []", &cpu.1.to_vec(), &interp.1.to_vec(), &[])?;
    all_same(on, "Nested::values of no rows", &cpu.2.to_vec(), &interp.2.to_vec(), &[])?;
    all_same(on, "Nested::lengths of no rows", &cpu.3.to_vec(), &interp.3.to_vec(), &[])?;
    all_same(on, "Nested::offsets of no rows", &cpu.4.to_vec(), &interp.4.to_vec(), &[0])?;
    all_same(on, "Nested::sum of no rows", &cpu.5.to_vec(), &interp.5.to_vec(), &[])?;
    let n = Nested::from_rows(vec![Vec::<i32>::new(), vec![]]);
    let (cpu, interp) = both!(on, empty_irregular(&v, &n));
    all_same(on, "Nested::lengths of empty rows", &cpu.3.to_vec(), &interp.3.to_vec(), &[0, 0])?;
    all_same(on, "Nested::offsets of empty rows", &cpu.4.to_vec(), &interp.4.to_vec(), &[0, 0, 0])?;
    all_same(on, "Nested::sum of empty rows", &cpu.5.to_vec(), &interp.5.to_vec(), &[0, 0])?;

    let ((a, b), (ra, rb)) = both!(on, empty_control(&v));
    assert!(a.is_empty() && b.is_empty() && ra.is_empty() && rb.is_empty());
    let w = Vector::from_vec(vec![1, 2, 3]);
    let ((a, b), (ra, rb)) = both!(on, empty_control(&w));
    all_same(on, "array if (non-empty)", &a.to_vec(), &ra.to_vec(), &[1, 2, 3])?;
    all_same(on, "awhile down to empty", &b.to_vec(), &rb.to_vec(), &[])
}

#[accel]
fn below_zero_length(xs: Vector<u32>) -> Vector<usize> {
    generate(xs.len() - 1, |i| i * 2)
}

#[accel]
fn fill_of(n: usize) -> Vector<u32> {
    fill(n, 1u32)
}

#[accel]
fn iota_of(n: usize) -> Vector<i64> {
    iota::<i64>(n)
}

#[accel]
fn replicated(xs: Vector<f32>, n: usize) -> Matrix<f32> {
    xs.replicate_rows(n)
}

/// A result larger than memory is `OutOfHostMemory` (the interpreter, the CPU backend) or
/// `OutOfDeviceMemory` (the GPU), never an abort or a panic: sizes beyond the 2^47-byte address
/// space fail whatever the machine's overcommit policy, and a length that wrapped below zero is
/// the largest of all.
fn results_larger_than_memory(on: &Target) -> Check {
    let expect_out_of_memory = |what: &str, g: Result<(), Error>, r: Result<(), Error>| -> Check {
        let want = if on.is_gpu() { "OutOfDeviceMemory" } else { "OutOfHostMemory" };
        let g = expect_err(&format!("{what} on the {}", on.side()), g)?;
        is_variant(&format!("{what} on the {}", on.side()), &g, want)?;
        is_variant(&format!("{what} in the interpreter"), &expect_err(what, r)?, "OutOfHostMemory")
    };
    let empty = Vector::from_vec(Vec::<u32>::new());
    let (g, r) = both_raw!(on, below_zero_length(&empty));
    expect_out_of_memory("generate(xs.len() - 1, ..) of an empty xs", g.map(drop), r.map(drop))?;
    for n in [1usize << 50, usize::MAX / 2] {
        let (g, r) = both_raw!(on, fill_of(n));
        expect_out_of_memory(&format!("fill({n}, 1u32)"), g.map(drop), r.map(drop))?;
        let (g, r) = both_raw!(on, iota_of(n));
        expect_out_of_memory(&format!("iota::<i64>({n})"), g.map(drop), r.map(drop))?;
    }
    let xs = Vector::from_vec(vec![1.5f32; 1 << 12]);
    let (g, r) = both_raw!(on, replicated(&xs, 1 << 40));
    expect_out_of_memory("replicate_rows(2^40) of 2^12 elements", g.map(drop), r.map(drop))?;
    // The same programs at sizes that fit still work.
    let (g, r) = both!(on, below_zero_length(&Vector::from_vec(vec![3u32; 4])));
    all_same(on, "generate(xs.len() - 1, ..)", &g.to_vec(), &r.to_vec(), &[0, 2, 4])?;
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        exclusive("errors::out_of_range_reads_are_index_errors", out_of_range_reads_are_index_errors),
        exclusive("errors::out_of_range_reads_inside_a_map", out_of_range_reads_inside_a_map),
        exclusive("errors::out_of_range_matrix_reads", out_of_range_matrix_reads),
        exclusive("errors::index_errors_say_where", index_errors_say_where),
        exclusive("errors::checked_mode_finds_unlawful_operators", checked_mode_finds_unlawful_operators),
        exclusive("errors::backpermute_sources_out_of_range", backpermute_sources_out_of_range),
        exclusive("errors::permute_destinations_out_of_range", permute_destinations_out_of_range),
        exclusive("errors::permute_matrix_destination_out_of_range", permute_matrix_destination_out_of_range),
        exclusive("errors::slices_out_of_range", slices_out_of_range),
        exclusive("errors::invalid_segment_lengths", invalid_segment_lengths),
        exclusive("errors::reshape_size_mismatch", reshape_size_mismatch),
        exclusive("errors::integer_division_by_zero", integer_division_by_zero),
        exclusive("errors::division_by_zero_in_scalar_code", division_by_zero_in_scalar_code),
        exclusive("errors::reductions_of_nothing", reductions_of_nothing),
        exclusive("errors::segments_that_do_not_cover_the_rows", segments_that_do_not_cover_the_rows),
        exclusive("errors::negative_expand_counts", negative_expand_counts),
        exclusive("errors::zip_with_of_different_shapes_intersects", zip_with_of_different_shapes_intersects),
        exclusive("errors::every_combinator_accepts_empty_arrays", every_combinator_accepts_empty_arrays),
        exclusive("errors::results_larger_than_memory", results_larger_than_memory),
    ]);
    tests
}
