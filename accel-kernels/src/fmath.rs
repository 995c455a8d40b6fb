//! Float functions built for the GPU: `exp` and `ln` of `f32` in straight-line arithmetic, and the
//! operations of fast math (`#[accel(fast_math)]`).
//!
//! `exp_f32` and `ln_f32` replace libm's `expf` and `logf` in the device code of
//! [`ops`](crate::ops): libm's versions return early on special values, divide (`logf`) or read a
//! table (`expf`), and the GPU pays for each of those in every thread. These compute the result
//! for every input in straight-line arithmetic and pick the special values with selects (LLVM
//! may still branch around those rare cases; the common path has no division, table or call).
//! They compile for the host too, where the tests measure their error against `f64`; on the host
//! the backends keep `std`'s functions.
//!
//! - `exp_f32`: `x = j ln 2 + r` with `|r| <= ln 2 / 2` (`j` rounded by adding `1.5 * 2^23`,
//!   two-part `ln 2`, fused multiply-adds, exact), `e^x = 2^j 2^(r log2 e)`, the power of two
//!   from the hardware's `ex2.approx` (about 2 ulp; its flush-to-zero form, as `r log2 e` is
//!   never subnormal where it matters) and `2^j` added to the exponent in two halves, as
//!   integers. No conversion instruction, no branch. Within 3 ulp of the exact result: with an
//!   exact `2^r` the rest is within 1 ulp for every float from -105 to 90, which an ignored test
//!   checks one by one (beyond, the clamps give infinity and 0).
//! - `ln_f32`: `x = m 2^e` with `m` in `[2/3, 4/3)` (integer arithmetic on the bits, subnormals
//!   scaled by `2^23` first), `ln x = e ln 2 + f + f^2 q(f)` for `f = m - 1`, `q` a degree-8
//!   minimax polynomial (Remez; error about `3.3e-8` on `[-1/3, 1/3]` with its coefficients
//!   rounded to `f32`) evaluated by fused multiply-adds. Within 1 ulp of the exact result for
//!   every positive input.
//!
//! Fast math (`Fast`, device only) trades the last bits for speed, in the manner of `nvcc
//! --use_fast_math` for these operations (the others keep their IEEE code): additions,
//! subtractions and multiplications may be contracted into fused multiply-adds (and regrouped) by
//! the compiler; `f32` division is `div.full.f32` (2 ulp, any operands), reciprocal
//! `rcp.approx.f32`, square root `sqrt.approx.f32`, `exp2` and `log2` the hardware's `ex2.approx`
//! and `lg2.approx`, `exp x = ex2.approx(x log2 e)` (an error that grows with `|x|`, 2 ulp plus
//! about 2 ulp per unit of `|x|`) and `ln x = lg2.approx(x) ln 2` (absolute error below `2^-21`
//! near 1). `f64` only gets the contractions: its other functions stay IEEE.

#[cfg(target_arch = "nvptx64")]
use core::f32::math::mul_add;

#[cfg(not(target_arch = "nvptx64"))]
fn mul_add(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `e^x`, with `ex2` computing `2^x` for `|x| <= 1/2` (the hardware's `ex2.approx` on the GPU).
#[inline(always)]
pub fn exp_f32(x: f32, ex2: impl Fn(f32) -> f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    const UNDERFLOW: f32 = -103.972_08;
    // 1.5 * 2^23: the floats near it are a unit apart, so adding it rounds to an integer, which
    // its low mantissa bits then hold (no conversion instruction either way).
    const SHIFTER: f32 = 12_582_912.0;
    // Clamped so that `j` is an integer in [-150, 129] and both halves of `2^j` are normal
    // numbers: past 89 the result overflows to infinity and below -104 it rounds to 0 by itself.
    // The comparisons let NaN through, and the arithmetic below carries it to the result.
    let xc = if x < -104.0 { -104.0 } else { x };
    let xc = if xc > 89.0 { 89.0 } else { xc };
    let shifted = mul_add(xc, core::f32::consts::LOG2_E, SHIFTER);
    let j = shifted - SHIFTER;
    let r = mul_add(j, -LN2_LO, mul_add(j, -LN2_HI, xc));
    let e = ex2(r * core::f32::consts::LOG2_E);
    let k = (shifted.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32);
    let pow2 = |k: i32| f32::from_bits((k.wrapping_add(127) as u32) << 23);
    let y = e * pow2(k >> 1) * pow2(k.wrapping_sub(k >> 1));
    // Between -104 and here the exact result is under half the least subnormal, but `ex2`'s
    // error could round `y` up to it.
    if x < UNDERFLOW { 0.0 } else { y }
}

/// `ln x`: straight-line code, within 1 ulp (see the module documentation).
#[inline(always)]
pub fn ln_f32(x: f32) -> f32 {
    // q(f) = (ln(1 + f) - f) / f^2 on [-1/3, 1/3], lowest degree first.
    const Q: [f32; 9] = [
        -0.5,
        0.333_332_72,
        -0.249_997_29,
        0.200_073_23,
        -0.166_830_32,
        0.140_542_06,
        -0.121_485_14,
        0.137_565_99,
        -0.130_541_24,
    ];
    let tiny = x < f32::MIN_POSITIVE;
    let scaled = if tiny { x * 8_388_608.0 } else { x };
    let bits = scaled.to_bits();
    // The exponent that puts the mantissa in [2/3, 4/3): 0x3f2aaaab is 2/3.
    let e = (bits.wrapping_sub(0x3f2a_aaab) as i32) >> 23;
    let m = f32::from_bits(bits.wrapping_sub((e << 23) as u32));
    // Exact (Sterbenz): m is within a factor of two of 1.
    let f = m - 1.0;
    let mut q = Q[8];
    for c in Q[..8].iter().rev() {
        q = mul_add(q, f, *c);
    }
    let r = mul_add(f * f, q, f);
    let e = (e - if tiny { 23 } else { 0 }) as f32;
    // One rounding of `e ln 2` in `f32` costs under a tenth of an ulp of the result.
    let y = mul_add(e, core::f32::consts::LN_2, r);
    if x > 0.0 && x < f32::INFINITY {
        y
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        x
    } else {
        f32::NAN
    }
}

/// The hardware's one-instruction approximations (PTX ISA, "Floating point instructions").
#[cfg(target_arch = "nvptx64")]
pub mod hw {
    macro_rules! approx {
        ($($(#[$doc:meta])* $name:ident($($arg:ident),*) = $ins:literal;)*) => {$(
            $(#[$doc])*
            #[inline(always)]
            pub fn $name($($arg: f32),*) -> f32 {
                let r: f32;
                // SAFETY: an arithmetic instruction on registers.
                unsafe {
                    core::arch::asm!(concat!($ins, " {r}, ", approx!(@operands $($arg),*), ";"), r = out(reg32) r,
                        $($arg = in(reg32) $arg,)* options(pure, nomem, nostack, preserves_flags));
                }
                r
            }
        )*};
        (@operands $a:ident) => { concat!("{", stringify!($a), "}") };
        (@operands $a:ident, $b:ident) => { concat!("{", stringify!($a), "}, {", stringify!($b), "}") };
    }

    approx! {
        /// `2^x`, about 2 ulp (subnormal results kept).
        ex2(x) = "ex2.approx.f32";
        /// `2^x`, about 2 ulp, subnormal inputs and results flushed to zero: `exp_f32`'s
        /// `2^r` for `|r| <= 1/2` (a subnormal `r` gives 1 either way).
        ex2_ftz(x) = "ex2.approx.ftz.f32";
        /// `log2 x`, absolute error below `2^-22` in [1/2, 2], relative `2^-22` elsewhere.
        lg2(x) = "lg2.approx.f32";
        /// `1 / x`, 1 ulp.
        rcp(x) = "rcp.approx.f32";
        /// `sqrt x`, relative error about `2^-23`.
        sqrt(x) = "sqrt.approx.f32";
        /// `x / y`, 2 ulp for every pair of operands.
        div(x, y) = "div.full.f32";
    }
}

/// The float operations of `#[accel(fast_math)]` functions on the GPU (the CPU backend and the
/// interpreter keep IEEE semantics).
#[cfg(target_arch = "nvptx64")]
pub trait Fast: Copy {
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn div(self, b: Self) -> Self;
    fn recip(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
}

/// `Fast` for one type: `+ - *` that the compiler may contract and regroup (Rust's algebraic
/// operations), and the other operations as given, of the receiver named `$x`.
macro_rules! fast {
    ($t:ident, $x:ident { $($f:ident($($arg:ident),*) = $e:expr;)* }) => {
        #[cfg(target_arch = "nvptx64")]
        impl Fast for $t {
            #[inline(always)]
            fn add(self, b: $t) -> $t {
                self.algebraic_add(b)
            }
            #[inline(always)]
            fn sub(self, b: $t) -> $t {
                self.algebraic_sub(b)
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                self.algebraic_mul(b)
            }
            $(
                #[inline(always)]
                fn $f(self $(, $arg: $t)*) -> $t {
                    let $x = self;
                    $e
                }
            )*
        }
    };
}

fast!(f32, x {
    div(b) = hw::div(x, b);
    recip() = hw::rcp(x);
    sqrt() = hw::sqrt(x);
    exp() = hw::ex2(x * core::f32::consts::LOG2_E);
    exp2() = hw::ex2(x);
    ln() = hw::lg2(x) * core::f32::consts::LN_2;
    log2() = hw::lg2(x);
});

// `f64`: only the contractions; the rest is the IEEE code of `ops`.
fast!(f64, x {
    div(b) = x / b;
    recip() = 1.0 / x;
    sqrt() = crate::ops::Float::sqrt(x);
    exp() = crate::ops::Float::exp(x);
    exp2() = crate::ops::Float::exp2(x);
    ln() = crate::ops::Float::ln(x);
    log2() = crate::ops::Float::log2(x);
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance in units in the last place between `got` and the exact `want`, measured in
    /// the ulp of `want`'s binade (subnormals in the smallest one).
    fn ulps(got: f32, want: f64) -> f64 {
        let w = want as f32;
        let exponent = if w == 0.0 || !w.is_normal() { -126 } else { w.abs().log2().floor() as i32 };
        (f64::from(got) - want).abs() / 2f64.powi(exponent.max(-126) - 23)
    }

    /// Every 251st bit pattern of the positive floats, and their neighbours of 1.
    fn positives() -> impl Iterator<Item = f32> {
        let near_one = (0..4096u32).flat_map(|d| [f32::from_bits(0x3f80_0000 + d), f32::from_bits(0x3f80_0000 - d)]);
        (1..0x7f80_0000u32).step_by(251).map(f32::from_bits).chain(near_one)
    }

    #[test]
    fn ln_is_within_one_ulp_everywhere() {
        let worst = positives()
            .map(|x| (ulps(ln_f32(x), f64::from(x).ln()), x))
            .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
        assert!(worst.0 <= 1.0, "ln({:e}) is {} ulp off", worst.1, worst.0);
        assert_eq!(ln_f32(1.0), 0.0);
        assert_eq!(ln_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(f32::INFINITY), f32::INFINITY);
        for x in [-1.0, -f32::MIN_POSITIVE, f32::NEG_INFINITY, f32::NAN] {
            assert!(ln_f32(x).is_nan(), "ln({x}) is {}", ln_f32(x));
        }
    }

    /// Every float from -105 to 90 (about 2.2 billion; run it in release, `cargo test --release
    /// -p accel-kernels -- --ignored`): with an exact `2^r`, within 1 ulp, and infinity wherever
    /// the exact result rounds to it.
    #[test]
    #[ignore = "2.2 billion evaluations: a minute in release, far longer unoptimised"]
    fn exp_reduces_exactly_for_every_float_in_range() {
        let exact = |r: f32| f64::from(r).exp2() as f32;
        let overflow = f64::from(f32::MAX) * (1.0 + 2f64.powi(-25));
        let floats = |top: f32, sign: f32| (0..=top.to_bits()).map(move |b| sign * f32::from_bits(b));
        for x in floats(90.0, 1.0).chain(floats(105.0, -1.0)) {
            let (got, want) = (exp_f32(x, exact), f64::from(x).exp());
            if want >= overflow {
                assert_eq!(got, f32::INFINITY, "exp({x})");
            } else {
                assert!(ulps(got, want) <= 1.0, "exp({x}) = {got:e}, {} ulp from {want:e}", ulps(got, want));
            }
        }
    }

    #[test]
    fn exp_reduces_exactly_and_selects_its_edges() {
        // With an exact `2^r`, what is left is the reduction and the scaling: within 1 ulp.
        let exact = |r: f32| f64::from(r).exp2() as f32;
        let xs = (0..200_000).map(|i| -104.5 + 193.5 * i as f32 / 200_000.0);
        for x in xs.chain([0.0, -0.0, 1.0, -1.0, 88.72, -87.33, -103.9]) {
            let want = f64::from(x).exp();
            let got = exp_f32(x, exact);
            if want > f64::from(f32::MAX) {
                assert_eq!(got, f32::INFINITY, "exp({x})");
            } else {
                assert!(ulps(got, want) <= 1.0, "exp({x}) = {got:e}, {} ulp from {want:e}", ulps(got, want));
            }
        }
        assert_eq!(exp_f32(89.0, exact), f32::INFINITY);
        assert_eq!(exp_f32(f32::INFINITY, exact), f32::INFINITY);
        assert_eq!(exp_f32(-104.0, exact), 0.0);
        assert_eq!(exp_f32(f32::NEG_INFINITY, exact), 0.0);
        assert_eq!(exp_f32(-103.98, exact), 0.0);
        for nan in [f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001)] {
            assert!(exp_f32(nan, exact).is_nan(), "exp({:#x})", nan.to_bits());
        }
    }
}
