//! Movement: `backpermute`, `permute` (with combining functions whose result does not depend on
//! the order in which the device applies them: `+` on integers, `+` on floats within the
//! rounding bound, `max`, wrapping `*`, componentwise tuples, and any function where no two
//! sources meet), `reverse transpose reshape take drop concat replicate_rows replicate_cols
//! slice_row slice_col`.
//!
//! Movement: `backpermute permute reverse transpose reshape take drop concat replicate_rows
//! replicate_cols slice_row slice_col`.
//!
//! These combinators move elements without computing new ones (bar `permute`'s combine), so every
//! comparison is exact, floats and tuples included. `permute`'s combines happen in ascending
//! source order on every backend (the CPU backend may group them, never reorder them), so a
//! non-commutative associative combine (the composition of affine maps) must agree exactly too.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn gather_reversed(xs: Vector<f32>) -> Vector<f32> {
    let n = xs.len();
    xs.backpermute(n, |i| n - 1 - i)
}

#[accel]
fn gather_by_index(xs: Vector<(f32, i32)>, idx: Vector<usize>) -> Vector<(f32, i32)> {
    xs.backpermute(idx.len(), |i| idx[i])
}

#[accel]
fn gather_transpose(m: Matrix<i64>) -> Matrix<i64> {
    let (r, c) = m.shape();
    m.backpermute((c, r), |(i, j)| (j, i))
}

#[accel]
fn gather_vector_into_matrix(xs: Vector<u32>, r: usize, c: usize) -> Matrix<u32> {
    xs.backpermute((r, c), |(i, j)| (i * c + j * 7) % xs.len())
}

#[accel]
fn gather_matrix_column(m: Matrix<f64>, j: usize) -> Vector<f64> {
    m.backpermute(m.shape().0, |i| (i, j))
}

#[accel]
fn histogram_i32(keys: Vector<u32>, bins: usize) -> Vector<i32> {
    let zeros = fill(bins, 0);
    keys.map(|k| 1).permute(zeros, |i| (keys[i] as usize) % bins, |new, old| new + old)
}

#[accel]
fn scatter_add_f32(xs: Vector<f32>, dst: Vector<usize>, defaults: Vector<f32>) -> Vector<f32> {
    xs.permute(defaults, |i| dst[i], |new, old| new + old)
}

#[accel]
fn scatter_add_f64(xs: Vector<f64>, dst: Vector<i64>, n: usize) -> Vector<f64> {
    xs.permute(fill(n, 0.5), |i| if dst[i] >= 0 { Some(dst[i] as usize) } else { None }, |new, old| new + old)
}

#[accel]
fn scatter_max_f32(xs: Vector<f32>, dst: Vector<i64>, n: usize) -> Vector<f32> {
    let defaults = fill(n, -1000.0f32);
    xs.permute(defaults, |i| if dst[i] >= 0 { Some(dst[i] as usize) } else { None }, |new, old| new.max(old))
}

#[accel]
fn scatter_mul_u64(xs: Vector<u64>, dst: Vector<usize>, n: usize) -> Vector<u64> {
    xs.permute(fill(n, 3u64), |i| dst[i], |new, old| new * old)
}

#[accel]
fn scatter_pairs_u32(xs: Vector<(u32, u32)>, dst: Vector<usize>, n: usize) -> Vector<(u32, u32)> {
    xs.permute(fill(n, (0u32, 0u32)), |i| dst[i], |new, old| (new.0 + old.0, new.1.max(old.1)))
}

#[accel]
fn scatter_unique(xs: Vector<(f32, i32)>, dst: Vector<usize>) -> Vector<(f32, i32)> {
    // Every destination is hit at most once: keeping the new value is then order independent.
    let defaults = fill(dst.len() + 3, (0.5f32, -1));
    xs.permute(defaults, |i| dst[i], |new, old| new)
}

#[accel]
fn column_sums(m: Matrix<i64>) -> Vector<i64> {
    let zeros = fill(m.shape().1, 0i64);
    m.permute(zeros, |(i, j)| Some(j), |new, old| new + old)
}

#[accel]
fn scatter_into_matrix(xs: Vector<u64>, r: usize, c: usize) -> Matrix<u64> {
    let defaults = fill((r, c), 1u64);
    xs.permute(defaults, |i| if i % 3 == 0 { None } else { Some(((i / c) % r, i % c)) }, |new, old| new ^ old)
}

#[accel]
fn reverse_vec(xs: Vector<(f32, i32)>) -> Vector<(f32, i32)> {
    xs.reverse()
}

#[accel]
fn reverse_rows(m: Matrix<i32>) -> Matrix<i32> {
    m.reverse()
}

#[accel]
fn transpose_f64(m: Matrix<f64>) -> Matrix<f64> {
    m.transpose()
}

#[accel]
fn transpose_tuples(m: Matrix<(u32, bool)>) -> Matrix<(u32, bool)> {
    m.transpose()
}

#[accel]
fn reshape_to_matrix(xs: Vector<i64>, r: usize, c: usize) -> Matrix<i64> {
    xs.reshape((r, c))
}

#[accel]
fn reshape_to_vector(m: Matrix<f32>) -> Vector<f32> {
    m.reshape(m.len())
}

#[accel]
fn reshape_matrix(m: Matrix<u32>, r: usize, c: usize) -> (Matrix<u32>, Array<u32, 3>) {
    (m.reshape([r, c]), m.reshape((1, r, c)))
}

#[accel]
fn take_drop_vec(xs: Vector<f64>, n: usize) -> (Vector<f64>, Vector<f64>) {
    (xs.take(n), xs.drop(n))
}

#[accel]
fn take_drop_rows(m: Matrix<(i32, f32)>, n: usize) -> (Matrix<(i32, f32)>, Matrix<(i32, f32)>) {
    (m.take(n), m.drop(n))
}

#[accel]
fn concat_vec(xs: Vector<u64>, ys: Vector<u64>) -> Vector<u64> {
    xs.concat(ys)
}

#[accel]
fn concat_rows(a: Matrix<f32>, b: Matrix<f32>) -> Matrix<f32> {
    a.concat(b)
}

#[accel]
fn replicate(xs: Vector<i64>, n: usize) -> (Matrix<i64>, Matrix<i64>) {
    (xs.replicate_rows(n), xs.replicate_cols(n))
}

#[accel]
fn slices(m: Matrix<(u64, f64)>, i: usize, j: usize) -> (Vector<(u64, f64)>, Vector<(u64, f64)>) {
    (m.slice_row(i), m.slice_col(j))
}

#[accel]
fn moves_composed(m: Matrix<i32>) -> Vector<i32> {
    let t = m.transpose().reverse().drop(1);
    t.reshape(t.len())
}

/// A random permutation of `0..n`.
fn permutation(rng: &mut Rng, n: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        p.swap(i, rng.below(i + 1));
    }
    p
}

fn backpermute_reverse(on: &Target) -> Check {
    on.each_size("movement::backpermute::f32", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.f32s(n, -100.0, 100.0));
        let (g, r) = both!(on, gather_reversed(&xs));
        same("backpermute (reverse)", &g, &r)
    })
}

fn backpermute_tuples(on: &Target) -> Check {
    on.each_size("movement::backpermute::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        // Random sources, some repeated; more or fewer results than sources.
        let m = if n == 0 { 0 } else { n + 5 - rng.below(10.min(n + 5)) };
        let idx = Vector::from_vec(if n == 0 { vec![] } else { rng.indices(m, n) });
        let (g, r) = both!(on, gather_by_index(&xs, &idx));
        same("backpermute (by index)", &g, &r)
    })
}

fn backpermute_matrices(on: &Target) -> Check {
    on.each_shape("movement::backpermute::matrix", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, gather_transpose(&Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?));
        same("backpermute (transpose)", &g, &w)?;
        if r * c > 0 {
            let xs = Vector::from_vec(rng.vec::<u32>(r * c + 7));
            let (g, w) = both!(on, gather_vector_into_matrix(&xs, r, c));
            same("backpermute (vector into matrix)", &g, &w)?;
            let j = rng.below(c);
            let (g, w) = both!(on, gather_matrix_column(&Matrix::from_shape_vec([r, c], rng.vec::<f64>(r * c))?, j));
            same("backpermute (a column)", &g, &w)?;
        }
        Ok(())
    })
}

fn permute_histogram(on: &Target) -> Check {
    on.each_size("movement::permute::histogram_i32", Tier::Large, |n, rng| {
        let keys = Vector::from_vec(rng.vec::<u32>(n));
        // The interpreter is slow: one bin count for the largest input.
        let counts: &[usize] = if n >= LARGE_FROM { &[1000] } else { &[1, 7, 256, 65_537] };
        for &bins in counts {
            let (g, r) = both!(on, histogram_i32(&keys, bins));
            same(&format!("histogram into {bins} bins"), &g, &r)?;
        }
        Ok(())
    })
}

fn permute_add_floats(on: &Target) -> Check {
    on.each_size("movement::permute::add_f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let bins = 1 + rng.below(n / 4 + 2);
        let dst = Vector::from_vec(rng.indices(n, bins));
        let defaults = rng.vec::<f32>(bins);
        let (g, r) =
            both!(on, scatter_add_f32(&Vector::from_vec(data.clone()), &dst, &Vector::from_vec(defaults.clone())));
        let abs =
            reference!(scatter_add_f32(&Vector::from_vec(abs_all(&data)), &dst, &Vector::from_vec(abs_all(&defaults))));
        summed_arrays("permute (+) of f32", &g, &r, &abs)
    })?;
    on.each_size("movement::permute::add_f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let bins = 1 + rng.below(1000);
        let dst: Vec<i64> = (0..n).map(|_| rng.below(bins + bins / 3) as i64 - (bins / 3) as i64).collect();
        let dst = Vector::from_vec(dst);
        let (g, r) = both!(on, scatter_add_f64(&Vector::from_vec(data.clone()), &dst, bins));
        let abs = reference!(scatter_add_f64(&Vector::from_vec(abs_all(&data)), &dst, bins));
        summed_arrays("permute (+, some dropped) of f64", &g, &r, &abs)
    })
}

fn permute_max_f32(on: &Target) -> Check {
    on.each_size("movement::permute::max_f32", Tier::Medium, |n, rng| {
        let bins = 1 + rng.below(n / 2 + 2);
        let dst: Vec<i64> = (0..n).map(|_| rng.below(bins + 10) as i64 - 10).collect();
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let (g, r) = both!(on, scatter_max_f32(&xs, &Vector::from_vec(dst), bins));
        same("permute (max, some dropped)", &g, &r)
    })
}

fn permute_mul_u64(on: &Target) -> Check {
    on.each_size("movement::permute::mul_u64", Tier::Medium, |n, rng| {
        let bins = 1 + rng.below(300);
        // Odd factors: products never collapse to zero.
        let xs: Vec<u64> = (0..n).map(|_| rng.next_u64() | 1).collect();
        let dst = Vector::from_vec(rng.indices(n, bins));
        let (g, r) = both!(on, scatter_mul_u64(&Vector::from_vec(xs), &dst, bins));
        same("permute (wrapping *)", &g, &r)
    })
}

fn permute_pairs(on: &Target) -> Check {
    on.each_size("movement::permute::pairs_u32", Tier::Medium, |n, rng| {
        let bins = 1 + rng.below(n + 1);
        let xs: Vector<(u32, u32)> = rng.vec::<u32>(n).into_iter().zip(rng.vec::<u32>(n)).collect();
        let dst = Vector::from_vec(rng.indices(n, bins));
        let (g, r) = both!(on, scatter_pairs_u32(&xs, &dst, bins));
        same("permute ((+, max) on pairs)", &g, &r)
    })
}

fn permute_unique_destinations(on: &Target) -> Check {
    on.each_size("movement::permute::unique_tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let dst: Vec<usize> = permutation(rng, n + 3).into_iter().take(n).collect();
        let (g, r) = both!(on, scatter_unique(&xs, &Vector::from_vec(dst)));
        same("permute to distinct destinations", &g, &r)
    })
}

fn permute_matrices(on: &Target) -> Check {
    on.each_shape("movement::permute::matrix", Tier::Small, |r, c, rng| {
        let (g, w) = both!(on, column_sums(&Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?));
        same("permute (column sums)", &g, &w)?;
        if r * c > 0 {
            let extra = rng.below(3 * r * c);
            let xs = Vector::from_vec(rng.vec::<u64>(r * c + extra));
            let (g, w) = both!(on, scatter_into_matrix(&xs, r, c));
            same("permute (vector into matrix, xor)", &g, &w)?;
        }
        Ok(())
    })
}

fn reverse_all(on: &Target) -> Check {
    on.each_size("movement::reverse::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(on, reverse_vec(&xs));
        same("reverse", &g, &r)
    })?;
    on.each_shape("movement::reverse::rows_i32", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, reverse_rows(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("reverse (rows)", &g, &w)
    })
}

fn transpose_all(on: &Target) -> Check {
    on.each_shape("movement::transpose::f64_and_tuples", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, transpose_f64(&Matrix::from_shape_vec([r, c], rng.vec::<f64>(r * c))?));
        same("transpose (f64)", &g, &w)?;
        let m: Vec<(u32, bool)> = rng.vec::<u32>(r * c).into_iter().zip(rng.vec::<bool>(r * c)).collect();
        let (g, w) = both!(on, transpose_tuples(&Matrix::from_shape_vec([r, c], m)?));
        same("transpose ((u32, bool))", &g, &w)
    })
}

fn reshape_all(on: &Target) -> Check {
    on.each_shape("movement::reshape::all", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, reshape_to_matrix(&Vector::from_vec(rng.vec::<i64>(r * c)), r, c));
        same("reshape (vector to matrix)", &g, &w)?;
        let (g, w) = both!(on, reshape_to_vector(&Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?));
        same("reshape (matrix to vector)", &g, &w)?;
        let ((g2, g3), (w2, w3)) =
            both!(on, reshape_matrix(&Matrix::from_shape_vec([c, r], rng.vec::<u32>(r * c))?, r, c));
        same("reshape (matrix to matrix)", &g2, &w2)?;
        same("reshape (matrix to rank 3)", &g3, &w3)
    })
}

fn take_and_drop(on: &Target) -> Check {
    on.each_size("movement::take_drop::f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        for k in [0, 1, n / 2, n.saturating_sub(1), n, n + 5] {
            let ((gt, gd), (rt, rd)) = both!(on, take_drop_vec(&xs, k));
            same(&format!("take {k}"), &gt, &rt)?;
            same(&format!("drop {k}"), &gd, &rd)?;
        }
        Ok(())
    })?;
    on.each_shape("movement::take_drop::rows", Tier::Medium, |r, c, rng| {
        let m: Vec<(i32, f32)> = rng.vec::<i32>(r * c).into_iter().zip(rng.vec::<f32>(r * c)).collect();
        let m = Matrix::from_shape_vec([r, c], m)?;
        for k in [0, c / 3, c, c + 1] {
            let ((gt, gd), (rt, rd)) = both!(on, take_drop_rows(&m, k));
            same(&format!("take {k} (rows)"), &gt, &rt)?;
            same(&format!("drop {k} (rows)"), &gd, &rd)?;
        }
        Ok(())
    })
}

fn concat_all(on: &Target) -> Check {
    on.each_size("movement::concat::u64", Tier::Medium, |n, rng| {
        let m = rng.below(n + 2);
        let (xs, ys) = (Vector::from_vec(rng.vec::<u64>(n)), Vector::from_vec(rng.vec::<u64>(m)));
        let (g, r) = both!(on, concat_vec(&xs, &ys));
        same("concat", &g, &r)?;
        let (g, r) = both!(on, concat_vec(&ys, &xs));
        same("concat (swapped)", &g, &r)
    })?;
    on.each_shape("movement::concat::rows_f32", Tier::Medium, |r, c, rng| {
        // Different row counts: the rows intersect.
        let (r2, c2) = (r + rng.below(2), rng.below(c + 3));
        let a = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let b = Matrix::from_shape_vec([r2, c2], rng.vec::<f32>(r2 * c2))?;
        let (g, w) = both!(on, concat_rows(&a, &b));
        same("concat (rows)", &g, &w)
    })
}

fn replicate_all(on: &Target) -> Check {
    on.each_size("movement::replicate::i64", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        for k in [0, 1, 3, 33].into_iter().filter(|k| n * k <= 1 << 18) {
            let ((gr, gc), (rr, rc)) = both!(on, replicate(&xs, k));
            same(&format!("replicate_rows {k}"), &gr, &rr)?;
            same(&format!("replicate_cols {k}"), &gc, &rc)?;
        }
        Ok(())
    })
}

fn slices_all(on: &Target) -> Check {
    on.each_shape("movement::slice::tuple_u64_f64", Tier::Medium, |r, c, rng| {
        if r * c == 0 {
            return Ok(());
        }
        let m: Vec<(u64, f64)> = rng.vec::<u64>(r * c).into_iter().zip(rng.vec::<f64>(r * c)).collect();
        let m = Matrix::from_shape_vec([r, c], m)?;
        for (i, j) in [(0, 0), (r - 1, c - 1), (rng.below(r), rng.below(c))] {
            let ((gr, gc), (rr, rc)) = both!(on, slices(&m, i, j));
            same(&format!("slice_row {i}"), &gr, &rr)?;
            same(&format!("slice_col {j}"), &gc, &rc)?;
        }
        Ok(())
    })
}

fn composed_moves(on: &Target) -> Check {
    on.each_shape("movement::composed::i32", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(on, moves_composed(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("transpose, reverse, drop, reshape", &g, &w)
    })
}

fn sweeps() -> Vec<Test> {
    vec![
        heavy("movement::backpermute::f32", backpermute_reverse),
        case("movement::backpermute::tuple_f32_i32", backpermute_tuples),
        case("movement::backpermute::matrix", backpermute_matrices),
        heavy("movement::permute::histogram_i32", permute_histogram),
        case("movement::permute::add_floats", permute_add_floats),
        case("movement::permute::max_f32", permute_max_f32),
        case("movement::permute::mul_u64", permute_mul_u64),
        case("movement::permute::pairs_u32", permute_pairs),
        case("movement::permute::unique_tuple_f32_i32", permute_unique_destinations),
        case("movement::permute::matrix", permute_matrices),
        case("movement::reverse::tuple_and_rows", reverse_all),
        case("movement::transpose::f64_and_tuples", transpose_all),
        case("movement::reshape::all", reshape_all),
        case("movement::take_drop::f64_and_rows", take_and_drop),
        case("movement::concat::u64_and_rows_f32", concat_all),
        case("movement::replicate::i64", replicate_all),
        case("movement::slice::tuple_u64_f64", slices_all),
        case("movement::composed::i32", composed_moves),
    ]
}

#[accel]
fn scatter_some(xs: Vector<f32>, dst: Vector<i64>, n: usize) -> Vector<f32> {
    let defaults = fill(n, -1.5f32);
    xs.permute(defaults, |i| if dst[i] >= 0 { Some(dst[i] as usize) } else { None }, |new, old| new)
}

#[accel]
fn scatter_affine(xs: Vector<(i64, i64)>, dst: Vector<usize>, defaults: Vector<(i64, i64)>) -> Vector<(i64, i64)> {
    xs.permute(defaults, |i| dst[i], |p, q| (p.0 * q.0, p.1 * q.0 + q.1))
}

#[accel]
fn scatter_tuples(xs: Vector<(f32, i32)>, dst: Vector<usize>) -> Vector<(f32, i32)> {
    let defaults = fill(dst.len(), (0.5f32, -1));
    xs.permute(defaults, |i| dst[i], |new, old| (new.0 + old.0, new.1 * old.1))
}

/// Composition of affine maps on wrapping integers: associative, not commutative.
fn affine(p: (i64, i64), q: (i64, i64)) -> (i64, i64) {
    (p.0.wrapping_mul(q.0), p.1.wrapping_mul(q.0).wrapping_add(q.1))
}

fn transpose<T: Copy>(data: &[T], r: usize, c: usize) -> Vec<T> {
    (0..c).flat_map(|j| (0..r).map(move |i| data[i * c + j])).collect()
}

/// Sources, their destinations in `0..m` and `m` defaults, all of pairs of `i64`.
#[allow(clippy::type_complexity)]
fn scatter_inputs() -> impl Strategy<Value = (Vec<(i64, i64)>, Vec<usize>, Vec<(i64, i64)>)> {
    (size(), 1usize..50).prop_flat_map(|(n, m)| {
        (
            prop::collection::vec((i64s(), i64s()), n),
            prop::collection::vec(0..m, n),
            prop::collection::vec((i64s(), i64s()), m),
        )
    })
}

/// A vector and valid indices into it (or no indices when it is empty).
fn vector_and_indices() -> impl Strategy<Value = (Vec<(f32, i32)>, Vec<usize>)> {
    size().prop_flat_map(|n| {
        let idx = if n == 0 {
            prop::collection::vec(Just(0usize), 0).boxed()
        } else {
            prop::collection::vec(0..n, 0..2 * n + 3).boxed()
        };
        (prop::collection::vec((f32s(), small_i32s()), n), idx)
    })
}

fn backpermute_gathers(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), vector_and_indices()), |(xs, (ps, idx))| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, gather_reversed(&v));
        let want: Vec<f32> = xs.iter().rev().copied().collect();
        all_same_bits(on, "backpermute (reverse)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let pv: Vector<(f32, i32)> = ps.iter().copied().collect();
        let iv = Vector::from_vec(idx.clone());
        let (cpu, interp) = both!(on, gather_by_index(&pv, &iv));
        let want: Vec<(f32, i32)> = idx.iter().map(|&i| ps[i]).collect();
        all_same(on, "backpermute (tuples by index)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn backpermute_between_ranks(on: &Target) -> Check {
    props(
        24,
        (matrix_of(i64s()), vec_sized(u32s(), size()), shape(), matrix_of(f64s()), any::<prop::sample::Index>()),
        |(((r, c), m), xs, (r2, c2), ((r3, c3), m3), j)| {
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let (cpu, interp) = both!(on, gather_transpose(&mm));
            all_same(on, "backpermute (transpose)", &cpu.to_vec(), &interp.to_vec(), &transpose(&m, r, c))?;
            check_eq!(cpu.shape(), [c, r]);
            if !xs.is_empty() || r2 * c2 == 0 {
                let v = Vector::from_vec(xs.clone());
                let (cpu, interp) = both!(on, gather_vector_into_matrix(&v, r2, c2));
                let want: Vec<u32> = (0..r2)
                    .flat_map(|i| (0..c2).map(move |j| (i, j)))
                    .map(|(i, j)| xs[(i * c2 + j * 7) % xs.len()])
                    .collect();
                all_same(on, "backpermute (vector to matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
                check_eq!(interp.shape(), [r2, c2]);
            }
            if c3 > 0 {
                let j = j.index(c3);
                let mm = Matrix::from_shape_vec([r3, c3], m3.clone()).unwrap();
                let (cpu, interp) = both!(on, gather_matrix_column(&mm, j));
                let want: Vec<f64> = (0..r3).map(|i| m3[i * c3 + j]).collect();
                all_same_bits(on, "backpermute (matrix to vector)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            }
            Ok(())
        },
    )
}

fn permute_accumulates_a_histogram(on: &Target) -> Check {
    props(24, (vec_sized(u32s(), size()), 1usize..300), |(keys, bins)| {
        let v = Vector::from_vec(keys.clone());
        let (cpu, interp) = both!(on, histogram_i32(&v, bins));
        let mut want = vec![0i32; bins];
        for &k in &keys {
            want[k as usize % bins] += 1;
        }
        all_same(on, "permute (histogram)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn permute_drops_none_and_last_source_wins(on: &Target) -> Check {
    props(
        24,
        (size().prop_flat_map(|n| (vec_of(f32s(), n), prop::collection::vec(-3i64..40, n))), 0usize..40),
        |((xs, dst), n)| {
            // Destinations beyond `n` would be out of range: map them to `None` (negative) here.
            let dst: Vec<i64> = dst.into_iter().map(|d| if d >= n as i64 { -1 } else { d }).collect();
            let (v, d) = (Vector::from_vec(xs.clone()), Vector::from_vec(dst.clone()));
            let (cpu, interp) = both!(on, scatter_some(&v, &d, n));
            let mut want = vec![-1.5f32; n];
            for (i, &t) in dst.iter().enumerate() {
                if t >= 0 {
                    want[t as usize] = xs[i];
                }
            }
            all_same_bits(on, "permute (Some/None, last wins)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn permute_combines_in_source_order(on: &Target) -> Check {
    props(24, scatter_inputs(), |(xs, dst, defaults)| {
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let d = Vector::from_vec(dst.clone());
        let dv: Vector<(i64, i64)> = defaults.iter().copied().collect();
        let (cpu, interp) = both!(on, scatter_affine(&v, &d, &dv));
        let mut want = defaults.clone();
        for (i, &t) in dst.iter().enumerate() {
            want[t] = affine(xs[i], want[t]);
        }
        all_same(on, "permute (affine maps, source order)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn permute_tuples(on: &Target) -> Check {
    props(24, (vec_sized(int_f32s(), size()), any::<u64>()), |(xs, seed)| {
        // A random permutation plus some repeated destinations; integer-valued floats keep the
        // `+` of repeated destinations exact in any grouping.
        let n = xs.len();
        let mut rng = SplitMix::new(seed);
        let mut dst: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            dst.swap(i, rng.below(i as u64 + 1) as usize);
        }
        if n > 2 {
            dst[n - 1] = dst[0];
        }
        let ps: Vec<(f32, i32)> = xs.iter().map(|&x| (x, x as i32 % 7 + 8)).collect();
        let v: Vector<(f32, i32)> = ps.iter().copied().collect();
        let d = Vector::from_vec(dst.clone());
        let (cpu, interp) = both!(on, scatter_tuples(&v, &d));
        let mut want = vec![(0.5f32, -1i32); n];
        for (i, &t) in dst.iter().enumerate() {
            want[t] = (ps[i].0 + want[t].0, ps[i].1.wrapping_mul(want[t].1));
        }
        all_same(on, "permute (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn permute_between_ranks(on: &Target) -> Check {
    props(24, (matrix_of(i64s()), vec_sized(u64s(), size()), nonempty_shape()), |(((r, c), m), xs, (r2, c2))| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, column_sums(&mm));
        let mut want = vec![0i64; c];
        for (k, &x) in m.iter().enumerate() {
            want[k % c] = x.wrapping_add(want[k % c]);
        }
        all_same(on, "permute (matrix to column sums)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, scatter_into_matrix(&v, r2, c2));
        let mut want = vec![1u64; r2 * c2];
        for (i, &x) in xs.iter().enumerate() {
            if i % 3 != 0 {
                let t = ((i / c2) % r2) * c2 + i % c2;
                want[t] ^= x;
            }
        }
        all_same(on, "permute (vector to matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(cpu.shape(), [r2, c2]);
        Ok(())
    })
}

fn reverse_the_innermost_dimension(on: &Target) -> Check {
    props(
        24,
        (size().prop_flat_map(|n| prop::collection::vec((f32s(), i32s()), n)), matrix_of(i32s())),
        |(ps, ((r, c), m))| {
            let v: Vector<(f32, i32)> = ps.iter().copied().collect();
            let (cpu, interp) = both!(on, reverse_vec(&v));
            let want: Vec<(f32, i32)> = ps.iter().rev().copied().collect();
            all_same(on, "reverse (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let (cpu, interp) = both!(on, reverse_rows(&mm));
            let want: Vec<i32> = (0..r).flat_map(|i| row(&m, c, i).iter().rev().copied().collect::<Vec<_>>()).collect();
            all_same(on, "reverse (matrix rows)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(cpu.shape(), [r, c]);
            Ok(())
        },
    )
}

fn transpose_swaps_dimensions(on: &Target) -> Check {
    props(
        24,
        (matrix_of(f64s()), with_shape(|r, c| prop::collection::vec((u32s(), any::<bool>()), r * c))),
        |(((r, c), m), ((r2, c2), m2))| {
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let (cpu, interp) = both!(on, transpose_f64(&mm));
            all_same_bits(on, "transpose", &cpu.to_vec(), &interp.to_vec(), &transpose(&m, r, c))?;
            check_eq!(cpu.shape(), [c, r]);
            check_eq!(interp.shape(), [c, r]);
            let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
            let (cpu, interp) = both!(on, transpose_tuples(&mm));
            all_same(on, "transpose (tuples)", &cpu.to_vec(), &interp.to_vec(), &transpose(&m2, r2, c2))?;
            Ok(())
        },
    )
}

fn reshape_keeps_row_major_order(on: &Target) -> Check {
    props(24, (matrix_of(f32s()), matrix_of(u32s()), any::<u64>()), |(((r, c), m), ((r2, c2), m2), seed)| {
        let xs: Vec<i64> = m.iter().map(|&x| x as i64 * 3).collect();
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, reshape_to_matrix(&v, r, c));
        all_same(on, "reshape (vector to matrix)", &cpu.to_vec(), &interp.to_vec(), &xs)?;
        check_eq!(cpu.shape(), [r, c]);
        check_eq!(interp.shape(), [r, c]);
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, reshape_to_vector(&mm));
        all_same_bits(on, "reshape (matrix to vector)", &cpu.to_vec(), &interp.to_vec(), &m)?;
        // Another factorisation of the same size.
        let n = r2 * c2;
        let divisors: Vec<usize> = (1..=n).filter(|d| n % d == 0).collect();
        let (r3, c3) = if n == 0 {
            (SplitMix::new(seed).below(5) as usize, 0)
        } else {
            let d = divisors[SplitMix::new(seed).below(divisors.len() as u64) as usize];
            (d, n / d)
        };
        let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
        let ((a_cpu, b_cpu), (a_int, b_int)) = both!(on, reshape_matrix(&mm, r3, c3));
        all_same(on, "reshape (matrix to matrix)", &a_cpu.to_vec(), &a_int.to_vec(), &m2)?;
        all_same(on, "reshape (matrix to rank 3)", &b_cpu.to_vec(), &b_int.to_vec(), &m2)?;
        check_eq!(a_cpu.shape(), [r3, c3]);
        check_eq!(b_int.shape(), [1, r3, c3]);
        Ok(())
    })
}

fn take_and_drop_props(on: &Target) -> Check {
    props(
        24,
        (
            vec_sized(f64s(), size()),
            0usize..5000,
            with_shape(|r, c| prop::collection::vec((i32s(), f32s()), r * c)),
            0usize..80,
        ),
        |(xs, k, ((r, c), m), k2)| {
            let v = Vector::from_vec(xs.clone());
            let ((t_cpu, d_cpu), (t_int, d_int)) = both!(on, take_drop_vec(&v, k));
            let split = k.min(xs.len());
            all_same_bits(on, "take", &t_cpu.to_vec(), &t_int.to_vec(), &xs[..split])?;
            all_same_bits(on, "drop", &d_cpu.to_vec(), &d_int.to_vec(), &xs[split..])?;
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let ((t_cpu, d_cpu), (t_int, d_int)) = both!(on, take_drop_rows(&mm, k2));
            let split = k2.min(c);
            let taken: Vec<(i32, f32)> = (0..r).flat_map(|i| row(&m, c, i)[..split].to_vec()).collect();
            let dropped: Vec<(i32, f32)> = (0..r).flat_map(|i| row(&m, c, i)[split..].to_vec()).collect();
            all_same(on, "take (matrix rows)", &t_cpu.to_vec(), &t_int.to_vec(), &taken)?;
            all_same(on, "drop (matrix rows)", &d_cpu.to_vec(), &d_int.to_vec(), &dropped)?;
            check_eq!(t_cpu.shape(), [r, split]);
            check_eq!(d_int.shape(), [r, c - split]);
            Ok(())
        },
    )
}

fn concat_joins_the_innermost_dimension(on: &Target) -> Check {
    props(
        24,
        (vec_sized(u64s(), size()), vec_sized(u64s(), size()), matrix_of(f32s()), matrix_of(f32s())),
        |(xs, ys, ((r1, c1), a), ((r2, c2), b))| {
            let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
            let (cpu, interp) = both!(on, concat_vec(&v, &w));
            let want: Vec<u64> = xs.iter().chain(&ys).copied().collect();
            all_same(on, "concat", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let am = Matrix::from_shape_vec([r1, c1], a.clone()).unwrap();
            let bm = Matrix::from_shape_vec([r2, c2], b.clone()).unwrap();
            let (cpu, interp) = both!(on, concat_rows(&am, &bm));
            let r = r1.min(r2);
            let want: Vec<f32> =
                (0..r).flat_map(|i| row(&a, c1, i).iter().chain(row(&b, c2, i)).copied().collect::<Vec<_>>()).collect();
            all_same_bits(on, "concat (matrices, rows intersect)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(cpu.shape(), [r, c1 + c2]);
            check_eq!(interp.shape(), [r, c1 + c2]);
            Ok(())
        },
    )
}

fn replicate_rows_and_cols(on: &Target) -> Check {
    props(24, (vec_sized(i64s(), small_size()), 0usize..70), |(xs, n)| {
        let v = Vector::from_vec(xs.clone());
        let ((r_cpu, c_cpu), (r_int, c_int)) = both!(on, replicate(&v, n));
        let rows: Vec<i64> = (0..n).flat_map(|_| xs.iter().copied()).collect();
        let cols: Vec<i64> = xs.iter().flat_map(|&x| std::iter::repeat_n(x, n)).collect();
        all_same(on, "replicate_rows", &r_cpu.to_vec(), &r_int.to_vec(), &rows)?;
        all_same(on, "replicate_cols", &c_cpu.to_vec(), &c_int.to_vec(), &cols)?;
        check_eq!(r_cpu.shape(), [n, xs.len()]);
        check_eq!(c_int.shape(), [xs.len(), n]);
        Ok(())
    })
}

fn slice_rows_and_columns(on: &Target) -> Check {
    props(
        24,
        (
            with_nonempty_shape(|r, c| prop::collection::vec((u64s(), f64s()), r * c)),
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
        ),
        |(((r, c), m), i, j)| {
            let (i, j) = (i.index(r), j.index(c));
            let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
            let ((row_cpu, col_cpu), (row_int, col_int)) = both!(on, slices(&mm, i, j));
            let col: Vec<(u64, f64)> = (0..r).map(|k| m[k * c + j]).collect();
            all_same(on, "slice_row", &row_cpu.to_vec(), &row_int.to_vec(), row(&m, c, i))?;
            all_same(on, "slice_col", &col_cpu.to_vec(), &col_int.to_vec(), &col)?;
            Ok(())
        },
    )
}

fn chained_moves(on: &Target) -> Check {
    props(24, matrix_of(i32s()), |((r, c), m)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, moves_composed(&mm));
        let t = transpose(&m, r, c);
        let want: Vec<i32> =
            (0..c).flat_map(|i| row(&t, r, i).iter().rev().skip(1).copied().collect::<Vec<_>>()).collect();
        all_same(on, "transpose.reverse.drop.reshape", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

/// Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
fn large_moves(on: &Target) -> Check {
    props(4, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let xs: Vec<(i64, i64)> = (0..n).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let bins = 1 + rng.below(5000) as usize;
        let dst: Vec<usize> = (0..n).map(|_| rng.below(bins as u64) as usize).collect();
        let defaults: Vec<(i64, i64)> = (0..bins).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let d = Vector::from_vec(dst.clone());
        let dv: Vector<(i64, i64)> = defaults.iter().copied().collect();
        let (cpu, interp) = both!(on, scatter_affine(&v, &d, &dv));
        let mut want = defaults.clone();
        for (i, &t) in dst.iter().enumerate() {
            want[t] = affine(xs[i], want[t]);
        }
        all_same(on, "permute (large, affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;

        let fs = rng.f32s(n, -1e3, 1e3);
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(on, gather_reversed(&v));
        let want: Vec<f32> = fs.iter().rev().copied().collect();
        all_same_bits(on, "backpermute (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;

        let (r, c) = (1 + rng.below(400) as usize, n / 400);
        let m = rng.i32s(r * c);
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, moves_composed(&mm));
        let t = transpose(&m, r, c);
        let want: Vec<i32> =
            (0..c).flat_map(|i| row(&t, r, i).iter().rev().skip(1).copied().collect::<Vec<_>>()).collect();
        all_same(on, "transpose.reverse.drop.reshape (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let us: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let (a, b) = (Vector::from_vec(us[..n / 3].to_vec()), Vector::from_vec(us[n / 3..].to_vec()));
        let (cpu, interp) = both!(on, concat_vec(&a, &b));
        all_same(on, "concat (large)", &cpu.to_vec(), &interp.to_vec(), &us)?;
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("movement::backpermute_gathers", backpermute_gathers),
        case("movement::backpermute_between_ranks", backpermute_between_ranks),
        case("movement::permute_accumulates_a_histogram", permute_accumulates_a_histogram),
        case("movement::permute_drops_none_and_last_source_wins", permute_drops_none_and_last_source_wins).cpu_only(),
        case("movement::permute_combines_in_source_order", permute_combines_in_source_order).cpu_only(),
        case("movement::permute_tuples", permute_tuples),
        case("movement::permute_between_ranks", permute_between_ranks),
        case("movement::reverse_the_innermost_dimension", reverse_the_innermost_dimension),
        case("movement::transpose_swaps_dimensions", transpose_swaps_dimensions),
        case("movement::reshape_keeps_row_major_order", reshape_keeps_row_major_order),
        case("movement::take_and_drop", take_and_drop_props),
        case("movement::concat_joins_the_innermost_dimension", concat_joins_the_innermost_dimension),
        case("movement::replicate_rows_and_cols", replicate_rows_and_cols),
        case("movement::slice_rows_and_columns", slice_rows_and_columns),
        case("movement::chained_moves", chained_moves),
        case("movement::large_moves", large_moves).cpu_only(),
    ]);
    tests
}
