//! Every CPU skeleton against a plain sequential oracle written here, on random data of awkward
//! sizes (0, 1, primes, 2^k ± 1, thousands, and a few above the parallel thresholds).
//!
//! Integers use wrapping arithmetic and are compared exactly. Floats are drawn as small dyadic
//! rationals (`k / 8`, never zero), whose sums are exact in any grouping, so they are compared
//! exactly too; one test per reduction also uses arbitrary floats with a tolerance. Order
//! mistakes show through a non-commutative associative operator: composition of affine maps
//! `x -> a x + b` on `u64` pairs.

use accel_core::Error;
use accel_core::ir::{Axis, Direction, ScanKind, StencilShape};
use accel_runtime::cpu::{self, Boundary, Ctx};
use accel_runtime::{Array, Elem, Matrix, Nested, Segments, Vector};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Random data

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

trait Gen: Elem {
    fn draw(r: &mut Rng) -> Self;
}

impl Gen for i32 {
    fn draw(r: &mut Rng) -> Self {
        r.next() as i32 | 1
    }
}

impl Gen for u64 {
    fn draw(r: &mut Rng) -> Self {
        r.next() | 1
    }
}

impl Gen for f32 {
    fn draw(r: &mut Rng) -> Self {
        let k = (r.below(100) + 1) as f32 / 8.0;
        if r.next() & 1 == 0 { k } else { -k }
    }
}

impl Gen for f64 {
    fn draw(r: &mut Rng) -> Self {
        let k = (r.below(1 << 20) + 1) as f64 / 1024.0;
        if r.next() & 1 == 0 { k } else { -k }
    }
}

impl<A: Gen, B: Gen> Gen for (A, B) {
    fn draw(r: &mut Rng) -> Self {
        (A::draw(r), B::draw(r))
    }
}

fn data<T: Gen>(seed: u64, n: usize) -> Vec<T> {
    let mut r = Rng(seed);
    (0..n).map(|_| T::draw(&mut r)).collect()
}

fn matrix<T: Gen>(seed: u64, rows: usize, n: usize) -> Matrix<T> {
    Matrix::from_shape_vec([rows, n], data(seed, rows * n)).unwrap()
}

/// Random lengths (some zero) adding up to `n`.
fn lengths(seed: u64, n: usize) -> Vec<usize> {
    let mut r = Rng(seed ^ 0x5eed);
    let mut out = Vec::new();
    let mut left = n;
    while left > 0 {
        let l = match r.below(4) {
            0 => 0,
            1 => r.below(4),
            2 => r.below(64),
            _ => r.below(n + 1),
        }
        .min(left);
        out.push(l);
        left -= l;
    }
    if r.next() & 1 == 0 {
        out.push(0);
    }
    out
}

fn segments(lens: &[usize]) -> Segments {
    Segments::from_lengths("test", &Vector::from_slice(lens)).unwrap()
}

/// Sizes up to a few thousand, and now and then one past the parallel thresholds.
const SIZES: [usize; 19] = [0, 1, 2, 3, 5, 7, 13, 31, 32, 33, 63, 65, 127, 257, 1021, 1023, 1025, 4093, 4097];
const LARGE_SIZES: [usize; 4] = [32_767, 32_769, 40_009, 65_537];

fn sizes() -> impl Strategy<Value = usize> {
    prop_oneof![8 => prop::sample::select(&SIZES[..]), 1 => prop::sample::select(&LARGE_SIZES[..])]
}

fn small_sizes() -> impl Strategy<Value = usize> {
    prop::sample::select(vec![0usize, 1, 2, 3, 5, 7, 17, 31, 33, 64, 127])
}

// ---------------------------------------------------------------------------------------------
// Operators

/// Affine maps composed left to right: `aff(p, q)` applies `p`, then `q`.
fn aff(p: (u64, u64), q: (u64, u64)) -> (u64, u64) {
    (p.0.wrapping_mul(q.0), p.1.wrapping_mul(q.0).wrapping_add(q.1))
}

fn add_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

fn add_pair(a: (f32, i32), b: (f32, i32)) -> (f32, i32) {
    (a.0 + b.0, a.1.wrapping_add(b.1))
}

// ---------------------------------------------------------------------------------------------
// Oracles

fn fold_oracle<E: Copy>(xs: &[E], z: Option<E>, f: impl Fn(E, E) -> E) -> Option<E> {
    let mut it = xs.iter().copied();
    let init = z.or_else(|| it.next())?;
    Some(it.fold(init, f))
}

fn scan_oracle<E: Copy>(xs: &[E], dir: Direction, z: Option<E>, f: impl Fn(E, E) -> E) -> Vec<E> {
    let mut out = Vec::new();
    match dir {
        Direction::Left => {
            let mut acc = z;
            out.extend(z);
            for &x in xs {
                let v = acc.map_or(x, |a| f(a, x));
                out.push(v);
                acc = Some(v);
            }
        }
        Direction::Right => {
            let mut acc = z;
            out.extend(z);
            for &x in xs.iter().rev() {
                let v = acc.map_or(x, |a| f(x, a));
                out.push(v);
                acc = Some(v);
            }
            out.reverse();
        }
    }
    out
}

fn rows_of<E: Elem>(m: &Matrix<E>) -> Vec<Vec<E>> {
    let v = m.to_vec();
    let n = m.cols();
    (0..m.rows()).map(|r| v[r * n..(r + 1) * n].to_vec()).collect()
}

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-4 * scale.max(1.0)
}

const DIRS: [Direction; 2] = [Direction::Left, Direction::Right];

// The properties. Their bodies are plain functions below, outside the macro, so that rustfmt
// formats them.
proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generate_builds(seed: u64, n in sizes(), r in 0usize..4) {
        check_generate_builds(seed, n, r)?;
    }

    #[test]
    fn fold_rows(seed: u64, n in sizes(), r in 0usize..4) {
        check_fold_rows(seed, n, r)?;
    }

    #[test]
    fn fold_all_everything(seed: u64, n in sizes(), r in 1usize..3) {
        check_fold_all_everything(seed, n, r)?;
    }

    #[test]
    fn fold_seg_segments(seed: u64, n in sizes(), r in 0usize..3) {
        check_fold_seg_segments(seed, n, r)?;
    }

    #[test]
    fn scans(seed: u64, n in sizes(), r in 0usize..3) {
        check_scans(seed, n, r)?;
    }

    #[test]
    fn scan_float_rounding(seed: u64, n in sizes()) {
        check_scan_float_rounding(seed, n)?;
    }

    #[test]
    fn segmented_scans(seed: u64, n in sizes(), r in 0usize..3) {
        check_segmented_scans(seed, n, r)?;
    }

    #[test]
    fn permute_scatters_in_source_order(seed: u64, n in sizes(), m in sizes()) {
        check_permute_scatters_in_source_order(seed, n, m)?;
    }

    #[test]
    fn movement(seed: u64, n in sizes(), r in 0usize..4, k in 0usize..70) {
        check_movement(seed, n, r, k)?;
    }

    #[test]
    fn slices(seed: u64, n in sizes(), k in 0usize..6) {
        check_slices(seed, n, k)?;
    }

    #[test]
    fn stencils_1d(seed: u64, n in sizes(), b in 0usize..4) {
        check_stencils_1d(seed, n, b)?;
    }

    #[test]
    fn stencils_2d(seed: u64, r in small_sizes(), c in small_sizes(), b in 0usize..4) {
        check_stencils_2d(seed, r, c, b)?;
    }

    #[test]
    fn expand_and_filter(seed: u64, n in sizes()) {
        check_expand_and_filter(seed, n)?;
    }

    #[test]
    fn closure_errors(seed: u64, n in sizes()) {
        check_closure_errors(seed, n)?;
    }

    #[test]
    fn nested_and_segments(seed: u64, n in sizes()) {
        check_nested_and_segments(seed, n)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Build and elementwise

fn check_generate_builds(seed: u64, n: usize, r: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let shape = [r, n % 37, n];
    let hash = |[i, j, k]: [usize; 3]| (i as i64 * 1_000_003) ^ (j as i64 * 7919) ^ (k as i64 ^ seed as i64);
    let g = cpu::generate(&cx, shape, hash).unwrap();
    prop_assert_eq!(&g, &Array::from_shape_fn(shape, hash));
    let mat = matrix::<(f32, i32)>(seed, r, n);
    let f = |[i, j]: [usize; 2]| {
        let (a, b) = mat.at([i, j]).unwrap();
        a as f64 + (i * 2 + j) as f64 + b as f64
    };
    prop_assert_eq!(cpu::generate(&cx, [r, n], f).unwrap(), Matrix::from_shape_fn([r, n], f));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Reductions

fn check_fold_rows(seed: u64, n: usize, r: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let a = matrix::<i32>(seed, r, n);
    let got = cpu::fold::<_, 2, 1>(&cx, &a, Some(17), add_i32, "sum").unwrap();
    let want: Vec<i32> = rows_of(&a).iter().map(|row| fold_oracle(row, Some(17), add_i32).unwrap()).collect();
    prop_assert_eq!(got.to_vec(), want);

    let a = matrix::<(u64, u64)>(seed, r, n);
    let got = cpu::fold::<_, 2, 1>(&cx, &a, None, aff, "fold1");
    if n == 0 && r > 0 {
        prop_assert_eq!(got.unwrap_err(), Error::empty_reduction("fold1"));
    } else {
        let want: Vec<_> = rows_of(&a).iter().map(|row| fold_oracle(row, None, aff).unwrap()).collect();
        prop_assert_eq!(got.unwrap().to_vec(), want);
    }

    let a = matrix::<(f32, i32)>(seed, r, n);
    let got = cpu::fold::<_, 2, 1>(&cx, &a, Some((0.5, 1)), add_pair, "fold").unwrap();
    let want: Vec<_> = rows_of(&a).iter().map(|row| fold_oracle(row, Some((0.5, 1)), add_pair).unwrap()).collect();
    prop_assert_eq!(got.to_vec(), want);

    let a3 = Array::from_shape_vec([r, 2, n], data::<f64>(seed, r * 2 * n)).unwrap();
    let got = cpu::fold::<_, 3, 2>(&cx, &a3, Some(f64::NEG_INFINITY), f64::max, "maximum").unwrap();
    let want = Matrix::from_shape_fn([r, 2], |[i, j]| {
        (0..n).map(|k| a3.at([i, j, k]).unwrap()).fold(f64::NEG_INFINITY, f64::max)
    });
    prop_assert_eq!(got, want);
    Ok(())
}

fn check_fold_all_everything(seed: u64, n: usize, r: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let v = Vector::from_vec(data::<(u64, u64)>(seed, n));
    let got = cpu::fold_all(&cx, &v, None, aff, "fold1");
    match fold_oracle(&v.to_vec(), None, aff) {
        Some(want) => prop_assert_eq!(got.unwrap().get(), want),
        None => prop_assert_eq!(got.unwrap_err(), Error::empty_reduction("fold1")),
    }
    let m = matrix::<f32>(seed, r, n);
    let got = cpu::fold_all(&cx, &m, Some(1.0), |a, b| a + b, "sum").unwrap().get();
    prop_assert_eq!(got, fold_oracle(&m.to_vec(), Some(1.0), |a, b| a + b).unwrap());
    let v = Vector::from_vec(data::<i32>(seed, n));
    let got = cpu::fold_all(&cx, &v, Some(-3), add_i32, "sum").unwrap().get();
    prop_assert_eq!(got, fold_oracle(&v.to_vec(), Some(-3), add_i32).unwrap());

    // Arbitrary floats: the sum of a different grouping, within rounding.
    let mut rng = Rng(seed);
    let xs: Vec<f32> = (0..n).map(|_| (rng.next() >> 40) as f32 / 1e6 - 8.0).collect();
    let scale: f64 = xs.iter().map(|x| x.abs() as f64).sum();
    let got = cpu::fold_all(&cx, &Vector::from_slice(&xs), Some(0.0), |a, b| a + b, "sum").unwrap().get();
    let exact: f64 = xs.iter().map(|&x| x as f64).sum();
    prop_assert!(close(got as f64, exact, scale), "{} vs {}", got, exact);
    Ok(())
}

fn check_fold_seg_segments(seed: u64, n: usize, r: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let lens = lengths(seed, n);
    let segs = segments(&lens);
    let a = matrix::<i32>(seed, r, n);
    let got = cpu::fold_seg(&cx, &a, &segs, Some(5), add_i32, "fold_seg").unwrap();
    let mut want = Vec::new();
    for row in rows_of(&a) {
        for s in 0..segs.count() {
            want.push(fold_oracle(&row[segs.range(s)], Some(5), add_i32).unwrap());
        }
    }
    prop_assert_eq!(got.shape(), [r, segs.count()]);
    prop_assert_eq!(got.to_vec(), want);

    let a = matrix::<(u64, u64)>(seed, r, n);
    let got = cpu::fold_seg(&cx, &a, &segs, None, aff, "fold1_seg");
    if r > 0 && lens.contains(&0) {
        prop_assert_eq!(got.unwrap_err(), Error::empty_reduction("fold1_seg"));
    } else {
        let mut want = Vec::new();
        for row in rows_of(&a) {
            for s in 0..segs.count() {
                want.push(fold_oracle(&row[segs.range(s)], None, aff).unwrap());
            }
        }
        prop_assert_eq!(got.unwrap().to_vec(), want);
    }

    let v = Vector::from_vec(data::<f32>(seed, n));
    let got = cpu::fold_seg(&cx, &v, &segs, Some(0.0), |a, b| a + b, "sum").unwrap();
    let want: Vec<f32> =
        (0..segs.count()).map(|s| fold_oracle(&v.to_vec()[segs.range(s)], Some(0.0), |a, b| a + b).unwrap()).collect();
    prop_assert_eq!(got.to_vec(), want);

    let bad = segments(&[n + 1]);
    let e = cpu::fold_seg(&cx, &v, &bad, Some(0.0), |a, b| a + b, "fold_seg").unwrap_err();
    prop_assert!(matches!(e, Error::InvalidSegments { .. }), "{}", e);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Scans

fn check_scans(seed: u64, n: usize, r: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let a = matrix::<(u64, u64)>(seed, r, n);
    let b = matrix::<i32>(seed, r, n);
    let c = matrix::<f32>(seed, r, n);
    for dir in DIRS {
        let z = (3, 4);
        let got = cpu::scan(&cx, &a, dir, ScanKind::WithSeed, Some(z), aff).unwrap();
        let want: Vec<_> = rows_of(&a).iter().flat_map(|row| scan_oracle(row, dir, Some(z), aff)).collect();
        prop_assert_eq!(got.shape(), [r, n + 1]);
        prop_assert_eq!(got.to_vec(), want);

        let got = cpu::scan(&cx, &a, dir, ScanKind::Inclusive, None, aff).unwrap();
        let want: Vec<_> = rows_of(&a).iter().flat_map(|row| scan_oracle(row, dir, None, aff)).collect();
        prop_assert_eq!(got.to_vec(), want);

        let got = cpu::scan(&cx, &b, dir, ScanKind::Inclusive, None, add_i32).unwrap();
        let want: Vec<_> = rows_of(&b).iter().flat_map(|row| scan_oracle(row, dir, None, add_i32)).collect();
        prop_assert_eq!(got.to_vec(), want);

        let got = cpu::scan(&cx, &c, dir, ScanKind::WithSeed, Some(0.25), |x, y| x + y).unwrap();
        let want: Vec<_> = rows_of(&c).iter().flat_map(|row| scan_oracle(row, dir, Some(0.25), |x, y| x + y)).collect();
        prop_assert_eq!(got.to_vec(), want);

        let (pre, tot) = cpu::scan_total::<_, 2, 1>(&cx, &a, dir, z, aff).unwrap();
        let mut want_pre = Vec::new();
        let mut want_tot = Vec::new();
        for row in rows_of(&a) {
            let full = scan_oracle(&row, dir, Some(z), aff);
            match dir {
                Direction::Left => {
                    want_pre.extend_from_slice(&full[..n]);
                    want_tot.push(full[n]);
                }
                Direction::Right => {
                    want_pre.extend_from_slice(&full[1..]);
                    want_tot.push(full[0]);
                }
            }
        }
        prop_assert_eq!(pre.to_vec(), want_pre);
        prop_assert_eq!(tot.to_vec(), want_tot);
    }
    Ok(())
}

fn check_scan_float_rounding(seed: u64, n: usize) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let xs: Vec<f32> = (0..n).map(|_| (rng.next() >> 40) as f32 / 1e6 - 8.0).collect();
    let got =
        cpu::scan(&Ctx::new(), &Vector::from_slice(&xs), Direction::Left, ScanKind::Inclusive, None, |a, b| a + b)
            .unwrap();
    let mut exact = 0.0f64;
    let mut scale = 0.0f64;
    for (g, &x) in got.iter().zip(&xs) {
        exact += x as f64;
        scale += x.abs() as f64;
        prop_assert!(close(g as f64, exact, scale), "{} vs {}", g, exact);
    }
    Ok(())
}

fn check_segmented_scans(seed: u64, n: usize, r: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let segs = segments(&lengths(seed, n));
    let a = matrix::<(u64, u64)>(seed, r, n);
    let got = cpu::scan_seg(&cx, &a, &segs, ScanKind::WithSeed, Some((5, 6)), aff).unwrap();
    let mut want = Vec::new();
    for row in rows_of(&a) {
        for s in 0..segs.count() {
            want.extend(scan_oracle(&row[segs.range(s)], Direction::Left, Some((5, 6)), aff));
        }
    }
    prop_assert_eq!(got.shape(), [r, n + segs.count()]);
    prop_assert_eq!(got.to_vec(), want);

    let b = matrix::<i32>(seed, r, n);
    let got = cpu::scan_seg(&cx, &b, &segs, ScanKind::Inclusive, None, add_i32).unwrap();
    let mut want = Vec::new();
    for row in rows_of(&b) {
        for s in 0..segs.count() {
            want.extend(scan_oracle(&row[segs.range(s)], Direction::Left, None, add_i32));
        }
    }
    prop_assert_eq!(got.to_vec(), want);
    let bad = segments(&[n, 1]);
    let e = cpu::scan_seg(&cx, &b, &bad, ScanKind::Inclusive, None, add_i32).unwrap_err();
    prop_assert!(matches!(e, Error::InvalidSegments { .. }), "{}", e);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Permutations

fn check_permute_scatters_in_source_order(seed: u64, n: usize, m: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let xs = Vector::from_vec(data::<(u64, u64)>(seed, n));
    let keys = data::<u64>(seed ^ 3, n);
    let defaults = Vector::from_vec(data::<(u64, u64)>(seed ^ 5, m));
    // Few destinations (histogram-like) and many; a third of the sources dropped.
    for width in [m.min(5), m] {
        let dst = |j: usize| (width > 0 && !keys[j].is_multiple_of(3)).then(|| (keys[j] >> 8) as usize % width);
        let got = cpu::permute(&cx, &defaults, &xs, |[j]| dst(j).map(|d| [d]), |new, old| aff(old, new)).unwrap();
        let mut want = defaults.to_vec();
        for j in 0..n {
            if let Some(d) = dst(j) {
                want[d] = aff(want[d], xs.get_linear(j));
            }
        }
        prop_assert_eq!(got.to_vec(), want);
    }
    let counts = cpu::permute(
        &cx,
        &Vector::from_vec(vec![0i32; 16]),
        &Vector::from_vec(vec![1i32; n]),
        |[j]| Some([keys[j] as usize % 16]),
        add_i32,
    )
    .unwrap();
    prop_assert_eq!(counts.iter().map(|c| c as usize).sum::<usize>(), n);
    if n > 0 {
        let e = cpu::permute(&cx, &defaults, &xs, |[j]| Some([j + m]), aff).unwrap_err();
        prop_assert!(matches!(&e, Error::IndexOutOfBounds { op, .. } if op == "permute"), "{}", e);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Movement

fn check_movement(seed: u64, n: usize, r: usize, k: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let a = matrix::<(f32, i32)>(seed, r, n);
    let rows = rows_of(&a);
    let flat = cpu::reshape(&cx, &a, [r * n]).unwrap();
    prop_assert_eq!(flat.to_vec(), a.to_vec());
    let e = cpu::reshape(&cx, &a, [r * n + 1]).unwrap_err();
    prop_assert!(matches!(e, Error::ShapeMismatch { .. }), "{}", e);
    let b = matrix::<(f32, i32)>(seed ^ 9, r + 1, k);
    let c = cpu::concat(&cx, &a, &b).unwrap();
    let cat: Vec<_> = rows.iter().zip(rows_of(&b)).flat_map(|(x, y)| x.iter().copied().chain(y)).collect();
    prop_assert_eq!(c.shape(), [r, n + k]);
    prop_assert_eq!(c.to_vec(), cat);
    Ok(())
}

fn check_slices(seed: u64, n: usize, k: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let v = Vector::from_vec(data::<u64>(seed, n));
    let rows = Matrix::from_shape_fn([k, n], |[_, j]| v.get_linear(j));
    let cols = Matrix::from_shape_fn([n, k], |[i, _]| v.get_linear(i));
    if k > 0 {
        prop_assert_eq!(cpu::slice(&cx, &rows, Axis::Rows, k - 1).unwrap(), v.clone());
        prop_assert_eq!(cpu::slice(&cx, &cols, Axis::Cols, k - 1).unwrap(), v.clone());
    }
    let e = cpu::slice(&cx, &rows, Axis::Rows, k).unwrap_err();
    prop_assert_eq!(e, Error::index_out_of_bounds("slice_row", &[k, 0], &[k, n]));
    let e = cpu::slice(&cx, &cols, Axis::Cols, k).unwrap_err();
    prop_assert_eq!(e, Error::index_out_of_bounds("slice_col", &[0, k], &[n, k]));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Stencils

fn check_stencils_1d(seed: u64, n: usize, b: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let v = Vector::from_vec(data::<i32>(seed, n));
    let boundary = [Boundary::Clamp, Boundary::Mirror, Boundary::Wrap, Boundary::Constant(-7)][b];
    let weights = |hood: &[i32]| {
        hood.iter().enumerate().fold(0i32, |a, (k, &x)| a.wrapping_add(x.wrapping_mul(k as i32 * 2 + 1)))
    };
    let got3 = cpu::stencil(&cx, &v, StencilShape::S3, boundary, |h: &[i32; 3]| weights(h)).unwrap();
    let got5 = cpu::stencil(&cx, &v, StencilShape::S5, boundary, |h: &[i32; 5]| weights(h)).unwrap();
    for (radius, got) in [(1isize, got3), (2, got5)] {
        let want: Vec<i32> = (0..n)
            .map(|i| {
                let hood: Vec<i32> = (-radius..=radius).map(|o| read_1d(&v, i as isize + o, boundary)).collect();
                weights(&hood)
            })
            .collect();
        prop_assert_eq!(got.to_vec(), want);
    }
    Ok(())
}

fn check_stencils_2d(seed: u64, r: usize, c: usize, b: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let m = matrix::<f64>(seed, r, c);
    let boundary = [Boundary::Clamp, Boundary::Mirror, Boundary::Wrap, Boundary::Constant(0.5)][b];
    let mix = |hood: &[f64]| hood.iter().enumerate().map(|(k, &x)| x * (k + 1) as f64).sum::<f64>();
    let got3 = cpu::stencil(&cx, &m, StencilShape::S3x3, boundary, |h: &[f64; 9]| mix(h)).unwrap();
    let got5 = cpu::stencil(&cx, &m, StencilShape::S5x5, boundary, |h: &[f64; 25]| mix(h)).unwrap();
    for (radius, got) in [(1isize, got3), (2, got5)] {
        let want = Matrix::from_shape_fn([r, c], |[i, j]| {
            let mut hood = Vec::new();
            for di in -radius..=radius {
                for dj in -radius..=radius {
                    hood.push(read_2d(&m, i as isize + di, j as isize + dj, boundary));
                }
            }
            mix(&hood)
        });
        prop_assert_eq!(got, want);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Irregular

fn check_expand_and_filter(seed: u64, n: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let v = Vector::from_vec(data::<(f32, i32)>(seed, n));
    let count = |(_, b): (f32, i32)| (b as u32 % 5) as usize;
    let got = cpu::expand(&cx, &v, count, |(a, b), i| a * i as f32 + b as f32).unwrap();
    let want: Vec<f32> = v.iter().flat_map(|(a, b)| (0..count((a, b))).map(move |i| a * i as f32 + b as f32)).collect();
    prop_assert_eq!(got.to_vec(), want);
    let counts_i64 = |(_, b): (f32, i32)| i64::from(b % 4);
    let got = cpu::expand(&cx, &v, counts_i64, |x, _| x);
    if v.iter().any(|x| counts_i64(x) < 0) {
        prop_assert!(matches!(got, Err(Error::InvalidArgument { ref op, .. }) if op == "expand"), "{:?}", got);
    } else {
        prop_assert_eq!(got.unwrap().len(), v.iter().map(|x| counts_i64(x) as usize).sum::<usize>());
    }
    let kept = cpu::filter(&cx, &v, |(a, _)| a > 0.0).unwrap();
    prop_assert_eq!(kept.to_vec(), v.iter().filter(|x| x.0 > 0.0).collect::<Vec<_>>());
    Ok(())
}

fn check_closure_errors(seed: u64, n: usize) -> Result<(), TestCaseError> {
    let cx = Ctx::new();
    let v = Vector::from_vec(data::<i32>(seed, n));
    let got = cpu::generate(&cx, v.shape(), |[i]| cx.read(&v, [(v.get_linear(i) as u32 % 64) as usize]));
    if n > 63 || v.iter().all(|x| ((x as u32 % 64) as usize) < n) {
        let want: Vec<i32> = v.iter().map(|x| v.get_linear((x as u32 % 64) as usize)).collect();
        prop_assert_eq!(got.unwrap().to_vec(), want);
    } else {
        prop_assert!(matches!(got, Err(Error::IndexOutOfBounds { ref op, .. }) if op == "index"), "{:?}", got);
    }
    // The data are odd, so `b & 2` is 0 for about half of them.
    let got = cpu::fold_all(&cx, &v, Some(0), |a, b| a.wrapping_add(cx.rem(b, b & 2)), "sum");
    if v.iter().any(|x| x & 2 == 0) {
        prop_assert_eq!(got.unwrap_err(), Error::division_by_zero("%"));
    } else {
        prop_assert_eq!(got.unwrap().get(), v.iter().fold(0i32, |a, b| a.wrapping_add(b % (b & 2))));
    }
    Ok(())
}

fn check_nested_and_segments(seed: u64, n: usize) -> Result<(), TestCaseError> {
    let lens = lengths(seed, n);
    let values = data::<u64>(seed, n);
    let nested = Nested::from_segments(segments(&lens), Vector::from_slice(&values)).unwrap();
    prop_assert_eq!(nested.lengths().to_vec(), lens.clone());
    let mut at = 0;
    for (i, &l) in lens.iter().enumerate() {
        prop_assert_eq!(nested.row(i).unwrap(), values[at..at + l].to_vec());
        at += l;
    }
    prop_assert_eq!(Nested::from_rows(nested.to_rows()), nested.clone());
    let signed: Vec<i64> = lens.iter().map(|&l| l as i64).chain([-1]).collect();
    let e = Segments::from_lengths("scanl_seg", &Vector::from_vec(signed)).unwrap_err();
    prop_assert!(matches!(e, Error::InvalidSegments { ref op, .. } if op == "scanl_seg"), "{}", e);
    Ok(())
}

/// The element a 1-D stencil reads at `i`, by the boundary's definition.
fn read_1d(v: &Vector<i32>, i: isize, b: Boundary<i32>) -> i32 {
    match place(i, v.len(), b) {
        Some(p) => v.get_linear(p),
        None => match b {
            Boundary::Constant(c) => c,
            _ => unreachable!(),
        },
    }
}

fn read_2d(m: &Matrix<f64>, i: isize, j: isize, b: Boundary<f64>) -> f64 {
    match (place(i, m.rows(), b), place(j, m.cols(), b)) {
        (Some(p), Some(q)) => m.at([p, q]).unwrap(),
        _ => match b {
            Boundary::Constant(c) => c,
            _ => unreachable!(),
        },
    }
}

/// One coordinate under a boundary, reflecting step by step for `Mirror`.
fn place<E>(mut i: isize, n: usize, b: Boundary<E>) -> Option<usize> {
    let n = n as isize;
    if (0..n).contains(&i) {
        return Some(i as usize);
    }
    match b {
        Boundary::Clamp => Some(i.clamp(0, n - 1) as usize),
        Boundary::Wrap => Some(i.rem_euclid(n) as usize),
        Boundary::Mirror => {
            if n == 1 {
                return Some(0);
            }
            while !(0..n).contains(&i) {
                i = if i < 0 { -i } else { 2 * (n - 1) - i };
            }
            Some(i as usize)
        }
        Boundary::Constant(_) => None,
    }
}
