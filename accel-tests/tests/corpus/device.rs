//! Results that stay on the device: a GPU result passed straight into further `#[accel]` calls
//! (no copy through the host in between), one read on the host twice (and again after being
//! passed on), and several threads using the one runtime at the same time.

use crate::compare::*;
use crate::harness::*;
use accel::prelude::*;

#[accel]
fn step(xs: Vector<i64>) -> Vector<i64> {
    xs.map(|x| x * 3 + 1)
}

#[accel]
fn keep_odd(xs: Vector<i64>) -> Vector<i64> {
    xs.filter(|x| x % 2 != 0)
}

#[accel]
fn prefix_and_total(xs: Vector<i64>) -> (Vector<i64>, Scalar<i64>) {
    (xs.scanl1(|a, b| a + b), xs.sum())
}

#[accel]
fn scale_by(xs: Vector<i64>, s: Scalar<i64>) -> Vector<i64> {
    xs.map(|x| x ^ s.get())
}

#[accel]
fn blur_rows(m: Matrix<f32>) -> Matrix<f32> {
    m.stencil3x3(Wrap, |n| (n[1][0] + n[1][1] * 2.0 + n[1][2]) * 0.25)
}

fn chained_calls(on: &Target) -> Check {
    on.each_size("device::chain::i64", Tier::Medium, |n, rng| {
        let xs = Vector::from_vec(rng.vec::<i64>(n));
        // GPU results feed the next GPU call directly.
        let a = backend!(on, step(&xs));
        let b = backend!(on, keep_odd(&a));
        let (p, t) = backend!(on, prefix_and_total(&b));
        let c = backend!(on, scale_by(&p, &t));
        let c2 = backend!(on, scale_by(&p, &t));
        // The same chain in the interpreter.
        let ra = reference!(step(&xs));
        let rb = reference!(keep_odd(&ra));
        let (rp, rt) = reference!(prefix_and_total(&rb));
        let rc = reference!(scale_by(&rp, &rt));
        same("map, filter, scan and sum, map", &c, &rc)?;
        same("the same call on the same device results again", &c2, &rc)?;
        // Intermediate results read afterwards are what they were.
        same("the filtered vector, read last", &b, &rb)?;
        same("the total, read last", &t, &rt)
    })
}

fn read_twice(on: &Target) -> Check {
    on.each_size("device::read_twice::f32", Tier::Medium, |n, rng| {
        let m = Matrix::from_shape_vec([1, n], rng.vec::<f32>(n))?;
        let g = backend!(on, blur_rows(&m));
        let w = reference!(blur_rows(&m));
        ok("downloading", g.download().map(|_| ()))?;
        let (first, second) = (g.to_vec(), g.to_vec());
        exact("two host reads of one result", &first, &second)?;
        close_arrays(on, "the result", &g, &w, 1.0)?;
        if n > 0 {
            exact("one element", &[g.get_linear(n - 1)], &[first[n - 1]])?;
        }
        // Read on the host, then passed back to the device.
        let g2 = backend!(on, blur_rows(&g));
        let w2 = reference!(blur_rows(&w));
        close_arrays(on, "the result passed on after host reads", &g2, &w2, 1.0)?;
        exact("the first result, read a third time", &g.to_vec(), &first)
    })
}

fn concurrent_calls(on: &Target) -> Check {
    let sizes = [0usize, 1, 33, 4097, 65_537, (1 << 20) + 1];
    let results: Vec<Check> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                s.spawn(move || -> Check {
                    let n = sizes[t % sizes.len()];
                    if !on.fits(n) {
                        return Ok(());
                    }
                    let mut rng = Rng::new("device::concurrent", n + t);
                    let xs = Vector::from_vec(rng.vec::<i64>(n));
                    for round in 0..4 {
                        let (p, total) = backend!(on, prefix_and_total(&xs));
                        let (rp, rtotal) = reference!(prefix_and_total(&xs));
                        same(&format!("thread {t}, round {round}: prefix sums"), &p, &rp)?;
                        same(&format!("thread {t}, round {round}: total"), &total, &rtotal)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into()))).collect()
    });
    results.into_iter().collect()
}

fn sweeps() -> Vec<Test> {
    vec![
        case("device::chain::i64", chained_calls),
        case("device::read_twice::f32", read_twice),
        case("device::concurrent::i64", concurrent_calls),
    ]
}

pub fn tests() -> Vec<Test> {
    sweeps().into_iter().map(Test::cuda_only).collect()
}
