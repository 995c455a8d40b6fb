//! Canny edge detection (ICFP'13, §6), in the stages of Canny's method:
//!
//! 1. [`smooth`]: a 5×5 Gaussian blur (`stencil5x5`, edges clamped) against noise;
//! 2. [`gradient`]: the Sobel derivatives (`stencil3x3`), kept as the gradient's magnitude and
//!    its direction rounded to one of four (0: horizontal, 1: the rising diagonal, 2: vertical,
//!    3: the falling diagonal);
//! 3. [`thin`]: non-maximum suppression, a `generate` over the image that keeps a pixel's
//!    magnitude only where it is no smaller than both neighbours across the edge (along the
//!    gradient), then classifies it: 2 strong (at least `high`), 1 weak (at least `low`), 0 none;
//! 4. [`hysteresis`]: a weak pixel next to a strong one becomes strong, repeated inside `awhile`
//!    until no pixel changes (a `stencil3x3` and a `fold_all` each round), then the strong pixels
//!    are the edges.
//!
//! [`edges`] calls the four (inlined at build time, so that fusion works across them).

use accel::prelude::*;

/// `img` blurred by the 5×5 binomial kernel (the outer product of `1 4 6 4 1`, over 256), a
/// Gaussian of standard deviation 1, edges clamped.
#[accel]
pub fn smooth(img: Matrix<f32>) -> Matrix<f32> {
    img.stencil5x5(Clamp, |n| {
        let r0 = n[0][0] + 4.0 * n[0][1] + 6.0 * n[0][2] + 4.0 * n[0][3] + n[0][4];
        let r1 = n[1][0] + 4.0 * n[1][1] + 6.0 * n[1][2] + 4.0 * n[1][3] + n[1][4];
        let r2 = n[2][0] + 4.0 * n[2][1] + 6.0 * n[2][2] + 4.0 * n[2][3] + n[2][4];
        let r3 = n[3][0] + 4.0 * n[3][1] + 6.0 * n[3][2] + 4.0 * n[3][3] + n[3][4];
        let r4 = n[4][0] + 4.0 * n[4][1] + 6.0 * n[4][2] + 4.0 * n[4][3] + n[4][4];
        (r0 + 4.0 * r1 + 6.0 * r2 + 4.0 * r3 + r4) / 256.0
    })
}

/// The Sobel gradient of `img` (edges clamped): each pixel's magnitude and its direction, one of
/// four sectors of 45° centred on 0°, 45°, 90° and 135°.
#[accel]
pub fn gradient(img: Matrix<f32>) -> Matrix<(f32, u32)> {
    img.stencil3x3(Clamp, |n| {
        let dx = (n[0][2] + 2.0 * n[1][2] + n[2][2]) - (n[0][0] + 2.0 * n[1][0] + n[2][0]);
        let dy = (n[2][0] + 2.0 * n[2][1] + n[2][2]) - (n[0][0] + 2.0 * n[0][1] + n[0][2]);
        let magnitude = (dx * dx + dy * dy).sqrt();
        // tan(22.5°) and tan(67.5°) split the half plane into the four sectors.
        let (ax, ay) = (dx.abs(), dy.abs());
        let direction = if ay <= 0.414_213_57 * ax {
            0u32
        } else if ay >= 2.414_213_6 * ax {
            2u32
        } else if (dx > 0.0) == (dy > 0.0) {
            1u32
        } else {
            3u32
        };
        (magnitude, direction)
    })
}

/// Non-maximum suppression and the double threshold: 2 where the gradient's magnitude is a
/// maximum across the edge and at least `high`, 1 where it is such a maximum and at least `low`,
/// else 0. Neighbours outside the image count as 0.
#[accel]
pub fn thin(grad: Matrix<(f32, u32)>, low: f32, high: f32) -> Matrix<u32> {
    let (rows, cols) = (grad.rows(), grad.cols());
    generate((rows, cols), |(i, j)| {
        let (m, d) = grad[(i, j)];
        // The neighbours across the edge: along the gradient's direction.
        let (di, dj) = if d == 0 {
            (0i64, 1i64)
        } else if d == 1 {
            (1i64, 1i64)
        } else if d == 2 {
            (1i64, 0i64)
        } else {
            (1i64, -1i64)
        };
        let (ahead_i, ahead_j) = (i as i64 + di, j as i64 + dj);
        let (behind_i, behind_j) = (i as i64 - di, j as i64 - dj);
        let ahead = if ahead_i >= 0 && ahead_j >= 0 && (ahead_i as usize) < rows && (ahead_j as usize) < cols {
            grad[(ahead_i as usize, ahead_j as usize)].0
        } else {
            0.0
        };
        let behind = if behind_i >= 0 && behind_j >= 0 && (behind_i as usize) < rows && (behind_j as usize) < cols {
            grad[(behind_i as usize, behind_j as usize)].0
        } else {
            0.0
        };
        let peak = m >= ahead && m >= behind;
        if peak && m >= high {
            2u32
        } else if peak && m >= low {
            1u32
        } else {
            0u32
        }
    })
}

/// The edges of `classes` (2 strong, 1 weak, 0 none): the strong pixels and every weak pixel
/// joined to one through weak pixels (8-connected), 1 where there is an edge, else 0.
#[accel]
pub fn hysteresis(classes: Matrix<u32>) -> Matrix<u32> {
    let grown = awhile(
        (classes, unit(true)),
        |s| s.1,
        |s| {
            let next = s.0.stencil3x3(Constant(0u32), |n| {
                let strong_near = n[0][0] == 2
                    || n[0][1] == 2
                    || n[0][2] == 2
                    || n[1][0] == 2
                    || n[1][2] == 2
                    || n[2][0] == 2
                    || n[2][1] == 2
                    || n[2][2] == 2;
                if n[1][1] == 1 && strong_near { 2u32 } else { n[1][1] }
            });
            let changed = next.zip_with(s.0, |a, b| if a != b { 1u32 } else { 0u32 }).fold_all(0u32, |a, b| a + b);
            (next, unit(changed.get() > 0))
        },
    );
    grown.0.map(|c| if c == 2 { 1u32 } else { 0u32 })
}

/// The Canny edges of `img` with the thresholds `low` and `high` on the gradient's magnitude of
/// the smoothed image: 1 on an edge, else 0.
#[accel]
pub fn edges(img: Matrix<f32>, low: f32, high: f32) -> Matrix<u32> {
    hysteresis(thin(gradient(smooth(img)), low, high))
}

/// A test image: `rows × cols` of noise in `[0, 0.1)` with a bright disc of radius `rows / 4`
/// (value 1) and a square in the lower right quarter that brightens from 0.3 on its left to 1 on
/// its right, so that its outline holds strong and weak edges joined together.
pub fn test_image(rows: usize, cols: usize, seed: u64) -> Matrix<f32> {
    let mut rng = crate::rng::SplitMix64::new(seed);
    let noise = rng.vec_f32(rows * cols, 0.0, 0.1);
    let (cy, cx, r) = (rows as f32 / 2.0, cols as f32 / 3.0, rows as f32 / 4.0);
    let pixels = (0..rows * cols)
        .map(|k| {
            let (i, j) = ((k / cols) as f32, (k % cols) as f32);
            let disc = (i - cy) * (i - cy) + (j - cx) * (j - cx) <= r * r;
            let (left, right) = (0.6 * cols as f32, 0.9 * cols as f32);
            let square = i >= 0.6 * rows as f32 && i < 0.9 * rows as f32 && j >= left && j < right;
            let ramp = 0.3 + 0.7 * (j - left) / (right - left);
            noise[k]
                + if disc {
                    1.0
                } else if square {
                    ramp
                } else {
                    0.0
                }
        })
        .collect();
    Matrix::from_shape_vec([rows, cols], pixels).expect("rows × cols pixels")
}

/// What [`edges`] computes, by plain loops over a row-major image: the oracle of the example and
/// its tests.
pub fn sequential_edges(img: &[f32], rows: usize, cols: usize, low: f32, high: f32) -> Vec<u32> {
    let clamp = |v: &[f32], i: isize, j: isize| {
        v[(i.clamp(0, rows as isize - 1) as usize) * cols + j.clamp(0, cols as isize - 1) as usize]
    };
    let mut smooth = vec![0.0f32; rows * cols];
    for i in 0..rows as isize {
        for j in 0..cols as isize {
            let row = |r: isize| {
                let at = |c: isize| clamp(img, i + r - 2, j + c - 2);
                at(0) + 4.0 * at(1) + 6.0 * at(2) + 4.0 * at(3) + at(4)
            };
            let sum = row(0) + 4.0 * row(1) + 6.0 * row(2) + 4.0 * row(3) + row(4);
            smooth[i as usize * cols + j as usize] = sum / 256.0;
        }
    }
    let mut magnitude = vec![0.0f32; rows * cols];
    let mut direction = vec![0u32; rows * cols];
    for i in 0..rows as isize {
        for j in 0..cols as isize {
            let n = |r: isize, c: isize| clamp(&smooth, i + r - 1, j + c - 1);
            let dx = (n(0, 2) + 2.0 * n(1, 2) + n(2, 2)) - (n(0, 0) + 2.0 * n(1, 0) + n(2, 0));
            let dy = (n(2, 0) + 2.0 * n(2, 1) + n(2, 2)) - (n(0, 0) + 2.0 * n(0, 1) + n(0, 2));
            let k = i as usize * cols + j as usize;
            magnitude[k] = (dx * dx + dy * dy).sqrt();
            let (ax, ay) = (dx.abs(), dy.abs());
            direction[k] = if ay <= 0.414_213_57 * ax {
                0
            } else if ay >= 2.414_213_6 * ax {
                2
            } else if (dx > 0.0) == (dy > 0.0) {
                1
            } else {
                3
            };
        }
    }
    let mut classes = vec![0u32; rows * cols];
    for i in 0..rows as i64 {
        for j in 0..cols as i64 {
            let k = i as usize * cols + j as usize;
            let (di, dj) = [(0, 1), (1, 1), (1, 0), (1, -1)][direction[k] as usize];
            let at = |r: i64, c: i64| {
                if r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < cols {
                    magnitude[r as usize * cols + c as usize]
                } else {
                    0.0
                }
            };
            let m = magnitude[k];
            let peak = m >= at(i + di, j + dj) && m >= at(i - di, j - dj);
            classes[k] = if peak && m >= high {
                2
            } else if peak && m >= low {
                1
            } else {
                0
            };
        }
    }
    // Every weak pixel reachable from a strong one through weak pixels.
    let mut stack: Vec<usize> = (0..rows * cols).filter(|&k| classes[k] == 2).collect();
    while let Some(k) = stack.pop() {
        let (i, j) = ((k / cols) as isize, (k % cols) as isize);
        for (di, dj) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
            let (r, c) = (i + di, j + dj);
            if r >= 0 && c >= 0 && (r as usize) < rows && (c as usize) < cols {
                let n = r as usize * cols + c as usize;
                if classes[n] == 1 {
                    classes[n] = 2;
                    stack.push(n);
                }
            }
        }
    }
    classes.iter().map(|&c| u32::from(c == 2)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;

    #[test]
    fn edges_agree_with_the_interpreter_and_the_oracle() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        for (rows, cols) in [(0, 0), (1, 1), (1, 7), (9, 1), (5, 6), (40, 57), (128, 96)] {
            let img = test_image(rows, cols, 5);
            let (low, high) = (0.5, 1.5);
            let got = edges(&rt, &img, low, high)?;
            assert_eq!(got.shape(), [rows, cols]);
            check::exact("edges vs interpreter", &got.to_vec(), &edges::reference(&img, low, high)?.to_vec())?;
            let want = sequential_edges(&img.to_vec(), rows, cols, low, high);
            check::exact("edges vs oracle", &got.to_vec(), &want)?;
        }
        Ok(())
    }

    #[test]
    fn the_disc_has_a_closed_outline() -> Result<(), Box<dyn std::error::Error>> {
        let (rows, cols) = (64, 96);
        let rt = Runtime::cpu();
        let img = test_image(rows, cols, 1);
        // A step of height h has a Sobel magnitude of about 2.5 h: the disc's edge (h = 1) is
        // strong, the square's top and bottom go from weak (0.3) to strong (1).
        let (low, high) = (0.5, 1.5);
        let found = edges(&rt, &img, low, high)?.to_vec();
        // The disc (centre (32, 32), radius 16) crosses the row through its centre near columns
        // 16 and 48 and nowhere else, and nothing in the flat noise far from both shapes is an
        // edge.
        let centre: Vec<u32> = found[32 * cols..33 * cols].to_vec();
        let crossings: Vec<usize> = (0..cols).filter(|&j| centre[j] == 1).collect();
        assert!(
            crossings.len() == 2 && crossings[0].abs_diff(16) <= 2 && crossings[1].abs_diff(48) <= 2,
            "{crossings:?}"
        );
        assert!(found[2 * cols + 80..2 * cols + 90].iter().all(|&e| e == 0));
        // Hysteresis added weak pixels (the square's dimmer side) to the strong ones.
        let classes = thin(&rt, &gradient(&rt, &smooth(&rt, &img)?)?, low, high)?.to_vec();
        let strong = classes.iter().filter(|&&c| c == 2).count();
        let edge_pixels = found.iter().filter(|&&e| e == 1).count();
        assert!(strong > 2 * 16 && edge_pixels > strong, "{strong} strong pixels, {edge_pixels} edge pixels");
        Ok(())
    }
}
