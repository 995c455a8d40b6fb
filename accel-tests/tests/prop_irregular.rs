//! Irregular combinators: `expand`, `filter`, and `Nested` (`values lengths offsets len`, the
//! per-row `fold fold1 sum product maximum minimum`, `Nested::from_lengths`).
//!
//! Integers and moved elements compare exactly; the per-row float sums with the rounding bound of
//! their row.

#[macro_use]
mod common;

use accel::prelude::*;
use common::*;
use proptest::prelude::*;

#[accel]
fn expand_tuples(xs: Vector<u32>) -> Vector<(u32, u32)> {
    xs.expand(|x| x % 7, |x, i| (x, i as u32))
}

#[accel]
fn expand_i64_counts(xs: Vector<i32>) -> Vector<i64> {
    xs.expand(|x| (x % 4).abs() as i64, |x, i| (x as i64) * 100 + i as i64)
}

#[accel]
fn expand_usize_counts(xs: Vector<f32>) -> Vector<f32> {
    xs.expand(|x| if x > 0.0 { (x as usize) % 5 } else { 0 }, |x, i| x * (i as f32 + 1.0))
}

#[accel]
fn expand_then_histogram(xs: Vector<u32>, bins: usize) -> Vector<i32> {
    let e = xs.expand(|x| x % 5, |x, i| x + i as u32);
    let zeros = fill(bins, 0);
    e.map(|v| 1).permute(zeros, |i| (e[i] as usize) % bins, |new, old| new + old)
}

#[accel]
fn filter_f32(xs: Vector<f32>) -> Vector<f32> {
    xs.filter(|x| x > 0.5)
}

#[accel]
fn filter_i64(xs: Vector<i64>) -> Vector<i64> {
    xs.filter(|x| x % 3 == 0)
}

#[accel]
fn filter_bool(bs: Vector<bool>) -> (Vector<bool>, Vector<bool>) {
    (bs.filter(|b| b), bs.filter(|b| !b))
}

#[accel]
fn filter_by_mask(xs: Vector<u64>, mask: Vector<bool>) -> Vector<u64> {
    xs.zip(mask).filter(|p| p.1).map(|p| p.0)
}

#[accel]
fn filter_tuples(xs: Vector<(f32, i32)>) -> Vector<(f32, i32)> {
    xs.filter(|(x, k)| k % 2 == 0 || x < 0.0)
}

#[accel]
fn nested_parts(n: Nested<f32>) -> (Vector<f32>, Vector<usize>, Vector<usize>, Scalar<usize>) {
    (n.values(), n.lengths(), n.offsets(), unit(n.len()))
}

#[accel]
fn nested_sums(n: Nested<i64>) -> (Vector<i64>, Vector<i64>, Vector<i64>) {
    (n.sum(), n.product(), n.fold(7, |a, b| a ^ b))
}

#[accel]
fn nested_extrema(n: Nested<i32>) -> (Vector<i32>, Vector<i32>, Vector<i32>) {
    (n.maximum(), n.minimum(), n.fold1(|a, b| a + b))
}

#[accel]
fn nested_float(n: Nested<f64>) -> (Vector<f64>, Vector<f64>, Vector<f64>) {
    (n.sum(), n.maximum(), n.minimum())
}

#[accel]
fn nested_product_f32(n: Nested<f32>) -> Vector<f32> {
    n.product()
}

#[accel]
fn nested_affine(n: Nested<(i64, i64)>) -> Vector<(i64, i64)> {
    n.fold((1, 0), |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn nested_from_lengths(lens: Vector<i32>, xs: Vector<f32>) -> Nested<f32> {
    Nested::from_lengths(lens, xs.map(|x| x * 2.0))
}

#[accel]
fn from_lengths_sum(lens: Vector<u64>, xs: Vector<i64>) -> (Vector<i64>, Vector<usize>) {
    let n = Nested::from_lengths(lens, xs);
    (n.sum(), n.offsets())
}

fn affine(p: (i64, i64), q: (i64, i64)) -> (i64, i64) {
    (p.0.wrapping_mul(q.0), p.1.wrapping_mul(q.0).wrapping_add(q.1))
}

/// Rows of a nested array, some of them empty, of any lengths.
fn rows_of<T: std::fmt::Debug + Clone, S: Strategy<Value = T> + Clone>(
    elem: S,
    max_rows: usize,
    max_len: usize,
) -> impl Strategy<Value = Vec<Vec<T>>> {
    prop::collection::vec(
        prop_oneof![1 => Just(0usize), 3 => 1..=max_len].prop_flat_map(move |l| prop::collection::vec(elem.clone(), l)),
        0..max_rows,
    )
}

/// Rows none of which is empty (for `fold1`, `maximum`, `minimum`).
fn nonempty_rows<T: std::fmt::Debug + Clone, S: Strategy<Value = T> + Clone>(
    elem: S,
    max_rows: usize,
    max_len: usize,
) -> impl Strategy<Value = Vec<Vec<T>>> {
    prop::collection::vec(prop::collection::vec(elem, 1..=max_len), 0..max_rows)
}

fn offsets_of<T>(rows: &[Vec<T>]) -> Vec<usize> {
    std::iter::once(0)
        .chain(rows.iter().scan(0, |at, r| {
            *at += r.len();
            Some(*at)
        }))
        .collect()
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn expand_emits_count_results_per_element(
        xs in vec_sized(u32s(), size()),
        is in vec_sized(i32s(), size()),
        fs in vec_sized(f32s(), size()),
    ) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(expand_tuples(&v));
        let want: Vec<(u32, u32)> = xs.iter().flat_map(|&x| (0..x % 7).map(move |i| (x, i))).collect();
        all_same("expand (u32 counts, tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(expand_i64_counts(&v));
        let want: Vec<i64> = is
            .iter()
            .flat_map(|&x| {
                (0..(x % 4).unsigned_abs() as i64).map(move |i| (x as i64).wrapping_mul(100).wrapping_add(i))
            })
            .collect();
        all_same("expand (i64 counts)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(expand_usize_counts(&v));
        let want: Vec<f32> = fs
            .iter()
            .flat_map(|&x| {
                let count = if x > 0.0 { (x as usize) % 5 } else { 0 };
                (0..count).map(move |i| x * (i as f32 + 1.0))
            })
            .collect();
        all_same_bits("expand (usize counts, f32)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn expand_then_permute(xs in vec_sized(u32s(), size()), bins in 1usize..100) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(expand_then_histogram(&v, bins));
        let mut want = vec![0i32; bins];
        for &x in &xs {
            for i in 0..x % 5 {
                want[x.wrapping_add(i) as usize % bins] += 1;
            }
        }
        all_same("expand then permute", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn filter_keeps_order(xs in vec_sized(f32s(), size()), ys in vec_sized(i64s(), size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(filter_f32(&v));
        let want: Vec<f32> = xs.iter().copied().filter(|&x| x > 0.5).collect();
        all_same_bits("filter f32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(filter_i64(&v));
        let want: Vec<i64> = ys.iter().copied().filter(|x| x % 3 == 0).collect();
        all_same("filter i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn filter_with_bool_masks(
        bs in prop::collection::vec(any::<bool>(), 0..3000),
        (xs, mask) in size().prop_flat_map(|n| (vec_of(u64s(), n), prop::collection::vec(any::<bool>(), n))),
        ps in size().prop_flat_map(|n| prop::collection::vec((f32s(), small_i32s()), n)),
    ) {
        let v = Vector::from_vec(bs.clone());
        let ((t_cpu, f_cpu), (t_int, f_int)) = both!(filter_bool(&v));
        let trues = bs.iter().filter(|&&b| b).count();
        all_same("filter bool (true)", &t_cpu.to_vec(), &t_int.to_vec(), &vec![true; trues])?;
        all_same("filter bool (false)", &f_cpu.to_vec(), &f_int.to_vec(), &vec![false; bs.len() - trues])?;
        let (v, m) = (Vector::from_vec(xs.clone()), Vector::from_vec(mask.clone()));
        let (cpu, interp) = both!(filter_by_mask(&v, &m));
        let want: Vec<u64> = xs.iter().zip(&mask).filter(|p| *p.1).map(|p| *p.0).collect();
        all_same("filter by mask", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v: Vector<(f32, i32)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(filter_tuples(&v));
        let want: Vec<(f32, i32)> = ps.iter().copied().filter(|&(x, k)| k % 2 == 0 || x < 0.0).collect();
        all_same("filter tuples", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn nested_parts_and_length(rows in rows_of(f32s(), 40, 60)) {
        let n = Nested::from_rows(rows.clone());
        let ((v_cpu, l_cpu, o_cpu, n_cpu), (v_int, l_int, o_int, n_int)) = both!(nested_parts(&n));
        let values: Vec<f32> = rows.iter().flatten().copied().collect();
        let lengths: Vec<usize> = rows.iter().map(Vec::len).collect();
        all_same_bits("Nested::values", &v_cpu.to_vec(), &v_int.to_vec(), &values)?;
        all_same("Nested::lengths", &l_cpu.to_vec(), &l_int.to_vec(), &lengths)?;
        all_same("Nested::offsets", &o_cpu.to_vec(), &o_int.to_vec(), &offsets_of(&rows))?;
        all_same("Nested::len", &[n_cpu.get()], &[n_int.get()], &[rows.len()])?;
    }

    #[test]
    fn nested_row_reductions_of_integers(rows in rows_of(i64s(), 40, 60), rows1 in nonempty_rows(i32s(), 40, 60)) {
        let n = Nested::from_rows(rows.clone());
        let ((s_cpu, p_cpu, x_cpu), (s_int, p_int, x_int)) = both!(nested_sums(&n));
        let sums: Vec<i64> = rows.iter().map(|r| r.iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        let products: Vec<i64> = rows.iter().map(|r| r.iter().fold(1i64, |a, &b| a.wrapping_mul(b))).collect();
        let xors: Vec<i64> = rows.iter().map(|r| r.iter().fold(7i64, |a, &b| a ^ b)).collect();
        all_same("Nested::sum", &s_cpu.to_vec(), &s_int.to_vec(), &sums)?;
        all_same("Nested::product", &p_cpu.to_vec(), &p_int.to_vec(), &products)?;
        all_same("Nested::fold", &x_cpu.to_vec(), &x_int.to_vec(), &xors)?;
        let n = Nested::from_rows(rows1.clone());
        let ((mx_cpu, mn_cpu, f_cpu), (mx_int, mn_int, f_int)) = both!(nested_extrema(&n));
        let maxima: Vec<i32> = rows1.iter().map(|r| *r.iter().max().unwrap()).collect();
        let minima: Vec<i32> = rows1.iter().map(|r| *r.iter().min().unwrap()).collect();
        let fold1s: Vec<i32> = rows1.iter().map(|r| r.iter().copied().reduce(i32::wrapping_add).unwrap()).collect();
        all_same("Nested::maximum", &mx_cpu.to_vec(), &mx_int.to_vec(), &maxima)?;
        all_same("Nested::minimum", &mn_cpu.to_vec(), &mn_int.to_vec(), &minima)?;
        all_same("Nested::fold1", &f_cpu.to_vec(), &f_int.to_vec(), &fold1s)?;
    }

    #[test]
    fn nested_row_reductions_of_floats_and_tuples(
        rows in nonempty_rows(f64s(), 40, 80),
        prows in rows_of(f32_near_one(), 30, 60),
        arows in rows_of((i64s(), i64s()), 30, 60),
    ) {
        let n = Nested::from_rows(rows.clone());
        let ((s_cpu, mx_cpu, mn_cpu), (s_int, mx_int, mn_int)) = both!(nested_float(&n));
        let want: Vec<f64> = rows.iter().map(|r| exact_sum(r.iter().copied())).collect();
        let bound: Vec<f64> = rows.iter().map(|r| sum_bound::<f64>(r.len(), r.iter().map(|x| x.abs()).sum())).collect();
        all_close("Nested::sum f64", &s_cpu.to_vec(), &s_int.to_vec(), &want, &bound)?;
        let maxima: Vec<f64> = rows.iter().map(|r| r.iter().copied().reduce(f64::max).unwrap()).collect();
        let minima: Vec<f64> = rows.iter().map(|r| r.iter().copied().reduce(f64::min).unwrap()).collect();
        all_same("Nested::maximum f64", &mx_cpu.to_vec(), &mx_int.to_vec(), &maxima)?;
        all_same("Nested::minimum f64", &mn_cpu.to_vec(), &mn_int.to_vec(), &minima)?;
        let n = Nested::from_rows(prows.clone());
        let (cpu, interp) = both!(nested_product_f32(&n));
        let want: Vec<f64> = prows.iter().map(|r| r.iter().map(|&x| x as f64).product()).collect();
        let bound: Vec<f64> = prows.iter().zip(&want).map(|(r, &p)| product_bound::<f32>(r.len(), p)).collect();
        all_close("Nested::product f32", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;
        let n = Nested::from_rows(arows.clone());
        let (cpu, interp) = both!(nested_affine(&n));
        let want: Vec<(i64, i64)> = arows.iter().map(|r| r.iter().copied().fold((1, 0), affine)).collect();
        all_same("Nested::fold (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn nested_built_from_lengths(rows in rows_of(f32s(), 40, 60), irows in rows_of(i64s(), 40, 60)) {
        let lengths: Vec<i32> = rows.iter().map(|r| r.len() as i32).collect();
        let values: Vec<f32> = rows.iter().flatten().copied().collect();
        let (l, v) = (Vector::from_vec(lengths), Vector::from_vec(values));
        let (cpu, interp) = both!(nested_from_lengths(&l, &v));
        let doubled: Vec<Vec<f32>> = rows.iter().map(|r| r.iter().map(|x| x * 2.0).collect()).collect();
        prop_assert_eq!(&cpu.to_rows(), &doubled, "Nested::from_lengths (CPU backend)");
        prop_assert_eq!(&interp.to_rows(), &doubled, "Nested::from_lengths (interpreter)");
        let lengths: Vec<u64> = irows.iter().map(|r| r.len() as u64).collect();
        let values: Vec<i64> = irows.iter().flatten().copied().collect();
        let (l, v) = (Vector::from_vec(lengths), Vector::from_vec(values));
        let ((s_cpu, o_cpu), (s_int, o_int)) = both!(from_lengths_sum(&l, &v));
        let sums: Vec<i64> = irows.iter().map(|r| r.iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        all_same("Nested::from_lengths then sum", &s_cpu.to_vec(), &s_int.to_vec(), &sums)?;
        all_same("Nested::from_lengths then offsets", &o_cpu.to_vec(), &o_int.to_vec(), &offsets_of(&irows))?;
    }
}

proptest! {
    // Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
    #![proptest_config(config(4))]

    #[test]
    fn large_irregular(n in large_size(), seed in any::<u64>()) {
        let mut rng = SplitMix::new(seed);
        let xs = rng.u32s(n);
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(expand_tuples(&v));
        let want: Vec<(u32, u32)> = xs.iter().flat_map(|&x| (0..x % 7).map(move |i| (x, i))).collect();
        all_same("expand (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let ys = rng.i64s(n);
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(filter_i64(&v));
        let want: Vec<i64> = ys.iter().copied().filter(|x| x % 3 == 0).collect();
        all_same("filter (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        // Rows from empty to longer than a chunk.
        let mut rows: Vec<Vec<i64>> = Vec::new();
        let mut left = n;
        while left > 0 {
            let l = match rng.below(3) {
                0 => rng.below(3) as usize,
                1 => rng.below(300) as usize,
                _ => rng.below(40_000) as usize,
            }
            .min(left);
            rows.push((0..l).map(|_| rng.next_u64() as i64).collect());
            left -= l;
        }
        let nested = Nested::from_rows(rows.clone());
        let ((s_cpu, p_cpu, x_cpu), (s_int, p_int, x_int)) = both!(nested_sums(&nested));
        let sums: Vec<i64> = rows.iter().map(|r| r.iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        let products: Vec<i64> = rows.iter().map(|r| r.iter().fold(1i64, |a, &b| a.wrapping_mul(b))).collect();
        let xors: Vec<i64> = rows.iter().map(|r| r.iter().fold(7i64, |a, &b| a ^ b)).collect();
        all_same("Nested::sum (large)", &s_cpu.to_vec(), &s_int.to_vec(), &sums)?;
        all_same("Nested::product (large)", &p_cpu.to_vec(), &p_int.to_vec(), &products)?;
        all_same("Nested::fold (large)", &x_cpu.to_vec(), &x_int.to_vec(), &xors)?;
    }
}
