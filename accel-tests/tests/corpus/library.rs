//! The scalar library beyond operators: the integer methods (`pow`, bit counts, rotations,
//! `saturating_*`, `checked_*(..).unwrap_or(..)`, `wrapping_*`, `clamp`, `signum`,
//! `div_euclid`/`rem_euclid`) at every integer type, and the float ones (`cbrt exp2 exp_m1 ln_1p
//! hypot copysign fract recip to_radians to_degrees signum clamp div_euclid rem_euclid`) at both
//! float types, each against Rust's own method of the same name.
//!
//! Integers compare exactly everywhere. Floats compare bit for bit between the interpreter, the
//! CPU backend and `std`; the GPU computes the transcendental ones (`cbrt exp2 exp_m1 ln_1p
//! hypot`) with `libm` and is compared within the corpus's tolerance.

use crate::compare::*;
use crate::harness::*;
use crate::scalar::two;
use crate::strategies::*;
use accel::prelude::*;
use accel_examples::kmeans::distance2;
use proptest::prelude::*;

#[accel]
fn bits_i32(xs: Vector<i32>, ys: Vector<i32>) -> Vector<(i32, u32, u32, u32, i32, i32)> {
    xs.zip_with(ys, |x, y| {
        let n = y as u32;
        (x.pow(n % 40), x.count_ones(), x.leading_zeros(), x.trailing_zeros(), x.rotate_left(n), x.rotate_right(n))
    })
}

#[accel]
fn bits_i64(xs: Vector<i64>, ys: Vector<i64>) -> Vector<(i64, u32, u32, u32, i64, i64)> {
    xs.zip_with(ys, |x, y| {
        let n = y as u32;
        (x.pow(n % 70), x.count_ones(), x.leading_zeros(), x.trailing_zeros(), x.rotate_left(n), x.rotate_right(n))
    })
}

#[accel]
fn bits_u32(xs: Vector<u32>, ys: Vector<u32>) -> Vector<(u32, u32, u32, u32, u32, u32)> {
    xs.zip_with(ys, |x, y| {
        (x.pow(y % 40), x.count_ones(), x.leading_zeros(), x.trailing_zeros(), x.rotate_left(y), x.rotate_right(y))
    })
}

#[accel]
fn bits_u64(xs: Vector<u64>, ys: Vector<u64>) -> Vector<(u64, u32, u32, u32, u64, u64)> {
    xs.zip_with(ys, |x, y| {
        let n = y as u32;
        (x.pow(n % 70), x.count_ones(), x.leading_zeros(), x.trailing_zeros(), x.rotate_left(n), x.rotate_right(n))
    })
}

#[accel]
fn bits_usize(xs: Vector<usize>, ys: Vector<usize>) -> Vector<(usize, u32, u32, u32, usize, usize)> {
    xs.zip_with(ys, |x, y| {
        let n = y as u32;
        (x.pow(n % 70), x.count_ones(), x.leading_zeros(), x.trailing_zeros(), x.rotate_left(n), x.rotate_right(n))
    })
}

#[accel]
fn overflow_i32(xs: Vector<i32>, ys: Vector<i32>) -> Vector<(i32, i32, i32, i32, i32, i32)> {
    xs.zip_with(ys, |x, y| {
        (
            x.saturating_add(y),
            x.saturating_sub(y),
            x.saturating_mul(y),
            x.checked_add(y).unwrap_or(x),
            x.checked_mul(y).unwrap_or(0),
            x.checked_div(y).unwrap_or(7),
        )
    })
}

#[accel]
fn overflow_i64(xs: Vector<i64>, ys: Vector<i64>) -> Vector<(i64, i64, i64, i64, i64, i64)> {
    xs.zip_with(ys, |x, y| {
        (
            x.saturating_add(y),
            x.saturating_sub(y),
            x.saturating_mul(y),
            x.checked_add(y).unwrap_or(x),
            x.checked_mul(y).unwrap_or(0),
            x.checked_div(y).unwrap_or(7),
        )
    })
}

#[accel]
fn overflow_u32(xs: Vector<u32>, ys: Vector<u32>) -> Vector<(u32, u32, u32, u32, u32, u32)> {
    xs.zip_with(ys, |x, y| {
        (
            x.saturating_add(y),
            x.saturating_sub(y),
            x.saturating_mul(y),
            x.checked_add(y).unwrap_or(x),
            x.checked_mul(y).unwrap_or(0),
            x.checked_div(y).unwrap_or(7),
        )
    })
}

#[accel]
fn overflow_u64(xs: Vector<u64>, ys: Vector<u64>) -> Vector<(u64, u64, u64, u64, u64, u64)> {
    xs.zip_with(ys, |x, y| {
        (
            x.saturating_add(y),
            x.saturating_sub(y),
            x.saturating_mul(y),
            x.checked_add(y).unwrap_or(x),
            x.checked_mul(y).unwrap_or(0),
            x.checked_div(y).unwrap_or(7),
        )
    })
}

#[accel]
fn overflow_usize(xs: Vector<usize>, ys: Vector<usize>) -> Vector<(usize, usize, usize, usize, usize, usize)> {
    xs.zip_with(ys, |x, y| {
        (
            x.saturating_add(y),
            x.saturating_sub(y),
            x.saturating_mul(y),
            x.checked_add(y).unwrap_or(x),
            x.checked_mul(y).unwrap_or(0),
            x.checked_div(y).unwrap_or(7),
        )
    })
}

#[accel]
fn euclid_i32(xs: Vector<i32>, ys: Vector<i32>) -> Vector<(i32, i32, i32, i32, i32, i32)> {
    xs.zip_with(ys, |x, y| {
        (
            x.clamp(y.min(9), y.max(9)),
            x.checked_sub(y).unwrap_or(1),
            x.checked_rem(y).unwrap_or(2),
            if y != 0 { x.div_euclid(y) } else { 0 },
            if y != 0 { x.rem_euclid(y) } else { 0 },
            x.signum(),
        )
    })
}

#[accel]
fn euclid_i64(xs: Vector<i64>, ys: Vector<i64>) -> Vector<(i64, i64, i64, i64, i64, i64)> {
    xs.zip_with(ys, |x, y| {
        (
            x.clamp(y.min(9), y.max(9)),
            x.checked_sub(y).unwrap_or(1),
            x.checked_rem(y).unwrap_or(2),
            if y != 0 { x.div_euclid(y) } else { 0 },
            if y != 0 { x.rem_euclid(y) } else { 0 },
            x.signum(),
        )
    })
}

#[accel]
fn euclid_u32(xs: Vector<u32>, ys: Vector<u32>) -> Vector<(u32, u32, u32, u32, u32, u32)> {
    xs.zip_with(ys, |x, y| {
        (
            x.clamp(y.min(9), y.max(9)),
            x.checked_sub(y).unwrap_or(1),
            x.checked_rem(y).unwrap_or(2),
            if y != 0 { x.div_euclid(y) } else { 0 },
            if y != 0 { x.rem_euclid(y) } else { 0 },
            x.wrapping_neg(),
        )
    })
}

#[accel]
fn euclid_u64(xs: Vector<u64>, ys: Vector<u64>) -> Vector<(u64, u64, u64, u64, u64, u64)> {
    xs.zip_with(ys, |x, y| {
        (
            x.clamp(y.min(9), y.max(9)),
            x.checked_sub(y).unwrap_or(1),
            x.checked_rem(y).unwrap_or(2),
            if y != 0 { x.div_euclid(y) } else { 0 },
            if y != 0 { x.rem_euclid(y) } else { 0 },
            x.wrapping_neg(),
        )
    })
}

#[accel]
fn euclid_usize(xs: Vector<usize>, ys: Vector<usize>) -> Vector<(usize, usize, usize, usize, usize, usize)> {
    xs.zip_with(ys, |x, y| {
        (
            x.clamp(y.min(9), y.max(9)),
            x.checked_sub(y).unwrap_or(1),
            x.checked_rem(y).unwrap_or(2),
            if y != 0 { x.div_euclid(y) } else { 0 },
            if y != 0 { x.rem_euclid(y) } else { 0 },
            x.wrapping_neg(),
        )
    })
}

#[accel]
fn wrapping_i32(xs: Vector<i32>, ys: Vector<i32>) -> Vector<(i32, i32, i32, i32, i32, i32)> {
    xs.zip_with(ys, |x, y| {
        (
            x.wrapping_add(y),
            x.wrapping_sub(y).wrapping_mul(y),
            x.wrapping_neg().wrapping_abs(),
            x.wrapping_shl(y as u32),
            x.wrapping_shr(y as u32),
            x.wrapping_pow(3).wrapping_div(y | 1).wrapping_rem(y | 1),
        )
    })
}

#[accel]
fn library_f64_a(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.zip_with(ys, |x, y| (x.cbrt(), x.exp2(), x.exp_m1(), x.ln_1p(), x.hypot(y), f64::copysign(x, y)))
}

#[accel]
fn library_f64_b(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.zip_with(ys, |x, y| {
        (x.fract(), x.recip(), x.to_radians(), x.to_degrees(), x.signum(), x.clamp(-1.5, y.abs().max(0.0)))
    })
}

#[accel]
fn library_f64_c(xs: Vector<f64>, ys: Vector<f64>) -> Vector<(f64, f64)> {
    xs.zip_with(ys, |x, y| (x.div_euclid(y), x.rem_euclid(y)))
}

#[accel]
fn library_f32_a(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.zip_with(ys, |x, y| (x.cbrt(), x.exp2(), x.exp_m1(), x.ln_1p(), x.hypot(y), f32::copysign(x, y)))
}

#[accel]
fn library_f32_b(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.zip_with(ys, |x, y| {
        (x.fract(), x.recip(), x.to_radians(), x.to_degrees(), x.signum(), x.clamp(-1.5, y.abs().max(0.0)))
    })
}

#[accel]
fn library_f32_c(xs: Vector<f32>, ys: Vector<f32>) -> Vector<(f32, f32)> {
    xs.zip_with(ys, |x, y| (x.div_euclid(y), x.rem_euclid(y)))
}

/// A scalar helper: inlined into the closures that call it, here and in `scalar.rs`.
#[accel]
pub fn mix(x: u32) -> u32 {
    let h = (x ^ (x >> 16)).wrapping_mul(0x045d_9f3b);
    h ^ (h >> 16)
}

#[accel]
fn hashed_twice(xs: Vector<u32>, salt: u32) -> Vector<u32> {
    xs.map(|x| mix(mix(x) ^ salt))
}

#[accel]
pub fn squares_of(xs: Vector<f64>) -> Vector<f64> {
    xs.map(|x| x * x)
}

/// The root mean square: a call of `squares_of`, fused into the sum.
#[accel]
pub fn rms(xs: Vector<f64>) -> Scalar<f64> {
    let n = xs.len() as f64;
    unit((squares_of(xs).sum().get() / n).sqrt())
}

/// Calls into the accel package `accel_examples`, a dependency of this one: functions named by
/// their path from the dependency's root, and its scalar helper `distance2` through a `use`.
#[accel]
pub fn saxpy_then_norms(a: f32, xs: Vector<f32>, ys: Vector<f32>) -> (Vector<f32>, Scalar<f32>) {
    let zs = accel_examples::saxpy::saxpy(a, xs, ys);
    let dist = zs.zip_with(ys, |z, y| distance2(z, y, 0.0, 0.0));
    (dist, accel_examples::dotp::dotp(zs, zs))
}

/// A constant of the module, named inside `#[accel]` code.
const GAIN: f64 = 1.5;

/// `const` items in the body, closures bound by `let`, called and passed to `map`.
#[accel]
fn scaled_and_clipped(xs: Vector<f64>, k: f64) -> Vector<f64> {
    const HALF: f64 = 0.5;
    const LIMIT: f64 = HALF * 100.0;
    let scale = |x: f64| x * k * GAIN;
    let clip = |x: f64| x.clamp(-LIMIT, LIMIT);
    xs.map(|x| clip(scale(x))).map(scale)
}

/// `m.rows()` and `m.cols()`, as on the host.
#[accel]
fn sides(m: Matrix<i32>) -> (Scalar<(usize, usize)>, Vector<i32>) {
    (unit((m.rows(), m.cols())), generate(m.rows(), |r| m[(r, m.cols() - 1)]))
}

/// `match` on integers (literals, `|`, ranges, guards, names), tuples and bools.
#[accel]
fn classified(xs: Vector<i64>, bs: Vector<bool>) -> Vector<(i64, u32)> {
    xs.zip_with(bs, |x, b| {
        let kind = match x {
            0 => 100,
            1 | 2 => 200,
            -5..=-1 => 300,
            n if n > 1000 => n / 2,
            _ => -1,
        };
        let flag = match (x % 2 == 0, b) {
            (true, true) => 1u32,
            (true, false) => 2,
            _ => match b {
                true => 3,
                false => 4,
            },
        };
        (kind, flag)
    })
}

#[accel]
fn rem_euclid_of(xs: Vector<i64>, ys: Vector<i64>) -> Vector<i64> {
    xs.zip_with(ys, |x, y| x.rem_euclid(y))
}

#[accel]
fn div_euclid_sum(xs: Vector<i32>, ys: Vector<i32>) -> Scalar<i32> {
    xs.zip_with(ys, |x, y| x.div_euclid(y)).sum()
}

/// Every integer method at one integer type, against Rust's (`$signum` is the sixth field of
/// `$euclid`: `signum` for signed types, `wrapping_neg` for unsigned ones).
macro_rules! integer_library {
    ($name:ident, $t:ident, $values:expr, $bits:ident, $overflow:ident, $euclid:ident, $signum:ident) => {
        fn $name(on: &Target) -> Check {
            let t = stringify!($t);
            props(24, two($values, $values), |(xs, ys)| {
                let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
                let pairs = || xs.iter().zip(&ys).map(|(&x, &y)| (x, y));
                let modulus = if $t::BITS == 32 { 40 } else { 70 };
                let (cpu, interp) = both!(on, $bits(&v, &w));
                let want: Vec<_> = pairs()
                    .map(|(x, y)| {
                        let n = y as u32;
                        (
                            x.wrapping_pow(n % modulus),
                            x.count_ones(),
                            x.leading_zeros(),
                            x.trailing_zeros(),
                            x.rotate_left(n),
                            x.rotate_right(n),
                        )
                    })
                    .collect();
                all_same(
                    on,
                    &format!("{t} pow count_ones leading/trailing_zeros rotate_left/right"),
                    &cpu.to_vec(),
                    &interp.to_vec(),
                    &want,
                )?;
                let (cpu, interp) = both!(on, $overflow(&v, &w));
                let want: Vec<_> = pairs()
                    .map(|(x, y)| {
                        (
                            x.saturating_add(y),
                            x.saturating_sub(y),
                            x.saturating_mul(y),
                            x.checked_add(y).unwrap_or(x),
                            x.checked_mul(y).unwrap_or(0),
                            x.checked_div(y).unwrap_or(7),
                        )
                    })
                    .collect();
                all_same(on, &format!("{t} saturating_* checked_*"), &cpu.to_vec(), &interp.to_vec(), &want)?;
                let (cpu, interp) = both!(on, $euclid(&v, &w));
                let want: Vec<_> = pairs()
                    .map(|(x, y)| {
                        (
                            x.clamp(y.min(9), y.max(9)),
                            x.checked_sub(y).unwrap_or(1),
                            x.checked_rem(y).unwrap_or(2),
                            if y != 0 { x.wrapping_div_euclid(y) } else { 0 },
                            if y != 0 { x.wrapping_rem_euclid(y) } else { 0 },
                            x.$signum(),
                        )
                    })
                    .collect();
                all_same(
                    on,
                    &format!("{t} clamp checked_* div/rem_euclid {}", stringify!($signum)),
                    &cpu.to_vec(),
                    &interp.to_vec(),
                    &want,
                )?;
                Ok(())
            })
        }
    };
}

integer_library!(integer_library_i32, i32, i32s(), bits_i32, overflow_i32, euclid_i32, signum);
integer_library!(integer_library_i64, i64, i64s(), bits_i64, overflow_i64, euclid_i64, signum);
integer_library!(integer_library_u32, u32, u32s(), bits_u32, overflow_u32, euclid_u32, wrapping_neg);
integer_library!(integer_library_u64, u64, u64s(), bits_u64, overflow_u64, euclid_u64, wrapping_neg);
integer_library!(integer_library_usize, usize, any::<usize>(), bits_usize, overflow_usize, euclid_usize, wrapping_neg);

fn wrapping_methods_are_the_operators(on: &Target) -> Check {
    props(24, two(i32s(), i32s()), |(xs, ys)| {
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(on, wrapping_i32(&v, &w));
        let want: Vec<_> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| {
                (
                    x.wrapping_add(y),
                    x.wrapping_sub(y).wrapping_mul(y),
                    x.wrapping_neg().wrapping_abs(),
                    x.wrapping_shl(y as u32),
                    x.wrapping_shr(y as u32),
                    x.wrapping_pow(3).wrapping_div(y | 1).wrapping_rem(y | 1),
                )
            })
            .collect();
        all_same(on, "i32 wrapping_*", &cpu.to_vec(), &interp.to_vec(), &want)
    })
}

/// Floats with the special cases of these functions: signed zeros, infinities, NaN, huge and
/// tiny magnitudes, values near the poles of `ln_1p` and the halves of `fract`.
fn special_f64s() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        3 => -10.0f64..10.0,
        1 => -1.0f64..1.0,
        1 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e300, -1e300, 1e-300, 5e-324, 1024.0, -1075.0,
            f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MAX, f64::MIN, -0.999_999, 180.0, -360.0,
        ]),
    ]
}

fn special_f32s() -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        3 => -10.0f32..10.0,
        1 => -1.0f32..1.0,
        1 => prop::sample::select(vec![
            0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e38, -1e38, 1e-38, 1e-45, 128.0, -150.0,
            f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MAX, f32::MIN, -0.999_99, 180.0, -360.0,
        ]),
    ]
}

/// Compares float tuples field by field: bit for bit against `std` on the CPU and in the
/// interpreter, within tolerance on the GPU.
fn fields<T: Float + Approx, const N: usize>(
    on: &Target,
    what: &str,
    names: [&str; N],
    cpu: &[[T; N]],
    interp: &[[T; N]],
    want: &[[T; N]],
) -> Check {
    let field = |v: &[[T; N]], k: usize| -> Vec<T> { v.iter().map(|t| t[k]).collect() };
    for (k, name) in names.iter().enumerate() {
        all_same_bits(on, &format!("{what} {name}"), &field(cpu, k), &field(interp, k), &field(want, k))?;
    }
    Ok(())
}

macro_rules! float_library {
    ($name:ident, $t:ident, $specials:ident, [$a:ident, $b:ident, $c:ident]) => {
        fn $name(on: &Target) -> Check {
            let t = stringify!($t);
            props(24, two($specials(), $specials()), |(xs, ys)| {
                let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
                let pairs = || xs.iter().zip(&ys).map(|(&x, &y)| (x, y));
                let six = |v: Vec<($t, $t, $t, $t, $t, $t)>| -> Vec<[$t; 6]> {
                    v.into_iter().map(|t| [t.0, t.1, t.2, t.3, t.4, t.5]).collect()
                };
                let (cpu, interp) = both!(on, $a(&v, &w));
                let want: Vec<_> = pairs()
                    .map(|(x, y)| [x.cbrt(), x.exp2(), x.exp_m1(), x.ln_1p(), x.hypot(y), x.copysign(y)])
                    .collect();
                let names = ["cbrt", "exp2", "exp_m1", "ln_1p", "hypot", "copysign"];
                fields(on, t, names, &six(cpu.to_vec()), &six(interp.to_vec()), &want)?;
                let (cpu, interp) = both!(on, $b(&v, &w));
                let want: Vec<_> = pairs()
                    .map(|(x, y)| {
                        [
                            x.fract(),
                            x.recip(),
                            x.to_radians(),
                            x.to_degrees(),
                            x.signum(),
                            x.clamp(-1.5, y.abs().max(0.0)),
                        ]
                    })
                    .collect();
                let names = ["fract", "recip", "to_radians", "to_degrees", "signum", "clamp"];
                fields(on, t, names, &six(cpu.to_vec()), &six(interp.to_vec()), &want)?;
                let (cpu, interp) = both!(on, $c(&v, &w));
                let two = |v: Vec<($t, $t)>| -> Vec<[$t; 2]> { v.into_iter().map(|t| [t.0, t.1]).collect() };
                let want: Vec<_> = pairs().map(|(x, y)| [x.div_euclid(y), x.rem_euclid(y)]).collect();
                fields(on, t, ["div_euclid", "rem_euclid"], &two(cpu.to_vec()), &two(interp.to_vec()), &want)
            })
        }
    };
}

float_library!(float_library_f64, f64, special_f64s, [library_f64_a, library_f64_b, library_f64_c]);
float_library!(float_library_f32, f32, special_f32s, [library_f32_a, library_f32_b, library_f32_c]);

/// `div_euclid`/`rem_euclid` by zero are `DivisionByZero` naming the method, elementwise and
/// inside a reduction.
fn euclid_by_zero(on: &Target) -> Check {
    props(24, (two(i64s(), 1i64..1000), any::<prop::sample::Index>()), |((xs, ys), zero)| {
        if xs.is_empty() {
            return Ok(());
        }
        let mut ds = ys.clone();
        ds[zero.index(ys.len())] = 0;
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ds.clone()));
        let (g, r) = both_raw!(on, rem_euclid_of(&a, &b));
        let e = same_error(on, "x.rem_euclid(0)", g, r)?;
        is_variant("x.rem_euclid(0)", &e, "DivisionByZero")?;
        check!(e.to_string().contains("rem_euclid"), "the error names the method: {e}");
        let xs: Vec<i32> = xs.iter().map(|&x| x as i32).collect();
        let ds: Vec<i32> = ds.iter().map(|&d| d as i32).collect();
        let (a, b) = (Vector::from_vec(xs), Vector::from_vec(ds));
        let (g, r) = both_raw!(on, div_euclid_sum(&a, &b));
        let e = same_error(on, "x.div_euclid(0) in a sum", g, r)?;
        is_variant("x.div_euclid(0) in a sum", &e, "DivisionByZero")?;
        check!(e.to_string().contains("div_euclid"), "the error names the method: {e}");
        Ok(())
    })
}

fn mix_oracle(x: u32) -> u32 {
    let h = (x ^ (x >> 16)).wrapping_mul(0x045d_9f3b);
    h ^ (h >> 16)
}

/// Calls between `#[accel]` functions, inlined at build time: a scalar helper in closures, an
/// array function whose map fuses into its caller's sum, and (in `scalar.rs`) a call from
/// another module of the crate.
fn calls_between_functions(on: &Target) -> Check {
    props(24, (vec_sized(u32s(), size()), u32s(), vec_sized(-100.0f64..100.0, size())), |(xs, salt, fs)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, hashed_twice(&v, salt));
        let want: Vec<u32> = xs.iter().map(|&x| mix_oracle(mix_oracle(x) ^ salt)).collect();
        all_same(on, "a scalar helper called twice in a closure", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(mix(salt).map_err(|e| e.to_string())?, mix_oracle(salt));
        let v = Vector::from_vec(fs.clone());
        let (cpu, interp) = both!(on, rms(&v));
        let want = (fs.iter().map(|x| x * x).sum::<f64>() / fs.len() as f64).sqrt();
        let bound = 1e-12 * want.abs().max(1.0);
        bounded(on, "rms through a call (vs f64 sum)", &[cpu.get()], &[want], &[bound])?;
        bounded(on, "rms through a call (interpreter)", &[interp.get()], &[want], &[bound])?;
        let (cpu, _) = both!(on, crate::scalar::over_rms(&v));
        let r = want;
        let want: Vec<f64> = fs.iter().map(|x| x / r).collect();
        let tol: Vec<f64> = want.iter().map(|w| 1e-12 * w.abs().max(1.0)).collect();
        bounded(on, "a call from another module", &cpu.to_vec(), &want, &tol)?;
        Ok(())
    })
}

fn consts_and_let_bound_closures(on: &Target) -> Check {
    props(24, (vec_sized(-100.0f64..100.0, size()), -3.0f64..3.0), |(xs, k)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, scaled_and_clipped(&v, k));
        let want: Vec<f64> = xs.iter().map(|&x| (x * k * 1.5).clamp(-50.0, 50.0) * k * 1.5).collect();
        all_same_bits(on, "consts and closures bound by let", &cpu.to_vec(), &interp.to_vec(), &want)
    })
}

fn rows_and_cols_of_a_matrix(on: &Target) -> Check {
    props(24, matrix_of(i32s()), |((r, c), data)| {
        let m = Matrix::from_shape_vec([r, c], data.clone())?;
        if c == 0 && r > 0 {
            return Ok(()); // the last column of no columns: an index error, tested elsewhere
        }
        let ((cpu_sides, cpu_last), (interp_sides, interp_last)) = both!(on, sides(&m));
        all_same(on, "m.rows(), m.cols()", &[cpu_sides.get()], &[interp_sides.get()], &[(m.rows(), m.cols())])?;
        let want: Vec<i32> = (0..r).map(|i| data[i * c + c - 1]).collect();
        all_same(on, "the last column", &cpu_last.to_vec(), &interp_last.to_vec(), &want)
    })
}

fn match_on_scalars_and_tuples(on: &Target) -> Check {
    let values = prop_oneof![2 => -8i64..8, 1 => any::<i64>(), 1 => 990i64..1010];
    let pairs = size().prop_flat_map(move |n| (vec_of(values.clone(), n), prop::collection::vec(any::<bool>(), n)));
    props(24, pairs, |(xs, bs)| {
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(bs.clone()));
        let (cpu, interp) = both!(on, classified(&v, &w));
        let want: Vec<(i64, u32)> = xs
            .iter()
            .zip(&bs)
            .map(|(&x, &b)| {
                let kind = match x {
                    0 => 100,
                    1 | 2 => 200,
                    -5..=-1 => 300,
                    n if n > 1000 => n / 2,
                    _ => -1,
                };
                let flag = match (x % 2 == 0, b) {
                    (true, true) => 1,
                    (true, false) => 2,
                    (false, true) => 3,
                    (false, false) => 4,
                };
                (kind, flag)
            })
            .collect();
        all_same(on, "match", &cpu.to_vec(), &interp.to_vec(), &want)
    })
}

/// The plans show callees fused into their callers: `rms` is one reduction, `over_rms` its
/// reduction and one elementwise kernel.
fn callees_fuse_into_callers(_: &Target) -> Check {
    check_eq!(rms::plan().kernels().count(), 1);
    check_eq!(crate::scalar::over_rms::plan().kernels().count(), 2);
    // Inlined from the dependency: its saxpy, read twice, is computed once (sharing is kept);
    // its dotp's `zip_with` fuses into its fold. Three kernels where the calls made four.
    check_eq!(saxpy_then_norms::plan().kernels().count(), 3);
    Ok(())
}

fn calls_into_a_dependency(on: &Target) -> Check {
    props(24, (vec_sized(-100.0f32..100.0, size()), -3.0f32..3.0), |(xs, a)| {
        let ys: Vec<f32> = xs.iter().rev().map(|y| y * 0.5 - 1.0).collect();
        let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let ((dist, dot), (dist_ref, dot_ref)) = both!(on, saxpy_then_norms(a, &v, &w));
        let zs: Vec<f64> = xs.iter().zip(&ys).map(|(&x, &y)| f64::from(a) * f64::from(x) + f64::from(y)).collect();
        let want: Vec<f64> = zs.iter().zip(&ys).map(|(z, &y)| z * z + f64::from(y) * f64::from(y)).collect();
        let tol: Vec<f64> = want.iter().map(|w| 1e-5 * w.abs().max(1.0)).collect();
        bounded(on, "distance2 of the dependency's saxpy", &dist.to_vec(), &want, &tol)?;
        bounded(on, "distance2 (interpreter)", &dist_ref.to_vec(), &want, &tol)?;
        let want = zs.iter().map(|z| z * z).sum::<f64>();
        let bound = 1e-5 * zs.iter().map(|z| z * z).sum::<f64>().max(1.0);
        bounded(on, "the dependency's dotp", &[dot.get()], &[want], &[bound])?;
        bounded(on, "the dependency's dotp (interpreter)", &[dot_ref.get()], &[want], &[bound])
    })
}

pub fn tests() -> Vec<Test> {
    vec![
        case("library::integer_library_i32", integer_library_i32),
        case("library::integer_library_i64", integer_library_i64),
        case("library::integer_library_u32", integer_library_u32),
        case("library::integer_library_u64", integer_library_u64),
        case("library::integer_library_usize", integer_library_usize),
        case("library::wrapping_methods_are_the_operators", wrapping_methods_are_the_operators),
        case("library::float_library_f64", float_library_f64),
        case("library::float_library_f32", float_library_f32),
        case("library::euclid_by_zero", euclid_by_zero),
        case("library::calls_between_functions", calls_between_functions),
        case("library::callees_fuse_into_callers", callees_fuse_into_callers),
        case("library::calls_into_a_dependency", calls_into_a_dependency),
        case("library::consts_and_let_bound_closures", consts_and_let_bound_closures),
        case("library::rows_and_cols_of_a_matrix", rows_and_cols_of_a_matrix),
        case("library::match_on_scalars_and_tuples", match_on_scalars_and_tuples),
    ]
}
