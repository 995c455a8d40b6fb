//! Black-Scholes pricing of European options, after ICFP'13, Fig. 1.
//!
//! For a stock at price `S`, an option to buy (call) or sell (put) it at strike `K` after `T`
//! years, with risk-free rate `r` and volatility `v`:
//!
//! ```text
//! d1 = (ln(S / K) + (r + v²/2) T) / (v √T)        d2 = d1 - v √T
//! call = S N(d1) - K e^(-rT) N(d2)                put = K e^(-rT) (1 - N(d2)) - S (1 - N(d1))
//! ```
//!
//! where `N` is the cumulative normal distribution, computed as in the paper with the polynomial
//! approximation of Abramowitz and Stegun (26.2.17, absolute error below 7.5e-8), which costs one
//! `exp`. Each option is priced independently: a map over the zipped inputs, whose pairs of
//! results are unzipped into two vectors. With fusion this is one kernel that computes 3 `exp`,
//! 1 `ln` and 1 `sqrt` per option (the shared `d1`, `d2` and `K e^(-rT)` are computed once) and
//! writes both outputs.

use accel::prelude::*;

/// The prices `(calls, puts)` of options on `price` with `strike` and `years` to maturity, at a
/// risk-free rate of 0.02 and a volatility of 0.30.
#[accel]
pub fn black_scholes(price: Vector<f32>, strike: Vector<f32>, years: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
    let riskfree = 0.02f32;
    let volatility = 0.30f32;
    price
        .zip(strike)
        .zip_with(years, |(s, k), t| {
            let v_sqrt_t = volatility * t.sqrt();
            let d1 = ((s / k).ln() + (riskfree + 0.5 * volatility * volatility) * t) / v_sqrt_t;
            let d2 = d1 - v_sqrt_t;
            // N(d1) and N(d2): 1 - n(d) p(k) for d > 0, with n the normal density.
            let k1 = 1.0 / (1.0 + 0.231_641_9 * d1.abs());
            let p1 =
                k1 * (0.319_381_53 + k1 * (-0.356_563_78 + k1 * (1.781_477_9 + k1 * (-1.821_256 + k1 * 1.330_274_4))));
            let w1 = 0.398_942_3 * (-0.5 * d1 * d1).exp() * p1;
            let cnd_d1 = if d1 > 0.0 { 1.0 - w1 } else { w1 };
            let k2 = 1.0 / (1.0 + 0.231_641_9 * d2.abs());
            let p2 =
                k2 * (0.319_381_53 + k2 * (-0.356_563_78 + k2 * (1.781_477_9 + k2 * (-1.821_256 + k2 * 1.330_274_4))));
            let w2 = 0.398_942_3 * (-0.5 * d2 * d2).exp() * p2;
            let cnd_d2 = if d2 > 0.0 { 1.0 - w2 } else { w2 };
            let k_exp_rt = k * (-riskfree * t).exp();
            (s * cnd_d1 - k_exp_rt * cnd_d2, k_exp_rt * (1.0 - cnd_d2) - s * (1.0 - cnd_d1))
        })
        .unzip()
}

/// [`black_scholes`] with fast math on the GPU (`#[accel(fast_math)]`: arithmetic contracted
/// into fused multiply-adds, the hardware's approximate division, square root, `exp` and `ln`),
/// whose prices differ from the IEEE ones in the last bits; on the CPU it is the same function.
/// The call is inlined, so this is one kernel like the other.
#[accel(fast_math)]
pub fn black_scholes_fast(price: Vector<f32>, strike: Vector<f32>, years: Vector<f32>) -> (Vector<f32>, Vector<f32>) {
    black_scholes(price, strike, years)
}

/// At-the-money reference point: `S = K = 100`, `T = 1` gives the call 12.8216 and the put
/// 10.8415 (standard formula, `r = 0.02`, `v = 0.30`).
pub const AT_THE_MONEY: ([f32; 3], (f32, f32)) = ([100.0, 100.0, 1.0], (12.8216, 10.8415));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    /// The formula in f64 with `libm`'s `erf`.
    fn oracle(s: f64, k: f64, t: f64) -> (f64, f64) {
        let (r, v) = (0.02, 0.30);
        let d1 = ((s / k).ln() + (r + v * v / 2.0) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let n = |d: f64| 0.5 * (1.0 + libm::erf(d / 2f64.sqrt()));
        let k_exp_rt = k * (-r * t).exp();
        (s * n(d1) - k_exp_rt * n(d2), k_exp_rt * n(-d2) - s * n(-d1))
    }

    #[test]
    fn at_the_money_prices() -> Result<(), Box<dyn std::error::Error>> {
        let ([s, k, t], (call, put)) = AT_THE_MONEY;
        let (c, p) = oracle(s.into(), k.into(), t.into());
        assert!((c - f64::from(call)).abs() < 1e-4 && (p - f64::from(put)).abs() < 1e-4, "{c} {p}");
        let v = |x: f32| Vector::from_vec(vec![x]);
        let (calls, puts) = black_scholes(&Runtime::cpu(), &v(s), &v(k), &v(t))?;
        assert!((calls.get_linear(0) - call).abs() < 1e-3, "{calls}");
        assert!((puts.get_linear(0) - put).abs() < 1e-3, "{puts}");
        Ok(())
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(3);
        for n in [0, 1, 17, 1000] {
            let price = Vector::from_vec(rng.vec_f32(n, 5.0, 30.0));
            let strike = Vector::from_vec(rng.vec_f32(n, 1.0, 100.0));
            let years = Vector::from_vec(rng.vec_f32(n + 1, 0.25, 10.0));
            let (calls, puts) = black_scholes(&rt, &price, &strike, &years)?;
            let (ref_calls, ref_puts) = black_scholes::reference(&price, &strike, &years)?;
            check::exact("calls vs interpreter", &calls.to_vec(), &ref_calls.to_vec())?;
            check::exact("puts vs interpreter", &puts.to_vec(), &ref_puts.to_vec())?;
            for i in 0..n {
                let (s, k, t) = (price.get_linear(i), strike.get_linear(i), years.get_linear(i));
                let (c, p) = oracle(s.into(), k.into(), t.into());
                // f32 arithmetic on prices up to 100: absolute errors of a few 1e-5 * price.
                let tol = 1e-4 * f64::from(s.max(k));
                assert!((f64::from(calls.get_linear(i)) - c).abs() < tol, "call {i}: {s} {k} {t}: {c}");
                assert!((f64::from(puts.get_linear(i)) - p).abs() < tol, "put {i}: {s} {k} {t}: {p}");
            }
        }
        Ok(())
    }
}
