//! Control: array `if`/`else` on a scalar condition, and `awhile` (a loop over arrays).
//!
//! The loop bodies are elementwise or integer code, so results compare exactly.

#[macro_use]
mod common;

use accel::prelude::*;
use common::*;
use proptest::prelude::*;

#[accel]
fn choose(xs: Vector<f32>, flag: bool) -> Vector<f32> {
    if flag { xs.map(|x| x + 1.0) } else { xs.reverse() }
}

#[accel]
fn choose_by_data(xs: Vector<i64>) -> Vector<i64> {
    // The condition is computed from the data; the branches have different lengths.
    let s = xs.map(|x| x & 1).sum();
    if s.get() * 2 > xs.len() as i64 { xs.map(|x| x * 2) } else { xs.filter(|x| x > 0) }
}

#[accel]
fn choose_tuple(m: Matrix<i32>, k: usize) -> (Vector<i32>, Scalar<i32>) {
    if m.len() > k { (m.sum(), m.fold_all(0, |a, b| a + b)) } else { (m.slice_col(0), unit(-1)) }
}

#[accel]
fn halve_until_small(xs: Vector<f64>, limit: f64) -> Vector<f64> {
    awhile(xs, |v| unit(v.map(|x| x.abs()).fold(0.0, |a, b| a.max(b)).get() > limit), |v| v.map(|x| x * 0.5))
}

#[accel]
fn collatz_all(xs: Vector<u64>) -> Vector<u64> {
    awhile(
        xs,
        |v| v.map(|x| x != 1).fold(false, |a, b| a || b),
        |v| {
            v.map(|x| {
                if x == 1 {
                    1
                } else if x % 2 == 0 {
                    x / 2
                } else {
                    3 * x + 1
                }
            })
        },
    )
}

#[accel]
fn repeated_prefix_sums(xs: Vector<i64>, k: i32) -> (Vector<i64>, Scalar<i32>) {
    awhile((xs, unit(0)), |s| unit(s.1.get() < k), |s| (s.0.scanl1(|a, b| a + b), unit(s.1.get() + 1)))
}

#[accel]
fn shrink_matrix(m: Matrix<u32>) -> Matrix<u32> {
    // The state changes shape from one iteration to the next.
    awhile(m, |a| unit(a.shape().1 > 2), |a| a.drop(1).map(|x| x / 2 + 1))
}

proptest! {
    #![proptest_config(config(24))]

    #[test]
    fn array_if_chooses_a_branch(
        xs in vec_sized(f32s(), size()),
        flag in any::<bool>(),
        ys in vec_sized(i64s(), size()),
    ) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(choose(&v, flag));
        let want: Vec<f32> =
            if flag { xs.iter().map(|x| x + 1.0).collect() } else { xs.iter().rev().copied().collect() };
        all_same_bits("array if", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(choose_by_data(&v));
        let odd: i64 = ys.iter().map(|x| x & 1).sum();
        let want: Vec<i64> = if odd * 2 > ys.len() as i64 {
            ys.iter().map(|x| x.wrapping_mul(2)).collect()
        } else {
            ys.iter().copied().filter(|&x| x > 0).collect()
        };
        all_same("array if on data", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn array_if_of_tuples(
        ((r, c), m) in matrix_of(i32s()).prop_filter("a column", |((_, c), _)| *c > 0),
        k in 0usize..3000,
    ) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let ((v_cpu, s_cpu), (v_int, s_int)) = both!(choose_tuple(&mm, k));
        let (v, s) = if r * c > k {
            (fold_rows(&m, c, r, 0, i32::wrapping_add), m.iter().fold(0i32, |a, &b| a.wrapping_add(b)))
        } else {
            ((0..r).map(|i| m[i * c]).collect(), -1)
        };
        all_same("array if (tuple) vector", &v_cpu.to_vec(), &v_int.to_vec(), &v)?;
        all_same("array if (tuple) scalar", &[s_cpu.get()], &[s_int.get()], &[s])?;
    }

    #[test]
    fn awhile_halves_until_small(xs in vec_sized(f64s(), size()), limit in 0.01f64..50.0) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(halve_until_small(&v, limit));
        let mut want = xs.clone();
        while want.iter().fold(0.0f64, |a, &b| a.max(b.abs())) > limit {
            want.iter_mut().for_each(|x| *x *= 0.5);
        }
        all_same_bits("awhile (halve)", &cpu.to_vec(), &interp.to_vec(), &want)?;
    }

    #[test]
    fn awhile_runs_collatz_to_one(xs in vec_sized(1u64..5000, small_size())) {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(collatz_all(&v));
        all_same("awhile (Collatz)", &cpu.to_vec(), &interp.to_vec(), &vec![1u64; xs.len()])?;
    }

    #[test]
    fn awhile_with_tuple_state(xs in vec_sized(i64s(), size()), k in -2i32..6) {
        let v = Vector::from_vec(xs.clone());
        let ((a_cpu, n_cpu), (a_int, n_int)) = both!(repeated_prefix_sums(&v, k));
        let mut want = xs.clone();
        let mut n = 0;
        while n < k {
            for i in 1..want.len() {
                want[i] = want[i - 1].wrapping_add(want[i]);
            }
            n += 1;
        }
        all_same("awhile (tuple state) array", &a_cpu.to_vec(), &a_int.to_vec(), &want)?;
        all_same("awhile (tuple state) counter", &[n_cpu.get()], &[n_int.get()], &[n])?;
    }

    #[test]
    fn awhile_state_changes_shape(((r, c), m) in matrix_of(u32s())) {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(shrink_matrix(&mm));
        let (mut data, mut cols) = (m.clone(), c);
        while cols > 2 {
            data =
                (0..r).flat_map(|i| row(&data, cols, i)[1..].iter().map(|x| x / 2 + 1).collect::<Vec<_>>()).collect();
            cols -= 1;
        }
        all_same("awhile (shrinking matrix)", &cpu.to_vec(), &interp.to_vec(), &data)?;
        prop_assert_eq!(cpu.shape(), [r, cols]);
        prop_assert_eq!(interp.shape(), [r, cols]);
    }
}
