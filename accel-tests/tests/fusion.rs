//! Fusion, end to end: each rule's program has the kernel count its plan promises, and the
//! backend's result on the fused program equals the interpreter's on the source program.
//!
//! Integer element types keep the comparisons exact; float programs use integer-valued floats
//! where they reduce (sums of those are exact in any grouping). `fusion_off` checks the switch.

#[macro_use]
mod common;

use accel::Error;
use accel::prelude::*;
use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

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
    ($f:ident($($arg:expr),* $(,)?)) => {{
        let (got, want) = both!($f($($arg),*));
        prop_assert_eq!(got, want);
    }};
}

/// The plan's kernel count, so that a test says which rule it checks.
fn kernels(plan: accel::Plan) -> usize {
    plan.kernel_count()
}

#[test]
fn plans_have_the_promised_kernel_counts() {
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
}

/// Integer-valued floats in a range where every sum of a few thousand is exact.
fn whole_f64s(n: usize) -> impl Strategy<Value = Vec<f64>> {
    vec_of((-1000i32..1000).prop_map(f64::from), n)
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn reductions_with_fused_producers(n in size(), seed in any::<u64>()) {
        let xs = Vector::from_vec(pseudo_i64(n, seed));
        let ys = Vector::from_vec(pseudo_i64(n + seed as usize % 3, seed ^ 1));
        same!(dotp(&xs, &ys));
        same!(dotp_unfused(&xs, &ys));
        prop_assert_eq!(dotp(rt(), &xs, &ys).unwrap(), dotp_unfused(rt(), &xs, &ys).unwrap());
        same!(sum_and_squares(&xs));
    }

    #[test]
    fn elementwise_chains(xs in size().prop_flat_map(|n| vec_of(i32s(), n))) {
        let xs = Vector::from_vec(xs);
        same!(map_chain(&xs));
        same!(scan_then_map(&xs));
        same!(filter_of_a_map(&xs));
        same!(gather_of_a_map(&xs, 0));
    }

    #[test]
    fn epilogues_and_siblings_on_floats(xs in size().prop_flat_map(whole_f64s)) {
        let xs = Vector::from_vec(xs);
        same!(mean(&xs));
        same!(normalise(&xs));
    }

    #[test]
    fn permute_and_segments(xs in size().prop_flat_map(|n| vec_of(u32s(), n)), bins in 0usize..40) {
        let v = Vector::from_vec(xs.clone());
        same!(histogram(&v, bins));
        let ints = Vector::from_vec(xs.iter().map(|&x| x as i32).collect::<Vec<_>>());
        let mut lens = Vec::new();
        let mut left = xs.len();
        for (k, &x) in xs.iter().enumerate() {
            if left == 0 { break; }
            let l = (x as usize % 9).min(left);
            lens.push(if k % 4 == 3 { 0 } else { l });
            left -= lens[lens.len() - 1];
        }
        lens.push(left);
        let lens = Vector::from_vec(lens);
        same!(segments_of_a_map(&ints, &lens));
    }

    #[test]
    fn matrices((shape, m) in matrix_of(i32s())) {
        let m = Matrix::from_shape_vec([shape.0, shape.1], m).unwrap();
        same!(stencil_of_a_map(&m));
        let wide = Matrix::from_shape_vec([shape.0, shape.1], m.to_vec().iter().map(|&x| i64::from(x)).collect()).unwrap();
        same!(rows_of_a_map(&wide));
    }

    #[test]
    fn shared_arrays_are_computed_once(xs in size().prop_flat_map(|n| vec_of(f32s(), n))) {
        let xs = Vector::from_vec(xs.iter().map(|x| x.clamp(-20.0, 20.0)).collect());
        same!(shared_costly(&xs));
    }
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

#[test]
fn a_fused_gather_reports_its_source_out_of_range() -> Result<(), TestCaseError> {
    let xs = Vector::from_vec(vec![1, 2, 3, 4, 5]);
    let got = gather_of_a_map(rt(), &xs, 2);
    let want = gather_of_a_map::reference(&xs, 2);
    prop_assert_eq!(&got, &want);
    prop_assert!(matches!(got, Err(Error::IndexOutOfBounds { .. })), "{got:?}");
    Ok(())
}
