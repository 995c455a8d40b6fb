//! The fused forms on the skeletons: delayed operands and epilogues, on pseudo-random data of
//! awkward sizes (empty, one element, odd, longer than the chunked paths' threshold), against
//! plain sequential oracles over the materialised array.

use super::par::MIN_CHUNK;
use super::*;
use crate::array::Vector;
use crate::nested::Segments;
use accel_core::ir::{Direction, ScanKind, StencilShape};
use std::sync::atomic::{AtomicUsize, Ordering};

/// An element of index `ix`: an affine map `x -> a x + b`, so that [`compose`] shows any
/// reordering of operands.
fn element<const R: usize>(seed: u64, ix: [usize; R]) -> (u64, u64) {
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for &i in &ix {
        h = (h ^ i as u64).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
    }
    (h | 1, h >> 17)
}

/// Composition of affine maps: associative, not commutative.
fn compose(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0.wrapping_mul(b.0), a.0.wrapping_mul(b.1).wrapping_add(a.1))
}

/// An epilogue of another element type that depends on both the index and the value.
fn post<const R: usize>(ix: [usize; R], v: (u64, u64)) -> (u64, bool) {
    let i = ix.iter().fold(0u64, |h, &i| h.wrapping_mul(1_000_003).wrapping_add(i as u64));
    (v.1 ^ i, v.0 & 2 == 0)
}

/// A delayed array of `shape` of the elements of `seed`.
fn delayed<const R: usize>(seed: u64, shape: [usize; R]) -> Delayed<impl Fn([usize; R]) -> (u64, u64) + Sync, R> {
    Delayed::new(shape, move |ix: [usize; R]| element(seed, ix)).unwrap()
}

/// [`delayed`] materialised.
fn manifest<const R: usize>(seed: u64, shape: [usize; R]) -> Array<(u64, u64), R> {
    Array::from_shape_fn(shape, |ix| element(seed, ix))
}

const LONG: usize = 2 * MIN_CHUNK + 3;

const MATRICES: [[usize; 2]; 8] = [[0, 5], [4, 0], [1, 1], [3, 1], [7, 13], [1, LONG], [2, LONG + 10], [3000, 3]];

/// The rows of a row-major matrix.
fn rows<E: Elem>(a: &Array<E, 2>) -> Vec<Vec<E>> {
    let [_, c] = a.shape();
    let v = a.to_vec();
    if c == 0 { vec![vec![]; a.shape()[0]] } else { v.chunks(c).map(<[E]>::to_vec).collect() }
}

fn seq_scan(xs: &[(u64, u64)], dir: Direction, z: Option<(u64, u64)>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut acc = z;
    let mut step = |x| {
        let v = match (acc, dir) {
            (None, _) => x,
            (Some(a), Direction::Left) => compose(a, x),
            (Some(a), Direction::Right) => compose(x, a),
        };
        acc = Some(v);
        v
    };
    match dir {
        Direction::Left => {
            out.extend(z);
            out.extend(xs.iter().map(|&x| step(x)));
        }
        Direction::Right => {
            out.extend(z);
            out.extend(xs.iter().rev().map(|&x| step(x)));
            out.reverse();
        }
    }
    out
}

#[test]
fn folds_of_delayed_arrays_with_epilogues() {
    let cx = Ctx::new();
    for (k, shape) in MATRICES.into_iter().enumerate() {
        let (d, a) = (delayed(k as u64, shape), manifest(k as u64, shape));
        for z in [Some((1, 0)), None] {
            if z.is_none() && shape[1] == 0 {
                assert_eq!(fold::<_, 2, 1>(&cx, &d, z, compose, "fold1"), Err(Error::empty_reduction("fold1")));
                continue;
            }
            let want: Vec<(u64, bool)> = rows(&a)
                .iter()
                .enumerate()
                .map(|(i, r)| post([i], r.iter().fold(z, |acc, &x| Some(acc.map_or(x, |a| compose(a, x)))).unwrap()))
                .collect();
            let got = fold_imap(&cx, &d, z, compose, "fold", post).unwrap();
            assert_eq!((got.shape(), got.to_vec()), ([shape[0]], want.clone()), "{shape:?} {z:?}");
            assert_eq!(fold_imap(&cx, &a, z, compose, "fold", post::<1>).unwrap().to_vec(), want);
            let plain = fold::<_, 2, 1>(&cx, &d, z, compose, "fold").unwrap();
            assert_eq!(plain, fold::<_, 2, 1>(&cx, &a, z, compose, "fold").unwrap());
        }
        let all = a.iter().fold((1, 0), compose);
        assert_eq!(fold_all_imap(&cx, &d, Some((1, 0)), compose, "fold_all", post).unwrap().get(), post([], all));
        assert_eq!(fold_all(&cx, &d, Some((1, 0)), compose, "fold_all").unwrap().get(), all);
    }
    let e = fold_all(&cx, &delayed(0, [0]), None, compose, "fold1").unwrap_err();
    assert_eq!(e, Error::empty_reduction("fold1"));
    let s = fold_all_imap(&cx, &delayed(0, [0]), Some((3, 4)), compose, "fold", post).unwrap();
    assert_eq!(s.get(), post([], (3, 4)));
}

#[test]
fn delayed_elements_are_computed_once_by_folds() {
    let cx = Ctx::new();
    for shape in [[3, 7], [2, LONG]] {
        let calls = AtomicUsize::new(0);
        let d = Delayed::new(shape, |[i, j]: [usize; 2]| {
            calls.fetch_add(1, Ordering::Relaxed);
            (i * 31 + j) as u64
        })
        .unwrap();
        let sums = fold::<_, 2, 1>(&cx, &d, Some(0), u64::wrapping_add, "sum").unwrap();
        assert_eq!(calls.load(Ordering::Relaxed), shape[0] * shape[1]);
        let want: Vec<u64> = (0..shape[0]).map(|i| (0..shape[1]).map(|j| (i * 31 + j) as u64).sum()).collect();
        assert_eq!(sums.to_vec(), want);
    }
}

#[test]
fn scans_of_delayed_arrays_with_epilogues() {
    let cx = Ctx::new();
    for (k, shape) in MATRICES.into_iter().enumerate() {
        let (d, a) = (delayed(k as u64 + 100, shape), manifest(k as u64 + 100, shape));
        for dir in [Direction::Left, Direction::Right] {
            for (kind, z) in [(ScanKind::WithSeed, Some((5, 7))), (ScanKind::Inclusive, None)] {
                let seq: Vec<Vec<(u64, u64)>> = rows(&a).iter().map(|r| seq_scan(r, dir, z)).collect();
                let out_n = shape[1] + usize::from(z.is_some());
                let want: Vec<(u64, bool)> = seq
                    .iter()
                    .enumerate()
                    .flat_map(|(i, r)| r.iter().enumerate().map(move |(j, &v)| post([i, j], v)))
                    .collect();
                let got = scan_imap(&cx, &d, dir, kind, z, compose, post).unwrap();
                assert_eq!((got.shape(), got.to_vec()), ([shape[0], out_n], want), "{shape:?} {dir:?} {kind:?}");
                let plain = scan(&cx, &d, dir, kind, z, compose).unwrap();
                assert_eq!(plain.to_vec(), seq.concat(), "{shape:?} {dir:?} {kind:?}");
            }
            let (pre, tot) = scan_total::<_, 2, 1>(&cx, &d, dir, (5, 7), compose).unwrap();
            let (pre_a, tot_a) = scan_total::<_, 2, 1>(&cx, &a, dir, (5, 7), compose).unwrap();
            assert_eq!((pre, tot), (pre_a, tot_a), "{shape:?} {dir:?}");
        }
    }
    // Rank 1 and 3.
    let (d, a) = (delayed(7, [LONG]), manifest(7, [LONG]));
    let got = scan_imap(&cx, &d, Direction::Right, ScanKind::Inclusive, None, compose, post).unwrap();
    let want: Vec<_> =
        seq_scan(&a.to_vec(), Direction::Right, None).into_iter().enumerate().map(|(j, v)| post([j], v)).collect();
    assert_eq!(got.to_vec(), want);
    let (d, a) = (delayed(8, [3, 5, 4]), manifest(8, [3, 5, 4]));
    let got = scan_imap(&cx, &d, Direction::Left, ScanKind::WithSeed, Some((1, 0)), compose, post).unwrap();
    let want: Vec<_> = a
        .to_vec()
        .chunks(4)
        .enumerate()
        .flat_map(|(r, row)| {
            let s = seq_scan(row, Direction::Left, Some((1, 0)));
            s.into_iter().enumerate().map(move |(j, v)| post([r / 5, r % 5, j], v))
        })
        .collect();
    assert_eq!((got.shape(), got.to_vec()), ([3, 5, 5], want));
}

#[test]
fn segmented_reductions_and_scans_of_delayed_arrays_with_epilogues() {
    let cx = Ctx::new();
    let n = 2 * LONG + 9;
    let lengths: [&[usize]; 4] = [&[n], &[0, 3, 0, n - 4, 1, 0], &[LONG, 0, n - LONG], &[1; 0]];
    for (k, lens) in lengths.into_iter().enumerate() {
        let cols = if lens.is_empty() { 0 } else { n };
        for rows_n in [1, 3] {
            let (d, a) = (delayed(k as u64 + 200, [rows_n, cols]), manifest(k as u64 + 200, [rows_n, cols]));
            let segs = Segments::from_lengths("test", &Vector::from_vec(lens.to_vec())).unwrap();
            let offs = segs.offsets().to_vec();
            let got = fold_seg_imap(&cx, &d, &segs, Some((2, 3)), compose, "fold_seg", post).unwrap();
            let scanned = scan_seg_imap(&cx, &d, &segs, ScanKind::WithSeed, Some((2, 3)), compose, post).unwrap();
            let inclusive = scan_seg_imap(&cx, &d, &segs, ScanKind::Inclusive, None, compose, post).unwrap();
            let (mut want, mut want_scan, mut want_incl) = (Vec::new(), Vec::new(), Vec::new());
            for (r, row) in rows(&a).iter().enumerate() {
                let (mut at, mut at_incl) = (0, 0);
                for (s, w) in offs.windows(2).enumerate() {
                    let seg = &row[w[0]..w[1]];
                    want.push(post([r, s], seg.iter().fold((2, 3), |acc, &x| compose(acc, x))));
                    for v in seq_scan(seg, Direction::Left, Some((2, 3))) {
                        want_scan.push(post([r, at], v));
                        at += 1;
                    }
                    for v in seq_scan(seg, Direction::Left, None) {
                        want_incl.push(post([r, at_incl], v));
                        at_incl += 1;
                    }
                }
            }
            assert_eq!(got.to_vec(), want, "{lens:?}");
            assert_eq!(scanned.to_vec(), want_scan, "{lens:?}");
            assert_eq!(inclusive.to_vec(), want_incl, "{lens:?}");
            let plain = fold_seg(&cx, &d, &segs, Some((2, 3)), compose, "fold_seg").unwrap();
            assert_eq!(plain, fold_seg(&cx, &a, &segs, Some((2, 3)), compose, "fold_seg").unwrap());
            if lens.contains(&0) {
                let e = fold_seg(&cx, &d, &segs, None, compose, "fold1_seg").unwrap_err();
                assert_eq!(e, Error::empty_reduction("fold1_seg"));
            }
        }
    }
}

#[test]
fn permutes_of_delayed_sources_and_defaults() {
    let cx = Ctx::new();
    for n in [0, 1, 13, 3 * LONG] {
        for m in [1, 7, 2 * n + 1] {
            let key = |i: usize| (!i.is_multiple_of(3)).then(|| i.wrapping_mul(2_654_435_761) % m);
            let (defaults, defaults_a) = (delayed(300, [m]), manifest(300, [m]));
            let computed = AtomicUsize::new(0);
            let src = Delayed::new([n], |ix: [usize; 1]| {
                computed.fetch_add(1, Ordering::Relaxed);
                element(301, ix)
            })
            .unwrap();
            let got = permute(&cx, &defaults, &src, |[i]| key(i).map(|d| [d]), compose).unwrap();
            let mut want = defaults_a.to_vec();
            for i in 0..n {
                if let Some(d) = key(i) {
                    want[d] = compose(element(301, [i]), want[d]);
                }
            }
            assert_eq!(got.to_vec(), want, "n = {n}, m = {m}");
            // Dropped sources are never computed.
            assert_eq!(computed.load(Ordering::Relaxed), (0..n).filter(|&i| key(i).is_some()).count());
        }
    }
    let (defaults, src) = (delayed(0, [2, 2]), delayed(1, [3]));
    let e = permute(&cx, &defaults, &src, |[i]| Some([i, 0]), compose).unwrap_err();
    assert_eq!(e, Error::index_out_of_bounds("permute", &[2, 0], &[2, 2]));
}

#[test]
fn stencils_expands_and_filters_of_delayed_arrays() {
    let cx = Ctx::new();
    let sum3 = |n: &[(u64, u64); 3]| n[0].0.wrapping_add(n[1].1).wrapping_mul(n[2].0);
    let sum9 = |n: &[(u64, u64); 9]| n.iter().fold(0u64, |a, x| a.wrapping_mul(31).wrapping_add(x.0 ^ x.1));
    for n in [0, 1, 2, 5, LONG] {
        let (d, a) = (delayed(400, [n]), manifest(400, [n]));
        for b in [Boundary::Clamp, Boundary::Mirror, Boundary::Wrap, Boundary::Constant((9, 9))] {
            let got = stencil(&cx, &d, StencilShape::S3, b, sum3).unwrap();
            assert_eq!(got, stencil(&cx, &a, StencilShape::S3, b, sum3).unwrap(), "{n} {b:?}");
        }
        let count = |x: (u64, u64)| (x.0 % 4) as i32;
        let value = |x: (u64, u64), i: usize| x.1.wrapping_add(i as u64);
        let want: Vec<u64> = a.iter().flat_map(|x| (0..count(x) as usize).map(move |i| value(x, i))).collect();
        assert_eq!(expand(&cx, &d, count, value).unwrap().to_vec(), want, "{n}");
        let keep = |x: (u64, u64)| x.1.is_multiple_of(3);
        let want: Vec<(u64, u64)> = a.iter().filter(|&x| keep(x)).collect();
        assert_eq!(filter(&cx, &d, keep).unwrap().to_vec(), want, "{n}");
    }
    for shape in [[0, 4], [1, 1], [4, 3], [70, 300]] {
        let (d, a) = (delayed(401, shape), manifest(401, shape));
        for b in [Boundary::Clamp, Boundary::Mirror, Boundary::Constant((1, 2))] {
            let got = stencil(&cx, &d, StencilShape::S3x3, b, sum9).unwrap();
            assert_eq!(got, stencil(&cx, &a, StencilShape::S3x3, b, sum9).unwrap(), "{shape:?} {b:?}");
        }
    }
    let e = expand(&cx, &delayed(2, [5]), |x| if x.0 % 2 == 1 { -1 } else { 1 }, |x, _| x).unwrap_err();
    assert!(e.to_string().contains("negative"), "{e}");
}

#[test]
fn failures_of_delayed_elements_and_epilogues_come_back_as_errors() {
    let cx = Ctx::new();
    let v = Vector::from_vec(vec![1, 2, 0, 4]);
    let quotients = Delayed::new([4], |[i]: [usize; 1]| cx.div(12, cx.read(&v, [i]))).unwrap();
    let e = fold_all(&cx, &quotients, Some(0), |a, b| a + b, "sum").unwrap_err();
    assert_eq!(e, Error::division_by_zero("/"));
    let past = Delayed::new([5], |[i]: [usize; 1]| cx.read(&v, [i])).unwrap();
    let e = scan(&cx, &past, Direction::Left, ScanKind::Inclusive, None, |a, b| a + b).unwrap_err();
    assert_eq!(e, Error::index_out_of_bounds("index", &[4], &[4]));
    let e = fold_imap(&cx, &v, Some(0), |a, b| a + b, "sum", |[], s| cx.rem(s, 0)).unwrap_err();
    assert_eq!(e, Error::division_by_zero("%"));
    assert!(cx.check().is_ok(), "every error was taken");
}
