//! k-means clustering of points in the plane (Lloyd's algorithm): every point is assigned to its
//! nearest centroid ([`assign`]), every centroid moves to the mean of its points ([`update`]),
//! and the two steps repeat inside `awhile` until no assignment changes or an iteration cap is
//! reached ([`kmeans`]).
//!
//! The steps are `#[accel]` functions of their own, called by [`kmeans`] and inlined into it at
//! build time (so the caller's plan fuses across them), and both measure distances with one
//! scalar helper, [`distance2`], called from their closures. The update sums each cluster's
//! coordinates with a `permute` of `+` into `fill(k, 0.0)`; the sums are `f64`, so that points
//! on a grid of 1/64 (as the tests and the demo draw them) are summed exactly whatever order
//! the backend adds them in, and every backend follows the interpreter's iterations bit for
//! bit. (Points off such a grid are summed within rounding; a point as far from two centroids
//! may then be assigned differently by two backends, as by two runs of any parallel k-means.)

use accel::prelude::*;

/// A point (or a centroid) of the plain-Rust side: its x and y.
pub type Point = (f32, f32);

/// The squared distance between `(px, py)` and `(qx, qy)`: the square root is monotonic, so the
/// nearest centroid is the one of least square.
#[accel]
pub fn distance2(px: f32, py: f32, qx: f32, qy: f32) -> f32 {
    let (dx, dy) = (px - qx, py - qy);
    dx * dx + dy * dy
}

/// The index of the centroid `(cx[j], cy[j])` nearest to each point `(xs[i], ys[i])`, the lowest
/// index among equally near ones. With no centroids every point gets `u32::MAX`, which no
/// centroid has.
#[accel]
pub fn assign(xs: Vector<f32>, ys: Vector<f32>, cx: Vector<f32>, cy: Vector<f32>) -> Vector<u32> {
    let k = cx.len().min(cy.len());
    xs.zip_with(ys, |x, y| {
        let nearest = iterate(k, (0usize, u32::MAX, f32::INFINITY), |s| {
            let d = distance2(x, y, cx[s.0], cy[s.0]);
            if d < s.2 { (s.0 + 1, s.0 as u32, d) } else { (s.0 + 1, s.1, s.2) }
        });
        nearest.1
    })
}

/// The centroids moved to the means of the points `assignment` gives them; a centroid with no
/// points stays where it is. An assignment that is not a centroid's index is an
/// `IndexOutOfBounds` error.
#[accel]
pub fn update(
    xs: Vector<f32>,
    ys: Vector<f32>,
    assignment: Vector<u32>,
    cx: Vector<f32>,
    cy: Vector<f32>,
) -> (Vector<f32>, Vector<f32>) {
    let k = cx.len().min(cy.len());
    let counts = assignment.map(|_| 1u32).permute(fill(k, 0u32), |i| assignment[i] as usize, |a, b| a + b);
    let sum_x = xs.map(|x| x as f64).permute(fill(k, 0.0f64), |i| assignment[i] as usize, |a, b| a + b);
    let sum_y = ys.map(|y| y as f64).permute(fill(k, 0.0f64), |i| assignment[i] as usize, |a, b| a + b);
    let mean_x = generate(k, |j| if counts[j] > 0 { (sum_x[j] / counts[j] as f64) as f32 } else { cx[j] });
    let mean_y = generate(k, |j| if counts[j] > 0 { (sum_y[j] / counts[j] as f64) as f32 } else { cy[j] });
    (mean_x, mean_y)
}

/// k-means of the points `(xs[i], ys[i])` from the initial centroids `(cx[j], cy[j])`: the final
/// centroids, each point's cluster and the number of update steps taken (at most
/// `max_steps`; stopping earlier means the last step changed no assignment, so the centroids are
/// the means of their clusters). Points beyond the shorter of `xs` and `ys` are ignored, as are
/// centroids beyond the shorter of `cx` and `cy`; with points but no centroids the first update
/// is an `IndexOutOfBounds` error.
#[accel]
pub fn kmeans(
    xs: Vector<f32>,
    ys: Vector<f32>,
    cx: Vector<f32>,
    cy: Vector<f32>,
    max_steps: u32,
) -> (Vector<f32>, Vector<f32>, Vector<u32>, Scalar<u32>) {
    let first = assign(xs, ys, cx, cy);
    let state = awhile(
        (cx, cy, first, unit(0u32), unit(true)),
        |s| unit(s.4.get() && s.3.get() < max_steps),
        |s| {
            let centroids = update(xs, ys, s.2, s.0, s.1);
            let next = assign(xs, ys, centroids.0, centroids.1);
            let changed = next.zip_with(s.2, |a, b| if a != b { 1u32 } else { 0 }).sum();
            (centroids.0, centroids.1, next, unit(s.3.get() + 1), unit(changed.get() > 0))
        },
    );
    (state.0, state.1, state.2, state.3)
}

/// What [`kmeans`] computes, by a plain sequential loop: the oracle of the example and its
/// tests. Returns the centroids as `(x, y)` pairs, the assignment and the number of steps.
pub fn sequential(points: &[Point], centroids: &[Point], max_steps: u32) -> (Vec<Point>, Vec<u32>, u32) {
    let nearest = |centroids: &[Point]| -> Vec<u32> {
        points
            .iter()
            .map(|&(x, y)| {
                let mut best = (u32::MAX, f32::INFINITY);
                for (j, &(qx, qy)) in centroids.iter().enumerate() {
                    let (dx, dy) = (x - qx, y - qy);
                    let d = dx * dx + dy * dy;
                    if d < best.1 {
                        best = (j as u32, d);
                    }
                }
                best.0
            })
            .collect()
    };
    let mut centroids = centroids.to_vec();
    let mut assignment = nearest(&centroids);
    let mut steps = 0;
    let mut changed = true;
    while changed && steps < max_steps {
        let mut sums = vec![(0.0f64, 0.0f64, 0u32); centroids.len()];
        for (&(x, y), &a) in points.iter().zip(&assignment) {
            let s = &mut sums[a as usize];
            *s = (s.0 + f64::from(x), s.1 + f64::from(y), s.2 + 1);
        }
        for (c, &(sx, sy, count)) in centroids.iter_mut().zip(&sums) {
            if count > 0 {
                *c = ((sx / f64::from(count)) as f32, (sy / f64::from(count)) as f32);
            }
        }
        let next = nearest(&centroids);
        changed = next != assignment;
        assignment = next;
        steps += 1;
    }
    (centroids, assignment, steps)
}

/// `n` points in `k` loose clusters around random centres in `[0, 64)²`, on a grid of 1/64 (see
/// the module doc; around one centre when `k` is 0), and `k` initial centroids among the points
/// (at the origin when there are none).
pub fn clustered(rng: &mut crate::rng::SplitMix64, n: usize, k: usize) -> (Vec<Point>, Vec<Point>) {
    let on_grid = |v: f32| (v * 64.0).floor() / 64.0;
    let centres: Vec<Point> = (0..k.max(1)).map(|_| (rng.uniform(8.0, 56.0), rng.uniform(8.0, 56.0))).collect();
    let points: Vec<Point> = (0..n)
        .map(|_| {
            let (cx, cy) = centres[rng.below(centres.len() as u32) as usize];
            (on_grid(cx + rng.uniform(-8.0, 8.0)), on_grid(cy + rng.uniform(-8.0, 8.0)))
        })
        .collect();
    let initial =
        (0..k).map(|_| if points.is_empty() { (0.0, 0.0) } else { points[rng.below(n as u32) as usize] }).collect();
    (points, initial)
}

/// The x and the y of `points` as the two vectors [`kmeans`] takes.
pub fn columns(points: &[Point]) -> (Vector<f32>, Vector<f32>) {
    (points.iter().map(|p| p.0).collect(), points.iter().map(|p| p.1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(14);
        for (n, k) in [(0, 3), (1, 1), (1, 4), (7, 3), (500, 1), (2000, 5), (30_000, 8)] {
            let (points, initial) = clustered(&mut rng, n, k);
            let ((xs, ys), (cx, cy)) = (columns(&points), columns(&initial));
            let (gx, gy, ga, steps) = kmeans(&rt, &xs, &ys, &cx, &cy, 50)?;
            let what = format!("{n} points, {k} centroids");
            let (want_c, want_a, want_steps) = sequential(&points, &initial, 50);
            let (wx, wy) = columns(&want_c);
            check::exact(&format!("{what}: x vs oracle"), &gx.to_vec(), &wx.to_vec())?;
            check::exact(&format!("{what}: y vs oracle"), &gy.to_vec(), &wy.to_vec())?;
            check::exact(&format!("{what}: clusters vs oracle"), &ga.to_vec(), &want_a)?;
            check::exact(&format!("{what}: steps vs oracle"), &[steps.get()], &[want_steps])?;
            if n <= 2000 {
                let (rx, ry, ra, rs) = kmeans::reference(&xs, &ys, &cx, &cy, 50)?;
                check::exact(&format!("{what}: x vs interpreter"), &gx.to_vec(), &rx.to_vec())?;
                check::exact(&format!("{what}: y vs interpreter"), &gy.to_vec(), &ry.to_vec())?;
                check::exact(&format!("{what}: clusters vs interpreter"), &ga.to_vec(), &ra.to_vec())?;
                check::exact(&format!("{what}: steps vs interpreter"), &[steps.get()], &[rs.get()])?;
            }
        }
        Ok(())
    }

    #[test]
    fn the_steps_alone_and_the_cap() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        // Two obvious clusters, the centroids starting both in the left one.
        let (xs, ys) = columns(&[(0.0, 0.0), (1.0, 0.0), (10.0, 0.0), (11.0, 0.0)]);
        let (cx, cy) = columns(&[(0.0, 0.0), (1.0, 0.0)]);
        assert_eq!(assign(&rt, &xs, &ys, &cx, &cy)?.to_vec(), [0, 1, 1, 1]);
        let (ux, uy) = update(&rt, &xs, &ys, &Vector::from_vec(vec![0, 1, 1, 1]), &cx, &cy)?;
        assert_eq!((ux.to_vec(), uy.to_vec()), (vec![0.0, 22.0 / 3.0], vec![0.0, 0.0]));
        let (fx, _, fa, steps) = kmeans(&rt, &xs, &ys, &cx, &cy, 50)?;
        assert_eq!((fx.to_vec(), fa.to_vec(), steps.get()), (vec![0.5, 10.5], vec![0, 0, 1, 1], 2));
        let (capped, _, _, steps) = kmeans(&rt, &xs, &ys, &cx, &cy, 1)?;
        assert_eq!((capped.to_vec(), steps.get()), (vec![0.0, 22.0 / 3.0], 1));
        // The helper on the host, through the interpreter.
        assert_eq!(distance2(1.0, 2.0, 4.0, 6.0)?, 25.0);
        Ok(())
    }

    #[test]
    fn the_plan_lists_the_centroids_the_assignment_reads() {
        // The update's results, one `let` of a tuple inside the loop, are the inputs of the
        // assignment that follows it (`plan()` once left them out).
        let plan = kmeans::plan();
        let assignment = plan.kernels().find(|k| k.outputs[0].name == "next").expect("the assignment in the loop");
        let inputs: Vec<&str> = assignment.inputs.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(inputs, ["xs", "ys", "centroids.0", "centroids.1"], "{plan}");
    }

    #[test]
    fn points_without_centroids_are_an_index_error() {
        let (xs, ys) = columns(&[(1.0, 2.0)]);
        let none = Vector::from_vec(vec![]);
        assert_eq!(assign(&Runtime::cpu(), &xs, &ys, &none, &none).unwrap().to_vec(), [u32::MAX]);
        let e = kmeans(&Runtime::cpu(), &xs, &ys, &none, &none, 5).unwrap_err();
        assert!(matches!(e, accel::Error::IndexOutOfBounds { .. }), "{e:?}");
    }
}
