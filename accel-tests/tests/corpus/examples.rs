//! The examples of `examples/src` against the interpreter, at a few sizes each. Dot product,
//! SAXPY, Black-Scholes, histogram, Mandelbrot, blur, primes, the Sieve, breadth-first search
//! and quicksort run on the GPU only (their own unit tests run them on the CPU); k-means, the
//! Game of Life, N-body, radix sort, Canny edges and fluid flow, programs of calls between `#[accel]`
//! functions, run on every backend and are checked against their plain-Rust oracles too.

use crate::compare::*;
use crate::harness::*;
use accel::prelude::*;
use accel_examples::rng::SplitMix64;
use accel_examples::{
    bfs, black_scholes, blur, canny, dotp, filter, fluid, histogram, kmeans, life, mandelbrot, nbody, quicksort, radix,
    saxpy, sieve,
};

fn dot_product(on: &Target) -> Check {
    on.each_size("examples::dotp", Tier::Medium, |n, rng| {
        let (x, y) = (rng.f32s(n, -1.0, 1.0), rng.f32s(n + 3, -1.0, 1.0));
        let abs: f64 = x.iter().zip(&y).map(|(a, b)| f64::from(a.abs()) * f64::from(b.abs())).sum();
        let (xs, ys) = (Vector::from_vec(x), Vector::from_vec(y));
        let (g, r) = both!(on, dotp::dotp(&xs, &ys));
        summed("dotp", &[g.get()], &[r.get()], &[abs as f32])
    })
}

fn saxpy_example(on: &Target) -> Check {
    on.each_size("examples::saxpy", Tier::Medium, |n, rng| {
        let a = rng.f64_in(-2.0, 2.0) as f32;
        let (xs, ys) = (Vector::from_vec(rng.f32s(n + 5, -1.0, 1.0)), Vector::from_vec(rng.f32s(n, -1.0, 1.0)));
        let (g, r) = both!(on, saxpy::saxpy(a, &xs, &ys));
        close_arrays(on, "saxpy", &g, &r, 1.0)
    })
}

fn black_scholes_example(on: &Target) -> Check {
    on.each_size("examples::black_scholes", Tier::Small, |n, rng| {
        let price = rng.f32s(n, 5.0, 30.0);
        let strike = rng.f32s(n, 1.0, 100.0);
        let years = rng.f32s(n + 1, 0.25, 10.0);
        // Prices are differences of terms as large as the price or the strike: the device's
        // `exp` and `erf` may differ from the host's by an ulp, so the scale is that magnitude.
        let scale: Vec<f64> = price.iter().zip(&strike).map(|(&s, &k)| f64::from(s.max(k))).collect();
        let (p, s, y) = (Vector::from_vec(price), Vector::from_vec(strike), Vector::from_vec(years));
        let ((gc, gp), (rc, rp)) = both!(on, black_scholes::black_scholes(&p, &s, &y));
        close_scaled(on, "calls", &gc.to_vec(), &rc.to_vec(), &scale)?;
        close_scaled(on, "puts", &gp.to_vec(), &rp.to_vec(), &scale)?;
        // Fast math: the interpreter runs the IEEE formula; the GPU's approximations stay well
        // inside the same tolerance (`ln` of `s / k` near 1 has an absolute error below 2^-21).
        let ((gc, gp), (rc, rp)) = both!(on, black_scholes::black_scholes_fast(&p, &s, &y));
        close_scaled(on, "calls (fast math)", &gc.to_vec(), &rc.to_vec(), &scale)?;
        close_scaled(on, "puts (fast math)", &gp.to_vec(), &rp.to_vec(), &scale)
    })
}

fn histogram_example(on: &Target) -> Check {
    on.each_size("examples::histogram", Tier::Medium, |n, rng| {
        let mut xs = rng.f32s(n, -1.2, 1.2);
        if n > 2 {
            xs[0] = -1.0;
            xs[1] = 1.0;
        }
        let xs = Vector::from_vec(xs);
        for bins in [1, 17, 256] {
            let (g, r) = both!(on, histogram::histogram(&xs, -1.0, 1.0, bins));
            same(&format!("histogram into {bins} bins"), &g, &r)?;
        }
        Ok(())
    })
}

fn mandelbrot_example(on: &Target) -> Check {
    for (rows, cols, max_iter) in
        [(0, 5, 10), (3, 0, 10), (1, 1, 10), (17, 1, 50), (1, 17, 0), (33, 65, 100), (100, 120, 200)]
    {
        let (g, r) = both!(on, mandelbrot::mandelbrot(rows, cols, max_iter));
        same(&format!("mandelbrot {rows}x{cols}, {max_iter} iterations"), &g, &r)?;
    }
    Ok(())
}

fn blur_example(on: &Target) -> Check {
    on.each_shape("examples::blur", Tier::Medium, |r, c, rng| {
        let img = Matrix::from_shape_vec([r, c], rng.f32s(r * c, 0.0, 1.0))?;
        let (g, w) = both!(on, blur::blur(&img));
        close_arrays(on, "blur", &g, &w, 1.0)
    })
}

fn primes_example(on: &Target) -> Check {
    on.each_size("examples::primes", Tier::Small, |n, rng| {
        let mut xs: Vec<u32> = (0..n).map(|_| rng.below(10_000) as u32).collect();
        for (x, special) in xs.iter_mut().zip([0, 1, 2, 3, 4, 25, 4_294_967_291, u32::MAX]) {
            *x = special;
        }
        let (g, r) = both!(on, filter::primes(&Vector::from_vec(xs)));
        same("primes", &g, &r)
    })
}

fn sieve_example(on: &Target) -> Check {
    on.each_size("examples::sieve", Tier::Small, |n, _| {
        let limit = (n * 37) as u32;
        let (g, r) = both!(on, sieve::primes_below(limit));
        same(&format!("primes below {limit}"), &g, &r)
    })
}

fn bfs_example(on: &Target) -> Check {
    on.each_size("examples::bfs", Tier::Small, |n, rng| {
        // Up to 4 neighbours each, and a chain through every node so that levels run deep.
        let rows: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                let mut row: Vec<u32> = (0..rng.below(5)).map(|_| rng.below(n) as u32).collect();
                if v % 3 == 0 && v + 1 < n {
                    row.push(v as u32 + 1);
                }
                row
            })
            .collect();
        let g = Nested::from_rows(rows);
        let (levels, r) = both!(on, bfs::bfs_levels(&g, (n / 2) as u32));
        same("bfs levels", &levels, &r)
    })
}

fn quicksort_example(on: &Target) -> Check {
    on.each_size("examples::quicksort", Tier::Small, |n, rng| {
        // Few distinct values (long runs equal to their pivot) and many.
        let range = if n % 2 == 0 { 7 } else { u32::MAX as usize };
        let xs = Vector::from_vec((0..n).map(|_| rng.below(range) as i32).collect());
        let (g, r) = both!(on, quicksort::quicksort(&xs));
        let mut want = xs.to_vec();
        want.sort_unstable();
        same("quicksort", &g, &r)?;
        check!(g.to_vec() == want);
        Ok(())
    })
}

fn kmeans_example(on: &Target) -> Check {
    // No point, one, a few, a thousand and a million and three (checked against the
    // interpreter up to the thousand: it runs every step element by element).
    for (n, k) in [(0, 3), (1, 1), (1, 4), (7, 3), (1000, 5), (1_000_003, 8)] {
        let mut rng = SplitMix64::new(Rng::new("examples::kmeans", n).next_u64());
        // On a grid of 1/64: every backend sums the clusters exactly, so all agree bit for bit.
        let (points, initial) = kmeans::clustered(&mut rng, n, k);
        let ((xs, ys), (cx, cy)) = (kmeans::columns(&points), kmeans::columns(&initial));
        let max_steps = 30;
        let (gx, gy, ga, steps) = backend!(on, kmeans::kmeans(&xs, &ys, &cx, &cy, max_steps));
        let (want, want_a, want_steps) = kmeans::sequential(&points, &initial, max_steps);
        let (wx, wy) = kmeans::columns(&want);
        let what = format!("{n} points, {k} centroids");
        exact(&format!("{what}: x vs oracle"), &gx.to_vec(), &wx.to_vec())?;
        exact(&format!("{what}: y vs oracle"), &gy.to_vec(), &wy.to_vec())?;
        exact(&format!("{what}: clusters vs oracle"), &ga.to_vec(), &want_a)?;
        check_eq!(steps.get(), want_steps, "{what}");
        check!(n < 1000 || steps.get() > 1, "{what}: {} steps", steps.get());
        if n <= 1000 {
            let (rx, ry, ra, rs) = reference!(kmeans::kmeans(&xs, &ys, &cx, &cy, max_steps));
            same(&format!("{what}: x"), &gx, &rx)?;
            same(&format!("{what}: y"), &gy, &ry)?;
            same(&format!("{what}: clusters"), &ga, &ra)?;
            same(&format!("{what}: steps"), &steps, &rs)?;
        }
    }
    Ok(())
}

fn life_example(on: &Target) -> Check {
    for (rows, cols) in [(0, 0), (1, 1), (1, 6), (5, 7), (257, 129)] {
        let mut rng = Rng::new("examples::life", rows * 1000 + cols);
        // About a third of the cells alive.
        let cells: Vec<u32> = (0..rows * cols).map(|_| u32::from(rng.below(3) == 0)).collect();
        check!(rows * cols < 100 || cells.contains(&1));
        let board = Matrix::from_shape_vec([rows, cols], cells.clone())?;
        let mut want = cells;
        for generations in 0..5 {
            let (g, r) = both!(on, life::life(&board, generations));
            let what = format!("{rows}x{cols} after {generations} generations");
            same(&what, &g, &r)?;
            exact(&format!("{what} vs oracle"), &g.to_vec(), &want)?;
            want = life::sequential_generation(&want, rows, cols);
        }
    }
    // A glider comes back to its shape every 4 generations, one cell down and right, across the
    // torus's edges.
    let (rows, cols) = (5, 7);
    let glider = Matrix::from_shape_vec([rows, cols], life::glider(rows, cols, 0, 0))?;
    for laps in 1..=8 {
        let (g, r) = both!(on, life::life(&glider, 4 * laps));
        same(&format!("a glider after {laps} laps"), &g, &r)?;
        exact(
            &format!("a glider after {laps} laps"),
            &g.to_vec(),
            &life::glider(rows, cols, laps as usize, laps as usize),
        )?;
    }
    Ok(())
}

fn nbody_example(on: &Target) -> Check {
    // The interpreter runs every pair element by element: at most a thousand bodies.
    for n in [0, 1, 2, 33, 257, 1000] {
        let b = nbody::random_bodies(n, Rng::new("examples::nbody", n).next_u64());
        let softening = 0.05f32;
        // A sum's rounding is relative to the sum of its terms' magnitudes, not to the sum.
        let oracle: Vec<_> = (0..n).map(|i| nbody::sequential_acceleration(&b, softening, i)).collect();
        let magnitudes: Vec<Vec<f64>> = (0..3).map(|k| oracle.iter().map(|(_, m)| m[k]).collect()).collect();
        let ((gx, gy, gz), (rx, ry, rz)) = both!(on, nbody::accelerations(&b.px, &b.py, &b.pz, &b.mass, softening));
        let ((fx, fy, fz), _) = both!(on, nbody::accelerations_fast(&b.px, &b.py, &b.pz, &b.mass, softening));
        for (k, (g, f, r)) in [(&gx, &fx, &rx), (&gy, &fy, &ry), (&gz, &fz, &rz)].into_iter().enumerate() {
            let what = format!("{n} bodies, component {k}");
            check_eq!(g.len(), n, "{what}");
            close_scaled(on, &what, &g.to_vec(), &r.to_vec(), &magnitudes[k])?;
            close_scaled(on, &format!("{what} (fast math)"), &f.to_vec(), &r.to_vec(), &magnitudes[k])?;
            // The interpreter against the f64 oracle: each of the n additions rounds once.
            for (i, (got, (want, magnitude))) in r.to_vec().iter().zip(&oracle).enumerate() {
                let bound = (n as f64 + 8.0) * f64::from(f32::EPSILON) * magnitude[k];
                let within = (f64::from(*got) - want[k]).abs() <= bound;
                check!(within, "{what}, body {i}: {got} against {}", want[k]);
            }
        }
    }
    Ok(())
}

fn radix_example(on: &Target) -> Check {
    on.each_size("examples::radix", Tier::Small, |n, rng| {
        // Keys over the whole range, and keys of few values (long runs of equal keys).
        let range = if n % 2 == 0 { 7 } else { u32::MAX as usize };
        let keys = Vector::from_vec((0..n).map(|_| rng.below(range) as u32).collect());
        let (g, r) = both!(on, radix::radix_sort(&keys));
        let mut want = keys.to_vec();
        want.sort_unstable();
        same("radix sort", &g, &r)?;
        exact("radix sort vs sort", &g.to_vec(), &want)
    })
}

fn canny_example(on: &Target) -> Check {
    // Empty, a pixel, a row, a column, odd shapes, and one past the stencil's tiles.
    for (rows, cols) in [(0, 0), (1, 1), (1, 9), (9, 1), (33, 65), (130, 257)] {
        let img = canny::test_image(rows, cols, Rng::new("examples::canny", rows * 1000 + cols).next_u64());
        let (low, high) = (0.5, 1.5);
        let (g, r) = both!(on, canny::edges(&img, low, high));
        let what = format!("{rows}x{cols}");
        same(&what, &g, &r)?;
        exact(
            &format!("{what} vs oracle"),
            &g.to_vec(),
            &canny::sequential_edges(&img.to_vec(), rows, cols, low, high),
        )?;
    }
    Ok(())
}

fn fluid_example(on: &Target) -> Check {
    let p = fluid::Params::DEFAULT;
    // Empty, a cell, a row, a column, odd shapes, and one past the stencil's tiles.
    for (rows, cols) in [(0, 0), (1, 1), (1, 9), (9, 1), (33, 65), (70, 257)] {
        let state = fluid::Fluid::test_state(rows, cols, Rng::new("examples::fluid", rows * 1000 + cols).next_u64());
        let [d, u, v, s, fu, fv] = state.matrices();
        let (g, r) = both!(on, fluid::step(&d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, p.iters));
        let want = fluid::sequential_step(&state, p);
        for (k, (g, r, want)) in
            [(&g.0, &r.0, &want.0), (&g.1, &r.1, &want.1), (&g.2, &r.2, &want.2)].into_iter().enumerate()
        {
            let what = format!("{rows}x{cols}, field {k}");
            // IEEE operations in the same order on every backend: the same bits.
            same(&what, g, r)?;
            exact(&format!("{what} (interpreter vs oracle)"), &r.to_vec(), want)?;
        }
    }
    // A few steps inside `awhile`, sources applied at each.
    let (rows, cols, steps) = (20, 30, 3);
    let mut state = fluid::Fluid::test_state(rows, cols, 7);
    let [d, u, v, s, fu, fv] = state.matrices();
    let (g, r) = both!(on, fluid::simulate(&d, &u, &v, &s, &fu, &fv, p.dt, p.viscosity, p.diffusion, 5, steps));
    for _ in 0..steps {
        (state.density, state.u, state.v) = fluid::sequential_step(&state, fluid::Params { iters: 5, ..p });
    }
    for (k, (g, r, want)) in
        [(&g.0, &r.0, &state.density), (&g.1, &r.1, &state.u), (&g.2, &r.2, &state.v)].into_iter().enumerate()
    {
        same(&format!("{steps} steps, field {k}"), g, r)?;
        exact(&format!("{steps} steps, field {k} (interpreter vs oracle)"), &r.to_vec(), want)?;
    }
    Ok(())
}

fn sweeps() -> Vec<Test> {
    vec![
        case("examples::dotp", dot_product),
        case("examples::saxpy", saxpy_example),
        case("examples::black_scholes", black_scholes_example),
        case("examples::histogram", histogram_example),
        case("examples::mandelbrot", mandelbrot_example),
        case("examples::blur", blur_example),
        case("examples::primes", primes_example),
        case("examples::sieve", sieve_example),
        case("examples::bfs", bfs_example),
        case("examples::quicksort", quicksort_example),
    ]
}

pub fn tests() -> Vec<Test> {
    let everywhere = [
        case("examples::kmeans", kmeans_example),
        case("examples::life", life_example),
        case("examples::nbody", nbody_example),
        case("examples::radix", radix_example),
        case("examples::canny", canny_example),
        case("examples::fluid", fluid_example),
    ];
    sweeps().into_iter().map(Test::cuda_only).chain(everywhere).collect()
}
