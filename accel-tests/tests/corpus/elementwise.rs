//! Build: `generate`, `fill`, `iota`, `unit` and `get`, on the GPU against the interpreter.
//!
//! Elementwise: `map` on every element type, float functions, `imap`, `zip_with` (shapes
//! intersect), `zip`, `unzip`, tuple and nested-tuple elements, scalar parameters.
//!
//! Build (`generate fill iota unit`) and elementwise (`map imap zip_with zip unzip`) combinators.
//!
//! Elementwise code runs the same scalar operations in the same order on every backend (the
//! generated CPU code and the interpreter share `accel_core::ops`), so float results are compared
//! bit for bit, against an oracle that writes the same expression in plain Rust.

use crate::compare::*;
use crate::harness::Rng;
use crate::harness::*;
use crate::strategies::*;
use accel::prelude::*;
use proptest::prelude::*;

#[accel]
fn gen_f32(n: usize, a: f32) -> Vector<f32> {
    generate(n, |i| (i as f32) * 0.5 - a)
}

#[accel]
fn gen_i64_matrix(r: usize, c: usize) -> Matrix<i64> {
    generate((r, c), |(i, j)| (i as i64) * 1000 - (j as i64) * 7)
}

#[accel]
fn gen_cube(a: usize, b: usize, c: usize) -> Array<u32, 3> {
    generate([a, b, c], |(i, j, k)| (i * 100 + j * 10 + k) as u32)
}

#[accel]
fn gen_tuple(n: usize) -> Vector<(f64, i32)> {
    generate(n, |i| ((i as f64) * 0.25, (i as i32) * -3))
}

#[accel]
fn gen_bool_u64(n: usize) -> Vector<(bool, u64)> {
    generate(n, |i| (i % 3 == 0, (i as u64) * 0x9E3779B97F4A7C15))
}

#[accel]
fn fill_f64(n: usize, v: f64) -> Vector<f64> {
    fill(n, v)
}

#[accel]
fn fill_matrix(r: usize, c: usize, v: i32) -> Matrix<(i32, bool)> {
    fill((r, c), (v, v > 0))
}

#[accel]
fn iota_i32(n: usize) -> Vector<i32> {
    iota(n)
}

#[accel]
fn iota_f32(n: usize) -> Vector<f32> {
    iota::<f32>(n)
}

#[accel]
fn iota_u64(n: usize) -> Vector<u64> {
    let v: Vector<u64> = iota(n);
    v.map(|x| x * 3)
}

#[accel]
fn iota_usize(n: usize) -> Vector<usize> {
    iota::<usize>(n)
}

#[accel]
fn unit_get(x: f64) -> (Scalar<f64>, Vector<f64>) {
    let s = unit(x * 2.0);
    let v = fill(3, s.get() + 1.0);
    (s, v)
}

#[accel]
fn sum_then_center(xs: Vector<i64>) -> (Scalar<i64>, Vector<i64>) {
    // A scalar computed on the device and read back inside the next kernel.
    let s = xs.sum();
    let ys = xs.map(|x| x * 3 - s.get());
    (s, ys)
}

#[accel]
fn generated_names(__cpu: Vector<i64>, __gpu: i64, __args: Vector<i64>) -> Vector<i64> {
    // Parameters named like the code that `#[accel]` generates around a function.
    __cpu.zip_with(__args, |a, b| a * __gpu + b)
}

fn generate_f32(on: &Target) -> Check {
    on.each_size("build::generate::f32", Tier::Medium, |n, rng| {
        let a = rng.f64_in(-10.0, 10.0) as f32;
        let (g, r) = both!(on, gen_f32(n, a));
        close_arrays(on, "generate", &g, &r, 1.0)
    })
}

fn generate_i64(on: &Target) -> Check {
    on.each_shape("build::generate::i64", Tier::Medium, |r, c, _| {
        let (g, w) = both!(on, gen_i64_matrix(r, c));
        same("generate (matrix)", &g, &w)
    })
}

fn generate_u32(on: &Target) -> Check {
    for (a, b, c) in [(0, 3, 4), (3, 0, 4), (1, 1, 1), (2, 3, 5), (7, 33, 129), (3, 1, 4097), (65, 64, 63)] {
        let (g, w) = both!(on, gen_cube(a, b, c));
        same(&format!("generate (rank 3, {a}x{b}x{c})"), &g, &w)?;
    }
    Ok(())
}

fn generate_tuples(on: &Target) -> Check {
    on.each_size("build::generate::tuples", Tier::Medium, |n, _| {
        let (g, r) = both!(on, gen_tuple(n));
        let (g, r) = (g.to_vec(), r.to_vec());
        close(on, "generate .0", &firsts(&g), &firsts(&r), 1.0)?;
        exact("generate .1", &seconds(&g), &seconds(&r))?;
        let (g, r) = both!(on, gen_bool_u64(n));
        same("generate (bool, u64)", &g, &r)
    })
}

fn fill_f64_vec(on: &Target) -> Check {
    on.each_size("build::fill::f64", Tier::Medium, |n, rng| {
        let v = rng.f64_in(-5.0, 5.0);
        let (g, r) = both!(on, fill_f64(n, v));
        same("fill", &g, &r)
    })
}

fn fill_tuples(on: &Target) -> Check {
    on.each_shape("build::fill::tuples", Tier::Medium, |r, c, rng| {
        let v = rng.below(200) as i32 - 100;
        let (g, w) = both!(on, fill_matrix(r, c, v));
        same("fill (matrix of (i32, bool))", &g, &w)
    })
}

fn iota_i32_vec(on: &Target) -> Check {
    on.each_size("build::iota::i32", Tier::Medium, |n, _| {
        let (g, r) = both!(on, iota_i32(n));
        same("iota i32", &g, &r)
    })
}

fn iota_f32_vec(on: &Target) -> Check {
    on.each_size("build::iota::f32", Tier::Medium, |n, _| {
        let (g, r) = both!(on, iota_f32(n));
        same("iota f32", &g, &r)
    })
}

fn iota_u64_vec(on: &Target) -> Check {
    on.each_size("build::iota::u64", Tier::Medium, |n, _| {
        let (g, r) = both!(on, iota_u64(n));
        same("iota u64, times 3", &g, &r)
    })
}

fn iota_usize_vec(on: &Target) -> Check {
    on.each_size("build::iota::usize", Tier::Medium, |n, _| {
        let (g, r) = both!(on, iota_usize(n));
        same("iota usize", &g, &r)
    })
}

fn unit_and_get(on: &Target) -> Check {
    for x in [0.5, -3.25, 1e300, f64::MIN_POSITIVE] {
        let ((gs, gv), (rs, rv)) = both!(on, unit_get(x));
        same("unit", &gs, &rs)?;
        same("fill(get)", &gv, &rv)?;
    }
    on.each_size("build::unit::reduction", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let ((gs, gv), (rs, rv)) = both!(on, sum_then_center(&xs));
        same("sum", &gs, &rs)?;
        same("map reading the sum", &gv, &rv)
    })
}

fn parameters_named_like_generated_code(on: &Target) -> Check {
    on.each_size("build::generated_names", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let ys = Vector::from_vec(rng.vec::<i64>(n + 1));
        let (g, r) = both!(on, generated_names(&xs, -7, &ys));
        same("zip_with", &g, &r)
    })
}

fn build_sweeps() -> Vec<Test> {
    vec![
        case("build::generate::f32", generate_f32),
        case("build::generate::i64", generate_i64),
        case("build::generate::u32_rank3", generate_u32),
        case("build::generate::tuples", generate_tuples),
        case("build::fill::f64", fill_f64_vec),
        case("build::fill::tuples", fill_tuples),
        case("build::iota::i32", iota_i32_vec),
        case("build::iota::f32", iota_f32_vec),
        case("build::iota::u64", iota_u64_vec),
        case("build::iota::usize", iota_usize_vec),
        case("build::unit::get", unit_and_get),
        case("build::generated_names", parameters_named_like_generated_code),
    ]
}

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
pub fn scalar_params(a: i32, b: u64, c: f32, d: bool, e: usize, f: f64) -> Scalar<(i32, u64, f32, bool, usize, f64)> {
    unit((a * 3, b + 1, c * 0.5, !d, e * 2, f - 1.0))
}

#[accel]
fn scaled(xs: Vector<f64>, a: f64, k: i64, flip: bool, shift: usize) -> Vector<f64> {
    xs.imap(|i, x| if flip { a * x - k as f64 } else { x + ((i + shift) % 7) as f64 })
}

fn map_f32_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::f32", Tier::Large, |n, rng| {
        let xs = Vector::from_vec(rng.f32s(n, -100.0, 100.0));
        let (g, r) = both!(on, map_f32(&xs));
        close_arrays(on, "map", &g, &r, 1.0)
    })
}

fn map_f64_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(on, map_f64(&xs));
        close_arrays(on, "map", &g, &r, 1.0)
    })
}

fn map_i32_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::i32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both!(on, map_i32(&xs));
        same("map", &g, &r)
    })
}

fn map_i64_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let (g, r) = both!(on, map_i64(&xs));
        same("map", &g, &r)
    })
}

fn map_u32_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::u32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        let (g, r) = both!(on, map_u32(&xs));
        same("map", &g, &r)
    })
}

fn map_u64_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::u64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u64>(n));
        let (g, r) = both!(on, map_u64(&xs));
        same("map", &g, &r)
    })
}

fn map_usize_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::usize", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<usize>(n));
        let (g, r) = both!(on, map_usize(&xs));
        same("map", &g, &r)
    })
}

fn map_bool_vec(on: &Target) -> Check {
    on.each_size("elementwise::map::bool", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<bool>(n));
        let (g, r) = both!(on, map_bool(&xs));
        same("map", &g, &r)
    })
}

/// Compares each float column of 6-tuples within the elementwise tolerance.
fn close6<F: Float>(on: &Target, what: &str, got: &[(F, F, F, F, F, F)], want: &[(F, F, F, F, F, F)]) -> Check {
    type Pick<F> = fn(&(F, F, F, F, F, F)) -> F;
    let picks: [(&str, Pick<F>); 6] =
        [("0", |t| t.0), ("1", |t| t.1), ("2", |t| t.2), ("3", |t| t.3), ("4", |t| t.4), ("5", |t| t.5)];
    for (k, pick) in picks {
        let g: Vec<F> = got.iter().map(pick).collect();
        let w: Vec<F> = want.iter().map(pick).collect();
        close(on, &format!("{what} .{k}"), &g, &w, 1e-6)?;
    }
    Ok(())
}

fn math_f32_vec(on: &Target) -> Check {
    on.each_size("elementwise::math::f32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n));
        let (g, r) = both!(on, math_f32(&xs));
        close6(on, "sin exp ln sqrt tanh erf", &g.to_vec(), &r.to_vec())
    })
}

fn math_f64_vec(on: &Target) -> Check {
    on.each_size("elementwise::math::f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(on, math_f64(&xs));
        close6(on, "cos exp log2 powf atan erf", &g.to_vec(), &r.to_vec())
    })
}

fn map_matrix_f32(on: &Target) -> Check {
    on.each_shape("elementwise::map::matrix_f32", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(on, map_matrix(&m));
        close_arrays(on, "map (matrix)", &g, &w, 1.0)
    })
}

fn map_rank3_i64(on: &Target) -> Check {
    for (a, b, c) in [(0, 2, 2), (2, 0, 3), (1, 1, 1), (3, 5, 7), (2, 129, 33), (17, 1, 4097), (64, 64, 65)] {
        let mut rng = Rng::new("elementwise::map::rank3_i64", a * b * c);
        let x = Array::from_shape_vec([a, b, c], rng.vec::<i64>(a * b * c))?;
        let (g, w) = both!(on, map_cube(&x));
        same(&format!("map (rank 3, {a}x{b}x{c})"), &g, &w)?;
    }
    Ok(())
}

fn map_casts(on: &Target) -> Check {
    on.each_size("elementwise::map::casts_i32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n));
        let (g, r) = both!(on, map_cast(&xs));
        same("i32 as f64, u32, i64", &g, &r)
    })
}

fn imap_i64(on: &Target) -> Check {
    on.each_size("elementwise::imap::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let (g, r) = both!(on, imap_vec(&xs));
        same("imap", &g, &r)
    })
}

fn imap_matrix_f32(on: &Target) -> Check {
    on.each_shape("elementwise::imap::matrix_f32", Tier::Medium, |r, c, rng| {
        let m = Matrix::from_shape_vec([r, c], rng.vec::<f32>(r * c))?;
        let (g, w) = both!(on, imap_matrix(&m));
        close_arrays(on, "imap (matrix)", &g, &w, 1.0)
    })
}

fn zip_with_f32_vec(on: &Target) -> Check {
    on.each_size("elementwise::zip_with::f32", Tier::Large, |n, rng| {
        // `ys` is longer: the result has the length of `xs`.
        let xs = Vector::from_vec(rng.f32s(n, -100.0, 100.0));
        let ys = Vector::from_vec(rng.f32s(n + 3, -100.0, 100.0));
        let (g, r) = both!(on, zip_with_f32(&xs, &ys));
        close_arrays(on, "zip_with", &g, &r, 1.0)?;
        if n >= LARGE_FROM {
            return Ok(());
        }
        let (g, r) = both!(on, zip_with_f32(&ys, &xs));
        close_arrays(on, "zip_with (shorter second)", &g, &r, 1.0)
    })
}

fn zip_with_mixed_vec(on: &Target) -> Check {
    on.each_size("elementwise::zip_with::i32_f64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i32>(n + 1));
        let ys = Vector::from_vec(rng.vec::<f64>(n));
        let (g, r) = both!(on, zip_with_mixed(&xs, &ys));
        close_arrays(on, "zip_with", &g, &r, 1.0)
    })
}

fn zip_with_matrix_u64(on: &Target) -> Check {
    on.each_shape("elementwise::zip_with::matrix_u64", Tier::Medium, |r, c, rng| {
        let a = Matrix::from_shape_vec([r, c], rng.vec::<u64>(r * c))?;
        // A different shape: the result is the intersection.
        let (r2, c2) = (r + rng.below(3), c.saturating_sub(rng.below(3)));
        let b = Matrix::from_shape_vec([r2, c2], rng.vec::<u64>(r2 * c2))?;
        let (g, w) = both!(on, zip_with_matrix(&a, &b));
        same("zip_with (matrices)", &g, &w)
    })
}

fn zip_with_bool(on: &Target) -> Check {
    on.each_size("elementwise::zip_with::bool", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<bool>(n));
        let ys = Vector::from_vec(rng.vec::<bool>(n + 2));
        let (g, r) = both!(on, zip_with_bools(&xs, &ys));
        same("zip_with (bools)", &g, &r)
    })
}

fn zip_and_unzip(on: &Target) -> Check {
    on.each_size("elementwise::zip_unzip::f32_i32", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f32>(n + 2));
        let ys = Vector::from_vec(rng.vec::<i32>(n));
        let ((gz, ga, gb), (rz, ra, rb)) = both!(on, zip_unzip(&xs, &ys));
        same("zip", &gz, &rz)?;
        same("unzip .0", &ga, &ra)?;
        same("unzip .1", &gb, &rb)
    })
}

fn unzip_u32(on: &Target) -> Check {
    on.each_size("elementwise::unzip::u32_bool", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<u32>(n));
        let ((ga, gb), (ra, rb)) = both!(on, unzip_mapped(&xs));
        same("unzip .0", &ga, &ra)?;
        same("unzip .1", &gb, &rb)
    })
}

fn zip_unzip_matrix(on: &Target) -> Check {
    on.each_shape("elementwise::zip_unzip::matrix", Tier::Medium, |r, c, rng| {
        let a = Matrix::from_shape_vec([r, c], rng.vec::<i64>(r * c))?;
        let b = Matrix::from_shape_vec([c, r], rng.vec::<f32>(r * c))?;
        let ((ga, gb), (ra, rb)) = both!(on, zip_matrix_unzip(&a, &b));
        same("zip, map, unzip .0", &ga, &ra)?;
        close_arrays(on, "zip, map, unzip .1", &gb, &rb, 1.0)
    })
}

fn map_tuples(on: &Target) -> Check {
    on.each_size("elementwise::map::tuple_f32_i32", Tier::Medium, |n, rng| {
        let xs: Vector<(f32, i32)> = rng.vec::<f32>(n).into_iter().zip(rng.vec::<i32>(n)).collect();
        let (g, r) = both!(on, map_tuple(&xs));
        let (g, r) = (g.to_vec(), r.to_vec());
        close(on, "map .0", &firsts(&g), &firsts(&r), 1.0)?;
        exact("map .1", &seconds(&g), &seconds(&r))
    })
}

fn map_nested_tuples(on: &Target) -> Check {
    on.each_size("elementwise::map::nested_tuple", Tier::Medium, |n, rng| {
        let (a, b, c) = (rng.vec::<i32>(n), rng.vec::<f32>(n), rng.vec::<u64>(n));
        let xs: Vector<((i32, f32), u64)> = (0..n).map(|i| ((a[i], b[i]), c[i])).collect();
        let (g, r) = both!(on, map_nested_tuple(&xs));
        let (g, r) = (g.to_vec(), r.to_vec());
        let ints = |v: &[((i32, f32), u64)]| v.iter().map(|p| (p.0.0, p.1)).collect::<Vec<_>>();
        let floats = |v: &[((i32, f32), u64)]| v.iter().map(|p| p.0.1).collect::<Vec<_>>();
        exact("map .0.0 and .1", &ints(&g), &ints(&r))?;
        // `p.0.1 - p.0.0 as f32` with i32 over its whole range: magnitudes up to 2^31.
        close(on, "map .0.1", &floats(&g), &floats(&r), 1.0)
    })
}

fn scalar_parameters(on: &Target) -> Check {
    for (a, b, c, d, e, f) in [(7, 3, 1.5, true, 9, -2.5), (i32::MAX, u64::MAX, -0.0, false, usize::MAX / 3, 1e300)] {
        let (g, r) = both!(on, scalar_params(a, b, c, d, e, f));
        same("scalar parameters", &g, &r)?;
    }
    on.each_size("elementwise::scalar_params", Tier::Small, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<f64>(n));
        for flip in [false, true] {
            let (a, k, shift) = (rng.f64_in(-3.0, 3.0), rng.below(1000) as i64 - 500, rng.below(100));
            let (g, r) = both!(on, scaled(&xs, a, k, flip, shift));
            close_arrays(on, "imap with scalar parameters", &g, &r, 1.0)?;
        }
        Ok(())
    })
}

fn sweeps() -> Vec<Test> {
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

#[accel]
fn map_i64_square_minus(xs: Vector<i64>) -> Vector<i64> {
    xs.map(|x| x * x - 5)
}

#[accel]
fn map_u32_hash(xs: Vector<u32>) -> Vector<u32> {
    xs.map(|x| x * 2654435761 + 1)
}

#[accel]
fn map_usize_affine(xs: Vector<usize>) -> Vector<usize> {
    xs.map(|x| x * 3 + 1)
}

#[accel]
fn map_bool_not(xs: Vector<bool>) -> Vector<bool> {
    xs.map(|b| !b)
}

#[accel]
fn map_i32_to_f64(xs: Vector<i32>) -> Vector<f64> {
    xs.map(|x| x as f64 * 0.5)
}

fn generate_vectors(on: &Target) -> Check {
    props(24, (size(), f32s()), |(n, a)| {
        let (cpu, interp) = both!(on, gen_f32(n, a));
        let want: Vec<f32> = (0..n).map(|i| (i as f32) * 0.5 - a).collect();
        all_same_bits(on, "generate", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(cpu.shape(), [n]);
        Ok(())
    })
}

fn generate_matrices(on: &Target) -> Check {
    props(24, shape(), |(r, c)| {
        let (cpu, interp) = both!(on, gen_i64_matrix(r, c));
        let want: Vec<i64> = (0..r).flat_map(|i| (0..c).map(move |j| (i as i64) * 1000 - (j as i64) * 7)).collect();
        all_same(on, "generate (matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(cpu.shape(), [r, c]);
        check_eq!(interp.shape(), [r, c]);
        Ok(())
    })
}

fn generate_rank3(on: &Target) -> Check {
    props(24, (0usize..6, 0usize..9, 0usize..13), |(a, b, c)| {
        let (cpu, interp) = both!(on, gen_cube(a, b, c));
        let mut want = Vec::new();
        for i in 0..a {
            for j in 0..b {
                for k in 0..c {
                    want.push((i * 100 + j * 10 + k) as u32);
                }
            }
        }
        all_same(on, "generate (rank 3)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(cpu.shape(), [a, b, c]);
        Ok(())
    })
}

fn generate_tuples_props(on: &Target) -> Check {
    props(24, size(), |n| {
        let (cpu, interp) = both!(on, gen_tuple(n));
        let want: Vec<(f64, i32)> = (0..n).map(|i| ((i as f64) * 0.25, (i as i32).wrapping_mul(-3))).collect();
        all_same(on, "generate (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn fill_builds_constant_arrays(on: &Target) -> Check {
    props(24, (size(), f64s(), shape(), small_i32s()), |(n, v, (r, c), w)| {
        let (cpu, interp) = both!(on, fill_f64(n, v));
        all_same_bits(on, "fill", &cpu.to_vec(), &interp.to_vec(), &vec![v; n])?;
        let (cpu, interp) = both!(on, fill_matrix(r, c, w));
        all_same(on, "fill (matrix of tuples)", &cpu.to_vec(), &interp.to_vec(), &vec![(w, w > 0); r * c])?;
        check_eq!(cpu.shape(), [r, c]);
        Ok(())
    })
}

fn iota_counts_in_the_element_type(on: &Target) -> Check {
    props(24, size(), |n| {
        let (cpu, interp) = both!(on, iota_i32(n));
        let want: Vec<i32> = (0..n as i32).collect();
        all_same(on, "iota::<i32>", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(on, iota_f32(n));
        let want: Vec<f32> = (0..n).map(|i| i as f32).collect();
        all_same_bits(on, "iota::<f32>", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(on, iota_u64(n));
        let want: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
        all_same(on, "iota (u64 from the context)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn unit_holds_one_element(on: &Target) -> Check {
    props(24, f64s(), |x| {
        let ((s_cpu, v_cpu), (s_int, v_int)) = both!(on, unit_get(x));
        all_same_bits(on, "unit", &s_cpu.to_vec(), &s_int.to_vec(), &[x * 2.0])?;
        all_same_bits(on, "fill of get", &v_cpu.to_vec(), &v_int.to_vec(), &[x * 2.0 + 1.0; 3])?;
        Ok(())
    })
}

fn map_float(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), vec_sized(f64s(), size())), |(xs, ys)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, map_f32(&v));
        let want: Vec<f32> = xs.iter().map(|x| x * 1.5 - 2.0).collect();
        all_same_bits(on, "map f32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, map_f64(&v));
        let want: Vec<f64> = ys.iter().map(|x| x / 3.0 + x * x).collect();
        all_same_bits(on, "map f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn map_signed_integers_wrap(on: &Target) -> Check {
    props(24, (vec_sized(i32s(), size()), vec_sized(i64s(), size())), |(xs, ys)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, map_i32(&v));
        let want: Vec<i32> = xs.iter().map(|x| x.wrapping_mul(3).wrapping_add(7)).collect();
        all_same(on, "map i32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, map_i64_square_minus(&v));
        let want: Vec<i64> = ys.iter().map(|x| x.wrapping_mul(*x).wrapping_sub(5)).collect();
        all_same(on, "map i64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn map_unsigned_integers_wrap(on: &Target) -> Check {
    props(24, (vec_sized(u32s(), size()), vec_sized(u64s(), size())), |(xs, ys)| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, map_u32_hash(&v));
        let want: Vec<u32> = xs.iter().map(|x| x.wrapping_mul(2654435761).wrapping_add(1)).collect();
        all_same(on, "map u32", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let v = Vector::from_vec(ys.clone());
        let (cpu, interp) = both!(on, map_u64(&v));
        let want: Vec<u64> = ys.iter().map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(x / 7)).collect();
        all_same(on, "map u64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn map_usize_bool_and_conversion(on: &Target) -> Check {
    props(
        24,
        (vec_sized(0usize..1_000_000, size()), prop::collection::vec(any::<bool>(), 0..300), vec_sized(i32s(), size())),
        |(xs, bs, is)| {
            let v = Vector::from_vec(xs.clone());
            let (cpu, interp) = both!(on, map_usize_affine(&v));
            let want: Vec<usize> = xs.iter().map(|x| x * 3 + 1).collect();
            all_same(on, "map usize", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let v = Vector::from_vec(bs.clone());
            let (cpu, interp) = both!(on, map_bool_not(&v));
            let want: Vec<bool> = bs.iter().map(|b| !b).collect();
            all_same(on, "map bool", &cpu.to_vec(), &interp.to_vec(), &want)?;
            let v = Vector::from_vec(is.clone());
            let (cpu, interp) = both!(on, map_i32_to_f64(&v));
            let want: Vec<f64> = is.iter().map(|&x| x as f64 * 0.5).collect();
            all_same_bits(on, "map i32 -> f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
            Ok(())
        },
    )
}

fn map_matrices_and_rank3(on: &Target) -> Check {
    props(
        24,
        (matrix_of(f32s()), (0usize..5, 0usize..7, 0usize..11), any::<u64>()),
        |(((r, c), data), (a, b, d), seed)| {
            let m = Matrix::from_shape_vec([r, c], data.clone()).unwrap();
            let (cpu, interp) = both!(on, map_matrix(&m));
            let want: Vec<f32> = data.iter().map(|x| x * x - 1.0).collect();
            all_same_bits(on, "map (matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(cpu.shape(), [r, c]);
            check_eq!(interp.shape(), [r, c]);
            let cube_data = SplitMix::new(seed).i64s(a * b * d);
            let cube = Array::from_shape_vec([a, b, d], cube_data.clone()).unwrap();
            let (cpu, interp) = both!(on, map_cube(&cube));
            let want: Vec<i64> = cube_data.iter().map(|x| x.wrapping_mul(2).wrapping_sub(1)).collect();
            all_same(on, "map (rank 3)", &cpu.to_vec(), &interp.to_vec(), &want)?;
            check_eq!(cpu.shape(), [a, b, d]);
            Ok(())
        },
    )
}

fn map_tuples_props(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), any::<u64>()), |(xs, seed)| {
        let mut rng = SplitMix::new(seed);
        let pairs: Vec<(f32, i32)> = xs.iter().map(|&x| (x, rng.next_u64() as i32 % 1000)).collect();
        let v: Vector<(f32, i32)> = pairs.iter().copied().collect();
        let (cpu, interp) = both!(on, map_tuple(&v));
        let want: Vec<(f32, i32)> = pairs.iter().map(|&(a, b)| (a * 2.0 + b as f32, b - 1)).collect();
        // Tuples of floats compare with `==`: exact, as for any elementwise float code.
        all_same(on, "map (tuples)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn imap_passes_the_index(on: &Target) -> Check {
    props(24, (vec_sized(i64s(), size()), matrix_of(f32s())), |(xs, ((r, c), data))| {
        let v = Vector::from_vec(xs.clone());
        let (cpu, interp) = both!(on, imap_vec(&v));
        let want: Vec<i64> = xs.iter().enumerate().map(|(i, x)| x.wrapping_mul(i as i64).wrapping_sub(1)).collect();
        all_same(on, "imap (vector)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let m = Matrix::from_shape_vec([r, c], data.clone()).unwrap();
        let (cpu, interp) = both!(on, imap_matrix(&m));
        let want: Vec<f32> = (0..r * c).map(|k| data[k] + ((k / c) as f32) * 100.0 + (k % c) as f32).collect();
        all_same_bits(on, "imap (matrix)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn zip_with_takes_the_intersection(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), vec_sized(f32s(), size())), |(xs, ys)| {
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(on, zip_with_f32(&a, &b));
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| x * y + 1.0).collect();
        all_same_bits(on, "zip_with", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(cpu.shape(), [xs.len().min(ys.len())]);
        Ok(())
    })
}

fn zip_with_of_different_types(on: &Target) -> Check {
    props(24, (vec_sized(i32s(), size()), vec_sized(f64s(), size())), |(xs, ys)| {
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(on, zip_with_mixed(&a, &b));
        let want: Vec<f64> = xs.iter().zip(&ys).map(|(&x, y)| x as f64 - y).collect();
        all_same_bits(on, "zip_with i32 f64", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

fn zip_with_matrices_intersects_each_dimension(on: &Target) -> Check {
    props(24, (matrix_of(u64s()), matrix_of(u64s())), |(((r1, c1), d1), ((r2, c2), d2))| {
        let a = Matrix::from_shape_vec([r1, c1], d1.clone()).unwrap();
        let b = Matrix::from_shape_vec([r2, c2], d2.clone()).unwrap();
        let (cpu, interp) = both!(on, zip_with_matrix(&a, &b));
        let (r, c) = (r1.min(r2), c1.min(c2));
        let want: Vec<u64> = (0..r)
            .flat_map(|i| (0..c).map(move |j| (i, j)))
            .map(|(i, j)| d1[i * c1 + j] ^ d2[i * c2 + j].wrapping_shl(3))
            .collect();
        all_same(on, "zip_with (matrices)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        check_eq!(cpu.shape(), [r, c]);
        check_eq!(interp.shape(), [r, c]);
        Ok(())
    })
}

fn zip_then_unzip(on: &Target) -> Check {
    props(24, (vec_sized(f32s(), size()), vec_sized(i32s(), size())), |(xs, ys)| {
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let ((z_cpu, a_cpu, b_cpu), (z_int, a_int, b_int)) = both!(on, zip_unzip(&a, &b));
        let want: Vec<(f32, i32)> = xs.iter().copied().zip(ys.iter().copied()).collect();
        all_same(on, "zip", &z_cpu.to_vec(), &z_int.to_vec(), &want)?;
        let firsts: Vec<f32> = want.iter().map(|p| p.0).collect();
        let seconds: Vec<i32> = want.iter().map(|p| p.1).collect();
        all_same_bits(on, "unzip .0", &a_cpu.to_vec(), &a_int.to_vec(), &firsts)?;
        all_same(on, "unzip .1", &b_cpu.to_vec(), &b_int.to_vec(), &seconds)?;
        Ok(())
    })
}

fn unzip_of_computed_tuples(on: &Target) -> Check {
    props(24, vec_sized(u32s(), size()), |xs| {
        let v = Vector::from_vec(xs.clone());
        let ((h_cpu, e_cpu), (h_int, e_int)) = both!(on, unzip_mapped(&v));
        let halves: Vec<u32> = xs.iter().map(|x| x / 2).collect();
        let evens: Vec<bool> = xs.iter().map(|x| x % 2 == 0).collect();
        all_same(on, "unzip .0", &h_cpu.to_vec(), &h_int.to_vec(), &halves)?;
        all_same(on, "unzip .1", &e_cpu.to_vec(), &e_int.to_vec(), &evens)?;
        Ok(())
    })
}

fn zip_and_unzip_matrices(on: &Target) -> Check {
    props(24, (matrix_of(i64s()), matrix_of(f32s())), |(((r1, c1), d1), ((r2, c2), d2))| {
        let a = Matrix::from_shape_vec([r1, c1], d1.clone()).unwrap();
        let b = Matrix::from_shape_vec([r2, c2], d2.clone()).unwrap();
        let ((x_cpu, y_cpu), (x_int, y_int)) = both!(on, zip_matrix_unzip(&a, &b));
        let (r, c) = (r1.min(r2), c1.min(c2));
        let cells: Vec<(usize, usize)> = (0..r).flat_map(|i| (0..c).map(move |j| (i, j))).collect();
        let xs: Vec<i64> = cells.iter().map(|&(i, j)| d1[i * c1 + j].wrapping_add(1)).collect();
        let ys: Vec<f32> = cells.iter().map(|&(i, j)| d2[i * c2 + j] * 0.5).collect();
        all_same(on, "zip/unzip (matrix) .0", &x_cpu.to_vec(), &x_int.to_vec(), &xs)?;
        all_same_bits(on, "zip/unzip (matrix) .1", &y_cpu.to_vec(), &y_int.to_vec(), &ys)?;
        check_eq!(x_cpu.shape(), [r, c]);
        check_eq!(y_int.shape(), [r, c]);
        Ok(())
    })
}

/// Large inputs cross the CPU backend's chunk boundaries; the interpreter costs a few tens of
/// milliseconds per 100_000 elements, so only a few cases.
fn large_map_and_zip_with(on: &Target) -> Check {
    props(4, (large_size(), any::<u64>()), |(n, seed)| {
        let mut rng = SplitMix::new(seed);
        let xs = rng.f32s(n, -100.0, 100.0);
        let ys = rng.f32s(n + 3, -100.0, 100.0);
        let (a, b) = (Vector::from_vec(xs.clone()), Vector::from_vec(ys.clone()));
        let (cpu, interp) = both!(on, map_f32(&a));
        let want: Vec<f32> = xs.iter().map(|x| x * 1.5 - 2.0).collect();
        all_same_bits(on, "map (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let (cpu, interp) = both!(on, zip_with_f32(&a, &b));
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| x * y + 1.0).collect();
        all_same_bits(on, "zip_with (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        let is = rng.i64s(n);
        let v = Vector::from_vec(is.clone());
        let (cpu, interp) = both!(on, imap_vec(&v));
        let want: Vec<i64> = is.iter().enumerate().map(|(i, x)| x.wrapping_mul(i as i64).wrapping_sub(1)).collect();
        all_same(on, "imap (large)", &cpu.to_vec(), &interp.to_vec(), &want)?;
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    let mut tests = build_sweeps();
    tests.extend(sweeps());
    tests.extend([
        case("elementwise::generate_vectors", generate_vectors),
        case("elementwise::generate_matrices", generate_matrices),
        case("elementwise::generate_rank3", generate_rank3),
        case("elementwise::generate_tuples", generate_tuples_props),
        case("elementwise::fill_builds_constant_arrays", fill_builds_constant_arrays),
        case("elementwise::iota_counts_in_the_element_type", iota_counts_in_the_element_type),
        case("elementwise::unit_holds_one_element", unit_holds_one_element),
        case("elementwise::map_float", map_float),
        case("elementwise::map_signed_integers_wrap", map_signed_integers_wrap),
        case("elementwise::map_unsigned_integers_wrap", map_unsigned_integers_wrap),
        case("elementwise::map_usize_bool_and_conversion", map_usize_bool_and_conversion),
        case("elementwise::map_matrices_and_rank3", map_matrices_and_rank3),
        case("elementwise::map_tuples", map_tuples_props),
        case("elementwise::imap_passes_the_index", imap_passes_the_index),
        case("elementwise::zip_with_takes_the_intersection", zip_with_takes_the_intersection),
        case("elementwise::zip_with_of_different_types", zip_with_of_different_types),
        case("elementwise::zip_with_matrices_intersects_each_dimension", zip_with_matrices_intersects_each_dimension),
        case("elementwise::zip_then_unzip", zip_then_unzip),
        case("elementwise::unzip_of_computed_tuples", unzip_of_computed_tuples),
        case("elementwise::zip_and_unzip_matrices", zip_and_unzip_matrices),
        case("elementwise::large_map_and_zip_with", large_map_and_zip_with),
    ]);
    tests
}
