//! Build: `generate`, `fill`, `iota`, `unit` and `get`, on the GPU against the interpreter.

use crate::harness::*;
use accel::prelude::*;

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

fn generate_f32() -> Check {
    each_size("build::generate::f32", Tier::Medium, |n, rng| {
        let a = rng.f64_in(-10.0, 10.0) as f32;
        let (g, r) = both!(gen_f32(n, a));
        close_arrays("generate", &g, &r, 1.0)
    })
}

fn generate_i64() -> Check {
    each_shape("build::generate::i64", Tier::Medium, |r, c, _| {
        let (g, w) = both!(gen_i64_matrix(r, c));
        same("generate (matrix)", &g, &w)
    })
}

fn generate_u32() -> Check {
    for (a, b, c) in [(0, 3, 4), (3, 0, 4), (1, 1, 1), (2, 3, 5), (7, 33, 129), (3, 1, 4097), (65, 64, 63)] {
        let (g, w) = both!(gen_cube(a, b, c));
        same(&format!("generate (rank 3, {a}x{b}x{c})"), &g, &w)?;
    }
    Ok(())
}

fn generate_tuples() -> Check {
    each_size("build::generate::tuples", Tier::Medium, |n, _| {
        let (g, r) = both!(gen_tuple(n));
        let (g, r) = (g.to_vec(), r.to_vec());
        close("generate .0", &firsts(&g), &firsts(&r), 1.0)?;
        exact("generate .1", &seconds(&g), &seconds(&r))?;
        let (g, r) = both!(gen_bool_u64(n));
        same("generate (bool, u64)", &g, &r)
    })
}

fn fill_f64_vec() -> Check {
    each_size("build::fill::f64", Tier::Medium, |n, rng| {
        let v = rng.f64_in(-5.0, 5.0);
        let (g, r) = both!(fill_f64(n, v));
        same("fill", &g, &r)
    })
}

fn fill_tuples() -> Check {
    each_shape("build::fill::tuples", Tier::Medium, |r, c, rng| {
        let v = rng.below(200) as i32 - 100;
        let (g, w) = both!(fill_matrix(r, c, v));
        same("fill (matrix of (i32, bool))", &g, &w)
    })
}

fn iota_i32_vec() -> Check {
    each_size("build::iota::i32", Tier::Medium, |n, _| {
        let (g, r) = both!(iota_i32(n));
        same("iota i32", &g, &r)
    })
}

fn iota_f32_vec() -> Check {
    each_size("build::iota::f32", Tier::Medium, |n, _| {
        let (g, r) = both!(iota_f32(n));
        same("iota f32", &g, &r)
    })
}

fn iota_u64_vec() -> Check {
    each_size("build::iota::u64", Tier::Medium, |n, _| {
        let (g, r) = both!(iota_u64(n));
        same("iota u64, times 3", &g, &r)
    })
}

fn iota_usize_vec() -> Check {
    each_size("build::iota::usize", Tier::Medium, |n, _| {
        let (g, r) = both!(iota_usize(n));
        same("iota usize", &g, &r)
    })
}

fn unit_and_get() -> Check {
    for x in [0.5, -3.25, 1e300, f64::MIN_POSITIVE] {
        let ((gs, gv), (rs, rv)) = both!(unit_get(x));
        same("unit", &gs, &rs)?;
        same("fill(get)", &gv, &rv)?;
    }
    each_size("build::unit::reduction", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        let ((gs, gv), (rs, rv)) = both!(sum_then_center(&xs));
        same("sum", &gs, &rs)?;
        same("map reading the sum", &gv, &rv)
    })
}

pub fn cases() -> Vec<Case> {
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
    ]
}
