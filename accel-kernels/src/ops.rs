//! The semantics of scalar operations, shared by the reference interpreter and the generated CPU
//! code so that both compute bit-identical elements.
//!
//! Integers wrap on overflow (as they do on the GPU); division and remainder by zero return `None`
//! and become `Error::DivisionByZero`; shifts reduce their amount modulo the bit width. Floats
//! follow IEEE 754 through Rust's own operators; on the host the float functions are `std`'s
//! methods and `erf` comes from `libm`. On the GPU (no `std`) the functions that `core` has
//! (`sqrt`, `floor`, `mul_add`, ...) come from `core::f32::math` / `core::f64::math`, which lower to
//! the correctly rounded PTX instructions as on the host; the transcendental ones come from `libm`
//! (`core::intrinsics::expf32` and friends crash LLVM's NVPTX instruction selector), so they may
//! differ from the host's in the last bits, except `f32::exp` and `f32::ln`, which are the
//! branch-free versions of [`fmath`](crate::fmath) (within 3 ulp and 1 ulp); `powi` is
//! compiler-rt's repeated squaring.

/// Arithmetic on every numeric type.
pub trait Arith: Copy {
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    /// `None` for an integer division by zero.
    fn div(self, b: Self) -> Option<Self>;
    /// `None` for an integer remainder by zero.
    fn rem(self, b: Self) -> Option<Self>;
    fn neg(self) -> Self;
    /// `min`/`max` with Rust's semantics (for floats a NaN operand is ignored).
    fn min(self, b: Self) -> Self;
    fn max(self, b: Self) -> Self;
    /// `lo` below `lo`, else `hi` above `hi`, else `self` (no panic when `lo > hi`, unlike Rust).
    fn clamp(self, lo: Self, hi: Self) -> Self;
    fn abs(self) -> Self;
    /// `-1`, `0` or `1` for integers; for floats `1.0` or `-1.0` by the sign bit (NaN stays NaN).
    fn signum(self) -> Self;
    /// `None` for an integer division by zero; integer overflow wraps.
    fn div_euclid(self, b: Self) -> Option<Self>;
    /// `None` for an integer remainder by zero.
    fn rem_euclid(self, b: Self) -> Option<Self>;
}

/// The integer functions of the scalar language beyond `Arith` and `Bits`, with Rust's meaning;
/// `pow` wraps, and the `checked_*` ones return `default` where Rust's return `None`.
pub trait Int: Copy {
    fn pow(self, exp: u32) -> Self;
    fn count_ones(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn rotate_left(self, n: u32) -> Self;
    fn rotate_right(self, n: u32) -> Self;
    fn saturating_add(self, b: Self) -> Self;
    fn saturating_sub(self, b: Self) -> Self;
    fn saturating_mul(self, b: Self) -> Self;
    fn checked_add(self, b: Self, default: Self) -> Self;
    fn checked_sub(self, b: Self, default: Self) -> Self;
    fn checked_mul(self, b: Self, default: Self) -> Self;
    fn checked_div(self, b: Self, default: Self) -> Self;
    fn checked_rem(self, b: Self, default: Self) -> Self;
}

/// Bit operations on integers (`Not` is also defined for `bool`).
pub trait Bits: Copy {
    fn bit_and(self, b: Self) -> Self;
    fn bit_or(self, b: Self) -> Self;
    fn bit_xor(self, b: Self) -> Self;
    fn bit_not(self) -> Self;
    fn shl(self, amount: u32) -> Self;
    fn shr(self, amount: u32) -> Self;
}

/// The float functions of the scalar language.
pub trait Float: Copy {
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, b: Self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn hypot(self, b: Self) -> Self;
    fn powf(self, b: Self) -> Self;
    fn powi(self, b: i32) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn trunc(self) -> Self;
    /// `self - self.trunc()`.
    fn fract(self) -> Self;
    /// `1 / self`, correctly rounded.
    fn recip(self) -> Self;
    fn to_radians(self) -> Self;
    fn to_degrees(self) -> Self;
    /// `self` with the sign bit of `sign`.
    fn copysign(self, sign: Self) -> Self;
    fn mul_add(self, b: Self, c: Self) -> Self;
    fn erf(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_finite(self) -> bool;
}

macro_rules! int_ops {
    ($($t:ty, $abs:expr, $signum:expr;)*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            #[inline(always)] fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            #[inline(always)] fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            #[inline(always)] fn div(self, b: Self) -> Option<Self> {
                if b == 0 { None } else { Some(self.wrapping_div(b)) }
            }
            #[inline(always)] fn rem(self, b: Self) -> Option<Self> {
                if b == 0 { None } else { Some(self.wrapping_rem(b)) }
            }
            #[inline(always)] fn neg(self) -> Self { self.wrapping_neg() }
            #[inline(always)] fn min(self, b: Self) -> Self { Ord::min(self, b) }
            #[inline(always)] fn max(self, b: Self) -> Self { Ord::max(self, b) }
            #[inline(always)] fn clamp(self, lo: Self, hi: Self) -> Self {
                if self < lo { lo } else if self > hi { hi } else { self }
            }
            #[inline(always)] fn abs(self) -> Self { let f: fn($t) -> $t = $abs; f(self) }
            #[inline(always)] fn signum(self) -> Self { let f: fn($t) -> $t = $signum; f(self) }
            #[inline(always)] fn div_euclid(self, b: Self) -> Option<Self> {
                if b == 0 { None } else { Some(self.wrapping_div_euclid(b)) }
            }
            #[inline(always)] fn rem_euclid(self, b: Self) -> Option<Self> {
                if b == 0 { None } else { Some(self.wrapping_rem_euclid(b)) }
            }
        }
        impl Int for $t {
            #[inline(always)] fn pow(self, exp: u32) -> Self { self.wrapping_pow(exp) }
            #[inline(always)] fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            #[inline(always)] fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            #[inline(always)] fn trailing_zeros(self) -> u32 { <$t>::trailing_zeros(self) }
            #[inline(always)] fn rotate_left(self, n: u32) -> Self { <$t>::rotate_left(self, n) }
            #[inline(always)] fn rotate_right(self, n: u32) -> Self { <$t>::rotate_right(self, n) }
            #[inline(always)] fn saturating_add(self, b: Self) -> Self { <$t>::saturating_add(self, b) }
            #[inline(always)] fn saturating_sub(self, b: Self) -> Self { <$t>::saturating_sub(self, b) }
            #[inline(always)] fn saturating_mul(self, b: Self) -> Self { <$t>::saturating_mul(self, b) }
            #[inline(always)] fn checked_add(self, b: Self, default: Self) -> Self {
                <$t>::checked_add(self, b).unwrap_or(default)
            }
            #[inline(always)] fn checked_sub(self, b: Self, default: Self) -> Self {
                <$t>::checked_sub(self, b).unwrap_or(default)
            }
            #[inline(always)] fn checked_mul(self, b: Self, default: Self) -> Self {
                <$t>::checked_mul(self, b).unwrap_or(default)
            }
            #[inline(always)] fn checked_div(self, b: Self, default: Self) -> Self {
                <$t>::checked_div(self, b).unwrap_or(default)
            }
            #[inline(always)] fn checked_rem(self, b: Self, default: Self) -> Self {
                <$t>::checked_rem(self, b).unwrap_or(default)
            }
        }
        impl Bits for $t {
            #[inline(always)] fn bit_and(self, b: Self) -> Self { self & b }
            #[inline(always)] fn bit_or(self, b: Self) -> Self { self | b }
            #[inline(always)] fn bit_xor(self, b: Self) -> Self { self ^ b }
            #[inline(always)] fn bit_not(self) -> Self { !self }
            #[inline(always)] fn shl(self, amount: u32) -> Self { self.wrapping_shl(amount) }
            #[inline(always)] fn shr(self, amount: u32) -> Self { self.wrapping_shr(amount) }
        }
    )*};
}

// `signum` of an unsigned integer is not in the language (Rust has none); the front end rejects it.
int_ops! {
    i8, |x| x.wrapping_abs(), |x| x.signum();
    i16, |x| x.wrapping_abs(), |x| x.signum();
    i32, |x| x.wrapping_abs(), |x| x.signum();
    i64, |x| x.wrapping_abs(), |x| x.signum();
    u8, |x| x, |x| Ord::min(x, 1);
    u16, |x| x, |x| Ord::min(x, 1);
    u32, |x| x, |x| Ord::min(x, 1);
    u64, |x| x, |x| Ord::min(x, 1);
    usize, |x| x, |x| Ord::min(x, 1);
}

impl Bits for bool {
    #[inline(always)]
    fn bit_and(self, b: Self) -> Self {
        self & b
    }
    #[inline(always)]
    fn bit_or(self, b: Self) -> Self {
        self | b
    }
    #[inline(always)]
    fn bit_xor(self, b: Self) -> Self {
        self ^ b
    }
    #[inline(always)]
    fn bit_not(self) -> Self {
        !self
    }
    #[inline(always)]
    fn shl(self, _: u32) -> Self {
        self
    }
    #[inline(always)]
    fn shr(self, _: u32) -> Self {
        self
    }
}

macro_rules! float_ops {
    ($($t:ident, $m:ident, $degrees:expr;)*) => {$(
        impl Arith for $t {
            #[inline(always)] fn add(self, b: Self) -> Self { self + b }
            #[inline(always)] fn sub(self, b: Self) -> Self { self - b }
            #[inline(always)] fn mul(self, b: Self) -> Self { self * b }
            #[inline(always)] fn div(self, b: Self) -> Option<Self> { Some(self / b) }
            #[inline(always)] fn rem(self, b: Self) -> Option<Self> { Some(math::$m::rem(self, b)) }
            #[inline(always)] fn neg(self) -> Self { -self }
            // Spelled out rather than `f32::min`: LLVM may give either zero for `min(0.0, -0.0)`,
            // and the backends must agree bit for bit. NaN operands are ignored; -0 < +0.
            #[inline(always)] fn min(self, b: Self) -> Self {
                if self < b || b.is_nan() || (self == b && self.is_sign_negative()) { self } else { b }
            }
            #[inline(always)] fn max(self, b: Self) -> Self {
                if self > b || b.is_nan() || (self == b && self.is_sign_positive()) { self } else { b }
            }
            #[inline(always)] fn clamp(self, lo: Self, hi: Self) -> Self {
                if self < lo { lo } else if self > hi { hi } else { self }
            }
            #[inline(always)] fn abs(self) -> Self { $t::abs(self) }
            #[inline(always)] fn signum(self) -> Self {
                if self.is_nan() { self } else { Float::copysign(1.0, self) }
            }
            /// Rust's definition: the quotient rounded so that the remainder is never negative.
            #[inline(always)] fn div_euclid(self, b: Self) -> Option<Self> {
                let q = math::$m::trunc(self / b);
                Some(if math::$m::rem(self, b) < 0.0 { if b > 0.0 { q - 1.0 } else { q + 1.0 } } else { q })
            }
            #[inline(always)] fn rem_euclid(self, b: Self) -> Option<Self> {
                let r = math::$m::rem(self, b);
                Some(if r < 0.0 { r + $t::abs(b) } else { r })
            }
        }
        impl Float for $t {
            #[inline(always)] fn sqrt(self) -> Self { math::$m::sqrt(self) }
            #[inline(always)] fn cbrt(self) -> Self { math::$m::cbrt(self) }
            #[inline(always)] fn exp(self) -> Self { math::$m::exp(self) }
            #[inline(always)] fn exp2(self) -> Self { math::$m::exp2(self) }
            #[inline(always)] fn exp_m1(self) -> Self { math::$m::exp_m1(self) }
            #[inline(always)] fn ln(self) -> Self { math::$m::ln(self) }
            #[inline(always)] fn ln_1p(self) -> Self { math::$m::ln_1p(self) }
            #[inline(always)] fn log2(self) -> Self { math::$m::log2(self) }
            #[inline(always)] fn log10(self) -> Self { math::$m::log10(self) }
            #[inline(always)] fn sin(self) -> Self { math::$m::sin(self) }
            #[inline(always)] fn cos(self) -> Self { math::$m::cos(self) }
            #[inline(always)] fn tan(self) -> Self { math::$m::tan(self) }
            #[inline(always)] fn asin(self) -> Self { math::$m::asin(self) }
            #[inline(always)] fn acos(self) -> Self { math::$m::acos(self) }
            #[inline(always)] fn atan(self) -> Self { math::$m::atan(self) }
            #[inline(always)] fn atan2(self, b: Self) -> Self { math::$m::atan2(self, b) }
            #[inline(always)] fn sinh(self) -> Self { math::$m::sinh(self) }
            #[inline(always)] fn cosh(self) -> Self { math::$m::cosh(self) }
            #[inline(always)] fn tanh(self) -> Self { math::$m::tanh(self) }
            #[inline(always)] fn hypot(self, b: Self) -> Self { math::$m::hypot(self, b) }
            #[inline(always)] fn powf(self, b: Self) -> Self { math::$m::powf(self, b) }
            #[inline(always)] fn powi(self, b: i32) -> Self { math::$m::powi(self, b) }
            #[inline(always)] fn floor(self) -> Self { math::$m::floor(self) }
            #[inline(always)] fn ceil(self) -> Self { math::$m::ceil(self) }
            #[inline(always)] fn round(self) -> Self { math::$m::round(self) }
            #[inline(always)] fn trunc(self) -> Self { math::$m::trunc(self) }
            #[inline(always)] fn fract(self) -> Self { self - math::$m::trunc(self) }
            #[inline(always)] fn recip(self) -> Self { 1.0 / self }
            #[inline(always)] fn to_radians(self) -> Self { self * (core::$t::consts::PI / 180.0) }
            #[inline(always)] fn to_degrees(self) -> Self { self * $degrees }
            #[inline(always)] fn copysign(self, sign: Self) -> Self {
                if sign.is_sign_negative() { -$t::abs(self) } else { $t::abs(self) }
            }
            #[inline(always)] fn mul_add(self, b: Self, c: Self) -> Self { math::$m::mul_add(self, b, c) }
            #[inline(always)] fn erf(self) -> Self { math::$m::erf(self) }
            #[inline(always)] fn is_nan(self) -> bool { $t::is_nan(self) }
            #[inline(always)] fn is_finite(self) -> bool { $t::is_finite(self) }
        }
    )*};
}

// Degrees per radian, rounded once from the `f64` value (`180.0 / PI` computed in `f32` misses the
// nearest `f32` by an ulp).
float_ops! {
    f32, m32, (180.0_f64 / core::f64::consts::PI) as f32;
    f64, m64, 180.0_f64 / core::f64::consts::PI;
}

/// A float converted to a 32- or 64-bit integer as Rust's `as` converts it: toward zero,
/// clamped to the integer's range, NaN to 0. On the GPU that is PTX's `cvt.rzi`, which clamps to
/// the destination's range and, from `f32` to a 32-bit integer, converts NaN to 0; from `f64`, or
/// to a 64-bit integer, it gives NaN `1 << (bits - 1)` (PTX ISA 9.0; an H200 does so:
/// `cuda::scalar::casts_are_rust_as` caught it). Those conversions take NaN to 0 themselves: an
/// unsigned one by a `max` with 0 before `cvt` (one instruction; PTX's `max` returns the operand
/// that is not NaN, and a negative input converts to 0 either way), a signed one by a test and a
/// select after it. LLVM's lowering of `as` adds two compares and four selects instead (in a
/// histogram's binning, 6 of the about 25 instructions of a sample's SASS).
///
/// On an x86-64 host, which has no conversion to an unsigned integer, LLVM's lowering of `as`
/// to `u64` or `usize` converts twice (below and above `2^63`), and to `u32` through a 64-bit
/// signed conversion, then clamps with compares and conditional moves: some ten instructions,
/// a third of the CPU histogram's loop. A value in `(-1, 2^32)` (`2^63` for 64 bits), which is
/// what a program converts to an index or a bin, takes one signed conversion, so that case is
/// tested first and the others take `as` out of line. Elsewhere the host keeps `as`. The code
/// generators of both backends call it for every float-to-integer `as` of 32 or 64 bits.
pub trait ToInt<I>: Copy {
    fn to_int(self) -> I;
}

macro_rules! to_int {
    ($($f:ty, $freg:ident, $i:ty, $ireg:ident, $cvt:literal, $nan_to_zero:literal;)*) => {$(
        impl ToInt<$i> for $f {
            #[inline(always)]
            fn to_int(self) -> $i {
                #[cfg(target_arch = "nvptx64")]
                {
                    let out: $i;
                    // The last field of each line of the table below: whether the instruction
                    // itself converts NaN to 0. Where it does not, see the trait's documentation.
                    #[allow(unused_comparisons)]
                    let unsigned = <$i>::MIN >= 0;
                    let x = if unsigned && !$nan_to_zero { self.max(0.0) } else { self };
                    // SAFETY: a register-to-register conversion, defined for every input.
                    unsafe {
                        core::arch::asm!(concat!($cvt, " {o}, {x};"), o = out($ireg) out, x = in($freg) x,
                            options(pure, nomem, nostack, preserves_flags));
                    }
                    if !$nan_to_zero && !unsigned && self.is_nan() { 0 } else { out }
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    HostToInt::<$i>::host_to_int(self)
                }
            }
        }
    )*};
}

/// `x as I` on the host (see [`ToInt`]).
#[cfg(not(target_arch = "nvptx64"))]
trait HostToInt<I> {
    fn host_to_int(self) -> I;
}

/// The unsigned conversions, with their usual range tested first on x86-64 (see [`ToInt`]):
/// `$limit` is the least float past the range where the signed conversion to `$wide` is exact.
#[cfg(not(target_arch = "nvptx64"))]
macro_rules! host_to_unsigned {
    ($($f:ty, $i:ty, $wide:ty, $limit:expr;)*) => {$(
        impl HostToInt<$i> for $f {
            #[inline(always)]
            fn host_to_int(self) -> $i {
                #[cfg(target_arch = "x86_64")]
                {
                    /// The rest: negative, NaN, too large; out of line, so that the usual case
                    /// stays one branch that is always taken the same way.
                    #[cold]
                    #[inline(never)]
                    fn rest(x: $f) -> $i {
                        x as $i
                    }
                    if self > -1.0 && self < $limit {
                        // SAFETY: finite, and its truncation lies in `0..2^bits`, inside `$wide`.
                        unsafe { self.to_int_unchecked::<$wide>() as $i }
                    } else {
                        rest(self)
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    self as $i
                }
            }
        }
    )*};
}

#[cfg(not(target_arch = "nvptx64"))]
host_to_unsigned! {
    f32, u32, i64, 4_294_967_296.0;
    f64, u32, i64, 4_294_967_296.0;
    f32, u64, i64, 9_223_372_036_854_775_808.0;
    f64, u64, i64, 9_223_372_036_854_775_808.0;
    f32, usize, i64, 9_223_372_036_854_775_808.0;
    f64, usize, i64, 9_223_372_036_854_775_808.0;
}

/// The signed conversions keep `as`: x86-64 converts to a signed integer itself, and LLVM's
/// lowering only adds the clamps.
#[cfg(not(target_arch = "nvptx64"))]
macro_rules! host_to_signed {
    ($($f:ty, $i:ty;)*) => {$(
        impl HostToInt<$i> for $f {
            #[inline(always)]
            fn host_to_int(self) -> $i {
                self as $i
            }
        }
    )*};
}

#[cfg(not(target_arch = "nvptx64"))]
host_to_signed! {
    f32, i32;
    f64, i32;
    f32, i64;
    f64, i64;
}

to_int! {
    f32, reg32, i32, reg32, "cvt.rzi.s32.f32", true;
    f32, reg32, u32, reg32, "cvt.rzi.u32.f32", true;
    f32, reg32, i64, reg64, "cvt.rzi.s64.f32", false;
    f32, reg32, u64, reg64, "cvt.rzi.u64.f32", false;
    f32, reg32, usize, reg64, "cvt.rzi.u64.f32", false;
    f64, reg64, i32, reg32, "cvt.rzi.s32.f64", false;
    f64, reg64, u32, reg32, "cvt.rzi.u32.f64", false;
    f64, reg64, i64, reg64, "cvt.rzi.s64.f64", false;
    f64, reg64, u64, reg64, "cvt.rzi.u64.f64", false;
    f64, reg64, usize, reg64, "cvt.rzi.u64.f64", false;
}

/// The float functions of one type as free functions, so that `float_ops!` names them the same
/// way on the host and on the GPU.
#[cfg(not(target_arch = "nvptx64"))]
mod math {
    macro_rules! std_fns {
        ($m:ident, $t:ident, $erf:path) => {
            pub mod $m {
                std_fns!(@unary $t: sqrt cbrt exp exp2 exp_m1 ln ln_1p log2 log10 sin cos tan asin acos atan sinh
                    cosh tanh floor ceil round trunc);
                #[inline(always)] pub fn atan2(x: $t, y: $t) -> $t { $t::atan2(x, y) }
                #[inline(always)] pub fn hypot(x: $t, y: $t) -> $t { $t::hypot(x, y) }
                #[inline(always)] pub fn powf(x: $t, y: $t) -> $t { $t::powf(x, y) }
                #[inline(always)] pub fn powi(x: $t, n: i32) -> $t { $t::powi(x, n) }
                #[inline(always)] pub fn mul_add(x: $t, y: $t, z: $t) -> $t { $t::mul_add(x, y, z) }
                #[inline(always)] pub fn erf(x: $t) -> $t { $erf(x) }
                /// `fmod`, exact.
                #[inline(always)] pub fn rem(x: $t, y: $t) -> $t { x % y }
            }
        };
        (@unary $t:ident: $($f:ident)*) => {$(
            #[inline(always)] pub fn $f(x: $t) -> $t { $t::$f(x) }
        )*};
    }

    std_fns!(m32, f32, libm::erff);
    std_fns!(m64, f64, libm::erf);
}

#[cfg(target_arch = "nvptx64")]
mod math {
    /// One table for both types: each function's `f32` and `f64` implementation side by side.
    macro_rules! device_fns {
        (
            $m32:ident: f32 = $core32:path, $m64:ident: f64 = $core64:path;
            binary: $atan2_32:path, $atan2_64:path; $hypot32:path, $hypot64:path; $powf32:path, $powf64:path;
                $fmod32:path, $fmod64:path;
            $($f:ident = $f32:path, $f64:path;)*
        ) => {
            device_fns!(@one $m32, f32, $core32, [$($f = $f32),*], $atan2_32, $hypot32, $powf32, $fmod32);
            device_fns!(@one $m64, f64, $core64, [$($f = $f64),*], $atan2_64, $hypot64, $powf64, $fmod64);
        };
        (
            @one $m:ident, $t:ident, $core:path, [$($f:ident = $libm:path),*], $atan2:path, $hypot:path, $powf:path,
            $fmod:path
        ) => {
            pub mod $m {
                use $core as core_math;

                #[inline(always)] pub fn sqrt(x: $t) -> $t { core_math::sqrt(x) }
                #[inline(always)] pub fn floor(x: $t) -> $t { core_math::floor(x) }
                #[inline(always)] pub fn ceil(x: $t) -> $t { core_math::ceil(x) }
                #[inline(always)] pub fn round(x: $t) -> $t { core_math::round(x) }
                #[inline(always)] pub fn trunc(x: $t) -> $t { core_math::trunc(x) }
                #[inline(always)] pub fn mul_add(x: $t, y: $t, z: $t) -> $t { core_math::mul_add(x, y, z) }
                $(#[inline(always)] pub fn $f(x: $t) -> $t { $libm(x) })*
                #[inline(always)] pub fn atan2(x: $t, y: $t) -> $t { $atan2(x, y) }
                #[inline(always)] pub fn hypot(x: $t, y: $t) -> $t { $hypot(x, y) }
                #[inline(always)] pub fn powf(x: $t, y: $t) -> $t { $powf(x, y) }
                /// `fmod`, exact: LLVM lowers `%` on floats for the GPU to `x - y * trunc(x / y)`,
                /// which loses everything once the quotient passes 2^24 (2^53).
                #[inline(always)] pub fn rem(x: $t, y: $t) -> $t { $fmod(x, y) }

                /// compiler-rt's `__powisf2` / `__powidf2` (what `powi` calls on the host).
                #[inline(always)]
                pub fn powi(x: $t, n: i32) -> $t {
                    let (mut a, mut b, mut r) = (x, n, 1.0);
                    loop {
                        if b & 1 != 0 {
                            r *= a;
                        }
                        b /= 2;
                        if b == 0 {
                            break;
                        }
                        a *= a;
                    }
                    if n < 0 { 1.0 / r } else { r }
                }
            }
        };
    }

    device_fns!(
        m32: f32 = core::f32::math, m64: f64 = core::f64::math;
        binary: libm::atan2f, libm::atan2; libm::hypotf, libm::hypot; libm::powf, libm::pow; libm::fmodf, libm::fmod;
        cbrt = libm::cbrtf, libm::cbrt;
        exp = super::exp_f32, libm::exp;
        exp2 = libm::exp2f, libm::exp2;
        exp_m1 = libm::expm1f, libm::expm1;
        ln = crate::fmath::ln_f32, libm::log;
        ln_1p = libm::log1pf, libm::log1p;
        log2 = libm::log2f, libm::log2;
        log10 = libm::log10f, libm::log10;
        sin = libm::sinf, libm::sin;
        cos = libm::cosf, libm::cos;
        tan = libm::tanf, libm::tan;
        asin = libm::asinf, libm::asin;
        acos = libm::acosf, libm::acos;
        atan = libm::atanf, libm::atan;
        sinh = libm::sinhf, libm::sinh;
        cosh = libm::coshf, libm::cosh;
        tanh = libm::tanhf, libm::tanh;
        erf = libm::erff, libm::erf;
    );

    /// `e^x` with the hardware's `ex2.approx` (`fmath::exp_f32`).
    #[inline(always)]
    pub fn exp_f32(x: f32) -> f32 {
        crate::fmath::exp_f32(x, crate::fmath::hw::ex2_ftz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ToInt` gives what `as` gives, for the edges of every range and a sample of every `f32`
    /// bit pattern (and of `f64` ones).
    #[test]
    fn to_int_is_as_for_every_kind_of_float() {
        // Every conversion of `x` (one float type) against `as`.
        macro_rules! same_as_as {
            ($x:expr) => {{
                let x = $x;
                assert_eq!(ToInt::<u32>::to_int(x), x as u32, "{x:?} as u32");
                assert_eq!(ToInt::<u64>::to_int(x), x as u64, "{x:?} as u64");
                assert_eq!(ToInt::<usize>::to_int(x), x as usize, "{x:?} as usize");
                assert_eq!(ToInt::<i32>::to_int(x), x as i32, "{x:?} as i32");
                assert_eq!(ToInt::<i64>::to_int(x), x as i64, "{x:?} as i64");
            }};
        }
        let check32 = |x: f32| same_as_as!(x);
        let check64 = |x: f64| same_as_as!(x);
        let edges = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2f64.powi(31), 2f64.powi(32), 2f64.powi(63), 2f64.powi(64)];
        for e in edges {
            for x in [e, -e] {
                for d in [-2.0, -1.0, -0.75, 0.0, 0.25, 1.0] {
                    check64(x + d);
                    check32((x + d) as f32);
                }
                // The neighbours of each edge, in each type.
                let (x32, x64) = (x as f32, x);
                for k in [-2i32, -1, 1, 2] {
                    check32(f32::from_bits(x32.to_bits().wrapping_add_signed(k)));
                    check64(f64::from_bits(x64.to_bits().wrapping_add_signed(k.into())));
                }
            }
        }
        for x in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN, f32::MIN_POSITIVE] {
            check32(x);
            check64(f64::from(x));
        }
        // Every 65 537th bit pattern (a prime stride, through every exponent and sign).
        for bits in (0..=u32::MAX).step_by(65_537) {
            check32(f32::from_bits(bits));
            check64(f64::from_bits(u64::from(bits).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        }
    }

    #[test]
    fn integers_wrap_and_division_by_zero_is_none() {
        assert_eq!(Arith::add(i32::MAX, 1), i32::MIN);
        assert_eq!(Arith::div(7u32, 0), None);
        assert_eq!(Arith::div(i32::MIN, -1), Some(i32::MIN));
        assert_eq!(Bits::shl(1u32, 33), 2);
        assert_eq!(Arith::abs(i32::MIN), i32::MIN);
        // The 8- and 16-bit integers wrap at their own width.
        assert_eq!(Arith::add(200u8, 100), 44);
        assert_eq!(Arith::mul(-128i8, -1), -128);
        assert_eq!(Arith::div(i16::MIN, -1), Some(i16::MIN));
        assert_eq!(Arith::rem(5u16, 0), None);
        assert_eq!(Bits::shl(1u8, 9), 2);
        assert_eq!(Int::pow(3u16, 11), 3u16.wrapping_pow(11));
        assert_eq!(Int::saturating_sub(-100i8, 100), i8::MIN);
    }

    #[test]
    fn float_min_max_are_deterministic_on_zeros_and_nan() {
        assert!(Arith::max(-0.0f64, 0.0).is_sign_positive() && Arith::max(0.0f64, -0.0).is_sign_positive());
        assert!(Arith::min(-0.0f32, 0.0).is_sign_negative() && Arith::min(0.0f32, -0.0).is_sign_negative());
        assert_eq!(Arith::max(f64::NAN, 1.0), 1.0);
        assert_eq!(Arith::min(2.0f32, f32::NAN), 2.0);
        assert!(Arith::max(f32::NAN, f32::NAN).is_nan());
    }

    #[test]
    fn the_library_never_panics_where_rust_does() {
        // Rust's `clamp` panics for `lo > hi`, its `div_euclid` on `MIN / -1` and by zero.
        assert_eq!((Arith::clamp(5i32, 9, 1), Arith::clamp(10i32, 9, 1)), (9, 1));
        assert_eq!(Arith::div_euclid(i32::MIN, -1), Some(i32::MIN));
        assert_eq!((Arith::rem_euclid(-7i64, 0), Arith::rem_euclid(-7i64, 3)), (None, Some(2)));
        assert_eq!(Int::checked_div(i64::MIN, -1, 42), 42);
        assert_eq!(Int::checked_rem(3u32, 0, 9), 9);
        assert_eq!(Int::pow(3i32, 40), 3i32.wrapping_pow(40));
        assert!(Arith::clamp(f32::NAN, 0.0, 1.0).is_nan());
    }

    #[test]
    fn float_signs_follow_the_sign_bit() {
        assert_eq!(Arith::signum(-0.0f64), -1.0);
        assert_eq!(Arith::signum(0.0f32), 1.0);
        assert!(Arith::signum(f64::NAN).is_nan());
        assert_eq!(Float::copysign(2.0f32, -0.0).to_bits(), (-2.0f32).to_bits());
        assert_eq!(Arith::rem_euclid(-7.5f64, 2.0), Some(0.5));
        assert_eq!(Arith::div_euclid(-7.5f64, 2.0), Some(-4.0));
        assert_eq!(Float::to_degrees(core::f32::consts::PI), 180.0);
    }

    #[test]
    fn erf_matches_tabulated_values() {
        assert!((Float::erf(0.5f64) - 0.520_499_877_813_046_5).abs() < 1e-15);
        assert!((Float::erf(1.0f32) - 0.842_700_8).abs() < 1e-6);
    }
}
