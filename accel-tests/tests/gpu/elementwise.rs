//! Elementwise: `map` on every element type, float functions, `imap`, `zip_with` (shapes
//! intersect), `zip`, `unzip`, tuple and nested-tuple elements, scalar parameters.

use crate::harness::*;
use accel::prelude::*;

#[accel]
fn map_f32(xs: Vector<f32>) -> Vector<f32> {
    xs.map(|x| x * 1.5 - 2.0)
}

#[accel]
fn map_f64(xs: Vector<f64>) -> Vector<f64> {
    xs.map(|x| x / 3.0 + x * x)
}

#[accel]
fn map_i32(xs: Vector<i32>) -> Vector<i32> {
    xs.map(|x| x * 3 + 7)
}

#[accel]
fn map_i64(xs: Vector<i64>) -> Vector<i64> {
    xs.map(|x| x * x - (x >> 3))
}

#[accel]
fn map_u32(xs: Vector<u32>) -> Vector<u32> {
    xs.map(|x| x * 2654435761 + (x >> 7))
}

#[accel]
fn map_u64(xs: Vector<u64>) -> Vector<u64> {
    xs.map(|x| x * 0x9E3779B97F4A7C15 + x / 7)
}

#[accel]
fn map_usize(xs: Vector<usize>) -> Vector<usize> {
    xs.map(|x| x * 3 + x % 5)
}

#[accel]
fn map_bool(xs: Vector<bool>) -> Vector<(bool, i32)> {
    xs.map(|b| (!b, b as i32 * 2 - 1))
}

#[accel]
fn math_f32(xs: Vector<f32>) -> Vector<(f32, f32, f32, f32, f32, f32)> {
    xs.map(|x| (x.sin(), (x * 0.05).exp(), (x.abs() + 1.0).ln(), x.abs().sqrt(), (x * 0.1).tanh(), (x * 0.02).erf()))
}

#[accel]
fn math_f64(xs: Vector<f64>) -> Vector<(f64, f64, f64, f64, f64, f64)> {
    xs.map(|x| {
        (x.cos(), (x * 0.05).exp(), (x.abs() + 1.0).log2(), x.abs().powf(0.3), (x * 0.01).atan(), (x * 0.02).erf())
    })
}

#[accel]
fn map_matrix(m: Matrix<f32>) -> Matrix<f32> {
    m.map(|x| x * x - 1.0)
}

#[accel]
fn map_cube(a: Array<i64, 3>) -> Array<i64, 3> {
    a.map(|x| x * 2 - 1)
}

#[accel]
fn map_cast(xs: Vector<i32>) -> Vector<(f64, u32, i64)> {
    xs.map(|x| (x as f64 * 0.5, x as u32, x as i64 * 3))
}

#[accel]
fn imap_vec(xs: Vector<i64>) -> Vector<i64> {
    xs.imap(|i, x| x * (i as i64) - 1)
}

#[accel]
fn imap_matrix(m: Matrix<f32>) -> Matrix<f32> {
    m.imap(|(i, j), x| x + (i as f32) * 100.0 + j as f32)
}

#[accel]
fn zip_with_f32(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> {
    xs.zip_with(ys, |x, y| x * y + 1.0)
}

#[accel]
fn zip_with_mixed(xs: Vector<i32>, ys: Vector<f64>) -> Vector<f64> {
    xs.zip_with(ys, |x, y| x as f64 - y)
}

#[accel]
fn zip_with_matrix(a: Matrix<u64>, b: Matrix<u64>) -> Matrix<u64> {
    a.zip_with(b, |x, y| x ^ (y << 3))
}

#[accel]
fn zip_with_bools(xs: Vector<bool>, ys: Vector<bool>) -> Vector<bool> {
    xs.zip_with(ys, |a, b| (a && !b) || (b && !a))
}

#[accel]
fn zip_unzip(xs: Vector<f32>, ys: Vector<i32>) -> (Vector<(f32, i32)>, Vector<f32>, Vector<i32>) {
    let z = xs.zip(ys);
    let (a, b) = z.unzip();
    (z, a, b)
}

#[accel]
fn unzip_mapped(xs: Vector<u32>) -> (Vector<u32>, Vector<bool>) {
    xs.map(|x| (x / 2, x % 2 == 0)).unzip()
}

#[accel]
fn zip_matrix_unzip(a: Matrix<i64>, b: Matrix<f32>) -> (Matrix<i64>, Matrix<f32>) {
    a.zip(b).map(|p| (p.0 + 1, p.1 * 0.5)).unzip()
}

#[accel]
fn map_tuple(xs: Vector<(f32, i32)>) -> Vector<(f32, i32)> {
    xs.map(|(a, b)| (a * 2.0 + b as f32, b - 1))
}

#[accel]
fn map_nested_tuple(xs: Vector<((i32, f32), u64)>) -> Vector<((i32, f32), u64)> {
    xs.map(|p| ((p.0.0 * 3, p.0.1 - p.0.0 as f32), p.1 ^ (p.0.0 as u64)))
}

#[accel]
fn scalar_params(a: i32, b: u64, c: f32, d: bool, e: usize, f: f64) -> Scalar<(i32, u64, f32, bool, usize, f64)> {
    unit((a * 3, b + 1, c * 0.5, !d, e * 2, f - 1.0))
}

#[accel]
fn scaled(xs: Vector<f64>, a: f64, k: i64, flip: bool, shift: usize) -> Vector<f64> {
    xs.imap(|i, x| if flip { a * x - k as f64 } else { x + ((i + shift) % 7) as f64 })
}

fn map_f32_vec() -> Check {
    each_size("elementwise::map::f32", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.f32s(n, -100.0, 100.0));
        let (g, r) = both!(map_f32(&xs));
        close_arrays("map", &g, &r, 1.0)
    })
}

fn map_f64_vec() -> Check {
    each_size("elementwise::map::f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(map_f64(&xs));
        close_arrays("map", &g, &r, 1.0)
    })
}

fn map_i32_vec() -> Check {
    each_size("elementwise::map::i32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both!(map_i32(&xs));
        same("map", &g, &r)
    })
}

fn map_i64_vec() -> Check {
    each_size("elementwise::map::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let (g, r) = both!(map_i64(&xs));
        same("map", &g, &r)
    })
}

fn map_u32_vec() -> Check {
    each_size("elementwise::map::u32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        let (g, r) = both!(map_u32(&xs));
        same("map", &g, &r)
    })
}

fn map_u64_vec() -> Check {
    each_size("elementwise::map::u64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        let (g, r) = both!(map_u64(&xs));
        same("map", &g, &r)
    })
}

fn map_usize_vec() -> Check {
    each_size("elementwise::map::usize", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<usize>(n));
        let (g, r) = both!(map_usize(&xs));
        same("map", &g, &r)
    })
}

fn map_bool_vec() -> Check {
    each_size("elementwise::map::bool", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<bool>(n));
        let (g, r) = both!(map_bool(&xs));
        same("map", &g, &r)
    })
}

/// Compares each float column of 6-tuples within the elementwise tolerance.
fn close6<F: Float>(what: &str, got: &[(F, F, F, F, F, F)], want: &[(F, F, F, F, F, F)]) -> Check {
    type Pick<F> = fn(&(F, F, F, F, F, F)) -> F;
    let picks: [(&str, Pick<F>); 6] =
        [("0", |t| t.0), ("1", |t| t.1), ("2", |t| t.2), ("3", |t| t.3), ("4", |t| t.4), ("5", |t| t.5)];
    for (k, pick) in picks {
        let g: Vec<F> = got.iter().map(pick).collect();
        let w: Vec<F> = want.iter().map(pick).collect();
        close(&format!("{what} .{k}"), &g, &w, 1e-6)?;
    }
    Ok(())
}

fn math_f32_vec() -> Check {
    each_size("elementwise::math::f32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let (g, r) = both!(math_f32(&xs));
        close6("sin exp ln sqrt tanh erf", &g.to_vec(), &r.to_vec())
    })
}

fn math_f64_vec() -> Check {
    each_size("elementwise::math::f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(math_f64(&xs));
        close6("cos exp log2 powf atan erf", &g.to_vec(), &r.to_vec())
    })
}

fn map_matrix_f32() -> Check {
    each_shape("elementwise::map::matrix_f32", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(map_matrix(&m));
        close_arrays("map (matrix)", &g, &w, 1.0)
    })
}

fn map_rank3_i64() -> Check {
    for (a, b, c) in [(0, 2, 2), (2, 0, 3), (1, 1, 1), (3, 5, 7), (2, 129, 33), (17, 1, 4097), (64, 64, 65)] {
        let mut rng = Rng::new("elementwise::map::rank3_i64", a * b * c);
        let x = Array::from_shape_vec([a, b, c], rng.vec::<i64>(a * b * c))?;
        let (g, w) = both!(map_cube(&x));
        same(&format!("map (rank 3, {a}x{b}x{c})"), &g, &w)?;
    }
    Ok(())
}

fn map_casts() -> Check {
    each_size("elementwise::map::casts_i32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both!(map_cast(&xs));
        same("i32 as f64, u32, i64", &g, &r)
    })
}

fn imap_i64() -> Check {
    each_size("elementwise::imap::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let (g, r) = both!(imap_vec(&xs));
        same("imap", &g, &r)
    })
}

fn imap_matrix_f32() -> Check {
    each_shape("elementwise::imap::matrix_f32", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(imap_matrix(&m));
        close_arrays("imap (matrix)", &g, &w, 1.0)
    })
}

fn zip_with_f32_vec() -> Check {
    each_size("elementwise::zip_with::f32", Tier::Large, |n, rng| {
        // `ys` is longer: the result has the length of `xs`.
        let xs = Vector::from_vec(rng.f32s(n, -100.0, 100.0));
        let ys = Vector::from_vec(rng.f32s(n + 3, -100.0, 100.0));
        let (g, r) = both!(zip_with_f32(&xs, &ys));
        close_arrays("zip_with", &g, &r, 1.0)?;
        if n >= LARGE_FROM {
            return Ok(());
        }
        let (g, r) = both!(zip_with_f32(&ys, &xs));
        close_arrays("zip_with (shorter second)", &g, &r, 1.0)
    })
}

fn zip_with_mixed_vec() -> Check {
    each_size("elementwise::zip_with::i32_f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n + 1));
        let ys = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(zip_with_mixed(&xs, &ys));
        close_arrays("zip_with", &g, &r, 1.0)
    })
}

fn zip_with_matrix_u64() -> Check {
    each_shape("elementwise::zip_with::matrix_u64", Tier::Medium, |r, c, rng| {
        let a = Matrix::from_shape_vec([r, c], rng.vec::<u64>(r * c))?;
        // A different shape: the result is the intersection.
        let (r2, c2) = (r + rng.below(3), c.saturating_sub(rng.below(3)));
        let b = Matrix::from_shape_vec([r2, c2], rng.vec::<u64>(r2 * c2))?;
        let (g, w) = both!(zip_with_matrix(&a, &b));
        same("zip_with (matrices)", &g, &w)
    })
}

fn zip_with_bool() -> Check {
    each_size("elementwise::zip_with::bool", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<bool>(n));
        let ys = Vector::from_vec(rng.vec::<bool>(n + 2));
        let (g, r) = both!(zip_with_bools(&xs, &ys));
        same("zip_with (bools)", &g, &r)
    })
}

fn zip_and_unzip() -> Check {
    each_size("elementwise::zip_unzip::f32_i32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n + 2));
        let ys = Vector::from_vec(rng.vec::<i32>(n));
        let ((gz, ga, gb), (rz, ra, rb)) = both!(zip_unzip(&xs, &ys));
        same("zip", &gz, &rz)?;
        same("unzip .0", &ga, &ra)?;
        same("unzip .1", &gb, &rb)
    })
}

fn unzip_u32() -> Check {
    each_size("elementwise::unzip::u32_bool", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        let ((ga, gb), (ra, rb)) = both!(unzip_mapped(&xs));
        same("unzip .0", &ga, &ra)?;
        same("unzip .1", &gb, &rb)
    })
}

fn zip_unzip_matrix() -> Check {
    each_shape("elementwise::zip_unzip::matrix", Tier::Medium, |r, c, rng| {
        let a = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let b = Matrix::from_shape_vec([c, r], rng.vec::<f32>(r * c))?;
        let ((ga, gb), (ra, rb)) = both!(zip_matrix_unzip(&a, &b));
        same("zip, map, unzip .0", &ga, &ra)?;
        close_arrays("zip, map, unzip .1", &gb, &rb, 1.0)
    })
}

fn map_tuples() -> Check {
    each_size("elementwise::map::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(map_tuple(&xs));
        let (g, r) = (g.to_vec(), r.to_vec());
        close("map .0", &firsts(&g), &firsts(&r), 1.0)?;
        exact("map .1", &seconds(&g), &seconds(&r))
    })
}

fn map_nested_tuples() -> Check {
    each_size("elementwise::map::nested_tuple", Tier::Medium, |n, rng| {
        let (a, b, c) = (rng.vec::<i32>(n), rng.vec::<f32>(n), rng.vec::<u64>(n));
        let xs: Vector<((i32, f32), u64)> = (0..n).map(|i| ((a[i], b[i]), c[i])).collect();
        let (g, r) = both!(map_nested_tuple(&xs));
        let (g, r) = (g.to_vec(), r.to_vec());
        let ints = |v: &[((i32, f32), u64)]| v.iter().map(|p| (p.0.0, p.1)).collect::<Vec<_>>();
        let floats = |v: &[((i32, f32), u64)]| v.iter().map(|p| p.0.1).collect::<Vec<_>>();
        exact("map .0.0 and .1", &ints(&g), &ints(&r))?;
        // `p.0.1 - p.0.0 as f32` with i32 over its whole range: magnitudes up to 2^31.
        close("map .0.1", &floats(&g), &floats(&r), 1.0)
    })
}

fn scalar_parameters() -> Check {
    for (a, b, c, d, e, f) in [(7, 3, 1.5, true, 9, -2.5), (i32::MAX, u64::MAX, -0.0, false, usize::MAX / 3, 1e300)] {
        let (g, r) = both!(scalar_params(a, b, c, d, e, f));
        same("scalar parameters", &g, &r)?;
    }
    each_size("elementwise::scalar_params", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        for flip in [false, true] {
            let (a, k, shift) = (rng.f64_in(-3.0, 3.0), rng.below(1000) as i64 - 500, rng.below(100));
            let (g, r) = both!(scaled(&xs, a, k, flip, shift));
            close_arrays("imap with scalar parameters", &g, &r, 1.0)?;
        }
        Ok(())
    })
}

pub fn cases() -> Vec<Case> {
    vec![
        heavy("elementwise::map::f32", map_f32_vec),
        case("elementwise::map::f64", map_f64_vec),
        case("elementwise::map::i32", map_i32_vec),
        case("elementwise::map::i64", map_i64_vec),
        case("elementwise::map::u32", map_u32_vec),
        case("elementwise::map::u64", map_u64_vec),
        case("elementwise::map::usize", map_usize_vec),
        case("elementwise::map::bool", map_bool_vec),
        case("elementwise::math::f32", math_f32_vec),
        case("elementwise::math::f64", math_f64_vec),
        case("elementwise::map::matrix_f32", map_matrix_f32),
        case("elementwise::map::rank3_i64", map_rank3_i64),
        case("elementwise::map::casts_i32", map_casts),
        case("elementwise::map::tuple_f32_i32", map_tuples),
        case("elementwise::map::nested_tuple", map_nested_tuples),
        case("elementwise::imap::i64", imap_i64),
        case("elementwise::imap::matrix_f32", imap_matrix_f32),
        heavy("elementwise::zip_with::f32", zip_with_f32_vec),
        case("elementwise::zip_with::i32_f64", zip_with_mixed_vec),
        case("elementwise::zip_with::matrix_u64", zip_with_matrix_u64),
        case("elementwise::zip_with::bool", zip_with_bool),
        case("elementwise::zip_unzip::f32_i32", zip_and_unzip),
        case("elementwise::unzip::u32_bool", unzip_u32),
        case("elementwise::zip_unzip::matrix", zip_unzip_matrix),
        case("elementwise::scalar_params", scalar_parameters),
    ]
}
