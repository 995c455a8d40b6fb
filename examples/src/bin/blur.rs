//! A 3×3 binomial blur of a noisy image on accel's backend, checked against the interpreter.

use accel::prelude::*;
use accel_examples::blur::blur;
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const SIZE: usize = 1024;
/// The interpreter blurs the top-left `CHECKED × CHECKED` corner (as an image of its own).
const CHECKED: usize = 128;

/// Standard deviation of the pixels.
fn spread(img: &Matrix<f32>) -> f64 {
    let n = img.len() as f64;
    let mean = img.iter().map(f64::from).sum::<f64>() / n;
    (img.iter().map(|x| (f64::from(x) - mean).powi(2)).sum::<f64>() / n).sqrt()
}

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "blur: a {SIZE} x {SIZE} image of uniform noise, {:?} backend with {} threads",
        rt.backend(),
        rt.threads()
    );
    let mut rng = SplitMix64::new(6);
    let img = Matrix::from_shape_vec([SIZE, SIZE], rng.vec_f32(SIZE * SIZE, 0.0, 1.0))?;

    let (got, t) = timed(&rt, || blur(&rt, &img));
    let got = got?;
    println!(
        "  accel:       pixel spread {:.4} -> {:.4} (ratio {:.3}; 0.375 for independent noise) in {t:.2?}",
        spread(&img),
        spread(&got),
        spread(&got) / spread(&img)
    );
    println!("  first row:   {}", Vector::from_slice(&got.to_vec()[..SIZE]));

    let corner = Matrix::from_shape_fn([CHECKED, CHECKED], |[i, j]| img.get_linear(i * SIZE + j));
    let got = blur(&rt, &corner)?;
    let (want, t) = timed(&rt, || blur::reference(&corner));
    // Elementwise code computes bit for bit what the interpreter computes: tolerance 0.
    check::exact("blur", &got.to_vec(), &want?.to_vec())?;
    println!("  interpreter: the {CHECKED} x {CHECKED} corner, blurred on its own, bit-identical, in {t:.2?}");
    println!("{}", blur::plan());
    Ok(())
}
