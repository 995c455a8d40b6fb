//! Irregular: `expand` (counts of every integer type, long and empty runs, fused into a
//! `permute`), `filter` (none, all, some kept; tuples; by a mask), and `Nested`: its parts,
//! `Nested::from_lengths`, and the per-row reductions.
//!
//! Irregular combinators: `expand`, `filter`, and `Nested` (`values lengths offsets len`, the
//! per-row `fold fold1 sum product maximum minimum`, `Nested::from_lengths`).
//!
//! Integers and moved elements compare exactly; the per-row float sums with the rounding bound of
//! their row.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::Elem;
use accel::prelude::*;
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
fn expand_runs(counts: Vector<u32>) -> Vector<u64> {
    counts.expand(|c| c, |c, i| (c as u64) * 1000000 + i as u64)
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
fn filter_none_or_all(xs: Vector<i32>) -> (Vector<i32>, Vector<i32>) {
    (xs.filter(|x| x != x), xs.filter(|x| x == x))
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
fn nested_sum_f64(n: Nested<f64>) -> Vector<f64> {
    n.sum()
}

#[accel]
fn nested_extrema_f64(n: Nested<f64>) -> (Vector<f64>, Vector<f64>) {
    (n.maximum(), n.minimum())
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

/// A nested vector of `n` values in rows of random lengths.
fn nested_of<E: Elem>(rng: &mut Rng, values: Vec<E>, nonempty: bool) -> Result<Nested<E>, accel::Error> {
    let mut offsets = vec![0];
    for l in rng.lengths(values.len(), nonempty) {
        offsets.push(offsets[offsets.len() - 1] + l);
    }
    Nested::from_parts(offsets, values)
}

fn same_nested<E: Elem + PartialEq + std::fmt::Debug>(what: &str, got: &Nested<E>, want: &Nested<E>) -> Check {
    same(&format!("{what} (offsets)"), &got.offsets(), &want.offsets())?;
    same(&format!("{what} (values)"), got.values(), want.values())
}

fn expand_kinds(on: &Target) -> Check {
    on.each_size("irregular::expand::counts", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, expand_tuples(&Vector::from_vec(rng.vec::<u32>(n))));
        same("expand (u32 counts, tuples)", &g, &r)?;
        let (g, r) = both!(on, expand_i64_counts(&Vector::from_vec(rng.vec::<i32>(n))));
        same("expand (i64 counts)", &g, &r)?;
        let (g, r) = both!(on, expand_usize_counts(&Vector::from_vec(rng.f32s(n, -10.0, 30.0))));
        same("expand (usize counts, f32)", &g, &r)
    })
}

fn expand_long_runs(on: &Target) -> Check {
    on.each_size("irregular::expand::runs", Tier::Small, |n, rng| {
        // Mostly empty and short runs, a few long ones (a total of a few million at most).
        let counts: Vec<u32> = (0..n)
            .map(|_| match rng.below(20) {
                0..=9 => 0,
                10..=17 => rng.below(4) as u32,
                18 => rng.below(300) as u32,
                _ => rng.below(5000.min(4_000_000 / (n + 1) + 1)) as u32,
            })
            .collect();
        let (g, r) = both!(on, expand_runs(&Vector::from_vec(counts)));
        same("expand (runs)", &g, &r)
    })
}

fn expand_permute(on: &Target) -> Check {
    on.each_size("irregular::expand::then_permute", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        for bins in [1, 97] {
            let (g, r) = both!(on, expand_then_histogram(&xs, bins));
            same(&format!("expand then permute into {bins} bins"), &g, &r)?;
        }
        Ok(())
    })
}

fn filter_floats(on: &Target) -> Check {
    on.each_size("irregular::filter::f32", Tier::Large, |n, rng| {
        let (g, r) = both!(on, filter_f32(&Vector::from_vec(rng.f32s(n, -100.0, 100.0))));
        same("filter", &g, &r)
    })
}

fn filter_ints(on: &Target) -> Check {
    on.each_size("irregular::filter::i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, filter_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("filter", &g, &r)?;
        let ((gn, ga), (rn, ra)) = both!(on, filter_none_or_all(&Vector::from_vec(rng.vec::<i32>(n))));
        same("filter keeping none", &gn, &rn)?;
        same("filter keeping all", &ga, &ra)
    })
}

fn filter_bools(on: &Target) -> Check {
    on.each_size("irregular::filter::bool", Tier::Medium, |n, rng| {
        let ((gt, gf), (rt, rf)) = both!(on, filter_bool(&Vector::from_vec(rng.vec::<bool>(n))));
        same("filter (true)", &gt, &rt)?;
        same("filter (false)", &gf, &rf)
    })
}

fn filter_mask(on: &Target) -> Check {
    on.each_size("irregular::filter::mask_u64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        let extra = rng.below(3);
        let mask = Vector::from_vec(rng.vec::<bool>(n + extra));
        let (g, r) = both!(on, filter_by_mask(&xs, &mask));
        same("filter by a mask", &g, &r)
    })
}

fn filter_tuple(on: &Target) -> Check {
    on.each_size("irregular::filter::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(on, filter_tuples(&xs));
        same("filter (tuples)", &g, &r)
    })
}

fn nested_parts_f32(on: &Target) -> Check {
    on.each_size("irregular::nested::parts_f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let nested = nested_of(rng, data, false)?;
        let ((gv, gl, go, gn), (rv, rl, ro, rn)) = both!(on, nested_parts(&nested));
        same("values", &gv, &rv)?;
        same("lengths", &gl, &rl)?;
        same("offsets", &go, &ro)?;
        same("len", &gn, &rn)
    })
}

fn nested_int_reductions(on: &Target) -> Check {
    on.each_size("irregular::nested::reduce_i64", Tier::Medium, |n, rng| {
        let data: Vec<i64> = rng.vec::<i64>(n).into_iter().map(|x| x | 1).collect();
        let nested = nested_of(rng, data, false)?;
        let ((gs, gp, gf), (rs, rp, rf)) = both!(on, nested_sums(&nested));
        same("sum of rows", &gs, &rs)?;
        same("product of rows", &gp, &rp)?;
        same("fold of rows (xor)", &gf, &rf)?;
        let maps = rng.affine_i64(n);
        let maps = nested_of(rng, maps, false)?;
        let (g, r) = both!(on, nested_affine(&maps));
        same("fold of rows of affine maps", &g, &r)
    })?;
    on.each_size("irregular::nested::extrema_i32", Tier::Medium, |n, rng| {
        let data = rng.vec::<i32>(n);
        let nested = nested_of(rng, data, true)?;
        let ((gx, gn, gf), (rx, rn, rf)) = both!(on, nested_extrema(&nested));
        same("maximum of rows", &gx, &rx)?;
        same("minimum of rows", &gn, &rn)?;
        same("fold1 of rows", &gf, &rf)
    })
}

fn nested_float_reductions(on: &Target) -> Check {
    on.each_size("irregular::nested::reduce_f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let nested = nested_of(rng, data.clone(), false)?;
        let abs = Nested::from_parts(nested.segments().offsets().to_vec(), abs_all(&data))?;
        let (g, r) = both!(on, nested_sum_f64(&nested));
        let bound = reference!(nested_sum_f64(&abs));
        summed_arrays("sum of rows (f64)", &g, &r, &bound)?;
        let nonempty = nested_of(rng, data, true)?;
        let ((gx, gn), (rx, rn)) = both!(on, nested_extrema_f64(&nonempty));
        same("maximum of rows (f64)", &gx, &rx)?;
        same("minimum of rows (f64)", &gn, &rn)?;
        if n <= 65_537 {
            let near_one: Vec<f32> = (0..n).map(|_| rng.f64_in(0.98, 1.02) as f32).collect();
            let (g, r) = both!(on, nested_product_f32(&nested_of(rng, near_one, false)?));
            let r = r.to_vec();
            summed("product of rows (f32)", &g.to_vec(), &r, &r.iter().map(|x| x.abs()).collect::<Vec<_>>())?;
        }
        Ok(())
    })
}

fn nested_from_lengths_all(on: &Target) -> Check {
    on.each_size("irregular::nested::from_lengths", Tier::Medium, |n, rng| {
        let lens = rng.lengths(n, false);
        let l32 = Vector::from_vec(lens.iter().map(|&l| l as i32).collect());
        let (g, r) = both!(on, nested_from_lengths(&l32, &Vector::from_vec(rng.vec::<f32>(n))));
        same_nested("Nested::from_lengths", &g, &r)?;
        let l64 = Vector::from_vec(lens.iter().map(|&l| l as u64).collect());
        let ((gs, go), (rs, ro)) = both!(on, from_lengths_sum(&l64, &Vector::from_vec(rng.vec::<i64>(n))));
        same("sum of rows of Nested::from_lengths", &gs, &rs)?;
        same("offsets of Nested::from_lengths", &go, &ro)
    })
}

fn sweeps() -> Vec<Test> {
    vec![
        case("irregular::expand::counts", expand_kinds),
        case("irregular::expand::runs", expand_long_runs),
        case("irregular::expand::then_permute", expand_permute),
        heavy("irregular::filter::f32", filter_floats),
        case("irregular::filter::i64_none_all", filter_ints),
        case("irregular::filter::bool", filter_bools),
        case("irregular::filter::mask_u64", filter_mask),
        case("irregular::filter::tuple_f32_i32", filter_tuple),
        case("irregular::nested::parts_f32", nested_parts_f32),
        case("irregular::nested::reduce_ints", nested_int_reductions),
        case("irregular::nested::reduce_floats", nested_float_reductions),
        case("irregular::nested::from_lengths", nested_from_lengths_all),
    ]
}

#[accel]
fn nested_float(n: Nested<f64>) -> (Vector<f64>, Vector<f64>, Vector<f64>) {
    (n.sum(), n.maximum(), n.minimum())
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

fn expand_emits_count_results_per_element(on: &Target) -> Check {
    props(24, (vec_sized(u32s(), size()), vec_sized(i32s(), size()), vec_sized(f32s(), size())), |(xs, is, fs)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, expand_tuples(&v));
        let want: Vec<(u32, u32)> = xs.iter().flat_map(|&x| (0..x % 7).map(move |i| (x, i))).collect();
        all_same(on, "expand (u32 counts, tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(on, expand_i64_counts(&v));
        let want: Vec<i64> = is
            .iter()
            .flat_map(|&x| {
                (0..(x % 4).unsigned_abs() as i64).map(move |i| (x as i64).wrapping_mul(100).wrapping_add(i))
            })
            .collect();
        all_same(on, "expand (i64 counts)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(on, expand_usize_counts(&v));
        let want: Vec<f32> = fs
            .iter()
            .flat_map(|&x| {
                let count = if x > 0.0 { (x as usize) % 5 } else { 0 };
                (0..count).map(move |i| x * (i as f32 + 1.0))
            })
            .collect();
        all_same_bits(on, "expand (usize counts, f32)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn expand_then_permute(on: &Target) -> Check {
    props(24, (vec_sized(u32s(), size()), 1usize..100), |(xs, bins)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, expand_then_histogram(&v, bins));
        let mut want = vec![0i32; bins];
        for &x in &xs {
            for i in 0..x % 5 {
                want[x.wrapping_add(i) as usize % bins] += 1;
            }
        }
        all_same(on, "expand then permute", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn filter_keeps_order(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), vec_sized(i64s(), size())), |(xs, ys)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, filter_f32(&v));
        let want: Vec<f32> = xs.iter().copied().filter(|&x| x > 0.5).collect();
        all_same_bits(on, "filter f32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, filter_i64(&v));
        let want: Vec<i64> = ys.iter().copied().filter(|x| x % 3 == 0).collect();
        all_same(on, "filter i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn filter_with_bool_masks(on: &Target) -> Check {
    props(
        24,
        (
            prop::collection::vec(any::<bool>(), 0..3000),
            size().prop_flat_map(|n| (vec_of(u64s(), n), prop::collection::vec(any::<bool>(), n))),
            size().prop_flat_map(|n| prop::collection::vec((f32s(), small_i32s()), n)),
        ),
        |(bs, (xs, mask), ps)| {
            let v = Vector::from_vec(bs.clone());
            let ((t_cpu, f_cpu), (t_int, f_int)) = both!(on, filter_bool(&v));
            let trues = bs.iter().filter(|&&b| b).count();
            all_same(on, "filter bool (true)", &t_cpu.to_vec(), &t_int.to_vec(), &vec![true; trues])?;
            all_same(on, "filter bool (false)", &f_cpu.to_vec(), &f_int.to_vec(), &vec![false; bs.len() - trues])?;
            let (v, m) = (Vector::from_vec(xs.clone()), Vector::from_vec(mask.clone()));
            let (cpu, interp) = both!(on, filter_by_mask(&v, &m));
            let want: Vec<u64> = xs.iter().zip(&mask).filter(|p| *p.1).map(|p| *p.0).collect();
            all_same(on, "filter by mask", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let v: Vector<(f32, i32)> = ps.iter().copied().collect();
            let (cpu, interp) = both!(on, filter_tuples(&v));
            let want: Vec<(f32, i32)> = ps.iter().copied().filter(|&(x, k)| k % 2 == 0 || x < 0.0).collect();
            all_same(on, "filter tuples", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn nested_parts_and_length(on: &Target) -> Check {
    props(24, rows_of(f32s(), 40, 60), |rows| {
        let n = Nested::from_rows(rows.clone());
        let ((v_cpu, l_cpu, o_cpu, n_cpu), (v_int, l_int, o_int, n_int)) = both!(on, nested_parts(&n));
        let values: Vec<f32> = rows.iter().flatten().copied().collect();
        let lengths: Vec<usize> = rows.iter().map(Vec::len).collect();
        all_same_bits(on, "Nested::values", &v_cpu.to_vec(), &v_int.to_vec(), &values)?;
        all_same(on, "Nested::lengths", &l_cpu.to_vec(), &l_int.to_vec(), &lengths)?;
        all_same(on, "Nested::offsets", &o_cpu.to_vec(), &o_int.to_vec(), &offsets_of(&rows))?;
        all_same(on, "Nested::len", &[n_cpu.get()], &[n_int.get()], &[rows.len()])?;
        Ok(())
    })
}

fn nested_row_reductions_of_integers(on: &Target) -> Check {
    props(24, (rows_of(i64s(), 40, 60), nonempty_rows(i32s(), 40, 60)), |(rows, rows1)| {
        let n = Nested::from_rows(rows.clone());
        let ((s_cpu, p_cpu, x_cpu), (s_int, p_int, x_int)) = both!(on, nested_sums(&n));
        let sums: Vec<i64> = rows.iter().map(|r| r.iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        let products: Vec<i64> = rows.iter().map(|r| r.iter().fold(1i64, |a, &b| a.wrapping_mul(b))).collect();
        let xors: Vec<i64> = rows.iter().map(|r| r.iter().fold(7i64, |a, &b| a ^ b)).collect();
        all_same(on, "Nested::sum", &s_cpu.to_vec(), &s_int.to_vec(), &sums)?;
        all_same(on, "Nested::product", &p_cpu.to_vec(), &p_int.to_vec(), &products)?;
        all_same(on, "Nested::fold", &x_cpu.to_vec(), &x_int.to_vec(), &xors)?;
        let n = Nested::from_rows(rows1.clone());
        let ((mx_cpu, mn_cpu, f_cpu), (mx_int, mn_int, f_int)) = both!(on, nested_extrema(&n));
        let maxima: Vec<i32> = rows1.iter().map(|r| *r.iter().max().unwrap()).collect();
        let minima: Vec<i32> = rows1.iter().map(|r| *r.iter().min().unwrap()).collect();
        let fold1s: Vec<i32> = rows1.iter().map(|r| r.iter().copied().reduce(i32::wrapping_add).unwrap()).collect();
        all_same(on, "Nested::maximum", &mx_cpu.to_vec(), &mx_int.to_vec(), &maxima)?;
        all_same(on, "Nested::minimum", &mn_cpu.to_vec(), &mn_int.to_vec(), &minima)?;
        all_same(on, "Nested::fold1", &f_cpu.to_vec(), &f_int.to_vec(), &fold1s)?;
        Ok(())
    })
}

fn nested_row_reductions_of_floats_and_tuples(on: &Target) -> Check {
    props(
        24,
        (nonempty_rows(f64s(), 40, 80), rows_of(f32_near_one(), 30, 60), rows_of((i64s(), i64s()), 30, 60)),
        |(rows, prows, arows)| {
            let n = Nested::from_rows(rows.clone());
            let ((s_cpu, mx_cpu, mn_cpu), (s_int, mx_int, mn_int)) = both!(on, nested_float(&n));
            let want: Vec<f64> = rows.iter().map(|r| exact_sum(r.iter().copied())).collect();
            let bound: Vec<f64> =
                rows.iter().map(|r| sum_bound::<f64>(r.len(), r.iter().map(|x| x.abs()).sum())).collect();
            all_close(on, "Nested::sum f64", &s_cpu.to_vec(), &s_int.to_vec(), &want, &bound)?;
            let maxima: Vec<f64> = rows.iter().map(|r| r.iter().copied().reduce(f64::max).unwrap()).collect();
            let minima: Vec<f64> = rows.iter().map(|r| r.iter().copied().reduce(f64::min).unwrap()).collect();
            all_same(on, "Nested::maximum f64", &mx_cpu.to_vec(), &mx_int.to_vec(), &maxima)?;
            all_same(on, "Nested::minimum f64", &mn_cpu.to_vec(), &mn_int.to_vec(), &minima)?;
            let n = Nested::from_rows(prows.clone());
            let (cpu, interp) = both!(on, nested_product_f32(&n));
            let want: Vec<f64> = prows.iter().map(|r| r.iter().map(|&x| x as f64).product()).collect();
            let bound: Vec<f64> = prows.iter().zip(&want).map(|(r, &p)| product_bound::<f32>(r.len(), p)).collect();
            all_close(on, "Nested::product f32", &cpu.to_vec(), &interp.to_vec(), &want, &bound)?;
            let n = Nested::from_rows(arows.clone());
            let (cpu, interp) = both!(on, nested_affine(&n));
            let want: Vec<(i64, i64)> = arows.iter().map(|r| r.iter().copied().fold((1, 0), affine)).collect();
            all_same(on, "Nested::fold (affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn nested_built_from_lengths(on: &Target) -> Check {
    props(24, (rows_of(f32s(), 40, 60), rows_of(i64s(), 40, 60)), |(rows, irows)| {
        let lengths: Vec<i32> = rows.iter().map(|r| r.len() as i32).collect();
        let values: Vec<f32> = rows.iter().flatten().copied().collect();
        let (l, v) = (Vector::from_vec(lengths), Vector::from_vec(values));
        let (cpu, interp) = both!(on, nested_from_lengths(&l, &v));
        let doubled: Vec<Vec<f32>> = rows.iter().map(|r| r.iter().map(|x| x * 2.0).collect()).collect();
        check_eq!(&cpu.to_rows(), &doubled, "Nested::from_lengths (CPU backend)");
        check_eq!(&interp.to_rows(), &doubled, "Nested::from_lengths (interpreter)");
        let lengths: Vec<u64> = irows.iter().map(|r| r.len() as u64).collect();
        let values: Vec<i64> = irows.iter().flatten().copied().collect();
        let (l, v) = (Vector::from_vec(lengths), Vector::from_vec(values));
        let ((s_cpu, o_cpu), (s_int, o_int)) = both!(on, from_lengths_sum(&l, &v));
        let sums: Vec<i64> = irows.iter().map(|r| r.iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        all_same(on, "Nested::from_lengths then sum", &s_cpu.to_vec(), &s_int.to_vec(), &sums)?;
        all_same(on, "Nested::from_lengths then offsets", &o_cpu.to_vec(), &o_int.to_vec(), &offsets_of(&irows))?;
        Ok(())
    })
}

/// Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
fn large_irregular(on: &Target) -> Check {
    props(4, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let xs = rng.u32s(n);
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, expand_tuples(&v));
        let want: Vec<(u32, u32)> = xs.iter().flat_map(|&x| (0..x % 7).map(move |i| (x, i))).collect();
        all_same(on, "expand (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let ys = rng.i64s(n);
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, filter_i64(&v));
        let want: Vec<i64> = ys.iter().copied().filter(|x| x % 3 == 0).collect();
        all_same(on, "filter (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
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
        let ((s_cpu, p_cpu, x_cpu), (s_int, p_int, x_int)) = both!(on, nested_sums(&nested));
        let sums: Vec<i64> = rows.iter().map(|r| r.iter().fold(0i64, |a, &b| a.wrapping_add(b))).collect();
        let products: Vec<i64> = rows.iter().map(|r| r.iter().fold(1i64, |a, &b| a.wrapping_mul(b))).collect();
        let xors: Vec<i64> = rows.iter().map(|r| r.iter().fold(7i64, |a, &b| a ^ b)).collect();
        all_same(on, "Nested::sum (large)", &s_cpu.to_vec(), &s_int.to_vec(), &sums)?;
        all_same(on, "Nested::product (large)", &p_cpu.to_vec(), &p_int.to_vec(), &products)?;
        all_same(on, "Nested::fold (large)", &x_cpu.to_vec(), &x_int.to_vec(), &xors)?;
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("irregular::expand_emits_count_results_per_element", expand_emits_count_results_per_element),
        case("irregular::expand_then_permute", expand_then_permute),
        case("irregular::filter_keeps_order", filter_keeps_order),
        case("irregular::filter_with_bool_masks", filter_with_bool_masks),
        case("irregular::nested_parts_and_length", nested_parts_and_length),
        case("irregular::nested_row_reductions_of_integers", nested_row_reductions_of_integers),
        case("irregular::nested_row_reductions_of_floats_and_tuples", nested_row_reductions_of_floats_and_tuples),
        case("irregular::nested_built_from_lengths", nested_built_from_lengths),
        case("irregular::large_irregular", large_irregular),
    ]);
    tests
}
