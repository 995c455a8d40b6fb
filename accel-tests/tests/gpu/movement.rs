//! Movement: `backpermute`, `permute` (with combining functions whose result does not depend on
//! the order in which the device applies them: `+` on integers, `+` on floats within the
//! rounding bound, `max`, wrapping `*`, componentwise tuples, and any function where no two
//! sources meet), `reverse transpose reshape take drop concat replicate_rows replicate_cols
//! slice_row slice_col`.

use crate::harness::*;
use accel::prelude::*;

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

fn backpermute_reverse() -> Check {
    each_size("movement::backpermute::f32", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.f32s(n, -100.0, 100.0));
        let (g, r) = both!(gather_reversed(&xs));
        same("backpermute (reverse)", &g, &r)
    })
}

fn backpermute_tuples() -> Check {
    each_size("movement::backpermute::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        // Random sources, some repeated; more or fewer results than sources.
        let m = if n == 0 { 0 } else { n + 5 - rng.below(10.min(n + 5)) };
        let idx = Vector::from_vec(if n == 0 { vec![] } else { rng.indices(m, n) });
        let (g, r) = both!(gather_by_index(&xs, &idx));
        same("backpermute (by index)", &g, &r)
    })
}

fn backpermute_matrices() -> Check {
    each_shape("movement::backpermute::matrix", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(gather_transpose(&Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?));
        same("backpermute (transpose)", &g, &w)?;
        if r * c > 0 {
            let xs = Vector::from_vec(rng.vec::<u32>(r * c + 7));
            let (g, w) = both!(gather_vector_into_matrix(&xs, r, c));
            same("backpermute (vector into matrix)", &g, &w)?;
            let j = rng.below(c);
            let (g, w) = both!(gather_matrix_column(&Matrix::from_shape_vec([r, c], rng.vec::<f64>(r * c))?, j));
            same("backpermute (a column)", &g, &w)?;
        }
        Ok(())
    })
}

fn permute_histogram() -> Check {
    each_size("movement::permute::histogram_i32", Tier::Large, |n, rng| {
        let keys = Vector::from_vec(rng.vec::<u32>(n));
        // The interpreter is slow: one bin count for the largest input.
        let counts: &[usize] = if n >= LARGE_FROM { &[1000] } else { &[1, 7, 256, 65_537] };
        for &bins in counts {
            let (g, r) = both!(histogram_i32(&keys, bins));
            same(&format!("histogram into {bins} bins"), &g, &r)?;
        }
        Ok(())
    })
}

fn permute_add_floats() -> Check {
    each_size("movement::permute::add_f32", Tier::Medium, |n, rng| {
        let data = rng.vec::<f32>(n);
        let bins = 1 + rng.below(n / 4 + 2);
        let dst = Vector::from_vec(rng.indices(n, bins));
        let defaults = rng.vec::<f32>(bins);
        let (g, r) = both!(scatter_add_f32(&Vector::from_vec(data.clone()), &dst, &Vector::from_vec(defaults.clone())));
        let abs =
            reference!(scatter_add_f32(&Vector::from_vec(abs_all(&data)), &dst, &Vector::from_vec(abs_all(&defaults))));
        summed_arrays("permute (+) of f32", &g, &r, &abs)
    })?;
    each_size("movement::permute::add_f64", Tier::Medium, |n, rng| {
        let data = rng.vec::<f64>(n);
        let bins = 1 + rng.below(1000);
        let dst: Vec<i64> = (0..n).map(|_| rng.below(bins + bins / 3) as i64 - (bins / 3) as i64).collect();
        let dst = Vector::from_vec(dst);
        let (g, r) = both!(scatter_add_f64(&Vector::from_vec(data.clone()), &dst, bins));
        let abs = reference!(scatter_add_f64(&Vector::from_vec(abs_all(&data)), &dst, bins));
        summed_arrays("permute (+, some dropped) of f64", &g, &r, &abs)
    })
}

fn permute_max_f32() -> Check {
    each_size("movement::permute::max_f32", Tier::Medium, |n, rng| {
        let bins = 1 + rng.below(n / 2 + 2);
        let dst: Vec<i64> = (0..n).map(|_| rng.below(bins + 10) as i64 - 10).collect();
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let (g, r) = both!(scatter_max_f32(&xs, &Vector::from_vec(dst), bins));
        same("permute (max, some dropped)", &g, &r)
    })
}

fn permute_mul_u64() -> Check {
    each_size("movement::permute::mul_u64", Tier::Medium, |n, rng| {
        let bins = 1 + rng.below(300);
        // Odd factors: products never collapse to zero.
        let xs: Vec<u64> = (0..n).map(|_| rng.next_u64() | 1).collect();
        let dst = Vector::from_vec(rng.indices(n, bins));
        let (g, r) = both!(scatter_mul_u64(&Vector::from_vec(xs), &dst, bins));
        same("permute (wrapping *)", &g, &r)
    })
}

fn permute_pairs() -> Check {
    each_size("movement::permute::pairs_u32", Tier::Medium, |n, rng| {
        let bins = 1 + rng.below(n + 1);
        let xs: Vector<(u32, u32)> = rng.vec::<u32>(n).into_iter().zip(rng.vec::<u32>(n)).collect();
        let dst = Vector::from_vec(rng.indices(n, bins));
        let (g, r) = both!(scatter_pairs_u32(&xs, &dst, bins));
        same("permute ((+, max) on pairs)", &g, &r)
    })
}

fn permute_unique_destinations() -> Check {
    each_size("movement::permute::unique_tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let dst: Vec<usize> = permutation(rng, n + 3).into_iter().take(n).collect();
        let (g, r) = both!(scatter_unique(&xs, &Vector::from_vec(dst)));
        same("permute to distinct destinations", &g, &r)
    })
}

fn permute_matrices() -> Check {
    each_shape("movement::permute::matrix", Tier::Small, |r, c, rng| {
        let (g, w) = both!(column_sums(&Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?));
        same("permute (column sums)", &g, &w)?;
        if r * c > 0 {
            let extra = rng.below(3 * r * c);
            let xs = Vector::from_vec(rng.vec::<u64>(r * c + extra));
            let (g, w) = both!(scatter_into_matrix(&xs, r, c));
            same("permute (vector into matrix, xor)", &g, &w)?;
        }
        Ok(())
    })
}

fn reverse_all() -> Check {
    each_size("movement::reverse::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(reverse_vec(&xs));
        same("reverse", &g, &r)
    })?;
    each_shape("movement::reverse::rows_i32", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(reverse_rows(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("reverse (rows)", &g, &w)
    })
}

fn transpose_all() -> Check {
    each_shape("movement::transpose::f64_and_tuples", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(transpose_f64(&Matrix::from_shape_vec([r, c], rng.vec::<f64>(r * c))?));
        same("transpose (f64)", &g, &w)?;
        let m: Vec<(u32, bool)> = rng.vec::<u32>(r * c).into_iter().zip(rng.vec::<bool>(r * c)).collect();
        let (g, w) = both!(transpose_tuples(&Matrix::from_shape_vec([r, c], m)?));
        same("transpose ((u32, bool))", &g, &w)
    })
}

fn reshape_all() -> Check {
    each_shape("movement::reshape::all", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(reshape_to_matrix(&Vector::from_vec(rng.vec::<i64>(r * c)), r, c));
        same("reshape (vector to matrix)", &g, &w)?;
        let (g, w) = both!(reshape_to_vector(&Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?));
        same("reshape (matrix to vector)", &g, &w)?;
        let ((g2, g3), (w2, w3)) = both!(reshape_matrix(&Matrix::from_shape_vec([c, r], rng.vec::<u32>(r * c))?, r, c));
        same("reshape (matrix to matrix)", &g2, &w2)?;
        same("reshape (matrix to rank 3)", &g3, &w3)
    })
}

fn take_and_drop() -> Check {
    each_size("movement::take_drop::f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        for k in [0, 1, n / 2, n.saturating_sub(1), n, n + 5] {
            let ((gt, gd), (rt, rd)) = both!(take_drop_vec(&xs, k));
            same(&format!("take {k}"), &gt, &rt)?;
            same(&format!("drop {k}"), &gd, &rd)?;
        }
        Ok(())
    })?;
    each_shape("movement::take_drop::rows", Tier::Medium, |r, c, rng| {
        let m: Vec<(i32, f32)> = rng.vec::<i32>(r * c).into_iter().zip(rng.vec::<f32>(r * c)).collect();
        let m = Matrix::from_shape_vec([r, c], m)?;
        for k in [0, c / 3, c, c + 1] {
            let ((gt, gd), (rt, rd)) = both!(take_drop_rows(&m, k));
            same(&format!("take {k} (rows)"), &gt, &rt)?;
            same(&format!("drop {k} (rows)"), &gd, &rd)?;
        }
        Ok(())
    })
}

fn concat_all() -> Check {
    each_size("movement::concat::u64", Tier::Medium, |n, rng| {
        let m = rng.below(n + 2);
        let (xs, ys) = (Vector::from_vec(rng.vec::<u64>(n)), Vector::from_vec(rng.vec::<u64>(m)));
        let (g, r) = both!(concat_vec(&xs, &ys));
        same("concat", &g, &r)?;
        let (g, r) = both!(concat_vec(&ys, &xs));
        same("concat (swapped)", &g, &r)
    })?;
    each_shape("movement::concat::rows_f32", Tier::Medium, |r, c, rng| {
        // Different row counts: the rows intersect.
        let (r2, c2) = (r + rng.below(2), rng.below(c + 3));
        let a = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let b = Matrix::from_shape_vec([r2, c2], rng.vec::<f32>(r2 * c2))?;
        let (g, w) = both!(concat_rows(&a, &b));
        same("concat (rows)", &g, &w)
    })
}

fn replicate_all() -> Check {
    each_size("movement::replicate::i64", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        for k in [0, 1, 3, 33].into_iter().filter(|k| n * k <= 1 << 18) {
            let ((gr, gc), (rr, rc)) = both!(replicate(&xs, k));
            same(&format!("replicate_rows {k}"), &gr, &rr)?;
            same(&format!("replicate_cols {k}"), &gc, &rc)?;
        }
        Ok(())
    })
}

fn slices_all() -> Check {
    each_shape("movement::slice::tuple_u64_f64", Tier::Medium, |r, c, rng| {
        if r * c == 0 {
            return Ok(());
        }
        let m: Vec<(u64, f64)> = rng.vec::<u64>(r * c).into_iter().zip(rng.vec::<f64>(r * c)).collect();
        let m = Matrix::from_shape_vec([r, c], m)?;
        for (i, j) in [(0, 0), (r - 1, c - 1), (rng.below(r), rng.below(c))] {
            let ((gr, gc), (rr, rc)) = both!(slices(&m, i, j));
            same(&format!("slice_row {i}"), &gr, &rr)?;
            same(&format!("slice_col {j}"), &gc, &rc)?;
        }
        Ok(())
    })
}

fn composed_moves() -> Check {
    each_shape("movement::composed::i32", Tier::Medium, |r, c, rng| {
        let (g, w) = both!(moves_composed(&Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?));
        same("transpose, reverse, drop, reshape", &g, &w)
    })
}

pub fn cases() -> Vec<Case> {
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
