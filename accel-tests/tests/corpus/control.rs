//! Control: array `if` (on a parameter and on a value the device computed), `awhile` (with a
//! state that changes length and shape), and the scalar loops `iterate` and `while_loop` inside
//! closures.
//!
//! Control: array `if`/`else` on a scalar condition, and `awhile` (a loop over arrays).
//!
//! The loop bodies are elementwise or integer code, so results compare exactly.

use crate::compare::*;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn choose(xs: Vector<f32>, flag: bool) -> Vector<f32> {
    if flag { xs.map(|x| x + 1.0) } else { xs.reverse() }
}

#[accel]
fn choose_by_data(xs: Vector<i64>) -> Vector<i64> {
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
        |v| v.map(|x| x > 1).fold(false, |a, b| a || b),
        |v| {
            v.map(|x| {
                if x <= 1 {
                    x
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
    awhile(m, |a| unit(a.shape().1 > 2), |a| a.drop(1).map(|x| x / 2 + 1))
}

#[accel]
pub fn iterate_u64(xs: Vector<u64>, k: usize) -> Vector<u64> {
    xs.map(|x| iterate(k, x, |y| y * y + 1))
}

#[accel]
pub fn iterate_tuple(xs: Vector<f32>, k: usize) -> Vector<(f32, i32)> {
    xs.map(|x| iterate(k, (x, 0), |s| (s.0 * 0.5 + s.1 as f32, s.1 + 1)))
}

#[accel]
pub fn collatz_steps(xs: Vector<u64>) -> Vector<u32> {
    xs.map(|x| while_loop((x, 0u32), |s| s.0 > 1, |s| (if s.0 % 2 == 0 { s.0 / 2 } else { 3 * s.0 + 1 }, s.1 + 1)).1)
}

#[accel]
pub fn newton_sqrt(xs: Vector<f64>) -> Vector<f64> {
    xs.map(|x| {
        let s = while_loop(
            (x.abs() + 1.0, 0),
            |s| s.1 < 60 && (s.0 * s.0 - x.abs()).abs() > 1e-9 * x.abs(),
            |s| ((s.0 + x.abs() / s.0) * 0.5, s.1 + 1),
        );
        s.0
    })
}

fn array_if(on: &Target) -> Check {
    on.each_size("control::if::f32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        for flag in [true, false] {
            let (g, r) = both!(on, choose(&xs, flag));
            close_arrays(on, &format!("if {flag}"), &g, &r, 1.0)?;
        }
        Ok(())
    })
}

fn array_if_on_device_values(on: &Target) -> Check {
    on.each_size("control::if::by_data_i64", Tier::Medium, |n, rng| {
        // Mostly odd or mostly even, so that both branches run.
        for bias in [0, 1] {
            let xs: Vec<i64> =
                rng.vec::<i64>(n).into_iter().map(|x| if x % 4 == 0 { x } else { (x & !1) | bias }).collect();
            let (g, r) = both!(on, choose_by_data(&Vector::from_vec(xs)));
            same(&format!("if on a device value (bias {bias})"), &g, &r)?;
        }
        Ok(())
    })?;
    on.each_shape("control::if::tuple_i32", Tier::Small, |r, c, rng| {
        if c == 0 {
            return Ok(());
        }
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i32>(r * c))?;
        for k in [0, r * c] {
            let ((gv, gs), (rv, rs)) = both!(on, choose_tuple(&m, k));
            same(&format!("if choosing a tuple (k = {k}) .0"), &gv, &rv)?;
            same(&format!("if choosing a tuple (k = {k}) .1"), &gs, &rs)?;
        }
        Ok(())
    })
}

fn awhile_loops(on: &Target) -> Check {
    on.each_size("control::awhile::all", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(on, halve_until_small(&xs, 0.75));
        same("awhile halving", &g, &r)?;
        let starts: Vec<u64> = (0..n).map(|_| 1 + rng.below(1000) as u64).collect();
        let (g, r) = both!(on, collatz_all(&Vector::from_vec(starts)));
        same("awhile Collatz", &g, &r)?;
        let k = rng.below(5) as i32;
        let ((gv, gk), (rv, rk)) = both!(on, repeated_prefix_sums(&Vector::from_vec(rng.vec::<i64>(n)), k));
        same("awhile prefix sums", &gv, &rv)?;
        same("awhile counter", &gk, &rk)
    })?;
    on.each_shape("control::awhile::shrink", Tier::Small, |r, c, rng| {
        let (g, w) = both!(on, shrink_matrix(&Matrix::from_shape_vec([r, c.min(40)], rng.vec::<u32>(r * c.min(40)))?));
        same("awhile shrinking a matrix", &g, &w)
    })
}

fn scalar_loops(on: &Target) -> Check {
    on.each_size("control::iterate_while_loop::all", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        for k in [0, 1, 7] {
            let (g, r) = both!(on, iterate_u64(&xs, k));
            same(&format!("iterate {k}"), &g, &r)?;
            let fs = Vector::from_vec(rng.vec::<f32>(n));
            let (g, r) = both!(on, iterate_tuple(&fs, k));
            let (g, r) = (g.to_vec(), r.to_vec());
            close(on, &format!("iterate {k} (tuples) .0"), &firsts(&g), &firsts(&r), 1.0)?;
            exact(&format!("iterate {k} (tuples) .1"), &seconds(&g), &seconds(&r))?;
        }
        let starts: Vec<u64> = (0..n).map(|_| rng.below(100_000) as u64).collect();
        let (g, r) = both!(on, collatz_steps(&Vector::from_vec(starts)));
        same("while_loop (Collatz steps)", &g, &r)?;
        let (g, r) = both!(on, newton_sqrt(&Vector::from_vec(rng.vec::<f64>(n))));
        close_arrays(on, "while_loop (Newton)", &g, &r, 1.0)
    })
}

fn sweeps() -> Vec<Test> {
    vec![
        case("control::if::f32", array_if),
        case("control::if::device_values", array_if_on_device_values),
        case("control::awhile::all", awhile_loops),
        case("control::iterate_while_loop::all", scalar_loops),
    ]
}

#[accel]
fn collatz_all_ones(xs: Vector<u64>) -> Vector<u64> {
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

fn array_if_chooses_a_branch(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), any::<bool>(), vec_sized(i64s(), size())), |(xs, flag, ys)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, choose(&v, flag));
        let want: Vec<f32> =
            if flag { xs.iter().map(|x| x + 1.0).collect() } else { xs.iter().rev().copied().collect() };
        all_same_bits(on, "array if", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, choose_by_data(&v));
        let odd: i64 = ys.iter().map(|x| x & 1).sum();
        let want: Vec<i64> = if odd * 2 > ys.len() as i64 {
            ys.iter().map(|x| x.wrapping_mul(2)).collect()
        } else {
            ys.iter().copied().filter(|&x| x > 0).collect()
        };
        all_same(on, "array if on data", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn array_if_of_tuples(on: &Target) -> Check {
    props(24, (matrix_of(i32s()).prop_filter("a column", |((_, c), _)| *c > 0), 0usize..3000), |(((r, c), m), k)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let ((v_cpu, s_cpu), (v_int, s_int)) = both!(on, choose_tuple(&mm, k));
        let (v, s) = if r * c > k {
            (fold_rows(&m, c, r, 0, i32::wrapping_add), m.iter().fold(0i32, |a, &b| a.wrapping_add(b)))
        } else {
            ((0..r).map(|i| m[i * c]).collect(), -1)
        };
        all_same(on, "array if (tuple) vector", &v_cpu.to_vec(), &v_int.to_vec(), &v)?;
        all_same(on, "array if (tuple) scalar", &[s_cpu.get()], &[s_int.get()], &[s])?;
        Ok(())
    })
}

fn awhile_halves_until_small(on: &Target) -> Check {
    props(24, (vec_sized(f64s(), size()), 0.01f64..50.0), |(xs, limit)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, halve_until_small(&v, limit));
        let mut want = xs.clone();
        while want.iter().fold(0.0f64, |a, &b| a.max(b.abs())) > limit {
            want.iter_mut().for_each(|x| *x *= 0.5);
        }
        all_same_bits(on, "awhile (halve)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn awhile_runs_collatz_to_one(on: &Target) -> Check {
    props(24, vec_sized(1u64..5000, small_size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, collatz_all_ones(&v));
        all_same(on, "awhile (Collatz)", &cpu.to_vec(), &interp.to_vec(), &vec![1u64; xs.len()])?;
        Ok(())
    })
}

fn awhile_with_tuple_state(on: &Target) -> Check {
    props(24, (vec_sized(i64s(), size()), -2i32..6), |(xs, k)| {
        let v = Vector::from_vec(xs.clone());
        let ((a_cpu, n_cpu), (a_int, n_int)) = both!(on, repeated_prefix_sums(&v, k));
        let mut want = xs.clone();
        let mut n = 0;
        while n < k {
            for i in 1..want.len() {
                want[i] = want[i - 1].wrapping_add(want[i]);
            }
            n += 1;
        }
        all_same(on, "awhile (tuple state) array", &a_cpu.to_vec(), &a_int.to_vec(), &want)?;
        all_same(on, "awhile (tuple state) counter", &[n_cpu.get()], &[n_int.get()], &[n])?;
        Ok(())
    })
}

fn awhile_state_changes_shape(on: &Target) -> Check {
    props(24, matrix_of(u32s()), |((r, c), m)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, shrink_matrix(&mm));
        let (mut data, mut cols) = (m.clone(), c);
        while cols > 2 {
            data =
                (0..r).flat_map(|i| row(&data, cols, i)[1..].iter().map(|x| x / 2 + 1).collect::<Vec<_>>()).collect();
            cols -= 1;
        }
        all_same(on, "awhile (shrinking matrix)", &cpu.to_vec(), &interp.to_vec(), &data)?;
        check_eq!(cpu.shape(), [r, cols]);
        check_eq!(interp.shape(), [r, cols]);
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("control::array_if_chooses_a_branch", array_if_chooses_a_branch),
        case("control::array_if_of_tuples", array_if_of_tuples),
        case("control::awhile_halves_until_small", awhile_halves_until_small),
        case("control::awhile_runs_collatz_to_one", awhile_runs_collatz_to_one),
        case("control::awhile_with_tuple_state", awhile_with_tuple_state),
        case("control::awhile_state_changes_shape", awhile_state_changes_shape),
    ]);
    tests
}
