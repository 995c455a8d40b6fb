//! Neighbourhoods: `stencil3 stencil5 stencil3x3 stencil5x5` with each boundary (`Clamp`,
//! `Mirror`, `Wrap`, `Constant`) on vectors and matrices of every size, including those shorter
//! than the stencil. Integer stencils weigh each neighbour differently, so that a wrong neighbour
//! shows; float stencils are elementwise and compared within the elementwise tolerance. The
//! programs with all four boundaries (4 x 25 reads per element in the interpreter) stop at 65537
//! elements; the others add 2^20 +- 1.

use crate::harness::*;
use accel::prelude::*;

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

fn stencil3_i64() -> Check {
    each_size("stencil::stencil3::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(s3_i64(&xs));
        same("stencil3 Clamp", &g0, &r0)?;
        same("stencil3 Mirror", &g1, &r1)?;
        same("stencil3 Wrap", &g2, &r2)?;
        same("stencil3 Constant", &g3, &r3)
    })
}

fn stencil3_floats_and_tuples() -> Check {
    each_size("stencil::stencil3::f32_and_tuples", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let ((g0, g1), (r0, r1)) = both!(s3_f32(&xs));
        close_arrays("stencil3 Mirror (f32)", &g0, &r0, 1.0)?;
        close_arrays("stencil3 Constant (f32)", &g1, &r1, 1.0)?;
        let ts: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(s3_tuple(&ts));
        let (g, r) = (g.to_vec(), r.to_vec());
        close("stencil3 Wrap (tuples) .0", &firsts(&g), &firsts(&r), 1.0)?;
        exact("stencil3 Wrap (tuples) .1", &seconds(&g), &seconds(&r))
    })
}

fn stencil5_i32() -> Check {
    each_size("stencil::stencil5::i32", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(s5_i32(&xs));
        same("stencil5 Clamp", &g0, &r0)?;
        same("stencil5 Mirror", &g1, &r1)?;
        same("stencil5 Wrap", &g2, &r2)?;
        same("stencil5 Constant", &g3, &r3)
    })
}

fn stencil5_f64_bool() -> Check {
    each_size("stencil::stencil5::f64_to_bool", Tier::Medium, |n, rng| {
        let (g, r) = both!(s5_f64_to_bool(&Vector::from_vec(rng.vec::<f64>(n))));
        same("stencil5 Clamp (local maxima)", &g, &r)
    })
}

fn stencil3x3_i64() -> Check {
    each_shape("stencil::stencil3x3::i64", Tier::Small, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(s3x3_i64(&m));
        same("stencil3x3 Clamp", &g0, &r0)?;
        same("stencil3x3 Mirror", &g1, &r1)?;
        same("stencil3x3 Wrap", &g2, &r2)?;
        same("stencil3x3 Constant", &g3, &r3)
    })
}

fn stencil3x3_f32() -> Check {
    each_shape("stencil::stencil3x3::f32", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(s3x3_f32_pattern(&m));
        close_arrays("stencil3x3 Mirror (f32, pattern)", &g, &w, 1.0)
    })
}

fn stencil5x5_i64() -> Check {
    each_shape("stencil::stencil5x5::i64", Tier::Small, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let ((g0, g1, g2, g3), (r0, r1, r2, r3)) = both!(s5x5_i64(&m));
        same("stencil5x5 Clamp", &g0, &r0)?;
        same("stencil5x5 Mirror", &g1, &r1)?;
        same("stencil5x5 Wrap", &g2, &r2)?;
        same("stencil5x5 Constant", &g3, &r3)
    })
}

fn stencil5x5_f64() -> Check {
    each_shape("stencil::stencil5x5::f64", Tier::Small, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f64>(r * c))?;
        let (g, w) = both!(s5x5_f64(&m));
        close_arrays("stencil5x5 Wrap (f64)", &g, &w, 1.0)?;
        let ((g0, g1, g2), (r0, r1, r2)) = both!(s5x5_f64_edges(&m));
        close_arrays("stencil5x5 Clamp (f64)", &g0, &r0, 1.0)?;
        close_arrays("stencil5x5 Mirror (f64)", &g1, &r1, 1.0)?;
        close_arrays("stencil5x5 Constant (f64)", &g2, &r2, 1.0)
    })
}

pub fn cases() -> Vec<Case> {
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
