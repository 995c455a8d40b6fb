//! Tests of the interpreter on hand-built IR, against values worked out by hand or by plain Rust
//! oracles.

use super::{eval, eval_both, int_value};
use crate::error::{Error, Result};
use crate::ir::{
    ArrayOp as A, Axis, BinaryOp as Op, Boundary, Direction, Expr, ExprKind, Lambda, MathFn, Producer as P, Program,
    ReadSite, ScanKind, SeqOp as S, StencilShape, UnaryOp, Var,
};
use crate::types::{ElemType, ScalarType, Type};
use crate::value::{ArrayValue, ElemValue, ScalarValue, SegmentsValue, Value};
use ScalarType::{Bool, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Usize};
use std::sync::atomic::{AtomicU32, Ordering};

// ---------------------------------------------------------------------------------------------
// A tiny IR builder.

/// Scalars usable as literals, in expressions and in expected values.
trait Lit: Copy {
    const TY: ScalarType;
    fn sv(self) -> ScalarValue;
}

macro_rules! lit {
    ($($rust:ty => $variant:ident),*) => {$(
        impl Lit for $rust {
            const TY: ScalarType = ScalarType::$variant;
            fn sv(self) -> ScalarValue {
                ScalarValue::$variant(self)
            }
        }
    )*};
}

lit!(bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    usize => Usize, f32 => F32, f64 => F64);

fn t(s: ScalarType) -> Type {
    Type::scalar(s)
}

fn at(s: ScalarType, rank: usize) -> Type {
    Type::array(ElemType::Scalar(s), rank)
}

fn ixt(rank: usize) -> Type {
    Type::Elem(ElemType::index(rank))
}

fn c<T: Lit>(x: T) -> Expr {
    use crate::ir::Const;
    let k = match x.sv() {
        ScalarValue::Bool(b) => Const::Bool(b),
        ScalarValue::F32(f) => Const::Float(f64::from(f), F32),
        ScalarValue::F64(f) => Const::Float(f, F64),
        s => Const::Int(int_value(s).unwrap(), T::TY),
    };
    Expr::new(ExprKind::Const(k), t(T::TY))
}

/// A fresh variable (ids are unique across all tests).
fn fresh(name: &str, ty: Type) -> (Var, Type) {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    (Var { id, name: name.to_string() }, ty)
}

fn var(p: &(Var, Type)) -> Expr {
    Expr::var(p.0.clone(), p.1.clone())
}

fn bin(op: Op, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() || matches!(op, Op::And | Op::Or) { t(Bool) } else { a.ty.clone() };
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

fn add(a: Expr, b: Expr) -> Expr {
    bin(Op::Add, a, b)
}

fn mul(a: Expr, b: Expr) -> Expr {
    bin(Op::Mul, a, b)
}

fn un(op: UnaryOp, a: Expr) -> Expr {
    let ty = a.ty.clone();
    Expr::new(ExprKind::Unary(op, Box::new(a)), ty)
}

fn cast(a: Expr, s: ScalarType) -> Expr {
    Expr::new(ExprKind::Cast(Box::new(a), s), t(s))
}

fn math(f: MathFn, args: Vec<Expr>) -> Expr {
    let ty = if matches!(f, MathFn::IsNan | MathFn::IsFinite) { t(Bool) } else { args[0].ty.clone() };
    Expr::new(ExprKind::Math(f, args), ty)
}

fn tuple(es: Vec<Expr>) -> Expr {
    let ty = Type::tuple(es.iter().map(|e| e.ty.clone()).collect());
    Expr::new(ExprKind::Tuple(es), ty)
}

fn proj(e: Expr, i: usize) -> Expr {
    let ty = e.ty.tuple_parts().unwrap()[i].clone();
    Expr::new(ExprKind::Proj(Box::new(e), i), ty)
}

fn let_in(value: Expr, body: impl FnOnce(Expr) -> Expr) -> Expr {
    let p = fresh("x", value.ty.clone());
    let body = body(var(&p));
    let ty = body.ty.clone();
    Expr::new(ExprKind::Let { var: p.0, value: Box::new(value), body: Box::new(body) }, ty)
}

fn if_(cond: Expr, then: Expr, els: Expr) -> Expr {
    let ty = then.ty.clone();
    Expr::new(ExprKind::If { cond: Box::new(cond), then: Box::new(then), els: Box::new(els) }, ty)
}

fn index(a: Expr, ix: Expr) -> Expr {
    let ty = Type::Elem(a.ty.as_array().unwrap().0.clone());
    Expr::new(ExprKind::Index { array: Box::new(a), index: Box::new(ix), site: ReadSite::Index }, ty)
}

fn shape_of(a: Expr) -> Expr {
    let rank = a.ty.as_array().unwrap().1;
    Expr::new(ExprKind::Shape(Box::new(a)), ixt(rank))
}

fn len_of(a: Expr) -> Expr {
    Expr::new(ExprKind::Len(Box::new(a)), t(Usize))
}

fn aop(op: impl Into<A>, ty: Type) -> Expr {
    Expr::array(op.into(), ty)
}

fn sop(op: S, ty: Type) -> Expr {
    Expr::array(A::Seq(op), ty)
}

fn map(f: Lambda, a: Expr, ty: Type) -> Expr {
    aop(P::Map { f, a }, ty)
}

/// A scan with `+` as the operator.
fn scan(dir: Direction, kind: ScanKind, z: Option<Expr>, a: Expr, ty: Type) -> Expr {
    let s = a.ty.as_array().unwrap().0.as_scalar().unwrap();
    aop(A::Scan { dir, kind, z, f: plus(s), a }, ty)
}

fn iota(n: usize, s: ScalarType) -> Expr {
    aop(P::Iota { n: c(n) }, at(s, 1))
}

/// A closure whose body is built from its parameters.
fn lam(tys: &[Type], body: impl FnOnce(&[Expr]) -> Expr) -> Lambda {
    let params: Vec<(Var, Type)> = tys.iter().map(|ty| fresh("p", ty.clone())).collect();
    let args: Vec<Expr> = params.iter().map(var).collect();
    Lambda { params, body: Box::new(body(&args)) }
}

/// `|a, b| a + b` at a scalar type.
fn plus(s: ScalarType) -> Lambda {
    lam(&[t(s), t(s)], |p| add(p[0].clone(), p[1].clone()))
}

/// `|acc, x| acc * 10 + x`: not commutative, so it shows the order of operands.
fn digits(s: ScalarType, ten: Expr) -> Lambda {
    lam(&[t(s), t(s)], |p| add(mul(p[0].clone(), ten), p[1].clone()))
}

/// An error as a run of a test program reports it (see `Error::located`).
fn in_test(e: Error) -> Error {
    e.located("test", &[])
}

fn program(params: Vec<(Var, Type)>, body: Expr) -> Program {
    Program { name: "test".to_string(), params, body, read_sites: vec![], fast_math: false }
}

fn run0(body: Expr) -> Result<Value> {
    eval_both(&program(vec![], body), vec![])
}

fn run1(ty: Type, arg: Value, body: impl FnOnce(Expr) -> Expr) -> Result<Value> {
    let p = fresh("xs", ty);
    let body = body(var(&p));
    eval_both(&program(vec![p], body), vec![arg])
}

fn run2(
    (ty1, arg1): (Type, Value),
    (ty2, arg2): (Type, Value),
    body: impl FnOnce(Expr, Expr) -> Expr,
) -> Result<Value> {
    let p1 = fresh("xs", ty1);
    let p2 = fresh("ys", ty2);
    let body = body(var(&p1), var(&p2));
    eval_both(&program(vec![p1, p2], body), vec![arg1, arg2])
}

// ---------------------------------------------------------------------------------------------
// Values and oracles.

fn el<T: Lit>(x: T) -> ElemValue {
    ElemValue::Scalar(x.sv())
}

fn sc<T: Lit>(x: T) -> Value {
    Value::Elem(el(x))
}

fn arr<T: Lit>(shape: &[usize], xs: &[T]) -> Value {
    let data = xs.iter().map(|&x| el(x)).collect();
    Value::Array(ArrayValue::new(ElemType::Scalar(T::TY), shape.to_vec(), data).unwrap())
}

fn vector<T: Lit>(xs: &[T]) -> Value {
    arr(&[xs.len()], xs)
}

fn segs(lengths: &[usize]) -> Value {
    Value::Segments(SegmentsValue::from_lengths("test", lengths.iter().copied()).unwrap())
}

fn tup(parts: Vec<ElemValue>) -> ElemValue {
    ElemValue::Tuple(parts)
}

/// Pseudo-random integers in -50..50 (a fixed LCG: reproducible, and never all zero).
fn data(n: usize, seed: u64) -> Vec<i64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((x >> 33) % 100) as i64 - 50
        })
        .collect()
}

fn is_ill_typed<T>(r: &Result<T>) -> bool {
    matches!(r, Err(Error::Backend { backend, .. }) if backend == "interpreter")
}

fn f64_of(v: Value) -> f64 {
    match v {
        Value::Elem(ElemValue::Scalar(ScalarValue::F64(x))) => x,
        other => panic!("not an f64: {other:?}"),
    }
}

fn f32_of(v: Value) -> f32 {
    match v {
        Value::Elem(ElemValue::Scalar(ScalarValue::F32(x))) => x,
        other => panic!("not an f32: {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The scalar language.

#[test]
fn integer_arithmetic_wraps() {
    assert_eq!(run0(add(c(i32::MAX), c(1i32))), Ok(sc(i32::MIN)));
    assert_eq!(run0(bin(Op::Sub, c(0u32), c(1u32))), Ok(sc(u32::MAX)));
    assert_eq!(run0(mul(c(i64::MAX), c(3i64))), Ok(sc(i64::MAX.wrapping_mul(3))));
    assert_eq!(run0(add(c(usize::MAX), c(2usize))), Ok(sc(1usize)));
    assert_eq!(run0(mul(c(u64::MAX), c(u64::MAX))), Ok(sc(1u64)));
    assert_eq!(run0(bin(Op::Div, c(-7i32), c(2i32))), Ok(sc(-3i32)));
    assert_eq!(run0(bin(Op::Rem, c(-7i32), c(2i32))), Ok(sc(-1i32)));
    assert_eq!(run0(bin(Op::Div, c(i32::MIN), c(-1i32))), Ok(sc(i32::MIN)));
    assert_eq!(run0(bin(Op::Rem, c(i64::MIN), c(-1i64))), Ok(sc(0i64)));
    assert_eq!(run0(un(UnaryOp::Neg, c(i32::MIN))), Ok(sc(i32::MIN)));
    assert_eq!(run0(un(UnaryOp::Neg, c(1u32))), Ok(sc(u32::MAX)));
    assert_eq!(run0(un(UnaryOp::Neg, c(2.5f32))), Ok(sc(-2.5f32)));
    assert_eq!(run0(bin(Op::Rem, c(7.5f64), c(2.0f64))), Ok(sc(1.5f64)));
    assert_eq!(run0(bin(Op::Div, c(1.0f32), c(3.0f32))), Ok(sc(1.0f32 / 3.0)));
    assert_eq!(run0(bin(Op::Sub, c(0.1f64), c(0.3f64))), Ok(sc(0.1f64 - 0.3)));
}

#[test]
fn integer_division_by_zero_is_an_error() {
    assert_eq!(run0(bin(Op::Div, c(1i32), c(0i32))), Err(in_test(Error::division_by_zero("/"))));
    assert_eq!(run0(bin(Op::Rem, c(1u64), c(0u64))), Err(in_test(Error::division_by_zero("%"))));
    assert_eq!(run0(bin(Op::Div, c(5usize), c(0usize))), Err(in_test(Error::division_by_zero("/"))));
    assert_eq!(run0(bin(Op::Div, c(1.0f32), c(0.0f32))), Ok(sc(f32::INFINITY)));
    let r = run0(bin(Op::Rem, c(1.0f64), c(0.0f64)));
    assert!(f64_of(r.unwrap()).is_nan());
    // Inside a closure the error ends the whole evaluation.
    let r = run1(at(I32, 1), vector(&[4i32, 0, 2]), |xs| {
        aop(P::Map { f: lam(&[t(I32)], |p| bin(Op::Div, c(8i32), p[0].clone())), a: xs }, at(I32, 1))
    });
    assert_eq!(r, Err(in_test(Error::division_by_zero("/"))));
}

#[test]
fn shifts_take_any_integer_amount_modulo_the_width() {
    assert_eq!(run0(bin(Op::Shl, c(1u32), c(33i64))), Ok(sc(2u32)));
    assert_eq!(run0(bin(Op::Shr, c(-8i32), c(1u32))), Ok(sc(-4i32)));
    assert_eq!(run0(bin(Op::Shl, c(1i64), c(64usize))), Ok(sc(1i64)));
    assert_eq!(run0(bin(Op::Shl, c(3usize), c(2u64))), Ok(sc(12usize)));
    assert_eq!(run0(bin(Op::Shr, c(u64::MAX), c(67u64))), Ok(sc(u64::MAX >> 3)));
    // `-1 as u32` is u32::MAX, which is 31 modulo 32.
    assert_eq!(run0(bin(Op::Shl, c(1u32), c(-1i32))), Ok(sc(1u32 << 31)));
}

#[test]
fn not_and_bit_operations() {
    assert_eq!(run0(un(UnaryOp::Not, c(true))), Ok(sc(false)));
    assert_eq!(run0(un(UnaryOp::Not, c(5i32))), Ok(sc(-6i32)));
    assert_eq!(run0(un(UnaryOp::Not, c(0u64))), Ok(sc(u64::MAX)));
    assert_eq!(run0(bin(Op::BitAnd, c(0b1100u32), c(0b1010u32))), Ok(sc(0b1000u32)));
    assert_eq!(run0(bin(Op::BitOr, c(0b1100i64), c(0b1010i64))), Ok(sc(0b1110i64)));
    assert_eq!(run0(bin(Op::BitXor, c(0b1100usize), c(0b1010usize))), Ok(sc(0b0110usize)));
    assert_eq!(run0(bin(Op::BitXor, c(true), c(true))), Ok(sc(false)));
    assert_eq!(run0(bin(Op::BitOr, c(false), c(true))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::BitAnd, c(true), c(false))), Ok(sc(false)));
}

#[test]
fn comparisons_follow_ieee_for_floats() {
    for (op, want) in
        [(Op::Eq, false), (Op::Ne, true), (Op::Lt, false), (Op::Le, false), (Op::Gt, false), (Op::Ge, false)]
    {
        assert_eq!(run0(bin(op, c(f32::NAN), c(1.0f32))), Ok(sc(want)), "{op:?}");
        assert_eq!(run0(bin(op, c(f64::NAN), c(f64::NAN))), Ok(sc(want)), "{op:?}");
    }
    assert_eq!(run0(bin(Op::Eq, c(-0.0f64), c(0.0f64))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::Lt, c(3u64), c(5u64))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::Ge, c(-3i32), c(5i32))), Ok(sc(false)));
    assert_eq!(run0(bin(Op::Gt, c(u32::MAX), c(0u32))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::Le, c(7usize), c(7usize))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::Lt, c(false), c(true))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::Ne, c(2i64), c(2i64))), Ok(sc(false)));
    assert_eq!(run0(bin(Op::Gt, c(1.5f32), c(-1.5f32))), Ok(sc(true)));
}

#[test]
fn and_or_and_if_evaluate_only_what_they_need() {
    let boom = || bin(Op::Eq, bin(Op::Div, c(1i32), c(0i32)), c(0i32));
    assert_eq!(run0(bin(Op::And, c(false), boom())), Ok(sc(false)));
    assert_eq!(run0(bin(Op::Or, c(true), boom())), Ok(sc(true)));
    assert_eq!(run0(bin(Op::And, c(true), boom())), Err(in_test(Error::division_by_zero("/"))));
    assert_eq!(run0(bin(Op::Or, c(false), c(true))), Ok(sc(true)));
    assert_eq!(run0(bin(Op::And, c(true), c(false))), Ok(sc(false)));
    assert_eq!(run0(if_(c(true), c(1i32), bin(Op::Div, c(1i32), c(0i32)))), Ok(sc(1i32)));
    assert_eq!(run0(if_(c(false), bin(Op::Div, c(1i32), c(0i32)), c(2i32))), Ok(sc(2i32)));
}

#[test]
fn casts_are_rust_as() {
    assert_eq!(run0(cast(c(1e10f32), I32)), Ok(sc(i32::MAX)));
    assert_eq!(run0(cast(c(-1e20f64), I64)), Ok(sc(i64::MIN)));
    assert_eq!(run0(cast(c(f64::NAN), I64)), Ok(sc(0i64)));
    assert_eq!(run0(cast(c(-1i32), U32)), Ok(sc(u32::MAX)));
    assert_eq!(run0(cast(c(-1i32), Usize)), Ok(sc(usize::MAX)));
    assert_eq!(run0(cast(c(-1.5f64), U64)), Ok(sc(0u64)));
    assert_eq!(run0(cast(c(-1.5f32), I32)), Ok(sc(-1i32)));
    assert_eq!(run0(cast(c(true), I32)), Ok(sc(1i32)));
    assert_eq!(run0(cast(c(u64::MAX), F32)), Ok(sc(u64::MAX as f32)));
    assert_eq!(run0(cast(c(16_777_217i32), F32)), Ok(sc(16_777_216f32)));
    assert_eq!(run0(cast(c(0x1_0000_0005i64), U32)), Ok(sc(5u32)));
    assert_eq!(run0(cast(c(3usize), F64)), Ok(sc(3.0f64)));
    assert_eq!(run0(cast(c(0.1f64), F32)), Ok(sc(0.1f32)));
    assert_eq!(run0(cast(c(2u32), Bool)), Ok(sc(true)));
}

/// The scalar language on the 8- and 16-bit integers, against Rust's own operations on edge
/// values: arithmetic wraps, division by zero is an error, shifts reduce their amount modulo the
/// width, the library functions are Rust's (`checked_*` with a default), casts are Rust's `as`.
macro_rules! small_int_semantics {
    ($t:ty, $signed:expr, $abs:expr) => {{
        use MathFn::*;
        let values: [$t; 10] = [<$t>::MIN, <$t>::MIN + 1, 0, 1, 2, 7, 100, <$t>::MAX / 3, <$t>::MAX - 1, <$t>::MAX];
        let neg: $t = if $signed { (0 as $t).wrapping_sub(37) } else { 37 };
        for a in values.into_iter().chain([neg]) {
            let one = |e: Expr| run0(e).unwrap();
            assert_eq!(one(un(UnaryOp::Neg, c(a))), sc(a.wrapping_neg()), "-{a}");
            assert_eq!(one(un(UnaryOp::Not, c(a))), sc(!a), "!{a}");
            assert_eq!(one(math(CountOnes, vec![c(a)])), sc(a.count_ones()), "{a}.count_ones()");
            assert_eq!(one(math(LeadingZeros, vec![c(a)])), sc(a.leading_zeros()));
            assert_eq!(one(math(TrailingZeros, vec![c(a)])), sc(a.trailing_zeros()));
            for n in [0u32, 1, 3, 9, 17, 40] {
                assert_eq!(one(math(Pow, vec![c(a), c(n)])), sc(a.wrapping_pow(n)), "{a}.pow({n})");
                assert_eq!(one(math(RotateLeft, vec![c(a), c(n)])), sc(a.rotate_left(n)));
                assert_eq!(one(math(RotateRight, vec![c(a), c(n)])), sc(a.rotate_right(n)));
                assert_eq!(one(bin(Op::Shl, c(a), c(n))), sc(a.wrapping_shl(n)), "{a} << {n}");
                assert_eq!(one(bin(Op::Shr, c(a), c(n))), sc(a.wrapping_shr(n)), "{a} >> {n}");
            }
            if $signed {
                assert_eq!(one(math(Abs, vec![c(a)])), sc($abs(a)), "{a}.abs()");
                assert_eq!(one(math(Signum, vec![c(a)])), sc(crate::ops::Arith::signum(a)), "{a}.signum()");
            }
            // `as` to every type, spelled out in Rust.
            assert_eq!(one(cast(c(a), Bool)), sc(a != 0));
            assert_eq!(one(cast(c(a), I8)), sc(a as i8), "{a} as i8");
            assert_eq!(one(cast(c(a), I16)), sc(a as i16), "{a} as i16");
            assert_eq!(one(cast(c(a), I32)), sc(a as i32));
            assert_eq!(one(cast(c(a), I64)), sc(a as i64));
            assert_eq!(one(cast(c(a), U8)), sc(a as u8), "{a} as u8");
            assert_eq!(one(cast(c(a), U16)), sc(a as u16), "{a} as u16");
            assert_eq!(one(cast(c(a), U32)), sc(a as u32));
            assert_eq!(one(cast(c(a), U64)), sc(a as u64));
            assert_eq!(one(cast(c(a), Usize)), sc(a as usize));
            assert_eq!(one(cast(c(a), F32)), sc(a as f32));
            assert_eq!(one(cast(c(a), F64)), sc(a as f64));
            for b in values {
                let two = |op: Op| run0(bin(op, c(a), c(b)));
                assert_eq!(two(Op::Add), Ok(sc(a.wrapping_add(b))), "{a} + {b}");
                assert_eq!(two(Op::Sub), Ok(sc(a.wrapping_sub(b))), "{a} - {b}");
                assert_eq!(two(Op::Mul), Ok(sc(a.wrapping_mul(b))), "{a} * {b}");
                if b == 0 {
                    assert_eq!(two(Op::Div), Err(in_test(Error::division_by_zero("/"))));
                    assert_eq!(two(Op::Rem), Err(in_test(Error::division_by_zero("%"))));
                } else {
                    assert_eq!(two(Op::Div), Ok(sc(a.wrapping_div(b))), "{a} / {b}");
                    assert_eq!(two(Op::Rem), Ok(sc(a.wrapping_rem(b))), "{a} % {b}");
                    assert_eq!(two(Op::DivEuclid), Ok(sc(a.wrapping_div_euclid(b))));
                    assert_eq!(two(Op::RemEuclid), Ok(sc(a.wrapping_rem_euclid(b))));
                }
                assert_eq!(two(Op::BitAnd), Ok(sc(a & b)));
                assert_eq!(two(Op::BitOr), Ok(sc(a | b)));
                assert_eq!(two(Op::BitXor), Ok(sc(a ^ b)));
                assert_eq!(two(Op::Lt), Ok(sc(a < b)));
                assert_eq!(two(Op::Ge), Ok(sc(a >= b)));
                assert_eq!(two(Op::Eq), Ok(sc(a == b)));
                let lib = |f: MathFn, args: Vec<Expr>| run0(math(f, args)).unwrap();
                assert_eq!(lib(Min, vec![c(a), c(b)]), sc(Ord::min(a, b)));
                assert_eq!(lib(Max, vec![c(a), c(b)]), sc(Ord::max(a, b)));
                assert_eq!(
                    lib(Clamp, vec![c(a), c(b), c(<$t>::MAX - 1)]),
                    sc(crate::ops::Arith::clamp(a, b, <$t>::MAX - 1))
                );
                assert_eq!(lib(SaturatingAdd, vec![c(a), c(b)]), sc(a.saturating_add(b)), "{a}.saturating_add({b})");
                assert_eq!(lib(SaturatingSub, vec![c(a), c(b)]), sc(a.saturating_sub(b)));
                assert_eq!(lib(SaturatingMul, vec![c(a), c(b)]), sc(a.saturating_mul(b)));
                let d: $t = 42;
                assert_eq!(lib(CheckedAdd, vec![c(a), c(b), c(d)]), sc(a.checked_add(b).unwrap_or(d)));
                assert_eq!(lib(CheckedSub, vec![c(a), c(b), c(d)]), sc(a.checked_sub(b).unwrap_or(d)));
                assert_eq!(lib(CheckedMul, vec![c(a), c(b), c(d)]), sc(a.checked_mul(b).unwrap_or(d)));
                assert_eq!(lib(CheckedDiv, vec![c(a), c(b), c(d)]), sc(a.checked_div(b).unwrap_or(d)), "{a} / {b}");
                assert_eq!(lib(CheckedRem, vec![c(a), c(b), c(d)]), sc(a.checked_rem(b).unwrap_or(d)));
            }
        }
    }};
}

#[test]
fn small_integers_follow_rust() {
    // `abs` is only defined for the signed types (the front end rejects it on unsigned ones).
    small_int_semantics!(u8, false, |x: u8| x);
    small_int_semantics!(i8, true, i8::wrapping_abs);
    small_int_semantics!(u16, false, |x: u16| x);
    small_int_semantics!(i16, true, i16::wrapping_abs);
}

#[test]
fn floats_saturate_into_small_integers() {
    assert_eq!(run0(cast(c(300.0f32), U8)), Ok(sc(255u8)));
    assert_eq!(run0(cast(c(-5.5f64), U8)), Ok(sc(0u8)));
    assert_eq!(run0(cast(c(-200.7f32), I8)), Ok(sc(i8::MIN)));
    assert_eq!(run0(cast(c(127.9f64), I8)), Ok(sc(127i8)));
    assert_eq!(run0(cast(c(f32::NAN), I16)), Ok(sc(0i16)));
    assert_eq!(run0(cast(c(1e6f64), I16)), Ok(sc(i16::MAX)));
    assert_eq!(run0(cast(c(f64::NEG_INFINITY), U16)), Ok(sc(0u16)));
    assert_eq!(run0(cast(c(65535.5f32), U16)), Ok(sc(u16::MAX)));
    assert_eq!(run0(cast(c(true), U8)), Ok(sc(1u8)));
    assert_eq!(run0(cast(c(-1i32), U8)), Ok(sc(255u8)));
    assert_eq!(run0(cast(c(0x1_2345i64), I16)), Ok(sc(0x2345i16)));
}

#[test]
fn small_integers_are_not_mixed_with_other_types() {
    assert!(is_ill_typed(&run0(add(c(1u8), c(1u16)))));
    assert!(is_ill_typed(&run0(add(c(1i8), c(1i32)))));
    assert!(is_ill_typed(&run0(math(MathFn::Min, vec![c(1i16), c(1u16)]))));
}

type Fn64 = fn(f64) -> f64;
type Fn32 = fn(f32) -> f32;

#[test]
fn float_functions_are_the_std_ones() {
    use MathFn::*;
    let f64s: [(MathFn, Fn64); 19] = [
        (Sqrt, f64::sqrt),
        (Exp, f64::exp),
        (Ln, f64::ln),
        (Log2, f64::log2),
        (Log10, f64::log10),
        (Sin, f64::sin),
        (Cos, f64::cos),
        (Tan, f64::tan),
        (Asin, f64::asin),
        (Acos, f64::acos),
        (Atan, f64::atan),
        (Sinh, f64::sinh),
        (Cosh, f64::cosh),
        (Tanh, f64::tanh),
        (Floor, f64::floor),
        (Ceil, f64::ceil),
        (Round, f64::round),
        (Trunc, f64::trunc),
        (Erf, libm::erf),
    ];
    for (f, g) in f64s {
        for x in [0.3, 0.7, -0.45, 2.5, -2.5] {
            let got = f64_of(run0(math(f, vec![c(x)])).unwrap());
            assert_eq!(got.to_bits(), g(x).to_bits(), "{f:?}({x})");
        }
    }
    let f32s: [(MathFn, Fn32); 6] =
        [(Sqrt, f32::sqrt), (Exp, f32::exp), (Sin, f32::sin), (Round, f32::round), (Abs, f32::abs), (Erf, libm::erff)];
    for (f, g) in f32s {
        for x in [0.3f32, -0.45, 2.5, -2.5] {
            let got = f32_of(run0(math(f, vec![c(x)])).unwrap());
            assert_eq!(got.to_bits(), g(x).to_bits(), "{f:?}({x})");
        }
    }
    // Expected values go through `black_box` so that they are computed at run time, as the
    // interpreter's are: LLVM may constant-fold `powi` and friends with a different rounding.
    use std::hint::black_box;
    let two = |f, a: f64, b: f64| f64_of(run0(math(f, vec![c(a), c(b)])).unwrap());
    assert_eq!(two(Atan2, 0.5, -1.5), black_box(0.5f64).atan2(-1.5));
    assert_eq!(two(Powf, 1.7, 2.3), black_box(1.7f64).powf(2.3));
    assert_eq!(two(Min, f64::NAN, 2.0), 2.0);
    assert_eq!(two(Max, -1.0, f64::NAN), -1.0);
    assert_eq!(run0(math(Powi, vec![c(1.1f32), c(5i32)])), Ok(sc(black_box(1.1f32).powi(5))));
    assert_eq!(run0(math(Powi, vec![c(2.0f64), c(-2i32)])), Ok(sc(0.25f64)));
    let fma = run0(math(MulAdd, vec![c(0.1f64), c(0.2f64), c(0.3f64)]));
    assert_eq!(fma, Ok(sc(black_box(0.1f64).mul_add(0.2, 0.3))));
    assert_eq!(run0(math(IsNan, vec![c(f32::NAN)])), Ok(sc(true)));
    assert_eq!(run0(math(IsNan, vec![c(1.0f64)])), Ok(sc(false)));
    assert_eq!(run0(math(IsFinite, vec![c(f64::INFINITY)])), Ok(sc(false)));
    assert_eq!(run0(math(IsFinite, vec![c(-3.0f32)])), Ok(sc(true)));
}

#[test]
fn abs_min_max_apply_to_integers() {
    use MathFn::*;
    assert_eq!(run0(math(Abs, vec![c(i32::MIN)])), Ok(sc(i32::MIN)));
    assert_eq!(run0(math(Abs, vec![c(-5i64)])), Ok(sc(5i64)));
    assert_eq!(run0(math(Abs, vec![c(7u32)])), Ok(sc(7u32)));
    assert_eq!(run0(math(Min, vec![c(3u32), c(9u32)])), Ok(sc(3u32)));
    assert_eq!(run0(math(Max, vec![c(-2i32), c(-9i32)])), Ok(sc(-2i32)));
    assert_eq!(run0(math(Max, vec![c(4usize), c(11usize)])), Ok(sc(11usize)));
}

#[test]
fn let_tuples_projections_and_if() {
    let e = let_in(c(3i32), |x| {
        let_in(tuple(vec![x, c(2.5f32)]), |tu| if_(bin(Op::Gt, proj(tu.clone(), 0), c(2i32)), proj(tu, 1), c(0.0f32)))
    });
    assert_eq!(run0(e), Ok(sc(2.5f32)));
    let nested = tuple(vec![c(1i32), tuple(vec![c(true), c(7u64)])]);
    assert_eq!(run0(proj(proj(nested.clone(), 1), 1)), Ok(sc(7u64)));
    let want = tup(vec![el(1i32), tup(vec![el(true), el(7u64)])]);
    assert_eq!(run0(nested), Ok(Value::Elem(want)));
    assert_eq!(run0(tuple(vec![])), Ok(Value::Elem(ElemValue::unit())));
    // A let-bound variable shadowed by an inner binding of the same name (ids differ).
    let e = let_in(c(1i64), |a| add(let_in(c(10i64), |b| add(b, a.clone())), a));
    assert_eq!(run0(e), Ok(sc(12i64)));
}

#[test]
fn tuples_of_arrays() {
    let r = run1(at(I32, 1), vector(&[1i32, 2, 3]), |xs| {
        let_in(tuple(vec![xs, c(5usize)]), |tu| {
            tuple(vec![aop(P::Reverse(proj(tu.clone(), 0)), at(I32, 1)), proj(tu, 1)])
        })
    });
    assert_eq!(r, Ok(Value::Tuple(vec![vector(&[3i32, 2, 1]), sc(5usize)])));
}

#[test]
fn a_generate_read_at_one_index_computes_that_element_alone() {
    // Element `(i, j)` is `12 / (i - j)`, which fails on the diagonal alone.
    let g = || {
        let f = lam(&[ixt(2)], |p| {
            let diff = bin(Op::Sub, cast(proj(p[0].clone(), 0), I64), cast(proj(p[0].clone(), 1), I64));
            bin(Op::Div, c(12i64), diff)
        });
        aop(A::Generate { shape: tuple(vec![c(3usize), c(4usize)]), f, from: vec![] }, at(I64, 2))
    };
    let at_ = |i: usize, j: usize| tuple(vec![c(i), c(j)]);
    assert_eq!(run0(index(g(), at_(2, 0))), Ok(sc(6i64)));
    assert_eq!(run0(index(g(), at_(0, 3))), Ok(sc(-4i64)));
    assert_eq!(run0(index(g(), at_(1, 1))), Err(in_test(Error::division_by_zero("/"))));
    // Checked against the generate's shape, as any read is.
    assert_eq!(run0(index(g(), at_(3, 0))), Err(in_test(Error::index_out_of_bounds("index", &[3, 0], &[3, 4]))));
    assert_eq!(run0(index(g(), at_(0, 4))), Err(in_test(Error::index_out_of_bounds("index", &[0, 4], &[3, 4]))));
    // Built in full (read through a `let`), the array fails on its diagonal.
    assert_eq!(run0(let_in(g(), |a| index(a, at_(2, 0)))), Err(in_test(Error::division_by_zero("/"))));
}

#[test]
fn index_shape_and_len() {
    let m = arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6]);
    let at_ = |i: usize, j: usize| tuple(vec![c(i), c(j)]);
    assert_eq!(run1(at(I32, 2), m.clone(), |m| index(m, at_(1, 2))), Ok(sc(6i32)));
    assert_eq!(run1(at(I32, 2), m.clone(), |m| index(m, at_(1, 0))), Ok(sc(4i32)));
    assert_eq!(
        run1(at(I32, 2), m.clone(), |m| index(m, at_(0, 3))),
        Err(in_test(Error::index_out_of_bounds("index", &[0, 3], &[2, 3])))
    );
    assert_eq!(run1(at(I32, 1), vector(&[7i32, 8, 9]), |xs| index(xs, c(2usize))), Ok(sc(9i32)));
    assert_eq!(
        run1(at(I32, 1), vector(&[7i32, 8, 9]), |xs| index(xs, c(5usize))),
        Err(in_test(Error::index_out_of_bounds("index", &[5], &[3])))
    );
    let s = arr(&[], &[4i32]);
    assert_eq!(run1(at(I32, 0), s.clone(), |s| index(s, tuple(vec![]))), Ok(sc(4i32)));

    let pair = Value::Elem(tup(vec![el(2usize), el(3usize)]));
    assert_eq!(run1(at(I32, 2), m.clone(), shape_of), Ok(pair));
    assert_eq!(run1(at(I32, 1), vector(&[7i32, 8, 9]), shape_of), Ok(sc(3usize)));
    assert_eq!(run1(at(I32, 0), s.clone(), shape_of), Ok(Value::Elem(ElemValue::unit())));
    assert_eq!(
        run1(at(I32, 2), arr::<i32>(&[4, 0], &[]), shape_of),
        Ok(Value::Elem(tup(vec![el(4usize), el(0usize)])))
    );

    assert_eq!(run1(at(I32, 2), m, len_of), Ok(sc(6usize)));
    assert_eq!(run1(at(I32, 0), s, len_of), Ok(sc(1usize)));
    assert_eq!(run1(Type::Segments, segs(&[2, 0, 3]), len_of), Ok(sc(3usize)));
}

#[test]
fn iterate_and_while_loop() {
    let iterate = |n: usize, init: i64| {
        let f = lam(&[t(I64)], |p| add(mul(p[0].clone(), c(2i64)), c(1i64)));
        let e = ExprKind::Iterate { count: Box::new(c(n)), init: Box::new(c(init)), f };
        run0(Expr::new(e, t(I64)))
    };
    assert_eq!(iterate(10, 0), Ok(sc(1023i64)));
    assert_eq!(iterate(0, 5), Ok(sc(5i64)));

    // Collatz steps of 27, with the state a (n, steps) tuple.
    let state = Type::tuple(vec![t(U64), t(U32)]);
    let cond = lam(std::slice::from_ref(&state), |p| bin(Op::Ne, proj(p[0].clone(), 0), c(1u64)));
    let step = lam(std::slice::from_ref(&state), |p| {
        let n = proj(p[0].clone(), 0);
        let even = bin(Op::Eq, bin(Op::Rem, n.clone(), c(2u64)), c(0u64));
        let next = if_(even, bin(Op::Div, n.clone(), c(2u64)), add(mul(n, c(3u64)), c(1u64)));
        tuple(vec![next, add(proj(p[0].clone(), 1), c(1u32))])
    });
    let init = tuple(vec![c(27u64), c(0u32)]);
    let e = ExprKind::WhileLoop { init: Box::new(init), cond, step };
    let (mut n, mut steps) = (27u64, 0u32);
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    assert_eq!(run0(Expr::new(e, state)), Ok(Value::Elem(tup(vec![el(1u64), el(steps)]))));
}

// ---------------------------------------------------------------------------------------------
// Build and elementwise.

#[test]
fn generate_fill_iota_unit_get() {
    let f = lam(&[ixt(2)], |p| cast(add(mul(proj(p[0].clone(), 0), c(10usize)), proj(p[0].clone(), 1)), I32));
    let g = aop(A::Generate { shape: tuple(vec![c(2usize), c(3usize)]), f, from: vec![] }, at(I32, 2));
    assert_eq!(run0(g), Ok(arr(&[2, 3], &[0i32, 1, 2, 10, 11, 12])));

    let f = lam(&[ixt(1)], |p| cast(mul(p[0].clone(), p[0].clone()), U64));
    let g = aop(A::Generate { shape: c(4usize), f, from: vec![] }, at(U64, 1));
    assert_eq!(run0(g), Ok(vector(&[0u64, 1, 4, 9])));

    let g = aop(A::Generate { shape: tuple(vec![]), f: lam(&[ixt(0)], |_| c(42i32)), from: vec![] }, at(I32, 0));
    assert_eq!(run0(g), Ok(arr(&[], &[42i32])));

    let fill = |shape: Expr, rank| aop(P::Fill { shape, value: c(1.5f32) }, at(F32, rank));
    assert_eq!(run0(fill(tuple(vec![c(2usize), c(2usize)]), 2)), Ok(arr(&[2, 2], &[1.5f32; 4])));
    assert_eq!(run0(fill(tuple(vec![c(3usize), c(0usize)]), 2)), Ok(arr::<f32>(&[3, 0], &[])));
    assert_eq!(run0(fill(tuple(vec![]), 0)), Ok(arr(&[], &[1.5f32])));

    assert_eq!(run0(aop(P::Iota { n: c(5usize) }, at(I32, 1))), Ok(vector(&[0i32, 1, 2, 3, 4])));
    assert_eq!(run0(aop(P::Iota { n: c(3usize) }, at(F64, 1))), Ok(vector(&[0.0f64, 1.0, 2.0])));
    assert_eq!(run0(aop(P::Iota { n: c(2i32) }, at(Usize, 1))), Ok(vector(&[0usize, 1])));
    assert_eq!(run0(aop(P::Iota { n: c(0usize) }, at(U32, 1))), Ok(vector::<u32>(&[])));

    let unit = aop(
        A::Unit(tuple(vec![c(7i32), c(true)])),
        Type::array(ElemType::Tuple(vec![ElemType::Scalar(I32), ElemType::BOOL]), 0),
    );
    let want = Value::Array(ArrayValue {
        elem: ElemType::Tuple(vec![ElemType::Scalar(I32), ElemType::BOOL]),
        shape: vec![],
        data: vec![tup(vec![el(7i32), el(true)])],
    });
    assert_eq!(run0(unit.clone()), Ok(want));
    let get = aop(A::The(unit), Type::tuple(vec![t(I32), t(Bool)]));
    assert_eq!(run0(proj(get, 0)), Ok(sc(7i32)));
}

#[test]
fn map_imap_zip_with() {
    let half = lam(&[t(I32)], |p| mul(cast(p[0].clone(), F32), c(0.5f32)));
    let r = run1(at(I32, 2), arr(&[2, 2], &[1i32, -2, 3, 8]), |xs| aop(P::Map { f: half, a: xs }, at(F32, 2)));
    assert_eq!(r, Ok(arr(&[2, 2], &[0.5f32, -1.0, 1.5, 4.0])));

    let f = lam(&[ixt(2), t(I32)], |p| {
        let pos = add(mul(proj(p[0].clone(), 0), c(10usize)), proj(p[0].clone(), 1));
        add(mul(p[1].clone(), c(100i32)), cast(pos, I32))
    });
    let r = run1(at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6]), |xs| aop(P::IMap { f, a: xs }, at(I32, 2)));
    assert_eq!(r, Ok(arr(&[2, 3], &[100i32, 201, 302, 410, 511, 612])));

    let minus = || lam(&[t(I32), t(I32)], |p| bin(Op::Sub, p[0].clone(), p[1].clone()));
    let r = run2((at(I32, 1), vector(&[10i32, 20, 30, 40, 50])), (at(I32, 1), vector(&[1i32, 2, 3])), |xs, ys| {
        aop(P::ZipWith { f: minus(), a: xs, b: ys }, at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[9i32, 18, 27])));
    let r = run2(
        (at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6])),
        (at(I32, 2), arr(&[3, 2], &[10i32, 20, 30, 40, 50, 60])),
        |xs, ys| aop(P::ZipWith { f: minus(), a: xs, b: ys }, at(I32, 2)),
    );
    assert_eq!(r, Ok(arr(&[2, 2], &[-9i32, -18, -26, -35])));

    // `zip`: an array of pairs.
    let pair_ty = ElemType::Tuple(vec![ElemType::Scalar(I32), ElemType::Scalar(F32)]);
    let zip = lam(&[t(I32), t(F32)], |p| tuple(vec![p[0].clone(), p[1].clone()]));
    let r = run2((at(I32, 1), vector(&[1i32, 2])), (at(F32, 1), vector(&[0.5f32, 0.25, 9.0])), |xs, ys| {
        aop(P::ZipWith { f: zip, a: xs, b: ys }, Type::array(pair_ty.clone(), 1))
    });
    let data = vec![tup(vec![el(1i32), el(0.5f32)]), tup(vec![el(2i32), el(0.25f32)])];
    assert_eq!(r, Ok(Value::Array(ArrayValue { elem: pair_ty, shape: vec![2], data })));
}

// ---------------------------------------------------------------------------------------------
// Reductions.

fn fold(z: Option<Expr>, f: Lambda, a: Expr, ty: Type) -> Expr {
    aop(A::Fold { z, f, a }, ty)
}

#[test]
fn fold_reduces_rows_in_order() {
    let m = arr(&[2, 3], &[1i64, 2, 3, 4, 5, 6]);
    let r = run1(at(I64, 2), m.clone(), |m| fold(Some(c(9i64)), digits(I64, c(10i64)), m, at(I64, 1)));
    assert_eq!(r, Ok(vector(&[9123i64, 9456])));
    let r = run1(at(I64, 2), m.clone(), |m| fold(None, digits(I64, c(10i64)), m, at(I64, 1)));
    assert_eq!(r, Ok(vector(&[123i64, 456])));
    let r = run1(at(I64, 1), vector(&[3i64, -4, 5]), |v| fold(None, plus(I64), v, at(I64, 0)));
    assert_eq!(r, Ok(arr(&[], &[4i64])));
    let cube = arr(&[2, 2, 2], &[1i32, 2, 3, 4, 5, 6, 7, 8]);
    let r = run1(at(I32, 3), cube, |a| fold(Some(c(0i32)), plus(I32), a, at(I32, 2)));
    assert_eq!(r, Ok(arr(&[2, 2], &[3i32, 7, 11, 15])));
    let maximum = lam(&[t(F32), t(F32)], |p| math(MathFn::Max, vec![p[0].clone(), p[1].clone()]));
    let r = run1(at(F32, 1), vector(&[0.5f32, 7.25, -3.0]), |v| fold(None, maximum, v, at(F32, 0)));
    assert_eq!(r, Ok(arr(&[], &[7.25f32])));
}

#[test]
fn fold_of_empty_rows() {
    let empty_rows = arr::<i32>(&[2, 0], &[]);
    let r = run1(at(I32, 2), empty_rows.clone(), |m| fold(Some(c(7i32)), plus(I32), m, at(I32, 1)));
    assert_eq!(r, Ok(vector(&[7i32, 7])));
    let r = run1(at(I32, 2), empty_rows, |m| fold(None, plus(I32), m, at(I32, 1)));
    assert_eq!(r, Err(in_test(Error::empty_reduction("fold1"))));
    // No rows at all: nothing to reduce, so no error.
    let r = run1(at(I32, 2), arr::<i32>(&[0, 3], &[]), |m| fold(None, plus(I32), m, at(I32, 1)));
    assert_eq!(r, Ok(vector::<i32>(&[])));
    let r = run1(at(I32, 1), vector::<i32>(&[]), |v| fold(Some(c(5i32)), plus(I32), v, at(I32, 0)));
    assert_eq!(r, Ok(arr(&[], &[5i32])));
}

#[test]
fn fold_all_in_row_major_order() {
    let fold_all = |z, xs| aop(A::FoldAll { z, f: digits(I64, c(10i64)), a: xs }, at(I64, 0));
    let m = arr(&[2, 3], &[1i64, 2, 3, 4, 5, 6]);
    assert_eq!(run1(at(I64, 2), m.clone(), |m| fold_all(Some(c(0i64)), m)), Ok(arr(&[], &[123456i64])));
    assert_eq!(run1(at(I64, 2), m, |m| fold_all(None, m)), Ok(arr(&[], &[123456i64])));
    let empty = arr::<i64>(&[3, 0], &[]);
    assert_eq!(run1(at(I64, 2), empty.clone(), |m| fold_all(Some(c(8i64)), m)), Ok(arr(&[], &[8i64])));
    assert_eq!(run1(at(I64, 2), empty, |m| fold_all(None, m)), Err(in_test(Error::empty_reduction("fold_all"))));
    assert_eq!(run1(at(I64, 0), arr(&[], &[4i64]), |s| fold_all(None, s)), Ok(arr(&[], &[4i64])));
}

#[test]
fn fold_seg_reduces_each_segment_of_each_row() {
    let fold_seg =
        |z, xs, ss, rank| aop(A::FoldSeg { z, f: digits(I64, c(10i64)), a: xs, segments: ss }, at(I64, rank));
    let v = (at(I64, 1), vector(&[1i64, 2, 3, 4, 5]));
    let r = run2(v.clone(), (Type::Segments, segs(&[2, 0, 3])), |xs, ss| fold_seg(Some(c(0i64)), xs, ss, 1));
    assert_eq!(r, Ok(vector(&[12i64, 0, 345])));
    let m = (at(I64, 2), arr(&[2, 5], &[1i64, 2, 3, 4, 5, 6, 7, 8, 9, 1]));
    let r = run2(m.clone(), (Type::Segments, segs(&[1, 4])), |xs, ss| fold_seg(None, xs, ss, 2));
    assert_eq!(r, Ok(arr(&[2, 2], &[1i64, 2345, 6, 7891])));
    let r = run2(v.clone(), (Type::Segments, segs(&[2, 0, 3])), |xs, ss| fold_seg(None, xs, ss, 1));
    assert_eq!(r, Err(in_test(Error::empty_reduction("fold_seg"))));
    let r = run2(v, (Type::Segments, segs(&[2, 2])), |xs, ss| fold_seg(Some(c(0i64)), xs, ss, 1));
    assert!(matches!(&r, Err(Error::InvalidSegments { op, .. }) if op == "fold_seg"), "{r:?}");
    // Segments built from lengths in the program.
    let r = run2(m, (at(I32, 1), vector(&[3i32, 2])), |xs, ls| {
        let ss = aop(A::SegmentsFromLengths(ls), Type::Segments);
        fold_seg(Some(c(0i64)), xs, ss, 2)
    });
    assert_eq!(r, Ok(arr(&[2, 2], &[123i64, 45, 678, 91])));
    let r = run2((at(I64, 1), vector::<i64>(&[])), (Type::Segments, segs(&[])), |xs, ss| fold_seg(None, xs, ss, 1));
    assert_eq!(r, Ok(vector::<i64>(&[])));
}

// ---------------------------------------------------------------------------------------------
// Scans, against a plain oracle with a non-commutative operator.

/// `scanl`/`scanr` of one row with `f(acc, x) = 3 * acc + x` (left) or `f(x, acc) = 3 * x +
/// acc` (right): the full seeded scan, or the inclusive one without a seed.
fn scan_oracle(dir: Direction, z: Option<i64>, xs: &[i64]) -> Vec<i64> {
    let f = |a: i64, b: i64| 3 * a + b;
    match dir {
        Direction::Left => {
            let mut out = Vec::new();
            let mut acc = z;
            if let Some(z) = z {
                out.push(z);
            }
            for &x in xs {
                let next = match acc {
                    Some(a) => f(a, x),
                    None => x,
                };
                out.push(next);
                acc = Some(next);
            }
            out
        }
        Direction::Right => {
            let mut out = vec![0; xs.len() + usize::from(z.is_some())];
            let mut acc = z;
            if let Some(z) = z {
                out[xs.len()] = z;
            }
            for i in (0..xs.len()).rev() {
                let next = match acc {
                    Some(a) => f(xs[i], a),
                    None => xs[i],
                };
                out[i] = next;
                acc = Some(next);
            }
            out
        }
    }
}

#[test]
fn scans_match_the_oracle() {
    let shapes: [&[usize]; 6] = [&[3, 7], &[2, 0], &[0], &[5], &[0, 4], &[2, 1, 3]];
    for (seed, shape) in shapes.into_iter().enumerate() {
        let rank = shape.len();
        let n = shape[rank - 1];
        let outer = &shape[..rank - 1];
        let xs = data(shape.iter().product(), seed as u64);
        let rows: Vec<&[i64]> = if n == 0 { vec![&[]; outer.iter().product()] } else { xs.chunks(n).collect() };
        for dir in [Direction::Left, Direction::Right] {
            for kind in [ScanKind::WithSeed, ScanKind::Inclusive, ScanKind::ExclusiveAndTotal] {
                let z = (kind != ScanKind::Inclusive).then_some(-2i64);
                let f = lam(&[t(I64), t(I64)], |p| add(mul(p[0].clone(), c(3i64)), p[1].clone()));
                let scan_ty = match kind {
                    ScanKind::ExclusiveAndTotal => Type::tuple(vec![at(I64, rank), at(I64, rank - 1)]),
                    _ => at(I64, rank),
                };
                let got =
                    run1(at(I64, rank), arr(shape, &xs), |a| aop(A::Scan { dir, kind, z: z.map(c), f, a }, scan_ty));
                let full: Vec<Vec<i64>> = rows.iter().map(|r| scan_oracle(dir, z, r)).collect();
                let want = match kind {
                    ScanKind::WithSeed | ScanKind::Inclusive => {
                        let mut s = outer.to_vec();
                        s.push(n + usize::from(kind == ScanKind::WithSeed));
                        arr(&s, &full.concat())
                    }
                    ScanKind::ExclusiveAndTotal => {
                        let (mut prefixes, mut totals) = (Vec::new(), Vec::new());
                        for mut r in full {
                            let total = if dir == Direction::Left { r.pop().unwrap() } else { r.remove(0) };
                            totals.push(total);
                            prefixes.extend(r);
                        }
                        let mut s = outer.to_vec();
                        s.push(n);
                        Value::Tuple(vec![arr(&s, &prefixes), arr(outer, &totals)])
                    }
                };
                assert_eq!(got, Ok(want), "{dir:?} {kind:?} on {shape:?}");
            }
        }
    }
}

#[test]
fn scans_by_hand() {
    let v = || (at(I32, 1), vector(&[1i32, 2, 3, 4]));
    let scan = |dir, kind, z: Option<i32>, ty| {
        let (t1, a1) = v();
        run1(t1, a1, |a| aop(A::Scan { dir, kind, z: z.map(c), f: plus(I32), a }, ty))
    };
    use Direction::{Left, Right};
    use ScanKind::*;
    assert_eq!(scan(Left, WithSeed, Some(10), at(I32, 1)), Ok(vector(&[10i32, 11, 13, 16, 20])));
    assert_eq!(scan(Left, Inclusive, None, at(I32, 1)), Ok(vector(&[1i32, 3, 6, 10])));
    assert_eq!(scan(Right, WithSeed, Some(10), at(I32, 1)), Ok(vector(&[20i32, 19, 17, 14, 10])));
    assert_eq!(scan(Right, Inclusive, None, at(I32, 1)), Ok(vector(&[10i32, 9, 7, 4])));
    let pair = Type::tuple(vec![at(I32, 1), at(I32, 0)]);
    assert_eq!(
        scan(Left, ExclusiveAndTotal, Some(0), pair.clone()),
        Ok(Value::Tuple(vec![vector(&[0i32, 1, 3, 6]), arr(&[], &[10i32])]))
    );
    assert_eq!(
        scan(Right, ExclusiveAndTotal, Some(0), pair),
        Ok(Value::Tuple(vec![vector(&[9i32, 7, 4, 0]), arr(&[], &[10i32])]))
    );
}

#[test]
fn segmented_scans() {
    let m = (at(I64, 2), arr(&[2, 7], &data(14, 9)));
    let lengths = [3usize, 0, 4];
    for kind in [ScanKind::WithSeed, ScanKind::Inclusive] {
        let z = (kind == ScanKind::WithSeed).then_some(5i64);
        let f = lam(&[t(I64), t(I64)], |p| add(mul(p[0].clone(), c(3i64)), p[1].clone()));
        let got = run2(m.clone(), (Type::Segments, segs(&lengths)), |a, ss| {
            aop(A::ScanSeg { kind, z: z.map(c), f, a, segments: ss }, at(I64, 2))
        });
        let mut want = Vec::new();
        for r in data(14, 9).chunks(7) {
            let mut start = 0;
            for len in lengths {
                want.extend(scan_oracle(Direction::Left, z, &r[start..start + len]));
                start += len;
            }
        }
        let width = if z.is_some() { 10 } else { 7 };
        assert_eq!(got, Ok(arr(&[2, width], &want)), "{kind:?}");
    }
    let r = run2((at(I32, 1), vector(&[1i32, 2, 3])), (Type::Segments, segs(&[1, 1])), |a, ss| {
        aop(A::ScanSeg { kind: ScanKind::Inclusive, z: None, f: plus(I32), a, segments: ss }, at(I32, 1))
    });
    assert!(matches!(&r, Err(Error::InvalidSegments { op, .. }) if op == "scanl1_seg"), "{r:?}");
    let r = run2((at(I32, 1), vector(&[1i32, 2, 3])), (Type::Segments, segs(&[2, 0, 1])), |a, ss| {
        aop(A::ScanSeg { kind: ScanKind::WithSeed, z: Some(c(0i32)), f: plus(I32), a, segments: ss }, at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[0i32, 1, 3, 0, 0, 3])));
}

// ---------------------------------------------------------------------------------------------
// Moving elements.

#[test]
fn backpermute_gathers() {
    let v = (at(I32, 1), vector(&[10i32, 20, 30, 40]));
    let rev = lam(&[ixt(1)], |p| bin(Op::Sub, c(3usize), p[0].clone()));
    let r = run1(v.0.clone(), v.1.clone(), |a| aop(P::Backpermute { shape: c(3usize), f: rev, a }, at(I32, 1)));
    assert_eq!(r, Ok(vector(&[40i32, 30, 20])));
    let swap = lam(&[ixt(2)], |p| tuple(vec![proj(p[0].clone(), 1), proj(p[0].clone(), 0)]));
    let r = run1(at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6]), |a| {
        aop(P::Backpermute { shape: tuple(vec![c(3usize), c(2usize)]), f: swap, a }, at(I32, 2))
    });
    assert_eq!(r, Ok(arr(&[3, 2], &[1i32, 4, 2, 5, 3, 6])));
    let shift = lam(&[ixt(1)], |p| add(p[0].clone(), c(2usize)));
    let r = run1(v.0.clone(), v.1.clone(), |a| aop(P::Backpermute { shape: c(3usize), f: shift, a }, at(I32, 1)));
    assert_eq!(r, Err(in_test(Error::index_out_of_bounds("backpermute", &[4], &[4]))));
    let vector_to_scalar = lam(&[ixt(0)], |_| c(1usize));
    let r = run1(v.0, v.1, |a| aop(P::Backpermute { shape: tuple(vec![]), f: vector_to_scalar, a }, at(I32, 0)));
    assert_eq!(r, Ok(arr(&[], &[20i32])));
}

fn permute(defaults: Expr, f: Lambda, combine: Lambda, a: Expr) -> Expr {
    let ty = defaults.ty.clone();
    aop(A::Permute { defaults, f, combine, a }, ty)
}

#[test]
fn permute_scatters_in_source_order() {
    // A histogram against a plain count.
    let xs = data(200, 3);
    let bins: Vec<i64> = xs.iter().map(|x| x.rem_euclid(5)).collect();
    let mut want = vec![100i64; 5];
    for &b in &bins {
        want[b as usize] += 1;
    }
    let r = run2((at(I64, 1), vector(&bins)), (at(I64, 1), vector(&[100i64; 5])), |keys, defaults| {
        let f = lam(&[ixt(1)], |p| tuple(vec![c(true), cast(index(keys.clone(), p[0].clone()), Usize)]));
        let count = lam(&[t(I64), t(I64)], |p| add(p[1].clone(), c(1i64)));
        permute(defaults, f, count, keys)
    });
    assert_eq!(r, Ok(vector(&want)));

    // `combine(new, old)`, sources in ascending order; `false` drops.
    let r = run2((at(I64, 1), vector(&[1i64, 2, 3, 4, 5])), (at(I64, 1), vector(&[7i64, 8])), |a, d| {
        let f = lam(&[ixt(1)], |p| {
            tuple(vec![bin(Op::Lt, p[0].clone(), c(4usize)), bin(Op::Rem, p[0].clone(), c(2usize))])
        });
        let combine = lam(&[t(I64), t(I64)], |p| add(mul(p[1].clone(), c(10i64)), p[0].clone()));
        permute(d, f, combine, a)
    });
    assert_eq!(r, Ok(vector(&[(7i64 * 10 + 1) * 10 + 3, (8 * 10 + 2) * 10 + 4])));

    let to = |dst: usize| lam(&[ixt(1)], move |p| tuple(vec![c(true), add(p[0].clone(), c(dst))]));
    let args = || ((at(I64, 1), vector(&[1i64, 2])), (at(I64, 1), vector(&[7i64, 8])));
    let (a, d) = args();
    let r = run2(a, d, |a, d| permute(d, to(1), plus(I64), a));
    assert_eq!(r, Err(in_test(Error::index_out_of_bounds("permute", &[2], &[2]))));
    // Dropped elements are not bounds-checked.
    let (a, d) = args();
    let r = run2(a, d, |a, d| {
        let f = lam(&[ixt(1)], |_| tuple(vec![c(false), c(99usize)]));
        permute(d, f, plus(I64), a)
    });
    assert_eq!(r, Ok(vector(&[7i64, 8])));

    // A matrix transposed by scatter.
    let r =
        run2((at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6])), (at(I32, 2), arr(&[3, 2], &[-1i32; 6])), |a, d| {
            let f = lam(&[ixt(2)], |p| tuple(vec![c(true), tuple(vec![proj(p[0].clone(), 1), proj(p[0].clone(), 0)])]));
            let replace = lam(&[t(I32), t(I32)], |p| p[0].clone());
            permute(d, f, replace, a)
        });
    assert_eq!(r, Ok(arr(&[3, 2], &[1i32, 4, 2, 5, 3, 6])));
}

#[test]
fn reverse_transpose_reshape() {
    let m = || (at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6]));
    let (ty, v) = m();
    assert_eq!(run1(ty, v, |a| aop(P::Reverse(a), at(I32, 2))), Ok(arr(&[2, 3], &[3i32, 2, 1, 6, 5, 4])));
    let r = run1(at(I32, 1), vector(&[1i32, 2, 3]), |a| aop(P::Reverse(a), at(I32, 1)));
    assert_eq!(r, Ok(vector(&[3i32, 2, 1])));
    let (ty, v) = m();
    assert_eq!(run1(ty, v, |a| aop(P::Transpose(a), at(I32, 2))), Ok(arr(&[3, 2], &[1i32, 4, 2, 5, 3, 6])));
    let r = run1(at(I32, 2), arr::<i32>(&[0, 3], &[]), |a| aop(P::Transpose(a), at(I32, 2)));
    assert_eq!(r, Ok(arr::<i32>(&[3, 0], &[])));

    let reshape = |shape: Expr, rank| {
        let (ty, v) = m();
        run1(ty, v, |a| aop(A::Reshape { shape, a }, at(I32, rank)))
    };
    assert_eq!(reshape(tuple(vec![c(3usize), c(2usize)]), 2), Ok(arr(&[3, 2], &[1i32, 2, 3, 4, 5, 6])));
    assert_eq!(reshape(c(6usize), 1), Ok(vector(&[1i32, 2, 3, 4, 5, 6])));
    let r = reshape(tuple(vec![c(4usize), c(2usize)]), 2);
    assert!(matches!(&r, Err(Error::ShapeMismatch { op, .. }) if op == "reshape"), "{r:?}");
}

#[test]
fn take_drop_concat() {
    let m = || (at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6]));
    let cut = |take: bool, n: usize| {
        let (ty, v) = m();
        run1(ty, v, |a| {
            let op = if take { P::Take { n: c(n), a } } else { P::Drop { n: c(n), a } };
            aop(op, at(I32, 2))
        })
    };
    assert_eq!(cut(true, 2), Ok(arr(&[2, 2], &[1i32, 2, 4, 5])));
    assert_eq!(cut(false, 2), Ok(arr(&[2, 1], &[3i32, 6])));
    assert_eq!(cut(true, 10), Ok(arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6])));
    assert_eq!(cut(false, 10), Ok(arr::<i32>(&[2, 0], &[])));
    assert_eq!(cut(true, 0), Ok(arr::<i32>(&[2, 0], &[])));
    assert_eq!(cut(false, 0), Ok(arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6])));

    let r = run2((at(I32, 1), vector(&[1i32, 2])), (at(I32, 1), vector(&[3i32, 4, 5])), |a, b| {
        aop(A::Concat { a, b }, at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[1i32, 2, 3, 4, 5])));
    let r = run2((at(I32, 2), arr(&[2, 2], &[1i32, 2, 3, 4])), (at(I32, 2), arr(&[3, 1], &[7i32, 8, 9])), |a, b| {
        aop(A::Concat { a, b }, at(I32, 2))
    });
    assert_eq!(r, Ok(arr(&[2, 3], &[1i32, 2, 7, 3, 4, 8])));
}

#[test]
fn replicate_and_slice() {
    let v = || (at(I32, 1), vector(&[1i32, 2, 3]));
    let rep = |axis, n: usize| {
        let (ty, x) = v();
        run1(ty, x, |a| aop(P::Replicate { axis, n: c(n), a }, at(I32, 2)))
    };
    assert_eq!(rep(Axis::Rows, 2), Ok(arr(&[2, 3], &[1i32, 2, 3, 1, 2, 3])));
    assert_eq!(rep(Axis::Cols, 2), Ok(arr(&[3, 2], &[1i32, 1, 2, 2, 3, 3])));
    assert_eq!(rep(Axis::Rows, 0), Ok(arr::<i32>(&[0, 3], &[])));
    assert_eq!(rep(Axis::Cols, 0), Ok(arr::<i32>(&[3, 0], &[])));

    let slice = |axis, i: usize| {
        run1(at(I32, 2), arr(&[2, 3], &[1i32, 2, 3, 4, 5, 6]), |a| aop(A::Slice { axis, index: c(i), a }, at(I32, 1)))
    };
    assert_eq!(slice(Axis::Rows, 1), Ok(vector(&[4i32, 5, 6])));
    assert_eq!(slice(Axis::Cols, 2), Ok(vector(&[3i32, 6])));
    assert_eq!(slice(Axis::Rows, 2), Err(in_test(Error::index_out_of_bounds("slice_row", &[2, 0], &[2, 3]))));
    assert_eq!(slice(Axis::Cols, 3), Err(in_test(Error::index_out_of_bounds("slice_col", &[0, 3], &[2, 3]))));
}

// ---------------------------------------------------------------------------------------------
// Stencils.

/// A stencil closure `|n0, n1, ..| ((n0 * 3 + n1) * 3 + ..)`, which weighs every neighbour
/// differently and so shows their order.
fn horner(points: usize) -> Lambda {
    lam(&vec![t(I64); points], |p| p.iter().fold(c(0i64), |acc, x| add(mul(acc, c(3i64)), x.clone())))
}

fn stencil(shape: StencilShape, boundary: Boundary, a: Expr) -> Expr {
    let ty = a.ty.clone();
    aop(A::Stencil { shape, boundary, f: horner(shape.points()), a }, ty)
}

/// Where an outside coordinate reads, by repeated reflection / clamping / wrapping.
fn oracle_coord(b: &str, mut i: i64, n: i64) -> Option<i64> {
    match b {
        "clamp" => Some(i.clamp(0, n - 1)),
        "wrap" => Some(((i % n) + n) % n),
        "mirror" if n == 1 => Some(0),
        "mirror" => {
            while i < 0 || i >= n {
                if i < 0 {
                    i = -i;
                }
                if i >= n {
                    i = 2 * (n - 1) - i;
                }
            }
            Some(i)
        }
        _ => (0..n).contains(&i).then_some(i),
    }
}

#[test]
fn stencil3_by_hand() {
    let run = |b: Boundary| {
        run1(at(I64, 1), vector(&[1i64, 2, 3, 4]), |a| {
            let f = lam(&[t(I64), t(I64), t(I64)], |p| {
                add(add(mul(p[0].clone(), c(100i64)), mul(p[1].clone(), c(10i64))), p[2].clone())
            });
            aop(A::Stencil { shape: StencilShape::S3, boundary: b, f, a }, at(I64, 1))
        })
    };
    assert_eq!(run(Boundary::Clamp), Ok(vector(&[112i64, 123, 234, 344])));
    assert_eq!(run(Boundary::Mirror), Ok(vector(&[212i64, 123, 234, 343])));
    assert_eq!(run(Boundary::Wrap), Ok(vector(&[412i64, 123, 234, 341])));
    assert_eq!(run(Boundary::Constant(Box::new(c(9i64)))), Ok(vector(&[912i64, 123, 234, 349])));
}

#[test]
fn stencils_match_the_oracle() {
    let boundaries = ["clamp", "mirror", "wrap", "constant"];
    let shapes: [(StencilShape, &[usize]); 11] = [
        (StencilShape::S3, &[1]),
        (StencilShape::S3, &[2]),
        (StencilShape::S3, &[6]),
        (StencilShape::S5, &[1]),
        (StencilShape::S5, &[2]),
        (StencilShape::S5, &[7]),
        (StencilShape::S3x3, &[4, 5]),
        (StencilShape::S3x3, &[1, 3]),
        (StencilShape::S5x5, &[2, 2]),
        (StencilShape::S5x5, &[3, 6]),
        (StencilShape::S5x5, &[1, 1]),
    ];
    for (seed, (st, shape)) in shapes.into_iter().enumerate() {
        let xs = data(shape.iter().product(), 100 + seed as u64);
        let r = st.radius() as i64;
        let rank = shape.len();
        for b in boundaries {
            let boundary = match b {
                "clamp" => Boundary::Clamp,
                "mirror" => Boundary::Mirror,
                "wrap" => Boundary::Wrap,
                _ => Boundary::Constant(Box::new(c(1000i64))),
            };
            let got = run1(at(I64, rank), arr(shape, &xs), |a| stencil(st, boundary, a));
            let (rows, cols) = if rank == 1 { (1, shape[0] as i64) } else { (shape[0] as i64, shape[1] as i64) };
            let (dr, dc) = if rank == 1 { (0, r) } else { (r, r) };
            let mut want = Vec::new();
            for i in 0..rows {
                for j in 0..cols {
                    let mut acc = 0i64;
                    for oi in -dr..=dr {
                        for oj in -dc..=dc {
                            let x = match (oracle_coord(b, i + oi, rows), oracle_coord(b, j + oj, cols)) {
                                (Some(ri), Some(rj)) => xs[(ri * cols + rj) as usize],
                                _ => 1000,
                            };
                            acc = acc * 3 + x;
                        }
                    }
                    want.push(acc);
                }
            }
            assert_eq!(got, Ok(arr(shape, &want)), "{st:?} {b} on {shape:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Irregular operations and control.

#[test]
fn expand_and_filter() {
    let xs = || (at(I32, 1), vector(&[2i32, 0, 3]));
    let (ty, v) = xs();
    let r = run1(ty, v, |a| {
        let count = lam(&[t(I32)], |p| p[0].clone());
        let value = lam(&[t(I32), t(I32)], |p| add(mul(p[0].clone(), c(10i32)), p[1].clone()));
        aop(A::Expand { count, value, a }, at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[20i32, 21, 30, 31, 32])));
    // The counter takes the type of the closure's parameter; the count may be any integer.
    let (ty, v) = xs();
    let r = run1(ty, v, |a| {
        let count = lam(&[t(I32)], |p| cast(p[0].clone(), I64));
        let value = lam(&[t(I32), t(Usize)], |p| p[1].clone());
        aop(A::Expand { count, value, a }, at(Usize, 1))
    });
    assert_eq!(r, Ok(vector(&[0usize, 1, 0, 1, 2])));
    let r = run1(at(I32, 1), vector(&[1i32, -1]), |a| {
        let count = lam(&[t(I32)], |p| p[0].clone());
        let value = lam(&[t(I32), t(I32)], |p| p[0].clone());
        aop(A::Expand { count, value, a }, at(I32, 1))
    });
    assert!(matches!(&r, Err(Error::InvalidArgument { op, .. }) if op == "expand"), "{r:?}");

    let ys = data(101, 4);
    let r = run1(at(I64, 2), arr(&[1, 101], &ys), |a| {
        let even = lam(&[t(I64)], |p| bin(Op::Eq, bin(Op::Rem, p[0].clone(), c(2i64)), c(0i64)));
        aop(A::Filter { pred: even, a }, at(I64, 1))
    });
    let want: Vec<i64> = ys.iter().copied().filter(|y| y % 2 == 0).collect();
    assert!(!want.is_empty() && want.len() < ys.len());
    assert_eq!(r, Ok(vector(&want)));
}

#[test]
fn awhile_loops_on_arrays() {
    let run = |init: &[i32]| {
        run1(at(I32, 1), vector(init), |a| {
            let cond = lam(&[at(I32, 1)], |p| {
                let sum = aop(A::FoldAll { z: Some(c(0i32)), f: plus(I32), a: p[0].clone() }, at(I32, 0));
                let small = lam(&[t(I32)], |q| bin(Op::Lt, q[0].clone(), c(100i32)));
                aop(P::Map { f: small, a: sum }, at(Bool, 0))
            });
            let step = lam(&[at(I32, 1)], |p| {
                aop(P::Map { f: lam(&[t(I32)], |q| mul(q[0].clone(), c(2i32))), a: p[0].clone() }, at(I32, 1))
            });
            aop(A::Awhile { init: a, cond, step }, at(I32, 1))
        })
    };
    assert_eq!(run(&[1, 2, 3]), Ok(vector(&[32i32, 64, 96])));
    assert_eq!(run(&[100, 2]), Ok(vector(&[100i32, 2])));
}

#[test]
fn segment_descriptors() {
    let lengths = |ls: Value, body: fn(Expr) -> Expr| {
        run1(at(I32, 1), ls, |l| body(aop(A::SegmentsFromLengths(l), Type::Segments)))
    };
    let v = vector(&[2i32, 0, 3]);
    assert_eq!(lengths(v.clone(), |s| s), Ok(segs(&[2, 0, 3])));
    assert_eq!(lengths(v.clone(), |s| aop(A::SegmentLengths(s), at(Usize, 1))), Ok(vector(&[2usize, 0, 3])));
    assert_eq!(lengths(v.clone(), |s| aop(A::SegmentOffsets(s), at(Usize, 1))), Ok(vector(&[0usize, 2, 2, 5])));
    assert_eq!(lengths(v, len_of), Ok(sc(3usize)));
    let empty = vector::<i32>(&[]);
    assert_eq!(lengths(empty.clone(), |s| aop(A::SegmentLengths(s), at(Usize, 1))), Ok(vector::<usize>(&[])));
    assert_eq!(lengths(empty, |s| aop(A::SegmentOffsets(s), at(Usize, 1))), Ok(vector(&[0usize])));
    let r = lengths(vector(&[1i32, -2]), |s| s);
    assert!(matches!(&r, Err(Error::InvalidSegments { op, .. }) if op == "segments_from_lengths"), "{r:?}");
}

/// A nested array built in the program from lengths and values.
fn nested(lengths: Expr, values: Expr) -> Expr {
    let elem = values.ty.as_array().unwrap().0.clone();
    let segments = aop(A::SegmentsFromLengths(lengths), Type::Segments);
    aop(A::NestedFromParts { segments, values }, Type::Nested(elem))
}

fn nested_value(lengths: &[usize], values: &[i32]) -> Value {
    let Value::Segments(segments) = segs(lengths) else { unreachable!() };
    let Value::Array(values) = vector(values) else { unreachable!() };
    Value::Nested { segments, values }
}

#[test]
fn nested_arrays() {
    let parts = || ((at(I32, 1), vector(&[2i32, 0, 3])), (at(I32, 1), vector(&[1i32, 2, 3, 4, 5])));
    let run = |body: fn(Expr) -> Expr| {
        let (l, v) = parts();
        run2(l, v, |l, v| body(nested(l, v)))
    };
    assert_eq!(run(|n| n), Ok(nested_value(&[2, 0, 3], &[1, 2, 3, 4, 5])));
    assert_eq!(run(|n| aop(A::NestedValues(n), at(I32, 1))), Ok(vector(&[1i32, 2, 3, 4, 5])));
    assert_eq!(run(|n| aop(A::NestedSegments(n), Type::Segments)), Ok(segs(&[2, 0, 3])));
    assert_eq!(run(len_of), Ok(sc(3usize)));

    // Row reductions: a `Scalar` or an element per row gives a vector.
    fn row_sum(row: Expr) -> Expr {
        aop(A::FoldAll { z: Some(c(0i32)), f: plus(I32), a: row }, at(I32, 0))
    }
    let r = run(|n| aop(A::NestedMap { f: lam(&[at(I32, 1)], |p| row_sum(p[0].clone())), a: n }, at(I32, 1)));
    assert_eq!(r, Ok(vector(&[3i32, 0, 12])));
    let r = run(|n| {
        let f = lam(&[at(I32, 1)], |p| aop(A::The(row_sum(p[0].clone())), t(I32)));
        aop(A::NestedMap { f, a: n }, at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[3i32, 0, 12])));
    let r = run(|n| {
        let f = lam(&[at(I32, 1)], |p| len_of(p[0].clone()));
        aop(A::NestedMap { f, a: n }, at(Usize, 1))
    });
    assert_eq!(r, Ok(vector(&[2usize, 0, 3])));
    // Vectors per row give a nested array.
    let r = run(|n| {
        let odd = lam(&[t(I32)], |q| bin(Op::Eq, bin(Op::Rem, q[0].clone(), c(2i32)), c(1i32)));
        let f = lam(&[at(I32, 1)], |p| aop(A::Filter { pred: odd, a: p[0].clone() }, at(I32, 1)));
        aop(A::NestedMap { f, a: n }, Type::Nested(ElemType::Scalar(I32)))
    });
    assert_eq!(r, Ok(nested_value(&[1, 0, 2], &[1, 3, 5])));

    let r = run2((at(I32, 1), vector(&[2i32, 2])), (at(I32, 1), vector(&[1i32, 2, 3])), nested);
    assert!(matches!(&r, Err(Error::InvalidSegments { op, .. }) if op == "nested"), "{r:?}");
    // A nested argument.
    let r = run1(Type::Nested(ElemType::Scalar(I32)), nested_value(&[1, 2], &[7, 8, 9]), |n| {
        aop(A::NestedValues(n), at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[7i32, 8, 9])));
}

// ---------------------------------------------------------------------------------------------
// Streams.

fn seq_ty(inner: Type) -> Type {
    Type::Seq(Box::new(inner))
}

#[test]
fn streams() {
    let input = || Value::Seq(vec![vector(&[1i32, 2]), vector(&[3i32]), vector::<i32>(&[])]);
    let vty = || seq_ty(at(I32, 1));
    let stream = |s: Expr| sop(S::StreamIn(s), vty());

    let r = run1(vty(), input(), |s| {
        let sum =
            lam(&[at(I32, 1)], |p| aop(A::FoldAll { z: Some(c(0i32)), f: plus(I32), a: p[0].clone() }, at(I32, 0)));
        let sums = sop(S::Map { f: sum, s: stream(s) }, seq_ty(at(I32, 0)));
        sop(S::Tabulate(sums), at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[3i32, 3, 0])));
    assert_eq!(run1(vty(), input(), |s| sop(S::Collect(stream(s)), at(I32, 1))), Ok(vector(&[1i32, 2, 3])));
    let r = run1(vty(), input(), |s| {
        let elems = sop(S::Elements(stream(s)), seq_ty(t(I32)));
        tuple(vec![
            sop(S::Tabulate(elems.clone()), at(I32, 1)),
            sop(S::Collect(elems.clone()), at(I32, 1)),
            len_of(elems),
        ])
    });
    assert_eq!(r, Ok(Value::Tuple(vec![vector(&[1i32, 2, 3]), vector(&[1i32, 2, 3]), sc(3usize)])));
    assert_eq!(run1(vty(), input(), |s| len_of(stream(s))), Ok(sc(3usize)));

    // produce(4, |i| generate(i, |j| i * 10 + j)).
    let produce = || {
        let f = lam(&[t(Usize)], |p| {
            let i = p[0].clone();
            let g = lam(&[ixt(1)], |q| cast(add(mul(i.clone(), c(10usize)), q[0].clone()), I32));
            aop(A::Generate { shape: i.clone(), f: g, from: vec![] }, at(I32, 1))
        });
        sop(S::Produce { n: c(4usize), f }, vty())
    };
    let want = Value::Seq(vec![vector::<i32>(&[]), vector(&[10i32]), vector(&[20i32, 21]), vector(&[30i32, 31, 32])]);
    assert_eq!(run0(produce()), Ok(want));
    assert_eq!(run0(sop(S::Collect(produce()), at(I32, 1))), Ok(vector(&[10i32, 20, 21, 30, 31, 32])));

    // zip_with stops at the shorter stream.
    let r = run1(vty(), input(), |s| {
        let f = lam(&[at(I32, 1), at(I32, 1)], |p| aop(A::Concat { a: p[0].clone(), b: p[1].clone() }, at(I32, 1)));
        let short = sop(
            S::Produce { n: c(2usize), f: lam(&[t(Usize)], |p| aop(P::Iota { n: p[0].clone() }, at(I32, 1))) },
            vty(),
        );
        sop(S::Collect(sop(S::ZipWith { f, a: stream(s), b: short }, vty())), at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[1i32, 2, 3, 0])));

    // fold, in stream order.
    let r = run0({
        let f = lam(&[t(Usize)], |p| {
            aop(P::Fill { shape: c(2usize), value: add(cast(p[0].clone(), I32), c(1i32)) }, at(I32, 1))
        });
        let items = sop(S::Produce { n: c(3usize), f }, vty());
        let z = aop(P::Fill { shape: c(2usize), value: c(10i32) }, at(I32, 1));
        let f = lam(&[at(I32, 1), at(I32, 1)], |p| {
            aop(P::ZipWith { f: digits(I32, c(10i32)), a: p[0].clone(), b: p[1].clone() }, at(I32, 1))
        });
        sop(S::Fold { z, f, s: items }, at(I32, 1))
    });
    assert_eq!(r, Ok(vector(&[10123i32, 10123])));
}

#[test]
fn collect_stacks_matrices_along_rows() {
    let produce = |cols: fn(Expr) -> Expr| {
        let f = lam(&[t(Usize)], |p| {
            let i = p[0].clone();
            let shape = tuple(vec![add(i.clone(), c(1usize)), cols(i.clone())]);
            aop(P::Fill { shape, value: add(cast(i, I32), c(1i32)) }, at(I32, 2))
        });
        sop(S::Collect(sop(S::Produce { n: c(2usize), f }, seq_ty(at(I32, 2)))), at(I32, 2))
    };
    assert_eq!(run0(produce(|_| c(2usize))), Ok(arr(&[3, 2], &[1i32, 1, 2, 2, 2, 2])));
    let r = run0(produce(|i| add(i, c(1usize))));
    assert!(matches!(&r, Err(Error::ShapeMismatch { op, .. }) if op == "collect"), "{r:?}");
    let none = sop(
        S::Produce {
            n: c(0usize),
            f: lam(&[t(Usize)], |_| {
                aop(P::Fill { shape: tuple(vec![c(1usize), c(1usize)]), value: c(1i32) }, at(I32, 2))
            }),
        },
        seq_ty(at(I32, 2)),
    );
    assert_eq!(run0(sop(S::Collect(none), at(I32, 2))), Ok(arr::<i32>(&[0, 0], &[])));
}

// ---------------------------------------------------------------------------------------------
// Arguments, empty arrays, size, ill-typed IR.

#[test]
fn arguments_are_checked() {
    let xs = (Var { id: 1_000_000, name: "xs".to_string() }, at(F32, 1));
    let p = program(vec![xs.clone()], var(&xs));
    let bad = |r: Result<Value>, needle: &str| match r {
        Err(Error::InvalidArgument { op, reason, .. }) => {
            assert_eq!(op, "test");
            assert!(reason.contains(needle), "{reason:?} should mention {needle:?}");
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    };
    assert_eq!(eval(&p, vec![vector(&[1.5f32])]), Ok(vector(&[1.5f32])));
    bad(eval(&p, vec![]), "1 parameter(s) but was given 0");
    bad(eval(&p, vec![vector(&[1i32])]), "`xs`");
    bad(eval(&p, vec![vector(&[1i32])]), "Vector<i32>");
    bad(eval(&p, vec![sc(1.5f32)]), "`xs`");
    let ragged = ArrayValue { elem: ElemType::Scalar(F32), shape: vec![2], data: vec![el(1.0f32)] };
    bad(eval(&p, vec![Value::Array(ragged)]), "`xs`");
    let mixed = ArrayValue { elem: ElemType::Scalar(F32), shape: vec![2], data: vec![el(1.0f32), el(2i32)] };
    bad(eval(&p, vec![Value::Array(mixed)]), "not of type f32");

    let s = (Var { id: 1_000_001, name: "s".to_string() }, seq_ty(at(F32, 1)));
    let p = program(vec![s.clone()], var(&s));
    bad(eval(&p, vec![Value::Seq(vec![vector(&[1.0f32]), vector(&[1i32])])]), "stream item 1");
    let n = (Var { id: 1_000_002, name: "n".to_string() }, Type::Nested(ElemType::Scalar(I32)));
    let p = program(vec![n.clone()], var(&n));
    bad(eval(&p, vec![nested_value(&[1, 1], &[1, 2, 3])]), "`n`");
}

#[test]
fn every_combinator_accepts_empty_arrays() {
    use Direction::{Left, Right};
    use ScanKind::{ExclusiveAndTotal, Inclusive, WithSeed};
    let v = || (at(I32, 1), vector::<i32>(&[]));
    let m = || (at(I32, 2), arr::<i32>(&[0, 3], &[]));
    let empty = || vector::<i32>(&[]);
    let check = |(ty, x): (Type, Value), body: &dyn Fn(Expr) -> Expr, want: Value| {
        assert_eq!(run1(ty, x, body), Ok(want));
    };
    let vec_i32 = at(I32, 1);
    let no_segments = || aop(A::SegmentsFromLengths(iota(0, I32)), Type::Segments);
    let id = || lam(&[t(I32)], |p| p[0].clone());
    let second = || lam(&[t(I32), t(I32)], |p| p[1].clone());
    let keep_at = |dst: Expr| lam(&[ixt(1)], move |_| tuple(vec![c(true), dst.clone()]));

    check(v(), &|a| map(id(), a, vec_i32.clone()), empty());
    let imap = |a| aop(P::IMap { f: lam(&[ixt(2), t(I32)], |p| p[1].clone()), a }, at(I32, 2));
    check(m(), &imap, arr::<i32>(&[0, 3], &[]));
    let zip = |a: Expr| aop(P::ZipWith { f: plus(I32), a: a.clone(), b: a }, at(I32, 1));
    check(v(), &zip, empty());
    check(m(), &|a| fold(Some(c(1i32)), plus(I32), a, at(I32, 1)), empty());
    check(m(), &|a| fold(None, plus(I32), a, at(I32, 1)), empty());
    let scanl = |a| scan(Left, WithSeed, Some(c(4i32)), a, vec_i32.clone());
    check(v(), &scanl, vector(&[4i32]));
    check(v(), &|a| scan(Right, Inclusive, None, a, vec_i32.clone()), empty());
    let total_ty = Type::tuple(vec![at(I32, 1), at(I32, 0)]);
    let scanl_total = |a| scan(Left, ExclusiveAndTotal, Some(c(4i32)), a, total_ty.clone());
    check(v(), &scanl_total, Value::Tuple(vec![empty(), arr(&[], &[4i32])]));
    let fold_seg = |a| aop(A::FoldSeg { z: None, f: plus(I32), a, segments: no_segments() }, vec_i32.clone());
    check(v(), &fold_seg, empty());
    let scan_seg = |a| {
        let op = A::ScanSeg { kind: WithSeed, z: Some(c(0i32)), f: plus(I32), a, segments: no_segments() };
        aop(op, vec_i32.clone())
    };
    check(v(), &scan_seg, empty());
    let gather = |a| aop(P::Backpermute { shape: c(0usize), f: lam(&[ixt(1)], |p| p[0].clone()), a }, vec_i32.clone());
    check(v(), &gather, empty());
    let fives = || aop(P::Fill { shape: c(2usize), value: c(5i32) }, at(I32, 1));
    check(v(), &|a| permute(fives(), keep_at(c(9usize)), plus(I32), a), vector(&[5i32, 5]));
    let into_empty = |a: Expr| permute(a.clone(), keep_at(c(0usize)), plus(I32), a);
    check(v(), &into_empty, empty());
    check(m(), &|a| aop(P::Reverse(a), at(I32, 2)), arr::<i32>(&[0, 3], &[]));
    let reshape = |a| aop(A::Reshape { shape: tuple(vec![c(3usize), c(0usize)]), a }, at(I32, 2));
    check(m(), &reshape, arr::<i32>(&[3, 0], &[]));
    check(m(), &|a| aop(P::Take { n: c(2usize), a }, at(I32, 2)), arr::<i32>(&[0, 2], &[]));
    check(m(), &|a| aop(P::Drop { n: c(2usize), a }, at(I32, 2)), arr::<i32>(&[0, 1], &[]));
    let concat = |a: Expr| aop(A::Concat { a: a.clone(), b: a }, at(I32, 2));
    check(m(), &concat, arr::<i32>(&[0, 6], &[]));
    let rows = |a| aop(P::Replicate { axis: Axis::Rows, n: c(2usize), a }, at(I32, 2));
    check(v(), &rows, arr::<i32>(&[2, 0], &[]));
    let mirror = |a| stencil(StencilShape::S3x3, Boundary::Mirror, a);
    check(m(), &mirror, arr::<i32>(&[0, 3], &[]));
    let constant = |a| stencil(StencilShape::S5, Boundary::Constant(Box::new(c(1i32))), a);
    check(v(), &constant, empty());
    let expand = |a| aop(A::Expand { count: id(), value: second(), a }, vec_i32.clone());
    check(v(), &expand, empty());
    let filter = |a| aop(A::Filter { pred: lam(&[t(I32)], |_| c(true)), a }, vec_i32.clone());
    check(m(), &filter, empty());
    let values = |a| aop(A::NestedValues(nested(iota(0, I32), a)), vec_i32.clone());
    check(v(), &values, empty());
    let lengths = |a: Expr| {
        let f = lam(&[at(I32, 1)], |p| len_of(p[0].clone()));
        aop(A::NestedMap { f, a: nested(a.clone(), a) }, at(Usize, 1))
    };
    check(v(), &lengths, vector::<usize>(&[]));
    let collect = |a: Expr| {
        let none = sop(S::Produce { n: c(0usize), f: lam(&[t(Usize)], |_| a.clone()) }, seq_ty(at(I32, 1)));
        sop(S::Collect(none), vec_i32.clone())
    };
    check(v(), &collect, empty());
}

/// Large inputs through the operations that read arrays per element: nothing may copy an array
/// per element (this runs in well under a second).
#[test]
fn large_arrays_are_not_copied_per_element() {
    const N: usize = 100_000;
    let xs = data(N, 11);
    let ys = data(N, 12);
    let start = std::time::Instant::now();
    let r = run2((at(I64, 1), vector(&xs)), (at(I64, 1), vector(&ys)), |xs_e, ys_e| {
        let mixed = lam(&[ixt(1)], |p| {
            let back = bin(Op::Sub, c(N - 1), p[0].clone());
            add(mul(index(xs_e.clone(), back), c(2i64)), index(ys_e.clone(), p[0].clone()))
        });
        let a = aop(A::Generate { shape: c(N), f: mixed, from: vec![] }, at(I64, 1));
        let_in(a, |a| {
            let sums = aop(
                A::Scan { dir: Direction::Left, kind: ScanKind::Inclusive, z: None, f: plus(I64), a: a.clone() },
                at(I64, 1),
            );
            let bins = lam(&[ixt(1)], |p| {
                let key = bin(Op::BitAnd, index(xs_e.clone(), p[0].clone()), c(15i64));
                tuple(vec![c(true), cast(key, Usize)])
            });
            let hist = permute(aop(P::Fill { shape: c(16usize), value: c(0i64) }, at(I64, 1)), bins, plus(I64), a);
            tuple(vec![aop(A::FoldAll { z: None, f: plus(I64), a: sums }, at(I64, 0)), hist])
        })
    });
    let elapsed = start.elapsed();
    let a: Vec<i64> = (0..N).map(|i| xs[N - 1 - i] * 2 + ys[i]).collect();
    let sums: Vec<i64> = a
        .iter()
        .scan(0, |s, &x| {
            *s += x;
            Some(*s)
        })
        .collect();
    let mut hist = vec![0i64; 16];
    for i in 0..N {
        hist[(xs[i] & 15) as usize] += a[i];
    }
    let want = Value::Tuple(vec![arr(&[], &[sums.iter().sum::<i64>()]), vector(&hist)]);
    assert_eq!(r, Ok(want));
    assert!(elapsed.as_secs() < 10, "took {elapsed:?}");
}

#[test]
fn ill_typed_ir_is_an_error_not_a_panic() {
    let unbound = Expr::var(Var { id: u32::MAX, name: "ghost".to_string() }, t(I32));
    assert!(is_ill_typed(&run0(unbound)));
    assert!(is_ill_typed(&run0(add(c(1i32), c(1.0f32)))));
    assert!(is_ill_typed(&run0(un(UnaryOp::Not, c(1.0f64)))));
    assert!(is_ill_typed(&run0(math(MathFn::Sqrt, vec![c(4i32)]))));
    assert!(is_ill_typed(&run0(if_(c(1i32), c(1i32), c(2i32)))));
    let r = run1(at(I32, 1), vector(&[1i32]), |a| aop(P::Map { f: plus(I32), a }, at(I32, 1)));
    assert!(is_ill_typed(&r), "{r:?}");
    let r = run1(at(I32, 1), vector(&[1i32]), |a| aop(P::Map { f: lam(&[t(I32)], |_| c(1.0f32)), a }, at(I32, 1)));
    assert!(is_ill_typed(&r), "{r:?}");
    let r = run1(at(I32, 1), vector(&[1i32]), |a| index(a, tuple(vec![c(0usize), c(0usize)])));
    assert!(is_ill_typed(&r), "{r:?}");
}
