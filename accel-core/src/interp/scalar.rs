//! Scalar operations on dynamic values: each dispatches on the concrete Rust type and calls the
//! shared semantics of [`crate::ops`].

use super::ill_typed;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Const, MathFn, UnaryOp};
use crate::ops::{Arith, Bits, Float, Int};
use crate::types::ScalarType;
use crate::value::ScalarValue;
use std::cmp::Ordering;

/// `Some(variant(body))` for an operand of one of the listed variants, else `None`.
macro_rules! lift1 {
    ($a:expr, |$x:ident| $body:expr; $($t:ident)*) => {
        match $a {
            $(ScalarValue::$t($x) => Some(ScalarValue::$t($body)),)*
            _ => None,
        }
    };
}

/// `Some(result(body))` for an operand of one of the listed variants, else `None`.
macro_rules! lift1_to {
    ($a:expr, $result:ident, |$x:ident| $body:expr; $($t:ident)*) => {
        match $a {
            $(ScalarValue::$t($x) => Some(ScalarValue::$result($body)),)*
            _ => None,
        }
    };
}

/// `Some(variant(body))` for an operand of one of the listed variants and a `u32`, else `None`.
macro_rules! lift1_u32 {
    ($a:expr, $b:expr, |$x:ident, $n:ident| $body:expr; $($t:ident)*) => {
        match ($a, $b) {
            $((ScalarValue::$t($x), ScalarValue::U32($n)) => Some(ScalarValue::$t($body)),)*
            _ => None,
        }
    };
}

/// `Some(variant(body))` for three operands of the same listed variant, else `None`.
macro_rules! lift3 {
    ($a:expr, $b:expr, $c:expr, |$x:ident, $y:ident, $z:ident| $body:expr; $($t:ident)*) => {
        match ($a, $b, $c) {
            $((ScalarValue::$t($x), ScalarValue::$t($y), ScalarValue::$t($z)) => Some(ScalarValue::$t($body)),)*
            _ => None,
        }
    };
}

/// `Some(variant(body))` for two operands of the same listed variant, else `None`.
macro_rules! lift2 {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr; $($t:ident)*) => {
        match ($a, $b) {
            $((ScalarValue::$t($x), ScalarValue::$t($y)) => Some(ScalarValue::$t($body)),)*
            _ => None,
        }
    };
}

/// The variants of `ScalarValue` by class: `ints!(lift2!(a, b, |x, y| ..))` applies a `lift`
/// macro to the integer variants (and to the extra variants that follow the call, which is how
/// the other classes are built on it): `nums` every number, `bits` the integers and `bool`, `all`
/// every scalar, `signed` the signed integers and the floats. The integers are listed here once.
macro_rules! ints {
    ($lift:ident!($($args:tt)*) $($more:ident)*) => {
        $lift!($($args)*; I8 I16 I32 I64 U8 U16 U32 U64 Usize $($more)*)
    };
}
macro_rules! nums {
    ($lift:ident!($($args:tt)*)) => { ints!($lift!($($args)*) F32 F64) };
}
macro_rules! bits {
    ($lift:ident!($($args:tt)*)) => { ints!($lift!($($args)*) Bool) };
}
macro_rules! all {
    ($lift:ident!($($args:tt)*)) => { ints!($lift!($($args)*) Bool F32 F64) };
}
macro_rules! signed {
    ($lift:ident!($($args:tt)*)) => { $lift!($($args)*; I8 I16 I32 I64 F32 F64) };
}

pub fn constant(c: &Const) -> Result<ScalarValue> {
    match *c {
        Const::Bool(b) => Ok(ScalarValue::Bool(b)),
        Const::Int(v, t) if t.is_integer() => Ok(ScalarValue::from_i128(v, t)),
        Const::Float(v, ScalarType::F32) => Ok(ScalarValue::F32(v as f32)),
        Const::Float(v, ScalarType::F64) => Ok(ScalarValue::F64(v)),
        c => Err(ill_typed(format!("the constant {c:?}"))),
    }
}

pub fn unary(op: UnaryOp, x: ScalarValue) -> Result<ScalarValue> {
    let r = match op {
        UnaryOp::Neg => nums!(lift1!(x, |v| Arith::neg(v))),
        UnaryOp::Not => bits!(lift1!(x, |v| Bits::bit_not(v))),
    };
    r.ok_or_else(|| ill_typed(format!("{op:?} of a {}", x.scalar_type())))
}

/// Every binary operator but the short-circuit `&&` and `||` (also accepted here, on bools).
pub fn binary(op: BinaryOp, a: ScalarValue, b: ScalarValue) -> Result<ScalarValue> {
    use BinaryOp::*;
    let r = match op {
        Add => nums!(lift2!(a, b, |x, y| Arith::add(x, y))),
        Sub => nums!(lift2!(a, b, |x, y| Arith::sub(x, y))),
        Mul => nums!(lift2!(a, b, |x, y| Arith::mul(x, y))),
        Div => nums!(lift2!(a, b, |x, y| Arith::div(x, y).ok_or_else(|| Error::division_by_zero("/"))?)),
        Rem => nums!(lift2!(a, b, |x, y| Arith::rem(x, y).ok_or_else(|| Error::division_by_zero("%"))?)),
        DivEuclid => {
            nums!(lift2!(a, b, |x, y| Arith::div_euclid(x, y).ok_or_else(|| Error::division_by_zero("div_euclid"))?))
        }
        RemEuclid => {
            nums!(lift2!(a, b, |x, y| Arith::rem_euclid(x, y).ok_or_else(|| Error::division_by_zero("rem_euclid"))?))
        }
        Eq | Ne | Lt | Le | Gt | Ge => compare(a, b).map(|ord| ScalarValue::Bool(holds(op, ord))),
        And => lift2!(a, b, |x, y| x && y; Bool),
        Or => lift2!(a, b, |x, y| x || y; Bool),
        BitAnd => bits!(lift2!(a, b, |x, y| Bits::bit_and(x, y))),
        BitOr => bits!(lift2!(a, b, |x, y| Bits::bit_or(x, y))),
        BitXor => bits!(lift2!(a, b, |x, y| Bits::bit_xor(x, y))),
        Shl | Shr if b.scalar_type().is_integer() => {
            // The amount may be of any integer type; `as u32` keeps its low bits, and `ops`
            // reduces it modulo the width, as Rust's `wrapping_shl` does.
            let ScalarValue::U32(amount) = b.cast(ScalarType::U32) else { unreachable!("a cast to u32 gives a u32") };
            if op == Shl {
                ints!(lift1!(a, |x| Bits::shl(x, amount)))
            } else {
                ints!(lift1!(a, |x| Bits::shr(x, amount)))
            }
        }
        Shl | Shr => None,
    };
    r.ok_or_else(|| ill_typed(format!("`{}` on {} and {}", op.symbol(), a.scalar_type(), b.scalar_type())))
}

/// The order of two scalars of the same type (`Some(None)` for unordered floats), or `None`
/// for operands of different types.
fn compare(a: ScalarValue, b: ScalarValue) -> Option<Option<Ordering>> {
    macro_rules! order {
        ($a:expr, $b:expr; $($t:ident)*) => {
            match ($a, $b) {
                $((ScalarValue::$t(x), ScalarValue::$t(y)) => Some(x.partial_cmp(&y)),)*
                _ => None,
            }
        };
    }
    all!(order!(a, b))
}

/// Whether a comparison holds for an order; with IEEE floats a NaN operand makes every
/// comparison false except `!=`.
fn holds(op: BinaryOp, ord: Option<Ordering>) -> bool {
    use Ordering::*;
    match op {
        BinaryOp::Eq => ord == Some(Equal),
        BinaryOp::Ne => ord != Some(Equal),
        BinaryOp::Lt => ord == Some(Less),
        BinaryOp::Le => matches!(ord, Some(Less | Equal)),
        BinaryOp::Gt => ord == Some(Greater),
        BinaryOp::Ge => matches!(ord, Some(Greater | Equal)),
        _ => unreachable!("only called for comparisons"),
    }
}

pub fn math(f: MathFn, args: &[ScalarValue]) -> Result<ScalarValue> {
    use MathFn::*;
    use ScalarValue::{Bool, F32, F64, I32};
    let r = match (f, args) {
        (Abs, &[x]) => nums!(lift1!(x, |v| Arith::abs(v))),
        (Signum, &[x]) => signed!(lift1!(x, |v| Arith::signum(v))),
        (Min, &[x, y]) => nums!(lift2!(x, y, |a, b| Arith::min(a, b))),
        (Max, &[x, y]) => nums!(lift2!(x, y, |a, b| Arith::max(a, b))),
        (Clamp, &[x, lo, hi]) => nums!(lift3!(x, lo, hi, |a, b, c| Arith::clamp(a, b, c))),
        (Powi, &[F32(x), I32(n)]) => Some(F32(Float::powi(x, n))),
        (Powi, &[F64(x), I32(n)]) => Some(F64(Float::powi(x, n))),
        (IsNan, &[F32(x)]) => Some(Bool(Float::is_nan(x))),
        (IsNan, &[F64(x)]) => Some(Bool(Float::is_nan(x))),
        (IsFinite, &[F32(x)]) => Some(Bool(Float::is_finite(x))),
        (IsFinite, &[F64(x)]) => Some(Bool(Float::is_finite(x))),
        (Atan2, &[x, y]) => lift2!(x, y, |a, b| Float::atan2(a, b); F32 F64),
        (Hypot, &[x, y]) => lift2!(x, y, |a, b| Float::hypot(a, b); F32 F64),
        (Powf, &[x, y]) => lift2!(x, y, |a, b| Float::powf(a, b); F32 F64),
        (Copysign, &[x, y]) => lift2!(x, y, |a, b| Float::copysign(a, b); F32 F64),
        (MulAdd, &[x, y, z]) => lift3!(x, y, z, |a, b, c| Float::mul_add(a, b, c); F32 F64),
        (Pow, &[x, n]) => ints!(lift1_u32!(x, n, |a, k| Int::pow(a, k))),
        (RotateLeft, &[x, n]) => ints!(lift1_u32!(x, n, |a, k| Int::rotate_left(a, k))),
        (RotateRight, &[x, n]) => ints!(lift1_u32!(x, n, |a, k| Int::rotate_right(a, k))),
        (CountOnes, &[x]) => ints!(lift1_to!(x, U32, |a| Int::count_ones(a))),
        (LeadingZeros, &[x]) => ints!(lift1_to!(x, U32, |a| Int::leading_zeros(a))),
        (TrailingZeros, &[x]) => ints!(lift1_to!(x, U32, |a| Int::trailing_zeros(a))),
        (SaturatingAdd, &[x, y]) => ints!(lift2!(x, y, |a, b| Int::saturating_add(a, b))),
        (SaturatingSub, &[x, y]) => ints!(lift2!(x, y, |a, b| Int::saturating_sub(a, b))),
        (SaturatingMul, &[x, y]) => ints!(lift2!(x, y, |a, b| Int::saturating_mul(a, b))),
        (CheckedAdd, &[x, y, d]) => ints!(lift3!(x, y, d, |a, b, c| Int::checked_add(a, b, c))),
        (CheckedSub, &[x, y, d]) => ints!(lift3!(x, y, d, |a, b, c| Int::checked_sub(a, b, c))),
        (CheckedMul, &[x, y, d]) => ints!(lift3!(x, y, d, |a, b, c| Int::checked_mul(a, b, c))),
        (CheckedDiv, &[x, y, d]) => ints!(lift3!(x, y, d, |a, b, c| Int::checked_div(a, b, c))),
        (CheckedRem, &[x, y, d]) => ints!(lift3!(x, y, d, |a, b, c| Int::checked_rem(a, b, c))),
        (_, &[F32(x)]) => float1(f).map(|(g, _)| F32(g(x))),
        (_, &[F64(x)]) => float1(f).map(|(_, g)| F64(g(x))),
        _ => None,
    };
    r.ok_or_else(|| {
        let types: Vec<_> = args.iter().map(|a| a.scalar_type().to_string()).collect();
        ill_typed(format!("`{}` of ({})", f.method_name(), types.join(", ")))
    })
}

/// A float function at both float types.
type FloatFn = (fn(f32) -> f32, fn(f64) -> f64);

/// The one-argument float functions.
fn float1(f: MathFn) -> Option<FloatFn> {
    macro_rules! both {
        ($m:ident) => {
            Some((<f32 as Float>::$m, <f64 as Float>::$m))
        };
    }
    use MathFn::*;
    match f {
        Sqrt => both!(sqrt),
        Cbrt => both!(cbrt),
        Exp => both!(exp),
        Exp2 => both!(exp2),
        ExpM1 => both!(exp_m1),
        Ln => both!(ln),
        Ln1p => both!(ln_1p),
        Log2 => both!(log2),
        Log10 => both!(log10),
        Sin => both!(sin),
        Cos => both!(cos),
        Tan => both!(tan),
        Asin => both!(asin),
        Acos => both!(acos),
        Atan => both!(atan),
        Sinh => both!(sinh),
        Cosh => both!(cosh),
        Tanh => both!(tanh),
        Floor => both!(floor),
        Ceil => both!(ceil),
        Round => both!(round),
        Trunc => both!(trunc),
        Fract => both!(fract),
        Recip => both!(recip),
        ToRadians => both!(to_radians),
        ToDegrees => both!(to_degrees),
        Erf => both!(erf),
        Atan2 | Hypot | Powf | Powi | Copysign | Abs | Signum | Min | Max | Clamp | MulAdd | IsNan | IsFinite | Pow
        | CountOnes | LeadingZeros | TrailingZeros | RotateLeft | RotateRight | SaturatingAdd | SaturatingSub
        | SaturatingMul | CheckedAdd | CheckedSub | CheckedMul | CheckedDiv | CheckedRem => None,
    }
}
