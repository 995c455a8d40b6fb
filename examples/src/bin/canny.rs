//! Canny edge detection on accel's backend: checked against the interpreter at a small size and
//! against the plain-Rust oracle at a large one.

use accel_examples::canny::{edges, sequential_edges, test_image};
use accel_examples::{check, timed};
use std::error::Error;

const SIDE: usize = 512;
const LOW: f32 = 0.5;
const HIGH: f32 = 1.5;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = accel::Runtime::new()?;
    println!("canny: a {SIDE}x{SIDE} image, {:?} backend with {} threads", rt.backend(), rt.threads());
    let small = test_image(64, 96, 2);
    check::exact(
        "edges of 64x96",
        &edges(&rt, &small, LOW, HIGH)?.to_vec(),
        &edges::reference(&small, LOW, HIGH)?.to_vec(),
    )?;
    let img = test_image(SIDE, SIDE, 1);
    let (found, t) = timed(&rt, || edges(&rt, &img, LOW, HIGH));
    let found = found?.to_vec();
    check::exact("edges", &found, &sequential_edges(&img.to_vec(), SIDE, SIDE, LOW, HIGH))?;
    let count = found.iter().filter(|&&e| e == 1).count();
    println!("  {count} edge pixels in {t:.2?}");
    println!("{}", edges::plan());
    Ok(())
}
