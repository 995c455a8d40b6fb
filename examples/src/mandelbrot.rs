//! The Mandelbrot set by escape time: pixel `(i, j)` stands for the point `c` of the complex
//! plane at its centre, and its value is the number of steps of `z ← z² + c` from `z = 0` before
//! `|z| > 2`, at most `max_iter` (points that never escape are in the set).
//!
//! A `generate` over the image's shape with a scalar `while_loop` per pixel: the loops run for
//! very different numbers of steps, which the backends balance across threads.

use accel::prelude::*;

/// Escape times of a `rows × cols` image of the view `[-2.2, 0.8] × [-1.2, 1.2]`.
#[accel]
pub fn mandelbrot(rows: usize, cols: usize, max_iter: u32) -> Matrix<u32> {
    generate((rows, cols), |(i, j)| {
        let cr = -2.2 + 3.0 * (j as f32 + 0.5) / cols as f32;
        let ci = 1.2 - 2.4 * (i as f32 + 0.5) / rows as f32;
        let (_, _, n) = while_loop(
            (0.0f32, 0.0f32, 0u32),
            |(zr, zi, n)| n < max_iter && zr * zr + zi * zi <= 4.0,
            |(zr, zi, n)| (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, n + 1),
        );
        n
    })
}

/// One character per pixel, darker for slower escape, `@` inside the set.
pub fn ascii_art(image: &Matrix<u32>, max_iter: u32) -> String {
    const SHADES: &[u8] = b" .:-=+*#%";
    let mut out = String::new();
    for (k, n) in image.iter().enumerate() {
        out.push(if n >= max_iter {
            '@'
        } else {
            // Escape times fall off roughly geometrically away from the set: shade by log.
            let level = f64::from(n + 1).ln() / f64::from(max_iter).ln();
            SHADES[((level * SHADES.len() as f64) as usize).min(SHADES.len() - 1)] as char
        });
        if (k + 1) % image.cols() == 0 {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;

    fn oracle(rows: usize, cols: usize, max_iter: u32) -> Vec<u32> {
        let mut out = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                let cr = -2.2 + 3.0 * (j as f32 + 0.5) / cols as f32;
                let ci = 1.2 - 2.4 * (i as f32 + 0.5) / rows as f32;
                let (mut zr, mut zi, mut n) = (0.0f32, 0.0f32, 0);
                while n < max_iter && zr * zr + zi * zi <= 4.0 {
                    (zr, zi, n) = (zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, n + 1);
                }
                out.push(n);
            }
        }
        out
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        for (rows, cols, max_iter) in [(0, 5, 10), (3, 0, 10), (1, 1, 10), (17, 1, 50), (1, 17, 0), (25, 40, 100)] {
            let got = mandelbrot(&rt, rows, cols, max_iter)?;
            assert_eq!(got.shape(), [rows, cols]);
            check::exact(
                "mandelbrot vs interpreter",
                &got.to_vec(),
                &mandelbrot::reference(rows, cols, max_iter)?.to_vec(),
            )?;
            check::exact("mandelbrot vs oracle", &got.to_vec(), &oracle(rows, cols, max_iter))?;
        }
        Ok(())
    }

    #[test]
    fn the_set_is_in_the_middle() -> accel::Result<()> {
        let image = mandelbrot(&Runtime::cpu(), 5, 11, 50)?;
        let art = ascii_art(&image, 50);
        assert_eq!(art.lines().count(), 5);
        // The centre pixel, c = -0.7, is in the set; the corners escape at once.
        assert_eq!(art.lines().nth(2).and_then(|l| l.chars().nth(5)), Some('@'), "{art}");
        assert_eq!(image.at([0, 0]), Some(1));
        Ok(())
    }
}
