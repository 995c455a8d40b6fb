//! Host evaluation of scalar code and control flow, written once for every evaluator of the IR.
//!
//! The reference interpreter and the CUDA executor (in `accel-runtime`, which runs a program's
//! [`Schedule`](crate::schedule::Schedule), each step through this evaluator) evaluate the same IR
//! on the host: variables, constants, `let`, tuples, conditionals, scalar arithmetic, casts, math
//! functions, `iterate` and `while` loops, closure application. They differ in what a value is
//! (host arrays behind `Rc`, or arrays on a device) and in how collective operations, array
//! reads, shapes and lengths are computed. [`Host`] holds the shared part as provided methods; an
//! evaluator implements the required ones. Scalar semantics are [`super::scalar`]'s, so every
//! evaluator computes host scalars bit for bit alike.

use super::scalar;
use crate::error::{Error, Result};
use crate::ir::{ArrayOp, BinaryOp, Expr, ExprKind, Lambda, ReadSite};
use crate::types::Type;
use crate::value::{ElemValue, ScalarValue};

/// A value of a [`Host`] evaluator: an element, an array, segments, a tuple of values, ...
pub trait HostValue: Clone + Sized {
    fn from_elem(v: ElemValue) -> Self;
    /// The element this value is; an error for any other value (ill-typed IR).
    fn into_elem(self) -> Result<ElemValue>;
    /// A tuple of the parts: an element tuple when they are all elements.
    fn tuple(parts: Vec<Self>) -> Self;
    /// Field `i` of a tuple value.
    fn proj(self, i: usize) -> Result<Self>;
}

/// An evaluator of the IR on the host: its values, its environment and its collective
/// operations; [`Host::eval`] and the helpers around it are shared.
pub trait Host {
    type Value: HostValue;

    /// The bindings in scope, innermost last. Variable ids are unique in a program, so looking a
    /// variable up from the end finds its binding; scopes end by truncating.
    fn env(&mut self) -> &mut Vec<(u32, Self::Value)>;

    /// `array[index]`: one element, read at `site`.
    fn index(&mut self, array: &Expr, index: &Expr, site: ReadSite) -> Result<Self::Value>;
    /// The shape of array `a`, as an index value.
    fn shape(&mut self, a: &Expr) -> Result<Vec<usize>>;
    /// The number of elements of an array, segments of segments or a nested array, items of a
    /// stream.
    fn len(&mut self, v: Self::Value) -> Result<usize>;
    /// The segment of segment descriptor `segments` that holds value `index`.
    fn segment_of(&mut self, segments: Self::Value, index: usize) -> Result<usize>;
    /// A collective operation whose result has type `ty`.
    fn array_op(&mut self, op: &ArrayOp, ty: &Type) -> Result<Self::Value>;
    /// The error for IR that a correct front end never emits (the interpreter's `ill_typed`).
    fn ill_typed(&self, what: String) -> Error;
    /// Values that a [`Schedule`](crate::schedule::Schedule) computed ahead for some
    /// expressions, by the expression's address: [`Host::eval`] takes each the first time it
    /// meets its expression instead of evaluating it.
    fn ahead(&mut self) -> &mut Vec<(usize, Self::Value)>;

    /// The value bound to variable `id`.
    fn lookup(&mut self, id: u32, name: &str) -> Result<Self::Value> {
        match self.env().iter().rev().find(|(v, _)| *v == id) {
            Some((_, v)) => Ok(v.clone()),
            None => Err(self.ill_typed(format!("unbound variable `{name}` (#{id})"))),
        }
    }

    fn eval(&mut self, e: &Expr) -> Result<Self::Value> {
        let ahead = self.ahead();
        if !ahead.is_empty()
            && let Some(i) = ahead.iter().position(|(at, _)| *at == e as *const Expr as usize)
        {
            return Ok(ahead.swap_remove(i).1);
        }
        let scalar = |s: ScalarValue| Self::Value::from_elem(ElemValue::Scalar(s));
        Ok(match &e.kind {
            ExprKind::Var(v) => self.lookup(v.id, &v.name)?,
            ExprKind::Const(c) => scalar(scalar::constant(c)?),
            ExprKind::Let { var, value, body } => {
                let v = self.eval(value)?;
                self.env().push((var.id, v));
                let result = self.eval(body);
                self.env().pop();
                result?
            }
            ExprKind::Tuple(parts) => Self::Value::tuple(parts.iter().map(|p| self.eval(p)).collect::<Result<_>>()?),
            ExprKind::Proj(t, i) => self.eval(t)?.proj(*i)?,
            ExprKind::If { cond, then, els } => {
                if self.eval_bool(cond)? {
                    self.eval(then)?
                } else {
                    self.eval(els)?
                }
            }
            ExprKind::Unary(op, x) => scalar(scalar::unary(*op, self.eval_scalar(x)?)?),
            // `&&` and `||` evaluate their right operand only when needed.
            ExprKind::Binary(BinaryOp::And, a, b) => {
                scalar(ScalarValue::Bool(self.eval_bool(a)? && self.eval_bool(b)?))
            }
            ExprKind::Binary(BinaryOp::Or, a, b) => scalar(ScalarValue::Bool(self.eval_bool(a)? || self.eval_bool(b)?)),
            ExprKind::Binary(op, a, b) => {
                let x = self.eval_scalar(a)?;
                let y = self.eval_scalar(b)?;
                scalar(scalar::binary(*op, x, y)?)
            }
            ExprKind::Cast(x, t) => scalar(self.eval_scalar(x)?.cast(*t)),
            ExprKind::Math(f, args) => {
                let xs = args.iter().map(|a| self.eval_scalar(a)).collect::<Result<Vec<_>>>()?;
                scalar(scalar::math(*f, &xs)?)
            }
            ExprKind::Index { array, index, site } => self.index(array, index, *site)?,
            ExprKind::Shape(a) => Self::Value::from_elem(ElemValue::from_index(&self.shape(a)?)),
            ExprKind::Len(a) => {
                let v = self.eval(a)?;
                scalar(ScalarValue::Usize(self.len(v)?))
            }
            ExprKind::SegmentOf { segments, index } => {
                let s = self.eval(segments)?;
                let i = self.eval_count(index, "a segment lookup")?;
                scalar(ScalarValue::Usize(self.segment_of(s, i)?))
            }
            ExprKind::Iterate { count, init, f } => {
                let n = self.eval_count(count, "iterate")?;
                let mut x = self.eval(init)?;
                for _ in 0..n {
                    x = self.apply(f, [x])?;
                }
                x
            }
            ExprKind::WhileLoop { init, cond, step } => {
                let mut x = self.eval(init)?;
                while self.apply_bool(cond, [x.clone()])? {
                    x = self.apply(step, [x])?;
                }
                x
            }
            ExprKind::Array(op) => self.array_op(op, &e.ty)?,
        })
    }

    /// Applies a closure: binds its parameters to the arguments for the time of its body.
    fn apply(&mut self, f: &Lambda, args: impl IntoIterator<Item = Self::Value>) -> Result<Self::Value> {
        let mark = self.env().len();
        let mut params = f.params.iter();
        let mut given = 0;
        for arg in args {
            given += 1;
            if let Some((var, _)) = params.next() {
                self.env().push((var.id, arg));
            }
        }
        let result = if given == f.params.len() {
            self.eval(&f.body)
        } else {
            Err(self.ill_typed(format!("a closure of {} parameters applied to {given} arguments", f.params.len())))
        };
        self.env().truncate(mark);
        result
    }

    fn apply_elem(&mut self, f: &Lambda, args: impl IntoIterator<Item = Self::Value>) -> Result<ElemValue> {
        self.apply(f, args)?.into_elem()
    }

    fn apply_bool(&mut self, f: &Lambda, args: impl IntoIterator<Item = Self::Value>) -> Result<bool> {
        let v = self.apply_elem(f, args)?;
        v.as_scalar()
            .and_then(|s| s.as_bool())
            .ok_or_else(|| self.ill_typed(format!("{v:?} where a bool was expected")))
    }

    fn eval_elem(&mut self, e: &Expr) -> Result<ElemValue> {
        self.eval(e)?.into_elem()
    }

    fn eval_opt_elem(&mut self, e: Option<&Expr>) -> Result<Option<ElemValue>> {
        e.map(|e| self.eval_elem(e)).transpose()
    }

    fn eval_scalar(&mut self, e: &Expr) -> Result<ScalarValue> {
        let v = self.eval_elem(e)?;
        v.as_scalar().ok_or_else(|| self.ill_typed(format!("{v:?} where a scalar was expected")))
    }

    fn eval_bool(&mut self, e: &Expr) -> Result<bool> {
        let v = self.eval_scalar(e)?;
        v.as_bool().ok_or_else(|| self.ill_typed(format!("{v:?} where a bool was expected")))
    }

    /// An index or shape value (`()`, `usize` or a tuple of `usize`) as coordinates.
    fn eval_index(&mut self, e: &Expr) -> Result<Vec<usize>> {
        let v = self.eval_elem(e)?;
        v.to_index().ok_or_else(|| self.ill_typed(format!("{v:?} is not an index")))
    }

    /// A count or position given as any integer type; negative is `InvalidArgument` of `op`.
    fn eval_count(&mut self, e: &Expr, op: &str) -> Result<usize> {
        let x = self.eval_scalar(e)?;
        match int_value(x) {
            Some(n) => usize::try_from(n).map_err(|_| Error::invalid_argument(op, format!("{n} is not a valid count"))),
            None => Err(self.ill_typed(format!("a count of type {}", x.scalar_type()))),
        }
    }
}

/// The value of an integer scalar; `None` for bools and floats.
pub fn int_value(x: ScalarValue) -> Option<i128> {
    match x {
        ScalarValue::I8(v) => Some(v.into()),
        ScalarValue::I16(v) => Some(v.into()),
        ScalarValue::I32(v) => Some(v.into()),
        ScalarValue::I64(v) => Some(v.into()),
        ScalarValue::U8(v) => Some(v.into()),
        ScalarValue::U16(v) => Some(v.into()),
        ScalarValue::U32(v) => Some(v.into()),
        ScalarValue::U64(v) => Some(v.into()),
        ScalarValue::Usize(v) => Some(v as i128),
        ScalarValue::Bool(_) | ScalarValue::F32(_) | ScalarValue::F64(_) => None,
    }
}
