//! Black-Scholes prices of random European options on accel's backend, checked against the
//! interpreter and against the textbook at-the-money values.

use accel::BackendKind;
use accel::prelude::*;
use accel_examples::black_scholes::{AT_THE_MONEY, black_scholes};
use accel_examples::rng::SplitMix64;
use accel_examples::{check, timed};
use std::error::Error;

const N: usize = 1 << 20;
/// Options the interpreter re-prices (it runs about 10^5 options a second).
const CHECKED: usize = 1 << 14;
/// Absolute tolerance of the at-the-money prices.
const ATM_TOL: f32 = 1e-3;
/// On the GPU, `exp`, `ln` and `erf` come from `libm` instead of the host's C library and may
/// differ in the last bits; the price difference amplifies that, hence a tolerance relative to
/// `max(|price|, 1)`.
const GPU_TOL: f64 = 1e-5;

pub fn main() -> Result<(), Box<dyn Error>> {
    let rt = Runtime::new()?;
    println!("black_scholes: {N} random options, {:?} backend with {} threads", rt.backend(), rt.threads());
    let mut rng = SplitMix64::new(3);
    let price = Vector::from_vec(rng.vec_f32(N, 5.0, 30.0));
    let strike = Vector::from_vec(rng.vec_f32(N, 1.0, 100.0));
    let years = Vector::from_vec(rng.vec_f32(N, 0.25, 10.0));

    let (got, t) = timed(&rt, || black_scholes(&rt, &price, &strike, &years));
    let (calls, puts) = got?;
    println!("  accel:       calls {calls}\n               puts  {puts}\n               in {t:.2?}");
    let head = |v: &Vector<f32>| v.iter().take(CHECKED).collect::<Vector<f32>>();
    let (want, t) = timed(&rt, || black_scholes::reference(&head(&price), &head(&strike), &head(&years)));
    let (want_calls, want_puts) = want?;
    if rt.backend() == BackendKind::Cpu {
        // The CPU backend computes bit for bit what the interpreter computes: tolerance 0.
        check::exact("calls", &calls.to_vec()[..CHECKED], &want_calls.to_vec())?;
        check::exact("puts", &puts.to_vec()[..CHECKED], &want_puts.to_vec())?;
        println!("  interpreter: the first {CHECKED} options bit-identical, in {t:.2?}");
    } else {
        let e1 = check::close("calls", &calls.to_vec()[..CHECKED], &want_calls.to_vec(), GPU_TOL)?;
        let e2 = check::close("puts", &puts.to_vec()[..CHECKED], &want_puts.to_vec(), GPU_TOL)?;
        println!("  interpreter: the first {CHECKED} options within {:.1e} (relative), in {t:.2?}", e1.max(e2));
    }

    let ([s, k, t], (want_call, want_put)) = AT_THE_MONEY;
    let one = |x: f32| Vector::from_vec(vec![x]);
    let (call, put) = black_scholes(&rt, &one(s), &one(k), &one(t))?;
    let (call, put) = (call.get_linear(0), put.get_linear(0));
    println!(
        "  S = {s}, K = {k}, T = {t}: call {call:.4} (expected {want_call}), put {put:.4} (expected {want_put}), \
         tolerance {ATM_TOL:.0e}"
    );
    if (call - want_call).abs() > ATM_TOL || (put - want_put).abs() > ATM_TOL {
        return Err(check::Mismatch(format!("at-the-money prices {call}, {put}")).into());
    }
    println!("{}", black_scholes::plan());
    Ok(())
}
