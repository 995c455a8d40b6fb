//! k-means clustering on accel's backend, the assignment and update steps `#[accel]` functions
//! called inside `awhile`: checked against the interpreter on a small set of points and against
//! a sequential k-means on a large one.

use accel::prelude::*;
use accel_examples::kmeans::{Point, clustered, columns, kmeans, sequential};
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

/// Points, clusters and the cap on update steps.
const N: usize = 1_000_003;
const K: usize = 8;
const MAX_STEPS: u32 = 100;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("kmeans: {N} points, {K} clusters, {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(14);
    let (points, initial) = clustered(&mut rng, 3000, K);
    let ((xs, ys), (cx, cy)) = (columns(&points), columns(&initial));
    let (got_x, got_y, got, _) = kmeans(&rt, &xs, &ys, &cx, &cy, MAX_STEPS)?;
    let (want_x, want_y, want, _) = kmeans::reference(&xs, &ys, &cx, &cy, MAX_STEPS)?;
    check::exact("clusters of 3000 points", &got.to_vec(), &want.to_vec())?;
    check::exact("centroids of 3000 points (x)", &got_x.to_vec(), &want_x.to_vec())?;
    check::exact("centroids of 3000 points (y)", &got_y.to_vec(), &want_y.to_vec())?;

    let (points, initial) = clustered(&mut rng, N, K);
    let ((xs, ys), (cx, cy)) = (columns(&points), columns(&initial));
    let (result, t) = timed(&rt, || kmeans(&rt, &xs, &ys, &cx, &cy, MAX_STEPS));
    let (got_x, got_y, got, steps) = result?;
    let (centroids, want, want_steps) = sequential(&points, &initial, MAX_STEPS);
    // The points lie on a grid of 1/64, so every backend sums them exactly: tolerance 0.
    check::exact("clusters", &got.to_vec(), &want)?;
    let got_centroids: Vec<Point> = got_x.iter().zip(got_y.iter()).collect();
    check::exact("centroids", &got_centroids, &centroids)?;
    check::exact("steps", &[steps.get()], &[want_steps])?;
    println!("  {} update steps in {t:.2?}; centroids {}", steps.get(), Vector::from_vec(got_centroids));
    println!("{}", kmeans::plan());
    Ok(())
}
