//! The scalar language inside closures: `iterate`, `while_loop`, `as` casts, the float functions
//! (`erf` included), wrapping integer arithmetic, shifts, bit operations, comparisons, tuples,
//! `xs[i]` reads, `len`/`shape`, named constants and scalar parameters.
//!
//! Scalar code is elementwise: the CPU backend and the interpreter both evaluate it through
//! `accel_core::ops`, and the oracle uses the same `std` functions, so everything is compared
//! exactly (floats bit for bit, any NaN equal to any NaN) — except `erf`, whose oracle is a
//! series written here (the backends use `libm`), compared within a few ulps.

use crate::compare::*;
use crate::control::collatz_steps;
use crate::control::iterate_tuple;
use crate::control::iterate_u64;
use crate::control::newton_sqrt;
use crate::elementwise::scalar_params;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

/// Each element over the root mean square: a call of `library::rms`, in another module.
#[accel]
pub fn over_rms(xs: Vector<f64>) -> Vector<f64> {
    let r = crate::library::rms(xs);
    xs.map(|x| x / r.get())
}

#[accel]
fn casts_from_f64(xs: Vector<f64>) -> Vector<(i32, i64, u32, u64, f32, usize)> {
    xs.map(|x| (x as i32, x as i64, x as u32, x as u64, x as f32, x as usize))
}

#[accel]
fn casts_from_f32(xs: Vector<f32>) -> Vector<(i32, i64, u32, u64, f64, usize)> {
    xs.map(|x| (x as i32, x as i64, x as u32, x as u64, x as f64, x as usize))
}

/// `min` of a float converted to a 64-bit unsigned integer and a bound, in either order (a
/// histogram's binning), with bounds around `u32::MAX` and floats around `2^32`.
#[accel]
fn float_casts_at_most(xs: Vector<f32>, bounds: Vector<u64>, b: usize) -> Vector<(usize, u64, usize, u64)> {
    xs.zip_with(bounds, |x, m| {
        let y = x as f64 * 1.5e9;
        ((x as usize).min(b), m.min(x as u64), (y as usize).min(m as usize), (b as u64).min(y as u64))
    })
}

#[accel]
fn casts_from_i64(xs: Vector<i64>) -> Vector<(i32, u32, u64, f32, f64, usize)> {
    xs.map(|x| (x as i32, x as u32, x as u64, x as f32, x as f64, x as usize))
}

#[accel]
fn casts_from_i32(xs: Vector<i32>) -> Vector<(i64, u32, u64, f32, f64, usize)> {
    xs.map(|x| (x as i64, x as u32, x as u64, x as f32, x as f64, x as usize))
}

#[accel]
fn casts_from_u64(xs: Vector<u64>) -> Vector<(i32, i64, u32, f32, f64, usize)> {
    xs.map(|x| (x as i32, x as i64, x as u32, x as f32, x as f64, x as usize))
}

#[accel]
fn casts_from_bool_u32(bs: Vector<bool>, us: Vector<u32>) -> Vector<(i32, u64, usize, i64, u32, f32)> {
    bs.zip_with(us, |b, u| (b as i32, b as u64, b as usize, u as i64 - b as i64, (b as u32) << 3, u as f32))
}

#[accel]
fn math_f64_a(xs: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.map(|x| (x.sqrt(), x.exp(), x.ln(), x.log2(), x.log10(), x.sin()))
}

#[accel]
fn math_f64_b(xs: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.map(|x| (x.cos(), x.tan(), x.asin(), x.acos(), x.atan(), x.sinh()))
}

#[accel]
fn math_f64_c(xs: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.map(|x| (x.cosh(), x.tanh(), x.floor(), x.ceil(), x.round(), x.trunc()))
}

#[accel]
fn math_f64_d(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.zip_with(ys, |x, y| (x.atan2(y), x.powf(y), x.powi((y as i32) % 7), x.mul_add(y, 0.75), f64::atan2(y, x), x % y))
}

#[accel]
fn math_f64_e(xs: Vector<f64>) -> Vector<(f64, f64, bool, bool, f64, f64)> {
    xs.map(|x| (x.abs(), x.erf(), x.is_nan(), x.is_finite(), f64::sqrt(x.abs()), -x))
}

#[accel]
fn min_max_f64(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(f64, f64, f64, f64)> {
    xs.zip_with(ys, |x, y| (x.min(y), x.max(y), f64::max(x, -x), f64::min(x, -x)))
}

#[accel]
fn math_f32_a(xs: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.map(|x| (x.sqrt(), x.exp(), x.ln(), x.log2(), x.log10(), x.sin()))
}

#[accel]
fn math_f32_b(xs: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.map(|x| (x.cos(), x.tan(), x.asin(), x.acos(), x.atan(), x.sinh()))
}

#[accel]
fn math_f32_c(xs: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.map(|x| (x.cosh(), x.tanh(), x.floor(), x.ceil(), x.round(), x.trunc()))
}

#[accel]
fn math_f32_d(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.zip_with(ys, |x, y| (x.atan2(y), x.powf(y), x.powi((y as i32) % 7), x.mul_add(y, 0.75), f32::atan2(y, x), x % y))
}

#[accel]
fn math_f32_e(xs: Vector<f32>) -> Vector<(f32, f32, bool, bool, f32, f32)> {
    xs.map(|x| (x.abs(), x.erf(), x.is_nan(), x.is_finite(), f32::sqrt(x.abs()), -x))
}

#[accel]
fn min_max_f32(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32, f32, f32)> {
    xs.zip_with(ys, |x, y| (x.min(y), x.max(y), f32::max(x, -x), f32::min(x, -x)))
}

#[accel]
fn arith_i32(xs: Vector<i32>, ys: Vector<i32>) -> Vector<(i32, i32, i32, i32, i32, i32)> {
    xs.zip_with(ys, |x, y| (x + y, x - y, x * y, -x, if y != 0 { x / y } else { 0 }, if y != 0 { x % y } else { 0 }))
}

#[accel]
fn misc_i32(xs: Vector<i32>, ys: Vector<i32>) -> Vector<(i32, i32, i32, i32, i32, i32)> {
    xs.zip_with(ys, |x, y| (x.abs(), x.min(y), x.max(y), x & y, x | y, x ^ y))
}

#[accel]
fn arith_i64(xs: Vector<i64>, ys: Vector<i64>) -> Vector<(i64, i64, i64, i64, i64, i64)> {
    xs.zip_with(ys, |x, y| (x + y, x - y, x * y, -x, if y != 0 { x / y } else { 0 }, if y != 0 { x % y } else { 0 }))
}

#[accel]
fn arith_u32(xs: Vector<u32>, ys: Vector<u32>) -> Vector<(u32, u32, u32, u32, u32, u32)> {
    xs.zip_with(ys, |x, y| (x + y, x - y, x * y, if y != 0 { x / y } else { 0 }, if y != 0 { x % y } else { 0 }, !x))
}

#[accel]
fn arith_u64(xs: Vector<u64>, ys: Vector<u64>) -> Vector<(u64, u64, u64, u64, u64, u64)> {
    xs.zip_with(ys, |x, y| (x + y, x - y, x * y, if y != 0 { x / y } else { 0 }, x.min(y) & (x | y), x ^ !y))
}

#[accel]
fn arith_usize(xs: Vector<usize>, ys: Vector<usize>) -> Vector<(usize, usize, usize, usize, usize, usize)> {
    xs.zip_with(ys, |x, y| (x + y, x - y, x * y, if y != 0 { x / y } else { 0 }, x.max(y), x >> (y % 64)))
}

#[accel]
fn shifts_i32(xs: Vector<i32>, ss: Vector<i32>) -> Vector<(i32, i32, i32, i32)> {
    xs.zip_with(ss, |x, s| (x << s, x >> s, x << (s as u64), !x))
}

#[accel]
fn shifts_i64(xs: Vector<i64>, ss: Vector<i64>) -> Vector<(i64, i64, i64, i64)> {
    xs.zip_with(ss, |x, s| (x << s, x >> s, x >> (s as u32), x << (s as i32)))
}

#[accel]
fn shifts_unsigned(xs: Vector<u32>, ss: Vector<u64>) -> Vector<(u32, u32, u64, u64)> {
    xs.zip_with(ss, |x, s| (x << s, x >> s, (x as u64) << s, (s >> x) | (s << 1)))
}

#[accel]
fn bools(xs: Vector<bool>, ys: Vector<bool>) -> Vector<(bool, bool, bool, bool, bool, bool)> {
    xs.zip_with(ys, |a, b| (a && b, a || b, !a, a ^ b, a & b, (a | b) == (a != b)))
}

#[accel]
fn compare_f64(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(bool, bool, bool, bool, bool, bool)> {
    xs.zip_with(ys, |x, y| (x == y, x != y, x < y, x <= y, x > y, x >= y))
}

#[accel]
fn compare_ints(xs: Vector<i64>, ys: Vector<u32>) -> Vector<(bool, bool, bool, bool, bool, bool)> {
    xs.zip_with(ys, |x, y| (x < y as i64, x == y as i64, y as i64 >= x, y != 7, (x as u32) > y, x <= -1))
}

#[accel]
fn tuples_and_lets(xs: Vector<i32>) -> Vector<(i32, (i32, bool))> {
    xs.map(|x| {
        let (a, b) = (x * 2, x + 1);
        let t = ((a, b), x);
        let (p, _) = t;
        (t.0.1 - t.1, (p.0 - a, b > 0))
    })
}

#[accel]
fn index_reads(xs: Vector<f32>, m: Matrix<i32>, ps: Vector<(u64, bool)>) -> (Vector<f32>, Matrix<i32>, Vector<u64>) {
    let n = xs.len();
    let (r, c) = m.shape();
    (
        generate(n, |i| xs[n - 1 - i] * 2.0 + xs[(i * 7) % n]),
        generate((c, r), |(i, j)| m[(j, i)] - m[[j, c - 1 - i]]),
        ps.imap(|i, p| if p.1 { ps[(i + 1) % ps.len()].0 } else { p.0 }),
    )
}

#[accel]
fn lengths_and_shapes(
    xs: Vector<f32>,
    m: Matrix<u64>,
    a: Array<i32, 3>,
) -> Scalar<(usize, usize, usize, usize, (usize, usize, usize), usize)> {
    let s = a.shape();
    unit((xs.len(), xs.shape(), m.len(), m.shape().1, s, m.shape().0))
}

#[accel]
fn float_constants(
    x: f32,
) -> (
    Scalar<(f32, f32, f32, f32, f32, f32)>,
    Scalar<(f64, f64, f64, f64, f64, f64)>,
    Scalar<(f64, f64, f64, f64, f32, f64)>,
) {
    (
        unit((f32::MAX, f32::MIN, f32::EPSILON, f32::MIN_POSITIVE, f32::MAX * x, std::f32::consts::E)),
        unit((
            std::f64::consts::PI,
            std::f64::consts::E,
            core::f64::consts::TAU,
            std::f64::consts::SQRT_2,
            std::f64::consts::LN_2,
            f64::MAX,
        )),
        unit((
            std::f64::consts::LN_10,
            std::f64::consts::FRAC_1_SQRT_2,
            std::f64::consts::FRAC_PI_2,
            f64::EPSILON,
            std::f32::consts::PI,
            f64::MIN_POSITIVE,
        )),
    )
}

#[accel]
fn non_finite_constants(x: f32) -> Scalar<(f32, f32, bool, f64, f64, bool)> {
    unit((
        f32::INFINITY,
        f32::NEG_INFINITY * x,
        f32::NAN.is_nan(),
        f64::INFINITY,
        -f64::INFINITY,
        (f64::NAN * 0.0).is_nan(),
    ))
}

#[accel]
fn int_constants(k: i32) -> Scalar<(i32, i32, i64, u32, u64, usize)> {
    unit((i32::MAX + k, i32::MIN, i64::MIN, u32::MAX, u64::MAX, usize::MAX))
}

/// Floats that exercise the special cases of the math functions: signed zeros, infinities, NaN,
/// the domain edges of `asin`/`acos`/`ln`, huge and tiny magnitudes, halves for `round`.
fn special_f64s() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        3 => -10.0f64..10.0,
        1 => -1.0f64..1.0,
        1 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e300, -1e300, 1e-300, 5e-324, 710.0, -745.0,
            f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MAX, f64::MIN, 4.5e15, 3e9, -3e9, 1.5e19,
        ]),
    ]
}

fn special_f32s() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        3 => -10.0f32..10.0,
        1 => -1.0f32..1.0,
        1 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e38, -1e38, 1e-38, 1e-45, 89.0, -104.0,
            f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN, 3e9, -3e9, 1.5e19, 16777217.0,
        ]),
    ]
}

/// `erf` by its everywhere-convergent series of positive terms,
/// `erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (1 * 3 * .. * (2n+1))`, which has no
/// cancellation; `erf(x)` rounds to `±1` beyond 6. Accurate to about `1e-14` relative.
fn erf_oracle(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.abs() >= 6.0 {
        return x.signum();
    }
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term.abs() > 1e-17 * sum.abs() {
        n += 1.0;
        term *= 2.0 * x * x / (2.0 * n + 1.0);
        sum += term;
    }
    2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp() * sum
}

/// `x << s` / `x >> s` with the amount reduced modulo the bit width (Euclidean, so a negative
/// amount `-1` shifts by `width - 1`), as docs/semantics.md says.
fn amount(s: i128, bits: i128) -> u32 {
    s.rem_euclid(bits) as u32
}

/// Vectors of two element kinds with the same length.
pub fn two<A: Num, B: Num>(
    a: impl Strategy<Value = A> + Clone,
    b: impl Strategy<Value = B> + Clone,
) -> impl Strategy<Value = (Vec<A>, Vec<B>)> {
    size().prop_flat_map(move |n| (vec_of(a.clone(), n), vec_of(b.clone(), n)))
}

/// The integer casts of a float (`as i32, i64, u32, u64, usize`).
type IntCasts = (i32, i64, u32, u64, usize);

/// Splits `(i32, i64, u32, u64, F, usize)` casts into the integer ones (compared exactly) and the
/// float one (compared by bits, since NaN survives it).
fn split_casts<F: Copy>(v: &[(i32, i64, u32, u64, F, usize)]) -> (Vec<IntCasts>, Vec<F>) {
    (v.iter().map(|t| (t.0, t.1, t.2, t.3, t.5)).collect(), v.iter().map(|t| t.4).collect())
}

/// The fields of `math_f*_e`: the float ones but `erf`, the two bools, and `erf`.
type MathE<T> = (Vec<(T, T, T)>, Vec<(bool, bool)>, Vec<T>);

fn split_math_e<T: Copy>(v: &[(T, T, bool, bool, T, T)]) -> MathE<T> {
    (
        v.iter().map(|t| (t.0, t.4, t.5)).collect(),
        v.iter().map(|t| (t.2, t.3)).collect(),
        v.iter().map(|t| t.1).collect(),
    )
}

/// Two vectors of bools of the same length.
fn bool_pairs() -> impl Strategy<Value = (Vec<bool>, Vec<bool>)> {
    size().prop_flat_map(|n| (prop::collection::vec(any::<bool>(), n), prop::collection::vec(any::<bool>(), n)))
}

/// Compares vectors of float 6-tuples field by field, bit for bit.
fn six_bits<T: Float + Approx>(
    on: &Target,
    what: &str,
    cpu: &[(T, T, T, T, T, T)],
    interp: &[(T, T, T, T, T, T)],
    want: &[(T, T, T, T, T, T)],
    names: [&str; 6],
) -> Check {
    let field = |v: &[(T, T, T, T, T, T)], k: usize| -> Vec<T> {
        v.iter().map(|t| [t.0, t.1, t.2, t.3, t.4, t.5][k]).collect()
    };
    for (k, name) in names.iter().enumerate() {
        all_same_bits(on, &format!("{what} {name}"), &field(cpu, k), &field(interp, k), &field(want, k))?;
    }
    Ok(())
}

/// Compares `(min, max, max(x, -x), min(x, -x))` field by field with [`all_same_min_max`].
fn min_max<T: Float>(
    on: &Target,
    what: &str,
    cpu: &[(T, T, T, T)],
    interp: &[(T, T, T, T)],
    want: &[(T, T, T, T)],
) -> Check {
    let field = |v: &[(T, T, T, T)], k: usize| -> Vec<T> { v.iter().map(|t| [t.0, t.1, t.2, t.3][k]).collect() };
    for (k, name) in ["x.min(y)", "x.max(y)", "max(x, -x)", "min(x, -x)"].iter().enumerate() {
        all_same_min_max(on, &format!("{what} {name}"), &field(cpu, k), &field(interp, k), &field(want, k))?;
    }
    Ok(())
}

fn iterate_applies_f_n_times(on: &Target) -> Check {
    props(24, (vec_sized(u64s(), small_size()), 0usize..40, vec_sized(f32s(), small_size())), |(xs, k, fs)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, iterate_u64(&v, k));
        let want: Vec<u64> = xs.iter().map(|&x| (0..k).fold(x, |y, _| y.wrapping_mul(y).wrapping_add(1))).collect();
        all_same(on, "iterate u64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(on, iterate_tuple(&v, k));
        let want: Vec<(f32, i32)> =
            fs.iter().map(|&x| (0..k).fold((x, 0), |s, _| (s.0 * 0.5 + s.1 as f32, s.1 + 1))).collect();
        all_same(on, "iterate (f32, i32)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn while_loop_runs_while_the_condition_holds(on: &Target) -> Check {
    props(24, (vec_sized(1u64..100_000, small_size()), vec_sized(special_f64s(), small_size())), |(xs, fs)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, collatz_steps(&v));
        let want: Vec<u32> = xs
            .iter()
            .map(|&x| {
                let (mut y, mut k) = (x, 0u32);
                while y > 1 {
                    y = if y % 2 == 0 { y / 2 } else { 3 * y + 1 };
                    k += 1;
                }
                k
            })
            .collect();
        all_same(on, "while_loop (Collatz steps)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(on, newton_sqrt(&v));
        let want: Vec<f64> = fs
            .iter()
            .map(|&x| {
                let mut s = (x.abs() + 1.0, 0);
                while s.1 < 60 && (s.0 * s.0 - x.abs()).abs() > 1e-9 * x.abs() {
                    s = ((s.0 + x.abs() / s.0) * 0.5, s.1 + 1);
                }
                s.0
            })
            .collect();
        all_same_bits(on, "while_loop (Newton)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn casts_are_rust_as(on: &Target) -> Check {
    props(
        24,
        (
            vec_sized(special_f64s(), size()),
            vec_sized(special_f32s(), size()),
            vec_sized(i64s(), size()),
            vec_sized(i32s(), size()),
            vec_sized(u64s(), size()),
            size().prop_flat_map(|n| (prop::collection::vec(any::<bool>(), n), vec_of(u32s(), n))),
        ),
        |(fs, gs, is, js, us, (bs, ws))| {
            let v = Vector::from_vec(fs.clone());
            let (cpu, interp) = both!(on, casts_from_f64(&v));
            let want: Vec<_> =
                fs.iter().map(|&x| (x as i32, x as i64, x as u32, x as u64, x as f32, x as usize)).collect();
            // NaN survives `as f32`: compare that field by bits, the others exactly.
            let ((c_int, c_f), (i_int, i_f), (w_int, w_f)) =
                (split_casts(&cpu.to_vec()), split_casts(&interp.to_vec()), split_casts(&want));
            all_same(on, "casts from f64 (integers)", &c_int, &i_int, &w_int)?;
            all_same_bits(on, "casts from f64 (as f32)", &c_f, &i_f, &w_f)?;
            let v = Vector::from_vec(gs.clone());
            let (cpu, interp) = both!(on, casts_from_f32(&v));
            let want: Vec<_> =
                gs.iter().map(|&x| (x as i32, x as i64, x as u32, x as u64, x as f64, x as usize)).collect();
            // NaN survives `as f64`: compare that field by bits, the others exactly.
            let ((c_int, c_f), (i_int, i_f), (w_int, w_f)) =
                (split_casts(&cpu.to_vec()), split_casts(&interp.to_vec()), split_casts(&want));
            all_same(on, "casts from f32 (integers)", &c_int, &i_int, &w_int)?;
            all_same_bits(on, "casts from f32 (as f64)", &c_f, &i_f, &w_f)?;
            let v = Vector::from_vec(is.clone());
            let (cpu, interp) = both!(on, casts_from_i64(&v));
            let want: Vec<_> =
                is.iter().map(|&x| (x as i32, x as u32, x as u64, x as f32, x as f64, x as usize)).collect();
            all_same(on, "casts from i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let v = Vector::from_vec(js.clone());
            let (cpu, interp) = both!(on, casts_from_i32(&v));
            let want: Vec<_> =
                js.iter().map(|&x| (x as i64, x as u32, x as u64, x as f32, x as f64, x as usize)).collect();
            all_same(on, "casts from i32", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let v = Vector::from_vec(us.clone());
            let (cpu, interp) = both!(on, casts_from_u64(&v));
            let want: Vec<_> =
                us.iter().map(|&x| (x as i32, x as i64, x as u32, x as f32, x as f64, x as usize)).collect();
            all_same(on, "casts from u64", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let (b, w) = (Vector::from_vec(bs.clone()), Vector::from_vec(ws.clone()));
            let (cpu, interp) = both!(on, casts_from_bool_u32(&b, &w));
            let want: Vec<_> = bs
                .iter()
                .zip(&ws)
                .map(|(&b, &u)| (b as i32, b as u64, b as usize, u as i64 - b as i64, (b as u32) << 3, u as f32))
                .collect();
            all_same(on, "casts from bool and u32", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn min_of_float_casts_is_rust_as(on: &Target) -> Check {
    let floats = prop_oneof![
        3 => special_f32s(),
        1 => prop::sample::select(vec![4_294_967_040.0f32, 4_294_967_296.0, 4_294_967_552.0, 5e9, 2.9, 3.0, 255.9]),
    ];
    let bounds = || {
        prop_oneof![
            2 => 0u64..300,
            1 => prop::sample::select(vec![0, u64::from(u32::MAX) - 1, u64::from(u32::MAX), 1 << 32, (1 << 32) + 5, u64::MAX]),
            1 => any::<u64>(),
        ]
    };
    let case = size().prop_flat_map(move |n| (vec_of(floats.clone(), n), vec_of(bounds(), n), bounds()));
    props(24, case, |(xs, ms, b)| {
        let b = b as usize;
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ms.clone()));
        let (cpu, interp) = both!(on, float_casts_at_most(&v, &w, b));
        let want: Vec<_> = xs
            .iter()
            .zip(&ms)
            .map(|(&x, &m)| {
                let y = x as f64 * 1.5e9;
                ((x as usize).min(b), m.min(x as u64), (y as usize).min(m as usize), (b as u64).min(y as u64))
            })
            .collect();
        all_same(on, "min of float casts", &cpu.to_vec(), &interp.to_vec(), &want)
    })
}

/// The float-function property of one float type: every function against std on the CPU, bit
/// for bit (within the GPU's tolerance there), and `erf` against a series within `$erf_bound`
/// of each result (relative to it, in f64).
macro_rules! float_functions {
    ($name:ident, $t:ident, $specials:ident, [$a:ident, $b:ident, $c:ident, $d:ident, $e:ident], $erf_bound:expr) => {
        fn $name(on: &Target) -> Check {
            let t = stringify!($t);
            props(24, two($specials(), $specials()), |(xs, ys)| {
                let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
                let (cpu, interp) = both!(on, $a(&v));
                let want: Vec<_> =
                    xs.iter().map(|&x| (x.sqrt(), x.exp(), x.ln(), x.log2(), x.log10(), x.sin())).collect();
                six_bits(on, t, &cpu.to_vec(), &interp.to_vec(), &want, ["sqrt", "exp", "ln", "log2", "log10", "sin"])?;
                let (cpu, interp) = both!(on, $b(&v));
                let want: Vec<_> =
                    xs.iter().map(|&x| (x.cos(), x.tan(), x.asin(), x.acos(), x.atan(), x.sinh())).collect();
                six_bits(on, t, &cpu.to_vec(), &interp.to_vec(), &want, ["cos", "tan", "asin", "acos", "atan", "sinh"])?;
                let (cpu, interp) = both!(on, $c(&v));
                let want: Vec<_> =
                    xs.iter().map(|&x| (x.cosh(), x.tanh(), x.floor(), x.ceil(), x.round(), x.trunc())).collect();
                let names = ["cosh", "tanh", "floor", "ceil", "round", "trunc"];
                six_bits(on, t, &cpu.to_vec(), &interp.to_vec(), &want, names)?;
                let (cpu, interp) = both!(on, $d(&v, &w));
                let want: Vec<_> = xs
                    .iter()
                    .zip(&ys)
                    .map(|(&x, &y)| (x.atan2(y), x.powf(y), x.powi((y as i32) % 7), x.mul_add(y, 0.75), y.atan2(x), x % y))
                    .collect();
                let names = ["atan2", "powf", "powi", "mul_add", concat!(stringify!($t), "::atan2"), "%"];
                six_bits(on, t, &cpu.to_vec(), &interp.to_vec(), &want, names)?;
                let (cpu, interp) = both!(on, $e(&v));
                let (cpu, interp) = (cpu.to_vec(), interp.to_vec());
                let ((c3, cb, ce), (i3, ib, ie)) = (split_math_e(&cpu), split_math_e(&interp));
                let w3: Vec<($t, $t, $t)> = xs.iter().map(|&x| (x.abs(), x.abs().sqrt(), -x)).collect();
                let wb: Vec<(bool, bool)> = xs.iter().map(|&x| (x.is_nan(), x.is_finite())).collect();
                let f = |v: &[($t, $t, $t)], k: usize| -> Vec<$t> { v.iter().map(|t| [t.0, t.1, t.2][k]).collect() };
                all_same_bits(on, &format!("{t} abs"), &f(&c3, 0), &f(&i3, 0), &f(&w3, 0))?;
                all_same_bits(on, &format!("{t} {t}::sqrt"), &f(&c3, 1), &f(&i3, 1), &f(&w3, 1))?;
                all_same_bits(on, &format!("{t} -x"), &f(&c3, 2), &f(&i3, 2), &f(&w3, 2))?;
                all_same(on, &format!("{t} is_nan/is_finite"), &cb, &ib, &wb)?;
                // The backends share libm's `erf`/`erff` (bit-identical to the interpreter).
                same_bits(on, &format!("{t} erf (CPU vs interpreter)"), &ce, &ie)?;
                let want: Vec<f64> = xs.iter().map(|&x| erf_oracle(f64::from(x))).collect();
                let bound: Vec<f64> = want.iter().map(|&w| $erf_bound(w)).collect();
                bounded(on, &format!("{t} erf (vs series)"), &ce, &want, &bound)?;
                Ok(())
            })
        }
    };
}

// erf in f64: the series oracle agrees within 1e-13 relative (its own error is about 1e-14).
float_functions!(
    float_functions_f64,
    f64,
    special_f64s,
    [math_f64_a, math_f64_b, math_f64_c, math_f64_d, math_f64_e],
    |w: f64| 1e-13 * w.abs() + 1e-300
);
// erf in f32 (libm's `erff`, correct to about one ulp): within 4 f32 ulps of the f64 series,
// relative, plus the smallest normal for results near zero.
float_functions!(
    float_functions_f32,
    f32,
    special_f32s,
    [math_f32_a, math_f32_b, math_f32_c, math_f32_d, math_f32_e],
    |w: f64| 4.0 * f64::from(f32::EPSILON) * w.abs() + f64::from(f32::MIN_POSITIVE)
);

/// Fast math: one operation with a fast form per field (`+` after `*`, `/`, `sqrt`, `exp`, `ln`,
/// `recip`), so that each field's tolerance is that operation's.
#[accel(fast_math)]
fn fast_math_f32(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.zip_with(ys, |x, y| (x * y + 1.5, x / y, y.sqrt(), (x * 0.25).exp(), y.ln(), y.recip()))
}

#[accel(fast_math)]
fn fast_math_f32_b(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32)> {
    xs.zip_with(ys, |x, y| (x.exp2(), y.log2()))
}

/// `f64` under fast math: contractions only.
#[accel(fast_math)]
fn fast_math_f64(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(f64, f64, f64)> {
    xs.zip_with(ys, |x, y| (x * y + 1.5, x / y, y.ln()))
}

/// A fused map and reduction under fast math (the combining function's `+` too).
#[accel(fast_math)]
fn fast_math_dot(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
    xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
}

/// Fast math changes only the GPU's code: the CPU backend stays bit-identical to the
/// interpreter; on the GPU each result is within the corpus's float tolerance (`close_scaled`:
/// [`ELEM_TOL`] relative, far looser than the operations' documented errors, with an absolute
/// floor where a result may cancel: `x * y + 1.5` near zero, `ln` and `log2` near 1, whose fast
/// forms have an absolute error bound), and `f64` division, which fast math leaves IEEE, is
/// bit-identical. That the kernels use the fast forms at all is the code generator's test
/// (`fast_math_changes_the_float_operations_of_the_kernels_and_their_names`).
fn fast_math(on: &Target) -> Check {
    props(24, two(-8.0f32..8.0, 0.01f32..100.0), |(xs, ys)| {
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (got, interp) = both!(on, fast_math_f32(&v, &w));
        let (got, interp) = (got.to_vec(), interp.to_vec());
        let field = |v: &[(f32, f32, f32, f32, f32, f32)], k: usize| -> Vec<f32> {
            v.iter().map(|t| [t.0, t.1, t.2, t.3, t.4, t.5][k]).collect()
        };
        let product: Vec<f64> = xs.iter().zip(&ys).map(|(&x, &y)| f64::from(x * y).abs() + 1.5).collect();
        let near_one = vec![0.1; xs.len()];
        let none = vec![0.0; xs.len()];
        let scales = [&product, &none, &none, &none, &near_one, &none];
        for (k, (name, scale)) in ["x * y + 1.5", "x / y", "sqrt", "exp", "ln", "recip"].iter().zip(scales).enumerate()
        {
            close_scaled(on, &format!("fast f32 {name}"), &field(&got, k), &field(&interp, k), scale)?;
        }
        let (got, interp) = both!(on, fast_math_f32_b(&v, &w));
        close(on, "fast f32 exp2", &firsts(&got.to_vec()), &firsts(&interp.to_vec()), 0.0)?;
        close(on, "fast f32 log2", &seconds(&got.to_vec()), &seconds(&interp.to_vec()), 0.1)?;
        let (got, interp) = both!(on, fast_math_dot(&v, &w));
        let abs_sum: f64 = xs.iter().zip(&ys).map(|(&x, &y)| f64::from(x * y).abs()).sum();
        summed("fast f32 dot", &[got.get()], &[interp.get()], &[abs_sum as f32])?;
        let (xd, yd): (Vec<f64>, Vec<f64>) = xs.iter().zip(&ys).map(|(&x, &y)| (f64::from(x), f64::from(y))).unzip();
        let (got, interp) = both!(on, fast_math_f64(&Vector::from_vec(xd.clone()), &Vector::from_vec(yd.clone())));
        let col = |v: &[(f64, f64, f64)], k: usize| -> Vec<f64> { v.iter().map(|t| [t.0, t.1, t.2][k]).collect() };
        let (got, interp) = (got.to_vec(), interp.to_vec());
        let product: Vec<f64> = xd.iter().zip(&yd).map(|(&x, &y)| (x * y).abs() + 1.5).collect();
        close_scaled(on, "fast f64 x * y + 1.5", &col(&got, 0), &col(&interp, 0), &product)?;
        let bits = |v: Vec<f64>| -> Vec<u64> { v.into_iter().map(f64::to_bits).collect() };
        exact("fast f64 x / y (IEEE)", &bits(col(&got, 1)), &bits(col(&interp, 1)))?;
        close(on, "fast f64 ln", &col(&got, 2), &col(&interp, 2), 0.1)?;
        Ok(())
    })
}

fn float_min_max(on: &Target) -> Check {
    props(24, (two(special_f64s(), special_f64s()), two(special_f32s(), special_f32s())), |((xs, ys), (fs, gs))| {
        // Mix in equal pairs and pairs of opposite zeros.
        let ys: Vec<f64> =
            ys.iter().zip(&xs).enumerate().map(|(i, (&y, &x))| if i % 4 == 0 { -x } else { y }).collect();
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(on, min_max_f64(&v, &w));
        let want: Vec<_> = xs.iter().zip(&ys).map(|(&x, &y)| (x.min(y), x.max(y), x.max(-x), x.min(-x))).collect();
        min_max(on, "f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let gs: Vec<f32> =
            gs.iter().zip(&fs).enumerate().map(|(i, (&y, &x))| if i % 4 == 0 { -x } else { y }).collect();
        let (v, w) = (Vector::from_vec(fs.clone()), Vector::from_vec(gs.clone()));
        let (cpu, interp) = both!(on, min_max_f32(&v, &w));
        let want: Vec<_> = fs.iter().zip(&gs).map(|(&x, &y)| (x.min(y), x.max(y), x.max(-x), x.min(-x))).collect();
        min_max(on, "f32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn signed_integers_wrap(on: &Target) -> Check {
    props(24, (two(i32s(), i32s()), two(i64s(), i64s())), |((xs, ys), (ls, ms))| {
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(on, arith_i32(&v, &w));
        let want: Vec<_> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| {
                (
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    x.wrapping_neg(),
                    if y != 0 { x.wrapping_div(y) } else { 0 },
                    if y != 0 { x.wrapping_rem(y) } else { 0 },
                )
            })
            .collect();
        all_same(on, "i32 + - * neg / %", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(on, misc_i32(&v, &w));
        let want: Vec<_> =
            xs.iter().zip(&ys).map(|(&x, &y)| (x.wrapping_abs(), x.min(y), x.max(y), x & y, x | y, x ^ y)).collect();
        all_same(on, "i32 abs min max & | ^", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (v, w) = (Vector::from_vec(ls.clone()), Vector::from_vec(ms.clone()));
        let (cpu, interp) = both!(on, arith_i64(&v, &w));
        let want: Vec<_> = ls
            .iter()
            .zip(&ms)
            .map(|(&x, &y)| {
                (
                    x.wrapping_add(y),
                    x.wrapping_sub(y),
                    x.wrapping_mul(y),
                    x.wrapping_neg(),
                    if y != 0 { x.wrapping_div(y) } else { 0 },
                    if y != 0 { x.wrapping_rem(y) } else { 0 },
                )
            })
            .collect();
        all_same(on, "i64 + - * neg / %", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn unsigned_integers_wrap(on: &Target) -> Check {
    props(
        24,
        (two(u32s(), u32s()), two(u64s(), u64s()), two(any::<usize>(), any::<usize>())),
        |((xs, ys), (ls, ms), (ss, ts))| {
            let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
            let (cpu, interp) = both!(on, arith_u32(&v, &w));
            let want: Vec<_> = xs
                .iter()
                .zip(&ys)
                .map(|(&x, &y)| {
                    (
                        x.wrapping_add(y),
                        x.wrapping_sub(y),
                        x.wrapping_mul(y),
                        x.checked_div(y).unwrap_or(0),
                        x.checked_rem(y).unwrap_or(0),
                        !x,
                    )
                })
                .collect();
            all_same(on, "u32 + - * / % !", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let (v, w) = (Vector::from_vec(ls.clone()), Vector::from_vec(ms.clone()));
            let (cpu, interp) = both!(on, arith_u64(&v, &w));
            let want: Vec<_> = ls
                .iter()
                .zip(&ms)
                .map(|(&x, &y)| {
                    (
                        x.wrapping_add(y),
                        x.wrapping_sub(y),
                        x.wrapping_mul(y),
                        x.checked_div(y).unwrap_or(0),
                        x.min(y) & (x | y),
                        x ^ !y,
                    )
                })
                .collect();
            all_same(on, "u64 + - * / min & | ^ !", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let (v, w) = (Vector::from_vec(ss.clone()), Vector::from_vec(ts.clone()));
            let (cpu, interp) = both!(on, arith_usize(&v, &w));
            let want: Vec<_> = ss
                .iter()
                .zip(&ts)
                .map(|(&x, &y)| {
                    (
                        x.wrapping_add(y),
                        x.wrapping_sub(y),
                        x.wrapping_mul(y),
                        x.checked_div(y).unwrap_or(0),
                        x.max(y),
                        x >> (y % 64),
                    )
                })
                .collect();
            all_same(on, "usize + - * / max >>", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn shifts_reduce_the_amount_modulo_the_width(on: &Target) -> Check {
    props(
        24,
        (two(i32s(), -100i32..100), two(i64s(), i64s()), two(u32s(), u64s())),
        |((xs, ss), (ls, ms), (us, ws))| {
            let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ss.clone()));
            let (cpu, interp) = both!(on, shifts_i32(&v, &w));
            let want: Vec<_> = xs
                .iter()
                .zip(&ss)
                .map(|(&x, &s)| {
                    (
                        x.wrapping_shl(amount(s as i128, 32)),
                        x.wrapping_shr(amount(s as i128, 32)),
                        x.wrapping_shl(amount(s as u64 as i128, 32)),
                        !x,
                    )
                })
                .collect();
            all_same(on, "i32 << >> !", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let (v, w) = (Vector::from_vec(ls.clone()), Vector::from_vec(ms.clone()));
            let (cpu, interp) = both!(on, shifts_i64(&v, &w));
            let want: Vec<_> = ls
                .iter()
                .zip(&ms)
                .map(|(&x, &s)| {
                    (
                        x.wrapping_shl(amount(s as i128, 64)),
                        x.wrapping_shr(amount(s as i128, 64)),
                        x.wrapping_shr(amount(s as u32 as i128, 64)),
                        x.wrapping_shl(amount(s as i32 as i128, 64)),
                    )
                })
                .collect();
            all_same(on, "i64 << >> (arithmetic)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let (v, w) = (Vector::from_vec(us.clone()), Vector::from_vec(ws.clone()));
            let (cpu, interp) = both!(on, shifts_unsigned(&v, &w));
            let want: Vec<_> = us
                .iter()
                .zip(&ws)
                .map(|(&x, &s)| {
                    (
                        x.wrapping_shl(amount(s as i128, 32)),
                        x.wrapping_shr(amount(s as i128, 32)),
                        (x as u64).wrapping_shl(amount(s as i128, 64)),
                        s.wrapping_shr(amount(x as i128, 64)) | s.wrapping_shl(1),
                    )
                })
                .collect();
            all_same(on, "u32/u64 << >>", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn bool_operations_and_comparisons(on: &Target) -> Check {
    props(
        24,
        (bool_pairs(), two(special_f64s(), special_f64s()), two(i64s(), u32s())),
        |((bs, cs), (xs, ys), (is, us))| {
            let (v, w) = (Vector::from_vec(bs.clone()), Vector::from_vec(cs.clone()));
            let (cpu, interp) = both!(on, bools(&v, &w));
            let want: Vec<_> =
                bs.iter().zip(&cs).map(|(&a, &b)| (a && b, a || b, !a, a ^ b, a & b, (a | b) == (a != b))).collect();
            all_same(on, "bool && || ! ^ & |", &cpu.to_vec(), &interp.to_vec(), &want)?;
            // Repeat a few x values in y so that equality holds sometimes.
            let ys: Vec<f64> =
                ys.iter().zip(&xs).enumerate().map(|(i, (&y, &x))| if i % 3 == 0 { x } else { y }).collect();
            let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
            let (cpu, interp) = both!(on, compare_f64(&v, &w));
            let want: Vec<_> =
                xs.iter().zip(&ys).map(|(&x, &y)| (x == y, x != y, x < y, x <= y, x > y, x >= y)).collect();
            all_same(on, "f64 comparisons (IEEE, NaN unordered)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let (v, w) = (Vector::from_vec(is.clone()), Vector::from_vec(us.clone()));
            let (cpu, interp) = both!(on, compare_ints(&v, &w));
            let want: Vec<_> = is
                .iter()
                .zip(&us)
                .map(|(&x, &y)| (x < y as i64, x == y as i64, y as i64 >= x, y != 7, (x as u32) > y, x <= -1))
                .collect();
            all_same(on, "integer comparisons", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn tuples_lets_and_projections(on: &Target) -> Check {
    props(24, vec_sized(i32s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, tuples_and_lets(&v));
        let want: Vec<(i32, (i32, bool))> = xs
            .iter()
            .map(|&x| {
                let b = x.wrapping_add(1);
                (b.wrapping_sub(x), (0, b > 0))
            })
            .collect();
        all_same(on, "tuples", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn index_reads_of_arrays_in_scope(on: &Target) -> Check {
    props(
        24,
        (
            vec_sized(f32s(), size()),
            matrix_of(i32s()),
            size().prop_flat_map(|n| prop::collection::vec((u64s(), any::<bool>()), n)),
        ),
        |(xs, ((r, c), m), ps)| {
            let (v, mm) = (Vector::from_vec(xs.clone()), Matrix::from_shape_vec([r, c], m.clone()).unwrap());
            let pv: Vector<(u64, bool)> = ps.iter().copied().collect();
            let ((a_cpu, b_cpu, c_cpu), (a_int, b_int, c_int)) = both!(on, index_reads(&v, &mm, &pv));
            let n = xs.len();
            let want_a: Vec<f32> = (0..n).map(|i| xs[n - 1 - i] * 2.0 + xs[(i * 7) % n]).collect();
            all_same_bits(on, "xs[i] reads", &a_cpu.to_vec(), &a_int.to_vec(), &want_a)?;
            let want_b: Vec<i32> = (0..c)
                .flat_map(|i| (0..r).map(move |j| (i, j)))
                .map(|(i, j)| m[j * c + i].wrapping_sub(m[j * c + (c - 1 - i)]))
                .collect();
            all_same(on, "m[(i, j)] reads", &b_cpu.to_vec(), &b_int.to_vec(), &want_b)?;
            check_eq!(b_cpu.shape(), [c, r]);
            let want_c: Vec<u64> =
                ps.iter().enumerate().map(|(i, p)| if p.1 { ps[(i + 1) % ps.len()].0 } else { p.0 }).collect();
            all_same(on, "tuple array reads", &c_cpu.to_vec(), &c_int.to_vec(), &want_c)?;
            Ok(())
        },
    )
}

fn len_and_shape(on: &Target) -> Check {
    props(24, (size(), shape(), (0usize..4, 0usize..5, 0usize..6)), |(n, (r, c), (a, b, d))| {
        let v = Vector::from_vec(vec![1.0f32; n]);
        let m = Matrix::from_shape_vec([r, c], vec![2u64; r * c]).unwrap();
        let cube = Array::from_shape_vec([a, b, d], vec![3i32; a * b * d]).unwrap();
        let (cpu, interp) = both!(on, lengths_and_shapes(&v, &m, &cube));
        all_same(on, "len and shape", &[cpu.get()], &[interp.get()], &[(n, n, r * c, c, (a, b, d), r)])?;
        Ok(())
    })
}

fn scalar_parameters(on: &Target) -> Check {
    props(24, (i32s(), u64s(), f32s(), any::<bool>(), any::<usize>(), f64s()), |(a, b, c, d, e, f)| {
        let (cpu, interp) = both!(on, scalar_params(a, b, c, d, e, f));
        let want = (a.wrapping_mul(3), b.wrapping_add(1), c * 0.5, !d, e.wrapping_mul(2), f - 1.0);
        all_same(on, "scalar parameters", &[cpu.get()], &[interp.get()], &[want])?;
        Ok(())
    })
}

fn named_constants(on: &Target) -> Check {
    let (a, b, c) = float_constants(on.rt()?, 2.0)?;
    let (ra, rb, rc) = float_constants::reference(2.0)?;
    use std::f64::consts;
    let want_a = (f32::MAX, f32::MIN, f32::EPSILON, f32::MIN_POSITIVE, f32::INFINITY, std::f32::consts::E);
    let want_b = (consts::PI, consts::E, consts::TAU, consts::SQRT_2, consts::LN_2, f64::MAX);
    let want_c = (
        consts::LN_10,
        consts::FRAC_1_SQRT_2,
        consts::FRAC_PI_2,
        f64::EPSILON,
        std::f32::consts::PI,
        f64::MIN_POSITIVE,
    );
    assert_eq!((a.get(), ra.get()), (want_a, want_a));
    assert_eq!((b.get(), rb.get()), (want_b, want_b));
    assert_eq!((c.get(), rc.get()), (want_c, want_c));
    let (k, rk) = (int_constants(on.rt()?, 1)?, int_constants::reference(1)?);
    let want = (i32::MIN, i32::MIN, i64::MIN, u32::MAX, u64::MAX, usize::MAX);
    assert_eq!((k.get(), rk.get()), (want, want));
    Ok(())
}

fn non_finite_named_constants(on: &Target) -> Check {
    let want = (f32::INFINITY, f32::NEG_INFINITY, true, f64::INFINITY, f64::NEG_INFINITY, true);
    assert_eq!(non_finite_constants(on.rt()?, 2.0)?.get(), want, "CPU backend");
    assert_eq!(non_finite_constants::reference(2.0)?.get(), want, "interpreter");
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        case("scalar::iterate_applies_f_n_times", iterate_applies_f_n_times),
        case("scalar::while_loop_runs_while_the_condition_holds", while_loop_runs_while_the_condition_holds),
        case("scalar::casts_are_rust_as", casts_are_rust_as),
        case("scalar::min_of_float_casts_is_rust_as", min_of_float_casts_is_rust_as),
        case("scalar::float_functions_f64", float_functions_f64),
        case("scalar::float_functions_f32", float_functions_f32),
        case("scalar::float_min_max", float_min_max),
        case("scalar::fast_math", fast_math),
        case("scalar::signed_integers_wrap", signed_integers_wrap),
        case("scalar::unsigned_integers_wrap", unsigned_integers_wrap),
        case("scalar::shifts_reduce_the_amount_modulo_the_width", shifts_reduce_the_amount_modulo_the_width),
        case("scalar::bool_operations_and_comparisons", bool_operations_and_comparisons),
        case("scalar::tuples_lets_and_projections", tuples_lets_and_projections),
        case("scalar::index_reads_of_arrays_in_scope", index_reads_of_arrays_in_scope),
        case("scalar::len_and_shape", len_and_shape),
        case("scalar::scalar_parameters", scalar_parameters),
        case("scalar::named_constants", named_constants),
        case("scalar::non_finite_named_constants", non_finite_named_constants),
    ]
}
