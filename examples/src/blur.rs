//! A 3×3 binomial blur: each pixel becomes the weighted mean of its neighbourhood with weights
//!
//! ```text
//! 1 2 1
//! 2 4 2   / 16
//! 1 2 1
//! ```
//!
//! a `stencil3x3` whose `Clamp` boundary repeats the edge pixels outside the image. The weights
//! sum to 1, so flat regions stay flat, and the root of the sum of their squares is 6/16: the
//! spread of independent pixel noise shrinks to 37.5%.

use accel::prelude::*;

/// `img` blurred by the 3×3 binomial kernel, edges clamped.
#[accel]
pub fn blur(img: Matrix<f32>) -> Matrix<f32> {
    img.stencil3x3(Clamp, |n| {
        let edges = n[0][1] + n[1][0] + n[1][2] + n[2][1];
        let corners = n[0][0] + n[0][2] + n[2][0] + n[2][2];
        (4.0 * n[1][1] + 2.0 * edges + corners) / 16.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    fn oracle(img: &[f32], rows: usize, cols: usize) -> Vec<f32> {
        let at = |i: isize, j: isize| {
            img[i.clamp(0, rows as isize - 1) as usize * cols + j.clamp(0, cols as isize - 1) as usize]
        };
        let mut out = Vec::with_capacity(img.len());
        for i in 0..rows as isize {
            for j in 0..cols as isize {
                let edges = at(i - 1, j) + at(i, j - 1) + at(i, j + 1) + at(i + 1, j);
                let corners = at(i - 1, j - 1) + at(i - 1, j + 1) + at(i + 1, j - 1) + at(i + 1, j + 1);
                out.push((4.0 * at(i, j) + 2.0 * edges + corners) / 16.0);
            }
        }
        out
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(6);
        for (rows, cols) in [(0, 0), (0, 4), (1, 1), (1, 17), (17, 1), (17, 23), (25, 40)] {
            let pixels = rng.vec_f32(rows * cols, 0.0, 1.0);
            let img = Matrix::from_shape_vec([rows, cols], pixels.clone())?;
            let got = blur(&rt, &img)?;
            assert_eq!(got.shape(), [rows, cols]);
            check::exact("blur vs interpreter", &got.to_vec(), &blur::reference(&img)?.to_vec())?;
            check::exact("blur vs oracle", &got.to_vec(), &oracle(&pixels, rows, cols))?;
        }
        Ok(())
    }

    #[test]
    fn flat_images_stay_flat() -> accel::Result<()> {
        let img = Matrix::from_shape_vec([4, 3], vec![0.75f32; 12])?;
        assert_eq!(blur(&Runtime::cpu(), &img)?, img);
        Ok(())
    }
}
