//! N-body gravitation by all pairs (ICFP'13, §6): the acceleration of every body is the sum of
//! the pulls of all bodies on it, `a_i = Σ_j m_j d_ij / (|d_ij|² + ε²)^(3/2)` with `d_ij = p_j -
//! p_i` and the softening `ε` (which also makes a body's pull on itself zero), and one step of
//! the simulation moves the bodies with those accelerations (semi-implicit Euler: velocities
//! first, then positions with the new velocities).
//!
//! [`accelerations`] is a `generate` over the bodies whose element runs a scalar `iterate` over
//! all bodies, reading their positions and masses: every thread of a warp reads the same body at
//! the same time, so the reads are broadcasts from the cache. Its three components come out of one
//! kernel, unzipped. [`advance`] calls it (inlined at build time) and updates the six state
//! vectors elementwise.

use accel::prelude::*;

/// The acceleration `(ax, ay, az)` of every body `(px[i], py[i], pz[i])` of mass `mass[i]`,
/// with the softening length `softening`. Bodies beyond the shortest of the four vectors are
/// ignored.
#[accel]
pub fn accelerations(
    px: Vector<f32>,
    py: Vector<f32>,
    pz: Vector<f32>,
    mass: Vector<f32>,
    softening: f32,
) -> (Vector<f32>, Vector<f32>, Vector<f32>) {
    let n = px.len().min(py.len()).min(pz.len()).min(mass.len());
    let eps2 = softening * softening;
    let (axy, az) = generate(n, |i| {
        let (xi, yi, zi) = (px[i], py[i], pz[i]);
        let sum = iterate(n, (0usize, 0.0f32, 0.0f32, 0.0f32), |s| {
            let j = s.0;
            let (dx, dy, dz) = (px[j] - xi, py[j] - yi, pz[j] - zi);
            let d2 = dx * dx + dy * dy + dz * dz + eps2;
            let pull = mass[j] / (d2 * d2.sqrt());
            (j + 1, s.1 + dx * pull, s.2 + dy * pull, s.3 + dz * pull)
        });
        ((sum.1, sum.2), sum.3)
    })
    .unzip();
    let (ax, ay) = axy.unzip();
    (ax, ay, az)
}

/// [`accelerations`] with fast math on the GPU (`#[accel(fast_math)]`: contracted multiply-adds,
/// approximate division and square root), whose last bits differ from the CPU's.
#[accel(fast_math)]
pub fn accelerations_fast(
    px: Vector<f32>,
    py: Vector<f32>,
    pz: Vector<f32>,
    mass: Vector<f32>,
    softening: f32,
) -> (Vector<f32>, Vector<f32>, Vector<f32>) {
    accelerations(px, py, pz, mass, softening)
}

/// One step of `dt` of the bodies `(px, py, pz)` moving at `(vx, vy, vz)`: the new positions and
/// velocities, in that order.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[accel]
pub fn advance(
    px: Vector<f32>,
    py: Vector<f32>,
    pz: Vector<f32>,
    vx: Vector<f32>,
    vy: Vector<f32>,
    vz: Vector<f32>,
    mass: Vector<f32>,
    dt: f32,
    softening: f32,
) -> (Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>) {
    let (ax, ay, az) = accelerations(px, py, pz, mass, softening);
    let nvx = vx.zip_with(ax, |v, a| v + a * dt);
    let nvy = vy.zip_with(ay, |v, a| v + a * dt);
    let nvz = vz.zip_with(az, |v, a| v + a * dt);
    let npx = px.zip_with(nvx, |p, v| p + v * dt);
    let npy = py.zip_with(nvy, |p, v| p + v * dt);
    let npz = pz.zip_with(nvz, |p, v| p + v * dt);
    (npx, npy, npz, nvx, nvy, nvz)
}

/// Bodies for a demo or a test: positions in the cube `[-1, 1)³`, masses in `[0.5, 1.5)`, at rest.
pub fn random_bodies(n: usize, seed: u64) -> Bodies {
    let mut rng = crate::rng::SplitMix64::new(seed);
    let mut coordinate = || Vector::from_vec(rng.vec_f32(n, -1.0, 1.0));
    let (px, py, pz) = (coordinate(), coordinate(), coordinate());
    let mass = Vector::from_vec(crate::rng::SplitMix64::new(seed ^ 0x5eed).vec_f32(n, 0.5, 1.5));
    let rest = || Vector::from_vec(vec![0.0f32; n]);
    Bodies { px, py, pz, vx: rest(), vy: rest(), vz: rest(), mass }
}

/// The state of a simulation: positions, velocities and masses, one vector per component.
#[derive(Clone, Debug)]
pub struct Bodies {
    pub px: Vector<f32>,
    pub py: Vector<f32>,
    pub pz: Vector<f32>,
    pub vx: Vector<f32>,
    pub vy: Vector<f32>,
    pub vz: Vector<f32>,
    pub mass: Vector<f32>,
}

impl Bodies {
    /// The bodies after one [`advance`] of `dt` on `rt`.
    pub fn step(&self, rt: &Runtime, dt: f32, softening: f32) -> accel::Result<Bodies> {
        let (px, py, pz, vx, vy, vz) =
            advance(rt, &self.px, &self.py, &self.pz, &self.vx, &self.vy, &self.vz, &self.mass, dt, softening)?;
        Ok(Bodies { px, py, pz, vx, vy, vz, mass: self.mass.clone() })
    }

    /// The total momentum `Σ m v` per component, which gravitation between the bodies conserves.
    pub fn momentum(&self) -> [f64; 3] {
        let mass = self.mass.to_vec();
        let total = |v: &Vector<f32>| v.iter().zip(&mass).map(|(v, &m)| f64::from(v) * f64::from(m)).sum();
        [total(&self.vx), total(&self.vy), total(&self.vz)]
    }
}

/// Body `i`'s acceleration computed in `f64` in the order [`accelerations`] sums it, and the sums
/// of the terms' magnitudes, which bound the rounding error of an `f32` sum: the oracle of the
/// tests and benchmarks.
pub fn sequential_acceleration(b: &Bodies, softening: f32, i: usize) -> ([f64; 3], [f64; 3]) {
    let (px, py, pz, m) = (&b.px, &b.py, &b.pz, &b.mass);
    let n = px.len().min(py.len()).min(pz.len()).min(m.len());
    let at = |v: &Vector<f32>, j: usize| f64::from(v.get_linear(j));
    let eps2 = f64::from(softening) * f64::from(softening);
    let (mut sum, mut magnitude) = ([0.0; 3], [0.0; 3]);
    for j in 0..n {
        let d = [at(px, j) - at(px, i), at(py, j) - at(py, i), at(pz, j) - at(pz, i)];
        let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        let pull = at(m, j) / (d2 * d2.sqrt());
        for k in 0..3 {
            sum[k] += d[k] * pull;
            magnitude[k] += (d[k] * pull).abs();
        }
    }
    (sum, magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;

    #[test]
    fn accelerations_agree_with_the_interpreter_and_the_oracle() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        for (n, seed) in [(0, 1), (1, 2), (2, 3), (37, 4), (300, 5)] {
            let b = random_bodies(n, seed);
            let softening = 0.05;
            let got = accelerations(&rt, &b.px, &b.py, &b.pz, &b.mass, softening)?;
            let want = accelerations::reference(&b.px, &b.py, &b.pz, &b.mass, softening)?;
            let oracle: Vec<_> = (0..n).map(|i| sequential_acceleration(&b, softening, i)).collect();
            for (k, (got, want)) in [(&got.0, &want.0), (&got.1, &want.1), (&got.2, &want.2)].into_iter().enumerate() {
                assert_eq!(got.len(), n);
                check::exact("accelerations vs interpreter", &got.to_vec(), &want.to_vec())?;
                // Each term is within a few ulps of f32 and each of the n additions rounds once:
                // the error is at most (n + 8) ulps of the sum of the terms' magnitudes.
                for (i, (&g, (sum, magnitude))) in got.to_vec().iter().zip(&oracle).enumerate() {
                    let bound = (n as f64 + 8.0) * f64::from(f32::EPSILON) * magnitude[k];
                    let err = (f64::from(g) - sum[k]).abs();
                    assert!(err <= bound, "body {i} component {k}: {g} vs {} (bound {bound})", sum[k]);
                }
            }
        }
        Ok(())
    }

    #[test]
    fn a_step_conserves_momentum_and_moves_the_bodies() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let b = random_bodies(200, 7);
        let next = b.step(&rt, 0.001, 0.05)?;
        let (px, py, pz, vx, vy, vz) =
            advance::reference(&b.px, &b.py, &b.pz, &b.vx, &b.vy, &b.vz, &b.mass, 0.001, 0.05)?;
        for (got, want) in
            [(&next.px, &px), (&next.py, &py), (&next.pz, &pz), (&next.vx, &vx), (&next.vy, &vy), (&next.vz, &vz)]
        {
            check::exact("advance vs interpreter", &got.to_vec(), &want.to_vec())?;
        }
        // Gravitation between the bodies is pairwise equal and opposite: the momentum, zero at
        // rest, stays zero up to rounding, while the bodies do move.
        let p = next.momentum();
        let scale: f64 = next.vx.iter().map(|v| f64::from(v).abs()).sum::<f64>();
        assert!(scale > 0.0, "the bodies moved");
        for component in p {
            assert!(component.abs() <= 1e-4 * scale, "momentum {p:?} against speeds summing to {scale}");
        }
        Ok(())
    }
}
