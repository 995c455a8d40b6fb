//! Irregular: `expand` (counts of every integer type, long and empty runs, fused into a
//! `permute`), `filter` (none, all, some kept; tuples; by a mask), and `Nested`: its parts,
//! `Nested::from_lengths`, and the per-row reductions.

use crate::harness::*;
use accel::Elem;
use accel::prelude::*;

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

fn expand_kinds() -> Check {
    each_size("irregular::expand::counts", Tier::Medium, |n, rng| {
        let (g, r) = both!(expand_tuples(&Vector::from_vec(rng.vec::<u32>(n))));
        same("expand (u32 counts, tuples)", &g, &r)?;
        let (g, r) = both!(expand_i64_counts(&Vector::from_vec(rng.vec::<i32>(n))));
        same("expand (i64 counts)", &g, &r)?;
        let (g, r) = both!(expand_usize_counts(&Vector::from_vec(rng.f32s(n, -10.0, 30.0))));
        same("expand (usize counts, f32)", &g, &r)
    })
}

fn expand_long_runs() -> Check {
    each_size("irregular::expand::runs", Tier::Small, |n, rng| {
        // Mostly empty and short runs, a few long ones (a total of a few million at most).
        let counts: Vec<u32> = (0..n)
            .map(|_| match rng.below(20) {
                0..=9 => 0,
                10..=17 => rng.below(4) as u32,
                18 => rng.below(300) as u32,
                _ => rng.below(5000.min(4_000_000 / (n + 1) + 1)) as u32,
            })
            .collect();
        let (g, r) = both!(expand_runs(&Vector::from_vec(counts)));
        same("expand (runs)", &g, &r)
    })
}

fn expand_permute() -> Check {
    each_size("irregular::expand::then_permute", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        for bins in [1, 97] {
            let (g, r) = both!(expand_then_histogram(&xs, bins));
            same(&format!("expand then permute into {bins} bins"), &g, &r)?;
        }
        Ok(())
    })
}

fn filter_floats() -> Check {
    each_size("irregular::filter::f32", Tier::Large, |n, rng| {
        let (g, r) = both!(filter_f32(&Vector::from_vec(rng.f32s(n, -100.0, 100.0))));
        same("filter", &g, &r)
    })
}

fn filter_ints() -> Check {
    each_size("irregular::filter::i64", Tier::Medium, |n, rng| {
        let (g, r) = both!(filter_i64(&Vector::from_vec(rng.vec::<i64>(n))));
        same("filter", &g, &r)?;
        let ((gn, ga), (rn, ra)) = both!(filter_none_or_all(&Vector::from_vec(rng.vec::<i32>(n))));
        same("filter keeping none", &gn, &rn)?;
        same("filter keeping all", &ga, &ra)
    })
}

fn filter_bools() -> Check {
    each_size("irregular::filter::bool", Tier::Medium, |n, rng| {
        let ((gt, gf), (rt, rf)) = both!(filter_bool(&Vector::from_vec(rng.vec::<bool>(n))));
        same("filter (true)", &gt, &rt)?;
        same("filter (false)", &gf, &rf)
    })
}

fn filter_mask() -> Check {
    each_size("irregular::filter::mask_u64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        let extra = rng.below(3);
        let mask = Vector::from_vec(rng.vec::<bool>(n + extra));
        let (g, r) = both!(filter_by_mask(&xs, &mask));
        same("filter by a mask", &g, &r)
    })
}

fn filter_tuple() -> Check {
    each_size("irregular::filter::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(filter_tuples(&xs));
        same("filter (tuples)", &g, &r)
    })
}

fn nested_parts_f32() -> Check {
    each_size("irregular::nested::parts_f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let nested = nested_of(rng, data, false)?;
        let ((gv, gl, go, gn), (rv, rl, ro, rn)) = both!(nested_parts(&nested));
        same("values", &gv, &rv)?;
        same("lengths", &gl, &rl)?;
        same("offsets", &go, &ro)?;
        same("len", &gn, &rn)
    })
}

fn nested_int_reductions() -> Check {
    each_size("irregular::nested::reduce_i64", Tier::Medium, |n, rng| {
        let data: Vec<i64> = rng.vec::<i64>(n).into_iter().map(|x| x | 1).collect();
        let nested = nested_of(rng, data, false)?;
        let ((gs, gp, gf), (rs, rp, rf)) = both!(nested_sums(&nested));
        same("sum of rows", &gs, &rs)?;
        same("product of rows", &gp, &rp)?;
        same("fold of rows (xor)", &gf, &rf)?;
        let maps = rng.affine_i64(n);
        let maps = nested_of(rng, maps, false)?;
        let (g, r) = both!(nested_affine(&maps));
        same("fold of rows of affine maps", &g, &r)
    })?;
    each_size("irregular::nested::extrema_i32", Tier::Medium, |n, rng| {
        let data = rng.vec::<i32>(n);
        let nested = nested_of(rng, data, true)?;
        let ((gx, gn, gf), (rx, rn, rf)) = both!(nested_extrema(&nested));
        same("maximum of rows", &gx, &rx)?;
        same("minimum of rows", &gn, &rn)?;
        same("fold1 of rows", &gf, &rf)
    })
}

fn nested_float_reductions() -> Check {
    each_size("irregular::nested::reduce_f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let nested = nested_of(rng, data.clone(), false)?;
        let abs = Nested::from_parts(nested.segments().offsets().to_vec(), abs_all(&data))?;
        let (g, r) = both!(nested_sum_f64(&nested));
        let bound = reference!(nested_sum_f64(&abs));
        summed_arrays("sum of rows (f64)", &g, &r, &bound)?;
        let nonempty = nested_of(rng, data, true)?;
        let ((gx, gn), (rx, rn)) = both!(nested_extrema_f64(&nonempty));
        same("maximum of rows (f64)", &gx, &rx)?;
        same("minimum of rows (f64)", &gn, &rn)?;
        if n <= 65_537 {
            let near_one: Vec<f32> = (0..n).map(|_| rng.f64_in(0.98, 1.02) as f32).collect();
            let (g, r) = both!(nested_product_f32(&nested_of(rng, near_one, false)?));
            let r = r.to_vec();
            summed("product of rows (f32)", &g.to_vec(), &r, &r.iter().map(|x| x.abs()).collect::<Vec<_>>())?;
        }
        Ok(())
    })
}

fn nested_from_lengths_all() -> Check {
    each_size("irregular::nested::from_lengths", Tier::Medium, |n, rng| {
        let lens = rng.lengths(n, false);
        let l32 = Vector::from_vec(lens.iter().map(|&l| l as i32).collect());
        let (g, r) = both!(nested_from_lengths(&l32, &Vector::from_vec(rng.vec::<f32>(n))));
        same_nested("Nested::from_lengths", &g, &r)?;
        let l64 = Vector::from_vec(lens.iter().map(|&l| l as u64).collect());
        let ((gs, go), (rs, ro)) = both!(from_lengths_sum(&l64, &Vector::from_vec(rng.vec::<i64>(n))));
        same("sum of rows of Nested::from_lengths", &gs, &rs)?;
        same("offsets of Nested::from_lengths", &go, &ro)
    })
}

pub fn cases() -> Vec<Case> {
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
