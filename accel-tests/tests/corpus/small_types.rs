//! The 8- and 16-bit integers (`u8 i8 u16 i16`) as elements: wrapping arithmetic, bit
//! operations and the integer library at each type, `as` between them and every other type
//! (float to small integer saturating, negative to unsigned wrapping), reductions and scans
//! (which widen them to 32-bit words for warp shuffles on the GPU), a histogram keyed by a byte,
//! permutes whose elements are narrow (on the GPU a compare-and-swap on the aligned 32-bit word
//! that holds the element, its neighbours in the same word contended by other threads), tuples
//! with narrow fields, and stencils on a byte image.
//!
//! Every result is compared with the interpreter and with a plain-Rust oracle, exactly: integer
//! results are exact everywhere, and the floats here are casts of small integers (exact), maxima
//! or moved elements.

use crate::compare::*;
use crate::harness::*;
use crate::scalar::two;
use crate::scan::scanl;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn ops_u8(
    xs: Vector<u8>,
    ys: Vector<u8>,
) -> Vector<((u8, u8, u8, u8, u8, u8), (u8, u8, u8, u8, u8, u8), (u8, u8, u8, u8, u8, u8))> {
    xs.zip_with(ys, |x, y| {
        let d = if y != 0 { y } else { 3u8 };
        (
            (x + y, x - y, x * y, 0 - x, x / d, x % d),
            (x & y, x | y, x ^ y, !x, x << y, x >> (y as u32)),
            (x.div_euclid(d), x.rem_euclid(d), u8::MAX - x, x.wrapping_mul(3), x.wrapping_add(y) - 1, u8::MIN + x),
        )
    })
}

#[accel]
fn ops_u16(
    xs: Vector<u16>,
    ys: Vector<u16>,
) -> Vector<((u16, u16, u16, u16, u16, u16), (u16, u16, u16, u16, u16, u16), (u16, u16, u16, u16, u16, u16))> {
    xs.zip_with(ys, |x, y| {
        let d = if y != 0 { y } else { 3u16 };
        (
            (x + y, x - y, x * y, 0 - x, x / d, x % d),
            (x & y, x | y, x ^ y, !x, x << y, x >> (y as u32)),
            (x.div_euclid(d), x.rem_euclid(d), u16::MAX - x, x.wrapping_mul(3), x.wrapping_add(y) - 1, u16::MIN + x),
        )
    })
}

#[accel]
fn ops_i8(
    xs: Vector<i8>,
    ys: Vector<i8>,
) -> Vector<((i8, i8, i8, i8, i8, i8), (i8, i8, i8, i8, i8, i8), (i8, i8, i8, i8, i8, i8))> {
    xs.zip_with(ys, |x, y| {
        let d = if y != 0 { y } else { -3i8 };
        (
            (x + y, x - y, x * y, -x, x / d, x % d),
            (x & y, x | y, x ^ y, !x, x << y, x >> (y as u32)),
            (x.div_euclid(d), x.rem_euclid(d), x.abs(), x.signum(), x.wrapping_add(y) - 1, i8::MIN + x),
        )
    })
}

#[accel]
fn ops_i16(
    xs: Vector<i16>,
    ys: Vector<i16>,
) -> Vector<((i16, i16, i16, i16, i16, i16), (i16, i16, i16, i16, i16, i16), (i16, i16, i16, i16, i16, i16))> {
    xs.zip_with(ys, |x, y| {
        let d = if y != 0 { y } else { -3i16 };
        (
            (x + y, x - y, x * y, -x, x / d, x % d),
            (x & y, x | y, x ^ y, !x, x << y, x >> (y as u32)),
            (x.div_euclid(d), x.rem_euclid(d), x.abs(), x.signum(), x.wrapping_add(y) - 1, i16::MIN + x),
        )
    })
}

#[accel]
fn library_u8(
    xs: Vector<u8>,
    ys: Vector<u8>,
) -> Vector<((u8, u8, u8, u8, u8, u8), (u8, u8, u8, u8, u8, u8), (u32, u32, u32, u8, u8, u8))> {
    xs.zip_with(ys, |x, y| {
        (
            (x.min(y), x.max(y), x.clamp(20, 190), x.pow(y as u32 % 9), x.rotate_left(5), x.rotate_right(y as u32)),
            (
                x.saturating_add(y),
                x.saturating_sub(y),
                x.saturating_mul(y),
                x.checked_add(y).unwrap_or(1),
                x.checked_mul(y).unwrap_or(2),
                x.checked_div(y).unwrap_or(3),
            ),
            (
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                x.checked_sub(y).unwrap_or(4),
                x.checked_rem(y).unwrap_or(5),
                u8::max(x, 9),
            ),
        )
    })
}

#[accel]
fn library_u16(
    xs: Vector<u16>,
    ys: Vector<u16>,
) -> Vector<((u16, u16, u16, u16, u16, u16), (u16, u16, u16, u16, u16, u16), (u32, u32, u32, u16, u16, u16))> {
    xs.zip_with(ys, |x, y| {
        (
            (x.min(y), x.max(y), x.clamp(20, 60000), x.pow(y as u32 % 9), x.rotate_left(5), x.rotate_right(y as u32)),
            (
                x.saturating_add(y),
                x.saturating_sub(y),
                x.saturating_mul(y),
                x.checked_add(y).unwrap_or(1),
                x.checked_mul(y).unwrap_or(2),
                x.checked_div(y).unwrap_or(3),
            ),
            (
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                x.checked_sub(y).unwrap_or(4),
                x.checked_rem(y).unwrap_or(5),
                u16::max(x, 9),
            ),
        )
    })
}

#[accel]
fn library_i8(
    xs: Vector<i8>,
    ys: Vector<i8>,
) -> Vector<((i8, i8, i8, i8, i8, i8), (i8, i8, i8, i8, i8, i8), (u32, u32, u32, i8, i8, i8))> {
    xs.zip_with(ys, |x, y| {
        (
            (x.min(y), x.max(y), x.clamp(-20, 90), x.pow(y as u32 % 9), x.rotate_left(5), x.rotate_right(y as u32)),
            (
                x.saturating_add(y),
                x.saturating_sub(y),
                x.saturating_mul(y),
                x.checked_add(y).unwrap_or(1),
                x.checked_mul(y).unwrap_or(2),
                x.checked_div(y).unwrap_or(3),
            ),
            (
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                x.checked_sub(y).unwrap_or(4),
                x.checked_rem(y).unwrap_or(5),
                i8::max(x, -9),
            ),
        )
    })
}

#[accel]
fn library_i16(
    xs: Vector<i16>,
    ys: Vector<i16>,
) -> Vector<((i16, i16, i16, i16, i16, i16), (i16, i16, i16, i16, i16, i16), (u32, u32, u32, i16, i16, i16))> {
    xs.zip_with(ys, |x, y| {
        (
            (x.min(y), x.max(y), x.clamp(-2000, 9000), x.pow(y as u32 % 9), x.rotate_left(5), x.rotate_right(y as u32)),
            (
                x.saturating_add(y),
                x.saturating_sub(y),
                x.saturating_mul(y),
                x.checked_add(y).unwrap_or(1),
                x.checked_mul(y).unwrap_or(2),
                x.checked_div(y).unwrap_or(3),
            ),
            (
                x.count_ones(),
                x.leading_zeros(),
                x.trailing_zeros(),
                x.checked_sub(y).unwrap_or(4),
                x.checked_rem(y).unwrap_or(5),
                i16::max(x, -9),
            ),
        )
    })
}

/// A small integer to every type (the result of `casts_from_*`).
type FromSmall = ((i8, i16, i32, i64, u8, u16), (u32, u64, usize, f32, f64, bool));

#[accel]
fn casts_from_u8(xs: Vector<u8>) -> Vector<((i8, i16, i32, i64, u8, u16), (u32, u64, usize, f32, f64, bool))> {
    xs.map(|x| {
        (
            (x as i8, x as i16, x as i32, x as i64, x as u8, x as u16),
            (x as u32, x as u64, x as usize, x as f32, x as f64, x != 0),
        )
    })
}

#[accel]
fn casts_from_i8(xs: Vector<i8>) -> Vector<((i8, i16, i32, i64, u8, u16), (u32, u64, usize, f32, f64, bool))> {
    xs.map(|x| {
        (
            (x as i8, x as i16, x as i32, x as i64, x as u8, x as u16),
            (x as u32, x as u64, x as usize, x as f32, x as f64, x != 0),
        )
    })
}

#[accel]
fn casts_from_u16(xs: Vector<u16>) -> Vector<((i8, i16, i32, i64, u8, u16), (u32, u64, usize, f32, f64, bool))> {
    xs.map(|x| {
        (
            (x as i8, x as i16, x as i32, x as i64, x as u8, x as u16),
            (x as u32, x as u64, x as usize, x as f32, x as f64, x != 0),
        )
    })
}

#[accel]
fn casts_from_i16(xs: Vector<i16>) -> Vector<((i8, i16, i32, i64, u8, u16), (u32, u64, usize, f32, f64, bool))> {
    xs.map(|x| {
        (
            (x as i8, x as i16, x as i32, x as i64, x as u8, x as u16),
            (x as u32, x as u64, x as usize, x as f32, x as f64, x != 0),
        )
    })
}

/// Four values, each to every small integer type (the result of `casts_to_small_*`).
type ToSmall = ((i8, i16, u8, u16), (i8, i16, u8, u16), (i8, i16, u8, u16), (i8, i16, u8, u16));

#[accel]
fn casts_to_small_from_ints(
    a: Vector<i32>,
    b: Vector<i64>,
    c: Vector<u32>,
    d: Vector<u64>,
) -> Vector<((i8, i16, u8, u16), (i8, i16, u8, u16), (i8, i16, u8, u16), (i8, i16, u8, u16))> {
    generate(a.len(), |i| {
        let (w, x, y, z) = (a[i], b[i], c[i], d[i]);
        (
            (w as i8, w as i16, w as u8, w as u16),
            (x as i8, x as i16, x as u8, x as u16),
            (y as i8, y as i16, y as u8, y as u16),
            (z as i8, z as i16, z as u8, z as u16),
        )
    })
}

#[accel]
fn casts_to_small_from_others(
    f: Vector<f32>,
    g: Vector<f64>,
    u: Vector<usize>,
    b: Vector<bool>,
) -> Vector<((i8, i16, u8, u16), (i8, i16, u8, u16), (i8, i16, u8, u16), (i8, i16, u8, u16))> {
    generate(f.len(), |i| {
        let (w, x, y, z) = (f[i], g[i], u[i], b[i]);
        (
            (w as i8, w as i16, w as u8, w as u16),
            (x as i8, x as i16, x as u8, x as u16),
            (y as i8, y as i16, y as u8, y as u16),
            (z as i8, z as i16, z as u8, z as u16),
        )
    })
}

/// A byte as a signed sample centred on zero; then narrow scalar parameters (passed to kernels
/// as words) and a narrow rank-0 result.
#[accel]
fn centre(xs: Vector<u8>, bias: i8, scale: u16) -> (Vector<i8>, Vector<u16>, Scalar<u8>) {
    (xs.map(|b| (b as i16 - 128) as i8), xs.map(|b| (b as i8 + bias) as u16 * scale), unit(bias as u8 ^ 0x5a))
}

#[accel]
fn folds(
    a: Vector<u8>,
    b: Vector<i8>,
    c: Vector<u16>,
    d: Vector<i16>,
    p: Vector<(u8, u8)>,
) -> (Scalar<(u8, u8)>, Scalar<(i8, i8)>, Scalar<(u16, u16)>, Scalar<(i16, i16)>, Scalar<(u8, u8)>) {
    (
        unit((a.sum().get(), a.fold_all(0, |x, y| x.max(y)).get())),
        unit((b.fold_all(0, |x, y| x + y).get(), b.fold_all(i8::MIN, |x, y| x.max(y)).get())),
        unit((c.fold_all(0, |x, y| x + y).get(), c.fold_all(u16::MAX, |x, y| x.min(y)).get())),
        unit((d.sum().get(), d.fold_all(i16::MAX, |x, y| x.min(y)).get())),
        // Affine maps modulo 256 composed in order: associative, not commutative.
        p.fold_all((1, 0), |f, g| (f.0 * g.0, f.1 * g.0 + g.1)),
    )
}

#[accel]
fn row_folds(m: Matrix<u8>, n: Matrix<i16>) -> (Vector<u8>, Vector<i16>) {
    (m.fold(7, |a, b| a + b), n.fold(i16::MIN, |a, b| a.max(b)))
}

#[accel]
fn scans(xs: Vector<i8>, ys: Vector<u16>, ps: Vector<(u8, u8)>) -> (Vector<i8>, Vector<u16>, Vector<(u8, u8)>) {
    (xs.scanl(3, |a, b| a + b), ys.scanl(0, |a, b| a.max(b)), ps.scanl((1, 0), |f, g| (f.0 * g.0, f.1 * g.0 + g.1)))
}

/// How many times each byte occurs.
#[accel]
fn byte_histogram(xs: Vector<u8>) -> Vector<u32> {
    xs.map(|_| 1u32).permute(fill(256, 0u32), |i| xs[i] as usize, |new, old| new + old)
}

/// Permutes with `+` whose elements are narrow, into `bins` destinations: the output privatised
/// per block in shared memory (a 32-bit slot per element) when it is small, then added to the
/// result by a compare-and-swap on the word that holds each element (neighbours in one word
/// contended across blocks).
#[accel]
fn narrow_sums(keys: Vector<u8>, a: Vector<u8>, d: Vector<i16>, bins: usize) -> (Vector<u8>, Vector<i16>) {
    (
        a.permute(fill(bins, 1u8), |i| keys[i] as usize % bins, |new, old| new + old),
        d.permute(
            fill(bins, 0i16),
            |i| if keys[i] % 5 != 0 { Some(keys[i] as usize % bins) } else { None },
            |new, old| new + old,
        ),
    )
}

/// Permutes with other combining functions whose elements are narrow (a compare-and-swap loop on
/// the element's word per source), and one whose elements are a tuple with narrow fields (a lock
/// per destination).
#[accel]
fn narrow_combines(
    keys: Vector<u8>,
    a: Vector<u8>,
    b: Vector<i8>,
    c: Vector<u16>,
    d: Vector<i16>,
    bins: usize,
) -> (Vector<i8>, Vector<u16>, Vector<(i16, u8)>) {
    (
        b.permute(fill(bins, i8::MIN), |i| keys[i] as usize % bins, |new, old| new.max(old)),
        c.permute(fill(bins, 7u16), |i| keys[i] as usize % bins, |new, old| new ^ old),
        a.zip_with(d, |x, y| (y, x)).permute(
            fill(bins, (0i16, 0u8)),
            |i| keys[i] as usize % bins,
            |new, old| (new.0 + old.0, new.1.max(old.1)),
        ),
    )
}

#[accel]
fn pairs(
    xs: Vector<(u8, f32)>,
    ys: Vector<(i16, u8)>,
) -> (Vector<(i16, u8)>, Scalar<(u8, f32)>, Scalar<(i16, u8)>, Vector<(u8, f32)>) {
    let n = xs.len();
    (
        xs.map(|p| ((p.0 as i16 - 128) * 3, p.0 ^ (p.1 as u8))),
        xs.fold_all((0, f32::NEG_INFINITY), |a, b| (a.0 + b.0, a.1.max(b.1))),
        ys.fold_all((0, 0), |a, b| (a.0 + b.0, a.1.max(b.1))),
        xs.backpermute(n, |i| n - 1 - i),
    )
}

/// A 3x3 box blur (summed in `u16`) and a wrapping Laplacian with a white border.
#[accel]
fn image_filters(m: Matrix<u8>) -> (Matrix<u8>, Matrix<u8>) {
    (
        m.stencil3x3(Clamp, |n| {
            let s = n[0][0] as u16
                + n[0][1] as u16
                + n[0][2] as u16
                + n[1][0] as u16
                + n[1][1] as u16
                + n[1][2] as u16
                + n[2][0] as u16
                + n[2][1] as u16
                + n[2][2] as u16;
            (s / 9) as u8
        }),
        m.stencil3x3(Constant(255), |n| n[1][1] * 4 - n[0][1] - n[1][0] - n[1][2] - n[2][1]),
    )
}

// ---------------------------------------------------------------------------------------------
// Oracles.

/// `ops_*` in plain Rust; `$third` is the third tuple, which differs between signed and unsigned
/// types.
macro_rules! ops_oracle {
    ($t:ty, $d:expr, |$x:ident, $y:ident, $dd:ident| $third:expr) => {
        |&$x: &$t, &$y: &$t| {
            let $dd: $t = if $y != 0 { $y } else { $d };
            (
                (
                    $x.wrapping_add($y),
                    $x.wrapping_sub($y),
                    $x.wrapping_mul($y),
                    $x.wrapping_neg(),
                    $x.wrapping_div($dd),
                    $x.wrapping_rem($dd),
                ),
                ($x & $y, $x | $y, $x ^ $y, !$x, $x.wrapping_shl($y as u32), $x.wrapping_shr($y as u32)),
                $third,
            )
        }
    };
}

macro_rules! library_oracle {
    ($t:ty, $lo:expr, $hi:expr, $floor:expr) => {
        |&x: &$t, &y: &$t| {
            (
                (
                    x.min(y),
                    x.max(y),
                    x.clamp($lo, $hi),
                    x.wrapping_pow(y as u32 % 9),
                    x.rotate_left(5),
                    x.rotate_right(y as u32),
                ),
                (
                    x.saturating_add(y),
                    x.saturating_sub(y),
                    x.saturating_mul(y),
                    x.checked_add(y).unwrap_or(1),
                    x.checked_mul(y).unwrap_or(2),
                    x.checked_div(y).unwrap_or(3),
                ),
                (
                    x.count_ones(),
                    x.leading_zeros(),
                    x.trailing_zeros(),
                    x.checked_sub(y).unwrap_or(4),
                    x.checked_rem(y).unwrap_or(5),
                    x.max($floor),
                ),
            )
        }
    };
}

fn casts_from<T: Copy>(
    xs: &[T],
    f: impl Fn(T) -> ((i8, i16, i32, i64, u8, u16), (u32, u64, usize, f32, f64, bool)),
) -> Vec<FromSmall> {
    xs.iter().map(|&x| f(x)).collect()
}

macro_rules! to_small {
    ($x:expr) => {
        ($x as i8, $x as i16, $x as u8, $x as u16)
    };
}

macro_rules! from_small {
    ($x:expr) => {
        (
            ($x as i8, $x as i16, $x as i32, $x as i64, $x as u8, $x as u16),
            ($x as u32, $x as u64, $x as usize, $x as f32, $x as f64, $x != 0),
        )
    };
}

/// Integers with a share of the extremes, of -1, 0 and 1 (their whole range otherwise).
macro_rules! small_ints {
    ($($name:ident: $t:ty),*) => {$(
        fn $name() -> impl Strategy<Value = $t> + Clone {
            prop_oneof![
                3 => any::<$t>(),
                1 => prop::sample::select(vec![<$t>::MIN, <$t>::MAX, 0, 1, (0 as $t).wrapping_sub(1), <$t>::MAX / 2 + 1]),
            ]
        }
    )*};
}

small_ints!(u8s: u8, i8s: i8, u16s: u16, i16s: i16);

/// Floats around and far outside the small integers' ranges, and the special values.
fn cast_f64s() -> impl Strategy<Value = f64> + Clone {
    prop_oneof![
        3 => -70_000.0f64..70_000.0,
        2 => -300.0f64..300.0,
        1 => prop::sample::select(vec![
            f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 127.5, 128.0, -128.9, -129.0, 255.9, 256.0,
            32767.5, -32768.7, 65535.9, 65536.0, -1.0, 1e300,
        ]),
    ]
}

// ---------------------------------------------------------------------------------------------
// Trials.

/// The elementwise trial of one type: `ops_*` and `library_*` against the oracles.
macro_rules! elementwise_trial {
    ($name:ident, $t:ty, $gen:ident, $ops:ident, $library:ident, $ops_oracle:expr, $library_oracle:expr) => {
        fn $name(on: &Target) -> Check {
            let t = stringify!($t);
            props(24, two($gen(), $gen()), |(xs, ys)| {
                let (v, w) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
                let (cpu, interp) = both!(on, $ops(&v, &w));
                let want: Vec<_> = xs.iter().zip(&ys).map(|(x, y)| $ops_oracle(x, y)).collect();
                all_same(on, &format!("{t} operators"), &cpu.to_vec(), &interp.to_vec(), &want)?;
                let (cpu, interp) = both!(on, $library(&v, &w));
                let want: Vec<_> = xs.iter().zip(&ys).map(|(x, y)| $library_oracle(x, y)).collect();
                all_same(on, &format!("{t} library"), &cpu.to_vec(), &interp.to_vec(), &want)?;
                Ok(())
            })
        }
    };
}

elementwise_trial!(
    u8_elementwise,
    u8,
    u8s,
    ops_u8,
    library_u8,
    ops_oracle!(u8, 3, |x, y, d| (
        x.div_euclid(d),
        x.rem_euclid(d),
        u8::MAX - x,
        x.wrapping_mul(3),
        x.wrapping_add(y).wrapping_sub(1),
        x
    )),
    library_oracle!(u8, 20, 190, 9)
);
elementwise_trial!(
    u16_elementwise,
    u16,
    u16s,
    ops_u16,
    library_u16,
    ops_oracle!(u16, 3, |x, y, d| (
        x.div_euclid(d),
        x.rem_euclid(d),
        u16::MAX - x,
        x.wrapping_mul(3),
        x.wrapping_add(y).wrapping_sub(1),
        x
    )),
    library_oracle!(u16, 20, 60000, 9)
);
elementwise_trial!(
    i8_elementwise,
    i8,
    i8s,
    ops_i8,
    library_i8,
    ops_oracle!(i8, -3, |x, y, d| (
        x.wrapping_div_euclid(d),
        x.wrapping_rem_euclid(d),
        x.wrapping_abs(),
        x.signum(),
        x.wrapping_add(y).wrapping_sub(1),
        i8::MIN.wrapping_add(x)
    )),
    library_oracle!(i8, -20, 90, -9)
);
elementwise_trial!(
    i16_elementwise,
    i16,
    i16s,
    ops_i16,
    library_i16,
    ops_oracle!(i16, -3, |x, y, d| (
        x.wrapping_div_euclid(d),
        x.wrapping_rem_euclid(d),
        x.wrapping_abs(),
        x.signum(),
        x.wrapping_add(y).wrapping_sub(1),
        i16::MIN.wrapping_add(x)
    )),
    library_oracle!(i16, -2000, 9000, -9)
);

fn casts_are_rust_as(on: &Target) -> Check {
    props(
        24,
        (vec_sized(u8s(), size()), vec_sized(i8s(), size()), vec_sized(u16s(), size()), vec_sized(i16s(), size())),
        |(a, b, c, d)| {
            let (cpu, interp) = both!(on, casts_from_u8(&Vector::from_vec(a.clone())));
            all_same(on, "u8 as _", &cpu.to_vec(), &interp.to_vec(), &casts_from(&a, |x| from_small!(x)))?;
            let (cpu, interp) = both!(on, casts_from_i8(&Vector::from_vec(b.clone())));
            all_same(on, "i8 as _", &cpu.to_vec(), &interp.to_vec(), &casts_from(&b, |x| from_small!(x)))?;
            let (cpu, interp) = both!(on, casts_from_u16(&Vector::from_vec(c.clone())));
            all_same(on, "u16 as _", &cpu.to_vec(), &interp.to_vec(), &casts_from(&c, |x| from_small!(x)))?;
            let (cpu, interp) = both!(on, casts_from_i16(&Vector::from_vec(d.clone())));
            all_same(on, "i16 as _", &cpu.to_vec(), &interp.to_vec(), &casts_from(&d, |x| from_small!(x)))?;
            let (bias, scale) = (b.first().map_or(-7, |&x| x), c.first().map_or(3, |&x| x));
            let ((c0, c1, c2), (i0, i1, i2)) = both!(on, centre(&Vector::from_vec(a.clone()), bias, scale));
            let want: Vec<i8> = a.iter().map(|&x| (x as i16 - 128) as i8).collect();
            all_same(on, "(b as i16 - 128) as i8", &c0.to_vec(), &i0.to_vec(), &want)?;
            let want: Vec<u16> = a.iter().map(|&x| ((x as i8).wrapping_add(bias) as u16).wrapping_mul(scale)).collect();
            all_same(on, "narrow scalar parameters", &c1.to_vec(), &i1.to_vec(), &want)?;
            all_same(on, "a narrow rank-0 result", &[c2.get()], &[i2.get()], &[bias as u8 ^ 0x5a])?;
            Ok(())
        },
    )
}

fn casts_into_small_types(on: &Target) -> Check {
    props(
        24,
        size().prop_flat_map(|n| {
            (
                (vec_of(i32s(), n), vec_of(i64s(), n), vec_of(u32s(), n), vec_of(u64s(), n)),
                (
                    prop::collection::vec(cast_f64s().prop_map(|x| x as f32), n),
                    prop::collection::vec(cast_f64s(), n),
                    vec_of(prop_oneof![any::<usize>(), 0usize..70_000], n),
                    prop::collection::vec(any::<bool>(), n),
                ),
            )
        }),
        |((a, b, c, d), (f, g, u, z))| {
            let args = (Vector::from_vec(a.clone()), Vector::from_vec(b.clone()), Vector::from_vec(c.clone()));
            let (cpu, interp) =
                both!(on, casts_to_small_from_ints(&args.0, &args.1, &args.2, &Vector::from_vec(d.clone())));
            let want: Vec<ToSmall> =
                (0..a.len()).map(|i| (to_small!(a[i]), to_small!(b[i]), to_small!(c[i]), to_small!(d[i]))).collect();
            all_same(on, "i32 i64 u32 u64 as small", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let args = (Vector::from_vec(f.clone()), Vector::from_vec(g.clone()), Vector::from_vec(u.clone()));
            let (cpu, interp) =
                both!(on, casts_to_small_from_others(&args.0, &args.1, &args.2, &Vector::from_vec(z.clone())));
            let want: Vec<ToSmall> =
                (0..f.len()).map(|i| (to_small!(f[i]), to_small!(g[i]), to_small!(u[i]), to_small!(z[i]))).collect();
            all_same(on, "f32 f64 usize bool as small (floats saturate)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

/// `f32::max` as accel defines it: a NaN operand ignored, `+0` above `-0`.
fn fmax(a: f32, b: f32) -> f32 {
    if a > b || b.is_nan() || (a == b && a.is_sign_positive()) { a } else { b }
}

/// `(f.0 * g.0, f.1 * g.0 + g.1)`: `f` then `g`, modulo 256.
fn compose(f: (u8, u8), g: (u8, u8)) -> (u8, u8) {
    (f.0.wrapping_mul(g.0), f.1.wrapping_mul(g.0).wrapping_add(g.1))
}

fn reductions(on: &Target) -> Check {
    on.each_size("small_types::reductions", Tier::Medium, |n, rng| {
        let (a, b, c, d) = (rng.vec::<u8>(n), rng.vec::<i8>(n), rng.vec::<u16>(n), rng.vec::<i16>(n));
        let p: Vec<(u8, u8)> = (0..n).map(|_| ((rng.next_u64() as u8) | 1, rng.next_u64() as u8)).collect();
        let args = (Vector::from_vec(a.clone()), Vector::from_vec(b.clone()), Vector::from_vec(c.clone()));
        let pv: Vector<(u8, u8)> = p.iter().copied().collect();
        let (g, r) = both!(on, folds(&args.0, &args.1, &args.2, &Vector::from_vec(d.clone()), &pv));
        let want = (
            (a.iter().fold(0u8, |s, &x| s.wrapping_add(x)), a.iter().copied().max().unwrap_or(0)),
            (b.iter().fold(0i8, |s, &x| s.wrapping_add(x)), b.iter().copied().max().unwrap_or(i8::MIN)),
            (c.iter().fold(0u16, |s, &x| s.wrapping_add(x)), c.iter().copied().min().unwrap_or(u16::MAX)),
            (d.iter().fold(0i16, |s, &x| s.wrapping_add(x)), d.iter().copied().min().unwrap_or(i16::MAX)),
            p.iter().fold((1u8, 0u8), |s, &f| compose(s, f)),
        );
        let got = (g.0.get(), g.1.get(), g.2.get(), g.3.get(), g.4.get());
        let interp = (r.0.get(), r.1.get(), r.2.get(), r.3.get(), r.4.get());
        check_eq!(interp, want, "interpreter vs oracle");
        check_eq!(got, want, "{} vs oracle", on.side());
        Ok(())
    })
}

fn row_reductions(on: &Target) -> Check {
    on.each_shape("small_types::row_reductions", Tier::Medium, |r, c, rng| {
        let (m, k) = (rng.vec::<u8>(r * c), rng.vec::<i16>(r * c));
        let (mm, kk) = (Matrix::from_shape_vec([r, c], m.clone())?, Matrix::from_shape_vec([r, c], k.clone())?);
        let ((g0, g1), (i0, i1)) = both!(on, row_folds(&mm, &kk));
        let want0 = fold_rows(&m, c, r, 7u8, u8::wrapping_add);
        let want1 = fold_rows(&k, c, r, i16::MIN, i16::max);
        all_same(on, "u8 row sums", &g0.to_vec(), &i0.to_vec(), &want0)?;
        all_same(on, "i16 row maxima", &g1.to_vec(), &i1.to_vec(), &want1)?;
        Ok(())
    })
}

fn scans_in_order(on: &Target) -> Check {
    on.each_size("small_types::scans", Tier::Medium, |n, rng| {
        let (a, b) = (rng.vec::<i8>(n), rng.vec::<u16>(n));
        let p: Vec<(u8, u8)> = (0..n).map(|_| ((rng.next_u64() as u8) | 1, rng.next_u64() as u8)).collect();
        let pv: Vector<(u8, u8)> = p.iter().copied().collect();
        let ((g0, g1, g2), (r0, r1, r2)) =
            both!(on, scans(&Vector::from_vec(a.clone()), &Vector::from_vec(b.clone()), &pv));
        all_same(on, "i8 scanl +", &g0.to_vec(), &r0.to_vec(), &scanl(3, i8::wrapping_add, &a))?;
        all_same(on, "u16 scanl max", &g1.to_vec(), &r1.to_vec(), &scanl(0, u16::max, &b))?;
        all_same(on, "(u8, u8) scanl of affine maps", &g2.to_vec(), &r2.to_vec(), &scanl((1, 0), compose, &p))?;
        Ok(())
    })
}

fn histogram_of_bytes(on: &Target) -> Check {
    on.each_size("small_types::histogram", Tier::Medium, |n, rng| {
        // Half the bytes in a narrow band, so that some bins collide heavily.
        let xs: Vec<u8> =
            (0..n).map(|_| if rng.below(2) == 0 { rng.next_u64() as u8 } else { 100 + rng.below(4) as u8 }).collect();
        let (g, r) = both!(on, byte_histogram(&Vector::from_vec(xs.clone())));
        let mut want = vec![0u32; 256];
        xs.iter().for_each(|&x| want[x as usize] += 1);
        all_same(on, "byte histogram", &g.to_vec(), &r.to_vec(), &want)
    })
}

fn permutes_of_narrow_elements(on: &Target) -> Check {
    on.each_size("small_types::narrow_permutes", Tier::Medium, |n, rng| {
        // A compare-and-swap per source serialises on its destination: into a handful of them
        // only while the sources are few (docs/semantics.md, permute).
        let few_bins_for_every_combine = n <= 1 << 12;
        for bins in [1, 3, 6, 257] {
            let keys = rng.vec::<u8>(n);
            let (a, b, c, d) = (rng.vec::<u8>(n), rng.vec::<i8>(n), rng.vec::<u16>(n), rng.vec::<i16>(n));
            let kv = Vector::from_vec(keys.clone());
            let (av, dv) = (Vector::from_vec(a.clone()), Vector::from_vec(d.clone()));
            let mut want =
                (vec![1u8; bins], vec![i8::MIN; bins], vec![7u16; bins], vec![0i16; bins], vec![(0i16, 0u8); bins]);
            for i in 0..n {
                let j = keys[i] as usize % bins;
                want.0[j] = a[i].wrapping_add(want.0[j]);
                want.1[j] = b[i].max(want.1[j]);
                want.2[j] ^= c[i];
                if keys[i] % 5 != 0 {
                    want.3[j] = d[i].wrapping_add(want.3[j]);
                }
                want.4[j] = (d[i].wrapping_add(want.4[j].0), a[i].max(want.4[j].1));
            }
            let what = |s: &str| format!("{s} into {bins} bins");
            let (g, r) = both!(on, narrow_sums(&kv, &av, &dv, bins));
            all_same(on, &what("u8 permute +"), &g.0.to_vec(), &r.0.to_vec(), &want.0)?;
            all_same(on, &what("i16 permute + (some dropped)"), &g.1.to_vec(), &r.1.to_vec(), &want.3)?;
            if bins > 6 || few_bins_for_every_combine {
                let (bv, cv) = (Vector::from_vec(b.clone()), Vector::from_vec(c.clone()));
                let (g, r) = both!(on, narrow_combines(&kv, &av, &bv, &cv, &dv, bins));
                all_same(on, &what("i8 permute max"), &g.0.to_vec(), &r.0.to_vec(), &want.1)?;
                all_same(on, &what("u16 permute ^"), &g.1.to_vec(), &r.1.to_vec(), &want.2)?;
                all_same(on, &what("(i16, u8) permute"), &g.2.to_vec(), &r.2.to_vec(), &want.4)?;
            }
        }
        Ok(())
    })
}

fn tuples_with_narrow_fields(on: &Target) -> Check {
    props(
        24,
        size().prop_flat_map(|n| {
            (prop::collection::vec((u8s(), -300.0f32..300.0), n), prop::collection::vec((i16s(), u8s()), n))
        }),
        |(xs, ys)| {
            let v: Vector<(u8, f32)> = xs.iter().copied().collect();
            let w: Vector<(i16, u8)> = ys.iter().copied().collect();
            let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(on, pairs(&v, &w));
            let want0: Vec<(i16, u8)> =
                xs.iter().map(|&(b, f)| ((b as i16 - 128).wrapping_mul(3), b ^ (f as u8))).collect();
            all_same(on, "map of (u8, f32)", &g0.to_vec(), &r0.to_vec(), &want0)?;
            let want1 = xs.iter().fold((0u8, f32::NEG_INFINITY), |s, &(b, f)| (s.0.wrapping_add(b), fmax(s.1, f)));
            all_same(on, "fold of (u8, f32)", &[g1.get()], &[r1.get()], &[want1])?;
            let want2 = ys.iter().fold((0i16, 0u8), |s, &(a, b)| (s.0.wrapping_add(a), s.1.max(b)));
            all_same(on, "fold of (i16, u8)", &[g2.get()], &[r2.get()], &[want2])?;
            let want3: Vec<(u8, f32)> = xs.iter().rev().copied().collect();
            all_same(on, "backpermute of (u8, f32)", &g3.to_vec(), &r3.to_vec(), &want3)?;
            Ok(())
        },
    )
}

fn stencils_on_a_byte_image(on: &Target) -> Check {
    on.each_shape("small_types::image", Tier::Medium, |r, c, rng| {
        let px = rng.vec::<u8>(r * c);
        let m = Matrix::from_shape_vec([r, c], px.clone())?;
        let ((gb, gl), (rb, rl)) = both!(on, image_filters(&m));
        let clamped = |i: usize, di: usize, n: usize| (i + di).saturating_sub(1).min(n - 1);
        let mut blur = Vec::with_capacity(r * c);
        let mut laplace = Vec::with_capacity(r * c);
        for i in 0..r {
            for j in 0..c {
                let s: u16 = (0..3)
                    .flat_map(|di| (0..3).map(move |dj| (di, dj)))
                    .map(|(di, dj)| u16::from(px[clamped(i, di, r) * c + clamped(j, dj, c)]))
                    .sum();
                blur.push((s / 9) as u8);
                let at = |di: isize, dj: isize| {
                    let (y, x) = (i as isize + di, j as isize + dj);
                    if y < 0 || x < 0 || y >= r as isize || x >= c as isize {
                        255u8
                    } else {
                        px[y as usize * c + x as usize]
                    }
                };
                laplace.push(
                    at(0, 0)
                        .wrapping_mul(4)
                        .wrapping_sub(at(-1, 0))
                        .wrapping_sub(at(0, -1))
                        .wrapping_sub(at(0, 1))
                        .wrapping_sub(at(1, 0)),
                );
            }
        }
        all_same(on, "3x3 box blur of a u8 image", &gb.to_vec(), &rb.to_vec(), &blur)?;
        all_same(on, "wrapping Laplacian of a u8 image", &gl.to_vec(), &rl.to_vec(), &laplace)?;
        check_eq!(gb.shape(), [r, c]);
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    vec![
        case("small_types::u8_elementwise", u8_elementwise),
        case("small_types::i8_elementwise", i8_elementwise),
        case("small_types::u16_elementwise", u16_elementwise),
        case("small_types::i16_elementwise", i16_elementwise),
        case("small_types::casts_are_rust_as", casts_are_rust_as),
        case("small_types::casts_into_small_types", casts_into_small_types),
        case("small_types::reductions", reductions),
        case("small_types::row_reductions", row_reductions),
        case("small_types::scans", scans_in_order),
        case("small_types::histogram_of_bytes", histogram_of_bytes),
        case("small_types::permutes_of_narrow_elements", permutes_of_narrow_elements),
        case("small_types::tuples_with_narrow_fields", tuples_with_narrow_fields),
        case("small_types::stencils_on_a_byte_image", stencils_on_a_byte_image),
    ]
}
