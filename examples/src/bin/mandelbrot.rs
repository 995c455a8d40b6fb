//! The Mandelbrot set on accel's backend: a large image timed, and a thumbnail checked against
//! the interpreter and printed.

use accel::prelude::*;
use accel_examples::mandelbrot::{ascii_art, mandelbrot};
use accel_examples::{check, timed};
use std::error::Error;

const ROWS: usize = 720;
const COLS: usize = 1080;
/// The thumbnail: terminal cells are about twice as tall as wide.
const THUMB_ROWS: usize = 24;
const THUMB_COLS: usize = 60;
const MAX_ITER: u32 = 256;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!(
        "mandelbrot: {ROWS} x {COLS} pixels, at most {MAX_ITER} steps, {:?} backend with {} threads",
        rt.backend(),
        rt.threads()
    );
    let (image, t) = timed(&rt, || mandelbrot(&rt, ROWS, COLS, MAX_ITER));
    let image = image?;
    let steps: u64 = image.iter().map(u64::from).sum();
    let inside = image.iter().filter(|&n| n == MAX_ITER).count();
    println!(
        "  accel:       {steps} steps, {:.1}% of the pixels in the set, in {t:.2?}",
        100.0 * inside as f64 / image.len() as f64
    );

    let thumb = mandelbrot(&rt, THUMB_ROWS, THUMB_COLS, MAX_ITER)?;
    let (want, t) = timed(&rt, || mandelbrot::reference(THUMB_ROWS, THUMB_COLS, MAX_ITER));
    check::exact("thumbnail", &thumb.to_vec(), &want?.to_vec())?;
    println!("  interpreter: the {THUMB_ROWS} x {THUMB_COLS} thumbnail identical, in {t:.2?}");
    print!("{}", ascii_art(&thumb, MAX_ITER));
    println!("{}", mandelbrot::plan());
    Ok(())
}
