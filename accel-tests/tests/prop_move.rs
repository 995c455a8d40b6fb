//! Movement: `backpermute permute reverse transpose reshape take drop concat replicate_rows
//! replicate_cols slice_row slice_col`.
//!
//! These combinators move elements without computing new ones (bar `permute`'s combine), so every
//! comparison is exact, floats and tuples included. `permute`'s combines happen in ascending
//! source order on every backend (the CPU backend may group them, never reorder them), so a
//! non-commutative associative combine (the composition of affine maps) must agree exactly too.

#[macro_use]
mod common;

use accel::prelude::*;
use common::*;
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
fn histogram(keys: Vector<u32>, bins: usize) -> Vector<i32> {
    let zeros = fill(bins, 0);
    keys.map(|k| 1).permute(zeros, |i| (keys[i] as usize) % bins, |new, old| new + old)
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
fn transpose_mat(m: Matrix<f64>) -> Matrix<f64> {
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
    // Fusion candidates chained: transpose, reverse, drop, reshape.
    let t = m.transpose().reverse().drop(1);
    t.reshape(t.len())
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

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn backpermute_gathers(xs in vec_sized(f32s(), size()), (ps, idx) in vector_and_indices()) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(gather_reversed(&v));
        let want: Vec<f32> = xs.iter().rev().copied().collect();
        all_same_bits("backpermute (reverse)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let pv: Vector<(f32, i32)> = ps.iter().copied().collect();
        let iv = Vector::from_vec(idx.clone());
        let (cpu, interp) = both!(gather_by_index(&pv, &iv));
        let want: Vec<(f32, i32)> = idx.iter().map(|&i| ps[i]).collect();
        all_same("backpermute (tuples by index)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn backpermute_between_ranks(
        ((r, c), m) in matrix_of(i64s()),
        xs in vec_sized(u32s(), size()),
        (r2, c2) in shape(),
        ((r3, c3), m3) in matrix_of(f64s()),
        j in any::<prop::sample::Index>(),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(gather_transpose(&mm));
        all_same("backpermute (transpose)", &cpu.to_vec(), &interp.to_vec(), &transpose(&m, r, c))?;
        prop_assert_eq!(cpu.shape(), [c, r]);
        if !xs.is_empty() || r2 * c2 == 0 {
            let v = Vector::from_vec(xs.clone());
            let (cpu, interp) = both!(gather_vector_into_matrix(&v, r2, c2));
            let want: Vec<u32> = (0..r2)
                .flat_map(|i| (0..c2).map(move |j| (i, j)))
                .map(|(i, j)| xs[(i * c2 + j * 7) % xs.len()])
                .collect();
            all_same("backpermute (vector to matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            prop_assert_eq!(interp.shape(), [r2, c2]);
        }
        if c3 > 0 {
            let j = j.index(c3);
            let mm = Matrix::from_shape_vec([r3, c3], m3.clone()).unwrap();
            let (cpu, interp) = both!(gather_matrix_column(&mm, j));
            let want: Vec<f64> = (0..r3).map(|i| m3[i * c3 + j]).collect();
            all_same_bits("backpermute (matrix to vector)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        }
    }

    #[test]
    fn permute_accumulates_a_histogram(keys in vec_sized(u32s(), size()), bins in 1usize..300) {
        let v = Vector::from_vec(keys.clone());
        let (cpu, interp) = both!(histogram(&v, bins));
        let mut want = vec![0i32; bins];
        for &k in &keys {
            want[k as usize % bins] += 1;
        }
        all_same("permute (histogram)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn permute_drops_none_and_last_source_wins(
        (xs, dst) in size().prop_flat_map(|n| (vec_of(f32s(), n), prop::collection::vec(-3i64..40, n))),
        n in 0usize..40,
    ) {
        // Destinations beyond `n` would be out of range: map them to `None` (negative) here.
        let dst: Vec<i64> = dst.into_iter().map(|d| if d >= n as i64 { -1 } else { d }).collect();
        let (v, d) = (Vector::from_vec(xs.clone()), Vector::from_vec(dst.clone()));
        let (cpu, interp) = both!(scatter_some(&v, &d, n));
        let mut want = vec![-1.5f32; n];
        for (i, &t) in dst.iter().enumerate() {
            if t >= 0 {
                want[t as usize] = xs[i];
            }
        }
        all_same_bits("permute (Some/None, last wins)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn permute_combines_in_source_order((xs, dst, defaults) in scatter_inputs()) {
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let d = Vector::from_vec(dst.clone());
        let dv: Vector<(i64, i64)> = defaults.iter().copied().collect();
        let (cpu, interp) = both!(scatter_affine(&v, &d, &dv));
        let mut want = defaults.clone();
        for (i, &t) in dst.iter().enumerate() {
            want[t] = affine(xs[i], want[t]);
        }
        all_same("permute (affine maps, source order)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn permute_tuples(xs in vec_sized(int_f32s(), size()), seed in any::<u64>()) {
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
        let (cpu, interp) = both!(scatter_tuples(&v, &d));
        let mut want = vec![(0.5f32, -1i32); n];
        for (i, &t) in dst.iter().enumerate() {
            want[t] = (ps[i].0 + want[t].0, ps[i].1.wrapping_mul(want[t].1));
        }
        all_same("permute (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn permute_between_ranks(
        ((r, c), m) in matrix_of(i64s()),
        xs in vec_sized(u64s(), size()),
        (r2, c2) in nonempty_shape(),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(column_sums(&mm));
        let mut want = vec![0i64; c];
        for (k, &x) in m.iter().enumerate() {
            want[k % c] = x.wrapping_add(want[k % c]);
        }
        all_same("permute (matrix to column sums)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(scatter_into_matrix(&v, r2, c2));
        let mut want = vec![1u64; r2 * c2];
        for (i, &x) in xs.iter().enumerate() {
            if i % 3 != 0 {
                let t = ((i / c2) % r2) * c2 + i % c2;
                want[t] ^= x;
            }
        }
        all_same("permute (vector to matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [r2, c2]);
    }

    #[test]
    fn reverse_the_innermost_dimension(
        ps in size().prop_flat_map(|n| prop::collection::vec((f32s(), i32s()), n)),
        ((r, c), m) in matrix_of(i32s()),
    ) {
        let v: Vector<(f32, i32)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(reverse_vec(&v));
        let want: Vec<(f32, i32)> = ps.iter().rev().copied().collect();
        all_same("reverse (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(reverse_rows(&mm));
        let want: Vec<i32> = (0..r).flat_map(|i| row(&m, c, i).iter().rev().copied().collect::<Vec<_>>()).collect();
        all_same("reverse (matrix rows)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [r, c]);
    }

    #[test]
    fn transpose_swaps_dimensions(
        ((r, c), m) in matrix_of(f64s()),
        ((r2, c2), m2) in with_shape(|r, c| prop::collection::vec((u32s(), any::<bool>()), r * c)),
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(transpose_mat(&mm));
        all_same_bits("transpose", &cpu.to_vec(), &interp.to_vec(), &transpose(&m, r, c))?;
        prop_assert_eq!(cpu.shape(), [c, r]);
        prop_assert_eq!(interp.shape(), [c, r]);
        let mm = Matrix::from_shape_vec([r2, c2], m2.clone()).unwrap();
        let (cpu, interp) = both!(transpose_tuples(&mm));
        all_same("transpose (tuples)", &cpu.to_vec(), &interp.to_vec(), &transpose(&m2, r2, c2))?;
    }

    #[test]
    fn reshape_keeps_row_major_order(
        ((r, c), m) in matrix_of(f32s()),
        ((r2, c2), m2) in matrix_of(u32s()),
        seed in any::<u64>(),
    ) {
        let xs: Vec<i64> = m.iter().map(|&x| x as i64 * 3).collect();
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(reshape_to_matrix(&v, r, c));
        all_same("reshape (vector to matrix)", &cpu.to_vec(), &interp.to_vec(), &xs)?;
        prop_assert_eq!(cpu.shape(), [r, c]);
        prop_assert_eq!(interp.shape(), [r, c]);
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(reshape_to_vector(&mm));
        all_same_bits("reshape (matrix to vector)", &cpu.to_vec(), &interp.to_vec(), &m)?;
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
        let ((a_cpu, b_cpu), (a_int, b_int)) = both!(reshape_matrix(&mm, r3, c3));
        all_same("reshape (matrix to matrix)", &a_cpu.to_vec(), &a_int.to_vec(), &m2)?;
        all_same("reshape (matrix to rank 3)", &b_cpu.to_vec(), &b_int.to_vec(), &m2)?;
        prop_assert_eq!(a_cpu.shape(), [r3, c3]);
        prop_assert_eq!(b_int.shape(), [1, r3, c3]);
    }

    #[test]
    fn take_and_drop(
        xs in vec_sized(f64s(), size()),
        k in 0usize..5000,
        ((r, c), m) in with_shape(|r, c| prop::collection::vec((i32s(), f32s()), r * c)),
        k2 in 0usize..80,
    ) {
        let v = Vector::from_vec(xs.clone());
        let ((t_cpu, d_cpu), (t_int, d_int)) = both!(take_drop_vec(&v, k));
        let split = k.min(xs.len());
        all_same_bits("take", &t_cpu.to_vec(), &t_int.to_vec(), &xs[..split])?;
        all_same_bits("drop", &d_cpu.to_vec(), &d_int.to_vec(), &xs[split..])?;
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let ((t_cpu, d_cpu), (t_int, d_int)) = both!(take_drop_rows(&mm, k2));
        let split = k2.min(c);
        let taken: Vec<(i32, f32)> = (0..r).flat_map(|i| row(&m, c, i)[..split].to_vec()).collect();
        let dropped: Vec<(i32, f32)> = (0..r).flat_map(|i| row(&m, c, i)[split..].to_vec()).collect();
        all_same("take (matrix rows)", &t_cpu.to_vec(), &t_int.to_vec(), &taken)?;
        all_same("drop (matrix rows)", &d_cpu.to_vec(), &d_int.to_vec(), &dropped)?;
        prop_assert_eq!(t_cpu.shape(), [r, split]);
        prop_assert_eq!(d_int.shape(), [r, c - split]);
    }

    #[test]
    fn concat_joins_the_innermost_dimension(
        xs in vec_sized(u64s(), size()),
        ys in vec_sized(u64s(), size()),
        ((r1, c1), a) in matrix_of(f32s()),
        ((r2, c2), b) in matrix_of(f32s()),
    ) {
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(concat_vec(&v, &w));
        let want: Vec<u64> = xs.iter().chain(&ys).copied().collect();
        all_same("concat", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let am = Matrix::from_shape_vec([r1, c1], a.clone()).unwrap();
        let bm = Matrix::from_shape_vec([r2, c2], b.clone()).unwrap();
        let (cpu, interp) = both!(concat_rows(&am, &bm));
        let r = r1.min(r2);
        let want: Vec<f32> =
            (0..r).flat_map(|i| row(&a, c1, i).iter().chain(row(&b, c2, i)).copied().collect::<Vec<_>>()).collect();
        all_same_bits("concat (matrices, rows intersect)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        prop_assert_eq!(cpu.shape(), [r, c1 + c2]);
        prop_assert_eq!(interp.shape(), [r, c1 + c2]);
    }

    #[test]
    fn replicate_rows_and_cols(xs in vec_sized(i64s(), small_size()), n in 0usize..70) {
        let v = Vector::from_vec(xs.clone());
        let ((r_cpu, c_cpu), (r_int, c_int)) = both!(replicate(&v, n));
        let rows: Vec<i64> = (0..n).flat_map(|_| xs.iter().copied()).collect();
        let cols: Vec<i64> = xs.iter().flat_map(|&x| std::iter::repeat_n(x, n)).collect();
        all_same("replicate_rows", &r_cpu.to_vec(), &r_int.to_vec(), &rows)?;
        all_same("replicate_cols", &c_cpu.to_vec(), &c_int.to_vec(), &cols)?;
        prop_assert_eq!(r_cpu.shape(), [n, xs.len()]);
        prop_assert_eq!(c_int.shape(), [xs.len(), n]);
    }

    #[test]
    fn slice_rows_and_columns(
        ((r, c), m) in with_nonempty_shape(|r, c| prop::collection::vec((u64s(), f64s()), r * c)),
        i in any::<prop::sample::Index>(),
        j in any::<prop::sample::Index>(),
    ) {
        let (i, j) = (i.index(r), j.index(c));
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let ((row_cpu, col_cpu), (row_int, col_int)) = both!(slices(&mm, i, j));
        let col: Vec<(u64, f64)> = (0..r).map(|k| m[k * c + j]).collect();
        all_same("slice_row", &row_cpu.to_vec(), &row_int.to_vec(), row(&m, c, i))?;
        all_same("slice_col", &col_cpu.to_vec(), &col_int.to_vec(), &col)?;
    }

    #[test]
    fn chained_moves(((r, c), m) in matrix_of(i32s())) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(moves_composed(&mm));
        let t = transpose(&m, r, c);
        let want: Vec<i32> =
            (0..c).flat_map(|i| row(&t, r, i).iter().rev().skip(1).copied().collect::<Vec<_>>()).collect();
        all_same("transpose.reverse.drop.reshape", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }
}

proptest! {
    // Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
    #![proptest_config(config(4))]

    #[test]
    fn large_moves(n in large_size(), seed in any::<u64>()) {
        let mut rng = SplitMix::new(seed);
        let xs: Vec<(i64, i64)> = (0..n).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let bins = 1 + rng.below(5000) as usize;
        let dst: Vec<usize> = (0..n).map(|_| rng.below(bins as u64) as usize).collect();
        let defaults: Vec<(i64, i64)> = (0..bins).map(|_| (rng.next_u64() as i64, rng.next_u64() as i64)).collect();
        let v: Vector<(i64, i64)> = xs.iter().copied().collect();
        let d = Vector::from_vec(dst.clone());
        let dv: Vector<(i64, i64)> = defaults.iter().copied().collect();
        let (cpu, interp) = both!(scatter_affine(&v, &d, &dv));
        let mut want = defaults.clone();
        for (i, &t) in dst.iter().enumerate() {
            want[t] = affine(xs[i], want[t]);
        }
        all_same("permute (large, affine maps)", &cpu.to_vec(), &interp.to_vec(), &want)?;

        let fs = rng.f32s(n, -1e3, 1e3);
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(gather_reversed(&v));
        let want: Vec<f32> = fs.iter().rev().copied().collect();
        all_same_bits("backpermute (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;

        let (r, c) = (1 + rng.below(400) as usize, n / 400);
        let m = rng.i32s(r * c);
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(moves_composed(&mm));
        let t = transpose(&m, r, c);
        let want: Vec<i32> =
            (0..c).flat_map(|i| row(&t, r, i).iter().rev().skip(1).copied().collect::<Vec<_>>()).collect();
        all_same("transpose.reverse.drop.reshape (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let us: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let (a, b) = (Vector::from_vec(us[..n / 3].to_vec()), Vector::from_vec(us[n / 3..].to_vec()));
        let (cpu, interp) = both!(concat_vec(&a, &b));
        all_same("concat (large)", &cpu.to_vec(), &interp.to_vec(), &us)?;
    }
}
