//! Neighbourhoods: `stencil3 stencil5 stencil3x3 stencil5x5` with each boundary (`Clamp`,
//! `Mirror`, `Wrap`, `Constant`) on vectors and matrices of every size, including those shorter
//! than the stencil. Integer stencils weigh each neighbour differently, so that a wrong neighbour
//! shows; float stencils are elementwise and compared within the elementwise tolerance. The
//! programs with all four boundaries (4 x 25 reads per element in the interpreter) stop at 65537
//! elements; the others add 2^20 +- 1.
//!
//! Neighbourhood combinators: `stencil3 stencil5 stencil3x3 stencil5x5` with the boundaries
//! `Clamp Mirror Wrap Constant(v)`.
//!
//! The closure runs the same scalar code in the same order on every backend, so results are
//! compared exactly (floats bit for bit) against an oracle that evaluates the same expression on
//! neighbours read through the boundary rules of docs/semantics.md. Weights differ per position
//! so that a neighbour read from the wrong side, or a transposed neighbourhood, changes the
//! result.

use crate::compare::*;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn s3_i64(xs: Vector<i64>) -> (Vector<i64>, Vector<i64>, Vector<i64>, Vector<i64>) {
    (
        xs.stencil3(Clamp, |l, c, r| l + c * 10 + r * 100),
        xs.stencil3(Mirror, |l, c, r| l + c * 10 + r * 100),
        xs.stencil3(Wrap, |l, c, r| l + c * 10 + r * 100),
        xs.stencil3(Constant(-7), |l, c, r| l + c * 10 + r * 100),
    )
}

#[accel]
fn s3_f32(xs: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
    (
        xs.stencil3(Mirror, |l, c, r| l * 0.25 + c * 0.5 - r * 0.125),
        xs.stencil3(Constant(1.5), |l, c, r| l * 0.25 + c * 0.5 - r * 0.125),
    )
}

#[accel]
fn s3_tuple(xs: Vector<(f32, i32)>) -> Vector<(f32, i32)> {
    xs.stencil3(Wrap, |l, c, r| (l.0 - r.0, c.1 * 2 + l.1 - r.1))
}

#[accel]
fn s5_i32(xs: Vector<i32>) -> (Vector<i32>, Vector<i32>, Vector<i32>, Vector<i32>) {
    (
        xs.stencil5(Clamp, |a, b, c, d, e| a + b * 3 + c * 9 + d * 27 + e * 81),
        xs.stencil5(Mirror, |a, b, c, d, e| a + b * 3 + c * 9 + d * 27 + e * 81),
        xs.stencil5(Wrap, |a, b, c, d, e| a + b * 3 + c * 9 + d * 27 + e * 81),
        xs.stencil5(Constant(5), |a, b, c, d, e| a + b * 3 + c * 9 + d * 27 + e * 81),
    )
}

#[accel]
fn s5_f64_to_bool(xs: Vector<f64>) -> Vector<bool> {
    xs.stencil5(Clamp, |a, b, c, d, e| c > a && c >= b && c >= d && c > e)
}

#[accel]
fn s3x3_i64(m: Matrix<i64>) -> (Matrix<i64>, Matrix<i64>, Matrix<i64>, Matrix<i64>) {
    (
        m.stencil3x3(Clamp, |n| {
            n[0][0]
                + n[0][1] * 2
                + n[0][2] * 4
                + n[1][0] * 8
                + n[1][1] * 16
                + n[1][2] * 32
                + n[2][0] * 64
                + n[2][1] * 128
                + n[2][2] * 256
        }),
        m.stencil3x3(Mirror, |n| {
            n[0][0]
                + n[0][1] * 2
                + n[0][2] * 4
                + n[1][0] * 8
                + n[1][1] * 16
                + n[1][2] * 32
                + n[2][0] * 64
                + n[2][1] * 128
                + n[2][2] * 256
        }),
        m.stencil3x3(Wrap, |n| {
            n[0][0]
                + n[0][1] * 2
                + n[0][2] * 4
                + n[1][0] * 8
                + n[1][1] * 16
                + n[1][2] * 32
                + n[2][0] * 64
                + n[2][1] * 128
                + n[2][2] * 256
        }),
        m.stencil3x3(Constant(3), |n| {
            n[0][0]
                + n[0][1] * 2
                + n[0][2] * 4
                + n[1][0] * 8
                + n[1][1] * 16
                + n[1][2] * 32
                + n[2][0] * 64
                + n[2][1] * 128
                + n[2][2] * 256
        }),
    )
}

#[accel]
fn s3x3_f32_pattern(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Mirror, |[[a, b, c], [d, e, f], [g, h, i]]| {
        (a - c + g - i) * 0.25 + (b - h) * 0.5 + d * 0.125 - f + e * 2.0
    })
}

#[accel]
fn s5x5_i64(m: Matrix<i64>) -> (Matrix<i64>, Matrix<i64>, Matrix<i64>, Matrix<i64>) {
    (
        m.stencil5x5(Clamp, |n| {
            let r0 = n[0][0] + n[0][1] * 3 + n[0][2] * 5 + n[0][3] * 7 + n[0][4] * 11;
            let r1 = n[1][0] + n[1][1] * 3 + n[1][2] * 5 + n[1][3] * 7 + n[1][4] * 11;
            let r2 = n[2][0] + n[2][1] * 3 + n[2][2] * 5 + n[2][3] * 7 + n[2][4] * 11;
            let r3 = n[3][0] + n[3][1] * 3 + n[3][2] * 5 + n[3][3] * 7 + n[3][4] * 11;
            let r4 = n[4][0] + n[4][1] * 3 + n[4][2] * 5 + n[4][3] * 7 + n[4][4] * 11;
            r0 + r1 * 13 + r2 * 169 + r3 * 2197 + r4 * 28561
        }),
        m.stencil5x5(Mirror, |n| {
            let r0 = n[0][0] + n[0][1] * 3 + n[0][2] * 5 + n[0][3] * 7 + n[0][4] * 11;
            let r1 = n[1][0] + n[1][1] * 3 + n[1][2] * 5 + n[1][3] * 7 + n[1][4] * 11;
            let r2 = n[2][0] + n[2][1] * 3 + n[2][2] * 5 + n[2][3] * 7 + n[2][4] * 11;
            let r3 = n[3][0] + n[3][1] * 3 + n[3][2] * 5 + n[3][3] * 7 + n[3][4] * 11;
            let r4 = n[4][0] + n[4][1] * 3 + n[4][2] * 5 + n[4][3] * 7 + n[4][4] * 11;
            r0 + r1 * 13 + r2 * 169 + r3 * 2197 + r4 * 28561
        }),
        m.stencil5x5(Wrap, |n| {
            let r0 = n[0][0] + n[0][1] * 3 + n[0][2] * 5 + n[0][3] * 7 + n[0][4] * 11;
            let r1 = n[1][0] + n[1][1] * 3 + n[1][2] * 5 + n[1][3] * 7 + n[1][4] * 11;
            let r2 = n[2][0] + n[2][1] * 3 + n[2][2] * 5 + n[2][3] * 7 + n[2][4] * 11;
            let r3 = n[3][0] + n[3][1] * 3 + n[3][2] * 5 + n[3][3] * 7 + n[3][4] * 11;
            let r4 = n[4][0] + n[4][1] * 3 + n[4][2] * 5 + n[4][3] * 7 + n[4][4] * 11;
            r0 + r1 * 13 + r2 * 169 + r3 * 2197 + r4 * 28561
        }),
        m.stencil5x5(Constant(-2), |n| {
            let r0 = n[0][0] + n[0][1] * 3 + n[0][2] * 5 + n[0][3] * 7 + n[0][4] * 11;
            let r1 = n[1][0] + n[1][1] * 3 + n[1][2] * 5 + n[1][3] * 7 + n[1][4] * 11;
            let r2 = n[2][0] + n[2][1] * 3 + n[2][2] * 5 + n[2][3] * 7 + n[2][4] * 11;
            let r3 = n[3][0] + n[3][1] * 3 + n[3][2] * 5 + n[3][3] * 7 + n[3][4] * 11;
            let r4 = n[4][0] + n[4][1] * 3 + n[4][2] * 5 + n[4][3] * 7 + n[4][4] * 11;
            r0 + r1 * 13 + r2 * 169 + r3 * 2197 + r4 * 28561
        }),
    )
}

#[accel]
fn s5x5_f64(m: Matrix<f64>) -> Matrix<f64> {
    m.stencil5x5(Wrap, |n| {
        n[0][0] * 0.5 - n[4][4] + n[2][2] * 3.0 - n[0][4] * 0.25 + n[4][0] * 0.125 + n[1][3] - n[3][1] * 2.0
    })
}

#[accel]
fn s5x5_f64_edges(m: Matrix<f64>) -> (Matrix<f64>, Matrix<f64>, Matrix<f64>) {
    (
        m.stencil5x5(Clamp, |n| n[0][2] * 0.5 + n[4][2] - n[2][0] * 0.25 + n[2][4] * 2.0 - n[2][2]),
        m.stencil5x5(Mirror, |n| n[0][0] - n[1][1] * 0.5 + n[3][3] * 0.125 + n[4][1]),
        m.stencil5x5(Constant(0.25), |n| n[0][4] + n[4][0] * 3.0 - n[2][2] * 0.5 + n[1][2]),
    )
}

fn stencil3_i64(on: &Target) -> Check {
    on.each_size("stencil::stencil3::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(on, s3_i64(&xs));
        same("stencil3 Clamp", &g0, &r0)?;
        same("stencil3 Mirror", &g1, &r1)?;
        same("stencil3 Wrap", &g2, &r2)?;
        same("stencil3 Constant", &g3, &r3)
    })
}

fn stencil3_floats_and_tuples(on: &Target) -> Check {
    on.each_size("stencil::stencil3::f32_and_tuples", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let ((g0, g1), (r0, r1)) = both!(on, s3_f32(&xs));
        close_arrays(on, "stencil3 Mirror (f32)", &g0, &r0, 1.0)?;
        close_arrays(on, "stencil3 Constant (f32)", &g1, &r1, 1.0)?;
        let ts: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(on, s3_tuple(&ts));
        let (g, r) = (g.to_vec(), r.to_vec());
        close(on, "stencil3 Wrap (tuples) .0", &firsts(&g), &firsts(&r), 1.0)?;
        exact("stencil3 Wrap (tuples) .1", &seconds(&g), &seconds(&r))
    })
}

fn stencil5_i32(on: &Target) -> Check {
    on.each_size("stencil::stencil5::i32", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(on, s5_i32(&xs));
        same("stencil5 Clamp", &g0, &r0)?;
        same("stencil5 Mirror", &g1, &r1)?;
        same("stencil5 Wrap", &g2, &r2)?;
        same("stencil5 Constant", &g3, &r3)
    })
}

fn stencil5_f64_bool(on: &Target) -> Check {
    on.each_size("stencil::stencil5::f64_to_bool", Tier::Medium, |n, rng| {
        let (g, r) = both!(on, s5_f64_to_bool(&Vector::from_vec(rng.vec::<f64>(n))));
        same("stencil5 Clamp (local maxima)", &g, &r)
    })
}

fn stencil3x3_i64(on: &Target) -> Check {
    on.each_shape("stencil::stencil3x3::i64", Tier::Small, |r, c, rng| {
        every_boundary_3x3(on, &Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?)
    })
}

/// `s3x3_i64` (a 3 x 3 stencil with each boundary) against the interpreter.
fn every_boundary_3x3(on: &Target, m: &Matrix<i64>) -> Check {
    same_for_each_boundary("stencil3x3", both!(on, s3x3_i64(m)))
}

/// The results of a stencil with the boundaries `Clamp`, `Mirror`, `Wrap` and `Constant`, in
/// that order, against the interpreter's.
fn same_for_each_boundary(stencil: &str, (got, want): (Boundaries, Boundaries)) -> Check {
    let (g, w) = ([&got.0, &got.1, &got.2, &got.3], [&want.0, &want.1, &want.2, &want.3]);
    for ((boundary, g), w) in ["Clamp", "Mirror", "Wrap", "Constant"].into_iter().zip(g).zip(w) {
        same(&format!("{stencil} {boundary}"), g, w)?;
    }
    Ok(())
}

/// A stencil's result with each of the four boundaries.
type Boundaries = (Matrix<i64>, Matrix<i64>, Matrix<i64>, Matrix<i64>);

fn stencil3x3_f32(on: &Target) -> Check {
    on.each_shape("stencil::stencil3x3::f32", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(on, s3x3_f32_pattern(&m));
        close_arrays(on, "stencil3x3 Mirror (f32, pattern)", &g, &w, 1.0)
    })
}

fn stencil5x5_i64(on: &Target) -> Check {
    on.each_shape("stencil::stencil5x5::i64", Tier::Small, |r, c, rng| {
        every_boundary_5x5(on, &Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?)
    })
}

/// `s5x5_i64` (a 5 x 5 stencil with each boundary) against the interpreter.
fn every_boundary_5x5(on: &Target, m: &Matrix<i64>) -> Check {
    same_for_each_boundary("stencil5x5", both!(on, s5x5_i64(m)))
}

fn stencil5x5_f64(on: &Target) -> Check {
    on.each_shape("stencil::stencil5x5::f64", Tier::Small, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f64>(r * c))?;
        let (g, w) = both!(on, s5x5_f64(&m));
        close_arrays(on, "stencil5x5 Wrap (f64)", &g, &w, 1.0)?;
        let ((g0, g1, g2), (r0, r1, r2)) = both!(on, s5x5_f64_edges(&m));
        close_arrays(on, "stencil5x5 Clamp (f64)", &g0, &r0, 1.0)?;
        close_arrays(on, "stencil5x5 Mirror (f64)", &g1, &r1, 1.0)?;
        close_arrays(on, "stencil5x5 Constant (f64)", &g2, &r2, 1.0)
    })
}

fn sweeps() -> Vec<Test> {
    vec![
        case("stencil::stencil3::i64", stencil3_i64),
        case("stencil::stencil3::f32_and_tuples", stencil3_floats_and_tuples),
        case("stencil::stencil5::i32", stencil5_i32),
        case("stencil::stencil5::f64_to_bool", stencil5_f64_bool),
        case("stencil::stencil3x3::i64", stencil3x3_i64),
        case("stencil::stencil3x3::f32", stencil3x3_f32),
        case("stencil::stencil5x5::i64", stencil5x5_i64),
        case("stencil::stencil5x5::f64", stencil5x5_f64),
    ]
}

/// How a coordinate `i` (possibly outside `0..n`) is read: `None` means the constant.
#[derive(Clone, Copy, Debug)]
enum Rule {
    Clamp,
    Mirror,
    Wrap,
    Constant,
}

const RULES: [Rule; 4] = [Rule::Clamp, Rule::Mirror, Rule::Wrap, Rule::Constant];

/// docs/semantics.md, "Neighbourhood": the in-range coordinate a boundary reads for `i`.
fn coord(rule: Rule, i: i64, n: usize) -> Option<usize> {
    let n = n as i64;
    if (0..n).contains(&i) {
        return Some(i as usize);
    }
    let j = match rule {
        Rule::Clamp => i.clamp(0, n - 1),
        Rule::Wrap => i.rem_euclid(n),
        Rule::Mirror if n == 1 => 0,
        Rule::Mirror => {
            // Reflect without repeating the edge (-1 -> 1, n -> n - 2), repeatedly: the reads
            // are periodic with period 2 (n - 1).
            let period = 2 * (n - 1);
            let m = i.rem_euclid(period);
            if m < n { m } else { period - m }
        }
        Rule::Constant => return None,
    };
    Some(j as usize)
}

/// The neighbourhood of width `2 radius + 1` around every element of a vector, in order.
fn neighbourhoods_1d<T: Copy>(xs: &[T], radius: i64, rule: Rule, constant: T) -> Vec<Vec<T>> {
    (0..xs.len() as i64)
        .map(|i| (-radius..=radius).map(|o| coord(rule, i + o, xs.len()).map_or(constant, |j| xs[j])).collect())
        .collect()
}

/// The same for a matrix: row-major neighbourhoods, row-major points; the constant wherever any
/// coordinate is outside.
fn neighbourhoods_2d<T: Copy>(m: &[T], rows: usize, cols: usize, radius: i64, rule: Rule, constant: T) -> Vec<Vec<T>> {
    let mut out = Vec::with_capacity(rows * cols);
    for i in 0..rows as i64 {
        for j in 0..cols as i64 {
            let mut points = Vec::new();
            for di in -radius..=radius {
                for dj in -radius..=radius {
                    let v = match (coord(rule, i + di, rows), coord(rule, j + dj, cols)) {
                        (Some(a), Some(b)) => m[a * cols + b],
                        _ => constant,
                    };
                    points.push(v);
                }
            }
            out.push(points);
        }
    }
    out
}

fn weigh3(p: &[i64]) -> i64 {
    p[0].wrapping_add(p[1].wrapping_mul(10)).wrapping_add(p[2].wrapping_mul(100))
}

fn weigh5(p: &[i32]) -> i32 {
    [1, 3, 9, 27, 81].iter().zip(p).fold(0i32, |acc, (w, &x)| acc.wrapping_add(x.wrapping_mul(*w)))
}

fn weigh3x3(p: &[i64]) -> i64 {
    p.iter().enumerate().fold(0i64, |acc, (k, &x)| acc.wrapping_add(x.wrapping_mul(1 << k)))
}

fn weigh5x5(p: &[i64]) -> i64 {
    let row = |r: usize| {
        [1i64, 3, 5, 7, 11]
            .iter()
            .zip(&p[r * 5..r * 5 + 5])
            .fold(0i64, |acc, (w, &x)| acc.wrapping_add(x.wrapping_mul(*w)))
    };
    [1i64, 13, 169, 2197, 28561].iter().enumerate().fold(0i64, |acc, (r, w)| acc.wrapping_add(row(r).wrapping_mul(*w)))
}

/// Small integers, so that the weighted sums are far from wrapping and easy to read in a
/// failure; wrapping itself is covered elsewhere.
fn vals() -> impl Strategy<Value = i64> + Clone {
    -1000i64..1000
}

fn stencil3_with_every_boundary(on: &Target) -> Check {
    props(24, vec_sized(vals(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, s3_i64(&v));
        let cpu = [cpu.0, cpu.1, cpu.2, cpu.3];
        let interp = [interp.0, interp.1, interp.2, interp.3];
        for (k, rule) in RULES.into_iter().enumerate() {
            let want: Vec<i64> = neighbourhoods_1d(&xs, 1, rule, -7).iter().map(|p| weigh3(p)).collect();
            all_same(on, &format!("stencil3 {rule:?}"), &cpu[k].to_vec(), &interp[k].to_vec(), &want)?;
        }
        Ok(())
    })
}

fn stencil3_of_floats_and_tuples(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), prop::collection::vec(small_i32s(), 0..200)), |(xs, is)| {
        let v = Vector::from_vec(xs.clone());
        let ((m_cpu, c_cpu), (m_int, c_int)) = both!(on, s3_f32(&v));
        let f = |p: &Vec<f32>| p[0] * 0.25 + p[1] * 0.5 - p[2] * 0.125;
        let want: Vec<f32> = neighbourhoods_1d(&xs, 1, Rule::Mirror, 0.0).iter().map(f).collect();
        all_same_bits(on, "stencil3 f32 Mirror", &m_cpu.to_vec(), &m_int.to_vec(), &want)?;
        let want: Vec<f32> = neighbourhoods_1d(&xs, 1, Rule::Constant, 1.5).iter().map(f).collect();
        all_same_bits(on, "stencil3 f32 Constant", &c_cpu.to_vec(), &c_int.to_vec(), &want)?;
        let ps: Vec<(f32, i32)> = is.iter().map(|&i| (i as f32 * 0.5, i)).collect();
        let v: Vector<(f32, i32)> = ps.iter().copied().collect();
        let (cpu, interp) = both!(on, s3_tuple(&v));
        let want: Vec<(f32, i32)> = neighbourhoods_1d(&ps, 1, Rule::Wrap, (0.0, 0))
            .iter()
            .map(|p| (p[0].0 - p[2].0, p[1].1 * 2 + p[0].1 - p[2].1))
            .collect();
        all_same(on, "stencil3 tuples Wrap", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn stencil5_with_every_boundary(on: &Target) -> Check {
    props(24, vec_sized(small_i32s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, s5_i32(&v));
        let cpu = [cpu.0, cpu.1, cpu.2, cpu.3];
        let interp = [interp.0, interp.1, interp.2, interp.3];
        for (k, rule) in RULES.into_iter().enumerate() {
            let want: Vec<i32> = neighbourhoods_1d(&xs, 2, rule, 5).iter().map(|p| weigh5(p)).collect();
            all_same(on, &format!("stencil5 {rule:?}"), &cpu[k].to_vec(), &interp[k].to_vec(), &want)?;
        }
        Ok(())
    })
}

fn stencil5_to_another_type(on: &Target) -> Check {
    props(24, vec_sized(f64s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, s5_f64_to_bool(&v));
        let want: Vec<bool> = neighbourhoods_1d(&xs, 2, Rule::Clamp, 0.0)
            .iter()
            .map(|p| p[2] > p[0] && p[2] >= p[1] && p[2] >= p[3] && p[2] > p[4])
            .collect();
        all_same(on, "stencil5 local maxima", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn stencil3x3_with_every_boundary(on: &Target) -> Check {
    props(24, matrix_of(vals()), |((r, c), m)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, s3x3_i64(&mm));
        let cpu = [cpu.0, cpu.1, cpu.2, cpu.3];
        let interp = [interp.0, interp.1, interp.2, interp.3];
        for (k, rule) in RULES.into_iter().enumerate() {
            let want: Vec<i64> = neighbourhoods_2d(&m, r, c, 1, rule, 3).iter().map(|p| weigh3x3(p)).collect();
            all_same(on, &format!("stencil3x3 {rule:?}"), &cpu[k].to_vec(), &interp[k].to_vec(), &want)?;
            check_eq!(cpu[k].shape(), [r, c]);
        }
        Ok(())
    })
}

fn stencil3x3_slice_pattern(on: &Target) -> Check {
    props(24, matrix_of(f32s()), |((r, c), m)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, s3x3_f32_pattern(&mm));
        let want: Vec<f32> = neighbourhoods_2d(&m, r, c, 1, Rule::Mirror, 0.0)
            .iter()
            .map(|p| {
                let [a, b, c, d, e, f, g, h, i] = [p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]];
                (a - c + g - i) * 0.25 + (b - h) * 0.5 + d * 0.125 - f + e * 2.0
            })
            .collect();
        all_same_bits(on, "stencil3x3 f32 Mirror (slice pattern)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn stencil5x5_with_every_boundary(on: &Target) -> Check {
    props(24, matrix_of(vals()), |((r, c), m)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, s5x5_i64(&mm));
        let cpu = [cpu.0, cpu.1, cpu.2, cpu.3];
        let interp = [interp.0, interp.1, interp.2, interp.3];
        for (k, rule) in RULES.into_iter().enumerate() {
            let want: Vec<i64> = neighbourhoods_2d(&m, r, c, 2, rule, -2).iter().map(|p| weigh5x5(p)).collect();
            all_same(on, &format!("stencil5x5 {rule:?}"), &cpu[k].to_vec(), &interp[k].to_vec(), &want)?;
        }
        Ok(())
    })
}

fn stencil5x5_of_floats(on: &Target) -> Check {
    props(24, matrix_of(f64s()), |((r, c), m)| {
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, s5x5_f64(&mm));
        let want: Vec<f64> = neighbourhoods_2d(&m, r, c, 2, Rule::Wrap, 0.0)
            .iter()
            .map(|p| p[0] * 0.5 - p[24] + p[12] * 3.0 - p[4] * 0.25 + p[20] * 0.125 + p[8] - p[16] * 2.0)
            .collect();
        all_same_bits(on, "stencil5x5 f64 Wrap", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

/// Large inputs cross the CPU backend's chunk boundaries (a few cases: the interpreter is slow).
fn large_stencils(on: &Target) -> Check {
    props(3, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let xs: Vec<i64> = (0..n).map(|_| rng.below(2000) as i64 - 1000).collect();
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, s3_i64(&v));
        let cpu = [cpu.0, cpu.1, cpu.2, cpu.3];
        let interp = [interp.0, interp.1, interp.2, interp.3];
        for (k, rule) in RULES.into_iter().enumerate() {
            let want: Vec<i64> = neighbourhoods_1d(&xs, 1, rule, -7).iter().map(|p| weigh3(p)).collect();
            all_same(on, &format!("stencil3 {rule:?} (large)"), &cpu[k].to_vec(), &interp[k].to_vec(), &want)?;
        }
        // About n elements in rows of an odd length.
        let (r, c) = (n / 257, 257);
        let m: Vec<f32> = rng.f32s(r * c, -10.0, 10.0);
        let mm = Matrix::from_shape_vec([r, c], m.clone()).unwrap();
        let (cpu, interp) = both!(on, s3x3_f32_pattern(&mm));
        let want: Vec<f32> = neighbourhoods_2d(&m, r, c, 1, Rule::Mirror, 0.0)
            .iter()
            .map(|p| {
                let [a, b, c, d, e, f, g, h, i] = [p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]];
                (a - c + g - i) * 0.25 + (b - h) * 0.5 + d * 0.125 - f + e * 2.0
            })
            .collect();
        all_same_bits(on, "stencil3x3 (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

/// Shapes that reach every path of the GPU's 2-D stencil skeleton (`accel_kernels::stencil`):
/// inside tiles of a 5 x 5 stencil (two column tiles of 256 or more, so at least 514 columns),
/// tiles of four rows or more (only once the grid is capped at one wave: a few million
/// elements), and rims on every side of each. The CPU, which has no such skeleton, checks the
/// two small shapes.
fn tiled_shapes(on: &Target) -> Check {
    for (r, c) in [(40, 1100), (9, 515), (2000, 1030), (1030, 2000)] {
        if !on.fits(r * c) || (!on.is_gpu() && r * c > 1 << 16) {
            continue;
        }
        let mut rng = crate::harness::Rng::new("stencil::tiled_shapes", r * c);
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let shape = |e| at(&format!("shape {r}x{c}"), e);
        every_boundary_5x5(on, &m).map_err(shape)?;
        every_boundary_3x3(on, &m).map_err(shape)?;
    }
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let mut tests = sweeps();
    tests.extend([
        case("stencil::stencil3_with_every_boundary", stencil3_with_every_boundary),
        case("stencil::stencil3_of_floats_and_tuples", stencil3_of_floats_and_tuples),
        case("stencil::stencil5_with_every_boundary", stencil5_with_every_boundary),
        case("stencil::stencil5_to_another_type", stencil5_to_another_type),
        case("stencil::stencil3x3_with_every_boundary", stencil3x3_with_every_boundary),
        case("stencil::stencil3x3_slice_pattern", stencil3x3_slice_pattern),
        case("stencil::stencil5x5_with_every_boundary", stencil5x5_with_every_boundary),
        case("stencil::stencil5x5_of_floats", stencil5x5_of_floats),
        case("stencil::large_stencils", large_stencils),
        case("stencil::tiled_shapes", tiled_shapes),
    ]);
    tests
}
