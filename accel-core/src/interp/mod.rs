//! The reference interpreter: evaluates a [`Program`]'s unfused IR directly and sequentially.
//!
//! It is the oracle of every test: the CPU and GPU backends are checked against it (bit for bit
//! on integers, within rounding on floats; see `docs/semantics.md`). It is therefore deliberately
//! plain: no fusion, no parallelism, no clever data layouts, one straightforward case per node
//! kind (grouped by combinator family in the submodules), so that its correctness can be judged
//! by reading it. Scalar arithmetic goes through [`crate::ops`], as the generated CPU code does,
//! so that elements agree bit for bit.
//!
//! Two concessions to speed:
//! - during evaluation values are held as `Val`, a [`Value`] whose arrays sit behind `Rc`, so
//!   that binding, reading or passing an array never copies it (an `xs[i]` inside a closure over a
//!   large array stays O(1));
//! - a `generate` read at one index (`generate(shape, f)[ix]`) computes that element alone, after
//!   the bounds check any read makes. Fusion leaves such reads in the programs it makes, nested
//!   where a row operator reads per-row values: built in full, the flattened programs of the
//!   nested-parallelism tests took the cube of a row's length (76 seconds for two rows of 257).
//!   It is what the backends do with a fused producer, so an element never read is never
//!   computed, and an error it would raise is not raised (`docs/semantics.md`, "Errors").

mod array;
mod host;
mod irregular;
pub mod laws;
pub mod scalar;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::ir::{ArrayOp, Expr, ExprKind, Program, ReadSite};
use crate::types::{ElemType, Type};
use crate::value::{ArrayValue, ElemValue, ScalarValue, SegmentsValue, Value};
use std::fmt;
use std::rc::Rc;

pub use host::{Host, HostValue, int_value};

/// Evaluates a program on argument values (one per parameter, checked against the parameter
/// types: a mismatch is [`Error::InvalidArgument`] naming the parameter).
pub fn eval(program: &Program, args: Vec<Value>) -> Result<Value> {
    eval_with(Interp::default(), program, args)
}

/// Checked mode: evaluates `program` as [`eval`] does, testing the combining function of every
/// fold, scan and permute on samples of the values it combines (the laws of [`laws`]). The
/// first law broken is an [`Error::InvalidCombine`] naming the function and showing the
/// counter-example; any other error of the run is returned as [`eval`] returns it.
pub fn check(program: &Program, args: Vec<Value>) -> Result<()> {
    let checking = Interp { sampler: Some(laws::Sampler::default()), ..Interp::default() };
    eval_with(checking, program, args).map(drop)
}

fn eval_with(mut interp: Interp, program: &Program, args: Vec<Value>) -> Result<Value> {
    if args.len() != program.params.len() {
        return Err(Error::invalid_argument(
            &program.name,
            format!("the program has {} parameter(s) but was given {} argument(s)", program.params.len(), args.len()),
        ));
    }
    for ((var, ty), arg) in program.params.iter().zip(args) {
        check_argument(&arg, ty)
            .map_err(|why| Error::invalid_argument(&program.name, format!("parameter `{}`: {why}", var.name)))?;
        interp.env.push((var.id, Val::from_value(arg)));
    }
    let value = interp.eval(&program.body).map_err(|e| e.located(&program.name, &program.read_sites))?;
    Ok(value.into_value())
}

/// Evaluates `p` by walking its IR and by running its [`Schedule`](crate::schedule::Schedule):
/// both must give the same value or the same error (the tests of schedules).
#[cfg(test)]
pub(crate) fn eval_both(p: &Program, args: Vec<Value>) -> Result<Value> {
    let walked = eval(p, args.clone());
    let mut interp = Interp::default();
    for ((v, _), a) in p.params.iter().zip(args) {
        interp.env.push((v.id, Val::from_value(a)));
    }
    let scheduled = crate::schedule::Schedule::build(p)
        .run(&mut interp)
        .map(Val::into_value)
        .map_err(|e| e.located(&p.name, &p.read_sites));
    // Compared as text, so that a NaN equals itself.
    assert_eq!(format!("{walked:?}"), format!("{scheduled:?}"), "{p}");
    walked
}

/// The error for IR that a correct front end never emits (ill-typed or malformed). It is a
/// value rather than a panic because programs can also come from deserialised JSON.
fn ill_typed(what: impl fmt::Display) -> Error {
    Error::backend("interpreter", "evaluating the IR", format!("ill-typed IR: {what}"))
}

/// Checks an argument against its parameter type, and that its parts are consistent (`Value`'s
/// fields are public, so a shape and its data may disagree).
fn check_argument(v: &Value, ty: &Type) -> std::result::Result<(), String> {
    match (v, ty) {
        (Value::Seq(items), Type::Seq(inner)) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| check_argument(x, inner).map_err(|e| format!("stream item {i}: {e}"))),
        (Value::Tuple(vs), Type::Tuple(ts)) if vs.len() == ts.len() => vs
            .iter()
            .zip(ts)
            .enumerate()
            .try_for_each(|(i, (x, t))| check_argument(x, t).map_err(|e| format!("tuple field {i}: {e}"))),
        _ if !v.has_type(ty) => Err(format!("expected {ty}, found {}", describe(v))),
        (Value::Array(a), _) => check_array(a),
        (Value::Segments(s), _) => check_segments(s),
        (Value::Nested { segments, values }, _) => {
            check_segments(segments)?;
            check_array(values)?;
            if values.rank() != 1 || segments.total() != values.len() {
                return Err(format!(
                    "nested array with segments covering {} values but values of shape {:?}",
                    segments.total(),
                    values.shape
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_array(a: &ArrayValue) -> std::result::Result<(), String> {
    let size = a.shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if size != Some(a.data.len()) {
        return Err(format!("shape {:?} does not hold {} elements", a.shape, a.data.len()));
    }
    match a.data.iter().find(|x| !x.has_type(&a.elem)) {
        Some(bad) => Err(format!("element {bad:?} is not of type {}", a.elem)),
        None => Ok(()),
    }
}

fn check_segments(s: &SegmentsValue) -> std::result::Result<(), String> {
    if s.offsets.first() != Some(&0) || s.offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(format!("segment offsets {:?} do not start at 0 and ascend", s.offsets));
    }
    Ok(())
}

/// The type of a value, as far as it shows, for messages.
fn describe(v: &Value) -> String {
    fn elem_type(e: &ElemValue) -> ElemType {
        match e {
            ElemValue::Scalar(s) => ElemType::Scalar(s.scalar_type()),
            ElemValue::Tuple(es) => ElemType::Tuple(es.iter().map(elem_type).collect()),
        }
    }
    match v {
        Value::Elem(e) => elem_type(e).to_string(),
        Value::Array(a) => Type::array(a.elem.clone(), a.rank()).to_string(),
        Value::Segments(_) => "Segments".to_string(),
        Value::Nested { values, .. } => Type::Nested(values.elem.clone()).to_string(),
        Value::Seq(items) => match items.first() {
            Some(x) => format!("Seq<{}>", describe(x)),
            None => "Seq".to_string(),
        },
        Value::Tuple(vs) => {
            format!("({})", vs.iter().map(describe).collect::<Vec<_>>().join(", "))
        }
    }
}

/// A value during evaluation: [`Value`] with its bulky parts shared, so cloning is cheap.
#[derive(Clone, Debug)]
enum Val {
    Elem(ElemValue),
    Array(Rc<ArrayValue>),
    Segments(Rc<SegmentsValue>),
    Nested {
        segments: Rc<SegmentsValue>,
        values: Rc<ArrayValue>,
    },
    Seq(Vec<Val>),
    /// A tuple holding at least one collective value (see [`Val::tuple`]).
    Tuple(Vec<Val>),
}

impl Val {
    fn scalar(s: ScalarValue) -> Val {
        Val::Elem(ElemValue::Scalar(s))
    }

    fn index(ix: &[usize]) -> Val {
        Val::Elem(ElemValue::from_index(ix))
    }

    fn array(a: ArrayValue) -> Val {
        Val::Array(Rc::new(a))
    }

    fn from_value(v: Value) -> Val {
        match v {
            Value::Elem(e) => Val::Elem(e),
            Value::Array(a) => Val::array(a),
            Value::Segments(s) => Val::Segments(Rc::new(s)),
            Value::Nested { segments, values } => Val::Nested { segments: Rc::new(segments), values: Rc::new(values) },
            Value::Seq(items) => Val::Seq(items.into_iter().map(Val::from_value).collect()),
            Value::Tuple(vs) => Val::Tuple(vs.into_iter().map(Val::from_value).collect()),
        }
    }

    fn into_value(self) -> Value {
        match self {
            Val::Elem(e) => Value::Elem(e),
            Val::Array(a) => Value::Array(Rc::unwrap_or_clone(a)),
            Val::Segments(s) => Value::Segments(Rc::unwrap_or_clone(s)),
            Val::Nested { segments, values } => {
                Value::Nested { segments: Rc::unwrap_or_clone(segments), values: Rc::unwrap_or_clone(values) }
            }
            Val::Seq(items) => Value::Seq(items.into_iter().map(Val::into_value).collect()),
            Val::Tuple(vs) => Value::tuple(vs.into_iter().map(Val::into_value).collect()),
        }
    }

    /// What kind of value this is, for messages about ill-typed IR.
    fn kind(&self) -> &'static str {
        match self {
            Val::Elem(_) => "an element",
            Val::Array(_) => "an array",
            Val::Segments(_) => "segments",
            Val::Nested { .. } => "a nested array",
            Val::Seq(_) => "a stream",
            Val::Tuple(_) => "a tuple",
        }
    }

    fn into_scalar(self) -> Result<ScalarValue> {
        match self {
            Val::Elem(ElemValue::Scalar(s)) => Ok(s),
            other => Err(ill_typed(format!("expected a scalar, found {}", other.kind()))),
        }
    }

    fn into_bool(self) -> Result<bool> {
        match self.into_scalar()? {
            ScalarValue::Bool(b) => Ok(b),
            other => Err(ill_typed(format!("expected a bool, found {}", other.scalar_type()))),
        }
    }

    fn into_array(self) -> Result<Rc<ArrayValue>> {
        match self {
            Val::Array(a) => Ok(a),
            other => Err(ill_typed(format!("expected an array, found {}", other.kind()))),
        }
    }

    fn into_segments(self) -> Result<Rc<SegmentsValue>> {
        match self {
            Val::Segments(s) => Ok(s),
            other => Err(ill_typed(format!("expected segments, found {}", other.kind()))),
        }
    }

    fn into_seq(self) -> Result<Vec<Val>> {
        match self {
            Val::Seq(items) => Ok(items),
            other => Err(ill_typed(format!("expected a stream, found {}", other.kind()))),
        }
    }
}

/// The evaluator's state: nothing but the variables in scope. Scalar code and control flow are
/// [`Host`]'s; the collective operations are this module's (`array`, `irregular`).
#[derive(Default)]
struct Interp {
    env: Vec<(u32, Val)>,
    ahead: Vec<(usize, Val)>,
    /// In checked mode ([`check`]), what draws the samples the laws are tested on.
    sampler: Option<laws::Sampler>,
}

impl HostValue for Val {
    fn from_elem(v: ElemValue) -> Val {
        Val::Elem(v)
    }

    fn into_elem(self) -> Result<ElemValue> {
        match self {
            Val::Elem(e) => Ok(e),
            other => Err(ill_typed(format!("expected an element, found {}", other.kind()))),
        }
    }

    /// A tuple of elements is an element tuple, as in [`Value::tuple`].
    fn tuple(parts: Vec<Val>) -> Val {
        if parts.iter().all(|p| matches!(p, Val::Elem(_))) {
            let elems = parts.into_iter().filter_map(|p| match p {
                Val::Elem(e) => Some(e),
                _ => None,
            });
            Val::Elem(ElemValue::Tuple(elems.collect()))
        } else {
            Val::Tuple(parts)
        }
    }

    fn proj(self, i: usize) -> Result<Val> {
        let field = match self {
            Val::Tuple(mut vs) if i < vs.len() => Some(vs.swap_remove(i)),
            Val::Elem(ElemValue::Tuple(mut es)) if i < es.len() => Some(Val::Elem(es.swap_remove(i))),
            _ => None,
        };
        field.ok_or_else(|| ill_typed(format!("field {i} of a value that has none")))
    }
}

impl Host for Interp {
    type Value = Val;

    fn env(&mut self) -> &mut Vec<(u32, Val)> {
        &mut self.env
    }

    fn index(&mut self, array: &Expr, index: &Expr, site: ReadSite) -> Result<Val> {
        // A read written in the source is named by its number (`ReadSite::out_of_bounds`).
        let located = |e: Error| match site.number() {
            Some(n) => e.at_read(n),
            None => e,
        };
        // A `generate` read at one index, as fusion leaves producers in the programs it makes
        // (`generate(n, f)[i]`): only the element read is computed (see the module docs).
        if let ExprKind::Array(op) = &array.kind
            && let ArrayOp::Generate { shape, f, .. } = &**op
        {
            let shape = self.eval_index(shape)?;
            let ix = self.eval_index(index)?;
            check_inside(&ix, &shape, site.name()).map_err(located)?;
            return Ok(Val::Elem(self.apply_elem(f, [Val::index(&ix)])?));
        }
        let a = self.eval_array(array)?;
        let ix = self.eval_index(index)?;
        let element = read(&a, &ix, site.name()).map_err(located)?;
        Ok(Val::Elem(element.clone()))
    }

    fn shape(&mut self, a: &Expr) -> Result<Vec<usize>> {
        Ok(self.eval_array(a)?.shape.clone())
    }

    fn len(&mut self, v: Val) -> Result<usize> {
        Ok(match v {
            Val::Array(a) => a.len(),
            Val::Nested { segments, .. } => segments.count(),
            Val::Segments(s) => s.count(),
            Val::Seq(items) => items.len(),
            other => return Err(ill_typed(format!("the length of {}", other.kind()))),
        })
    }

    fn segment_of(&mut self, segments: Val, index: usize) -> Result<usize> {
        match segments {
            Val::Segments(s) => Ok(s.segment_of(index)),
            other => Err(ill_typed(format!("a segment lookup in {}", other.kind()))),
        }
    }

    fn array_op(&mut self, op: &ArrayOp, ty: &Type) -> Result<Val> {
        self.collective(op, ty)
    }

    fn ill_typed(&self, what: String) -> Error {
        ill_typed(what)
    }

    fn ahead(&mut self) -> &mut Vec<(usize, Val)> {
        &mut self.ahead
    }
}

impl Interp {
    fn eval_array(&mut self, e: &Expr) -> Result<Rc<ArrayValue>> {
        self.eval(e)?.into_array()
    }
}

/// The number of elements of a shape.
fn size(op: &str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| Error::invalid_argument(op, format!("shape {shape:?} is too large")))
}

/// An empty vector with room for `n` values, or `Error::OutOfHostMemory` where the allocation
/// fails: a shape computed by the program (`xs.len() - 1` of an empty `xs` wraps to `usize::MAX`)
/// must not abort the process.
fn buffer<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::out_of_host_memory(n.saturating_mul(size_of::<T>())))?;
    Ok(v)
}

/// The most dimensions a dynamic shape of the interpreter has (arrays have at most 3; a
/// stencil's neighbourhood 2).
const MAX_RANK: usize = 8;

/// `shape` padded in front with dimensions of extent 1 to [`MAX_RANK`], so that the interpreter's
/// shapes of any rank go through the one row-major rule of `accel_kernels::index`.
fn padded(shape: &[usize], fill: usize) -> [usize; MAX_RANK] {
    assert!(shape.len() <= MAX_RANK, "a shape of rank {} (the IR has at most 3)", shape.len());
    let mut out = [fill; MAX_RANK];
    out[MAX_RANK - shape.len()..].copy_from_slice(shape);
    out
}

/// The row-major coordinates of the `k`th element of a shape. The ranks arrays have go to the
/// rule at their own rank (padding costs a division per padded dimension, in the loops of the
/// oracle that the GPU tests run at 2^26 elements).
fn unravel(k: usize, shape: &[usize]) -> Vec<usize> {
    use accel_kernels::index::unravel as at;
    match *shape {
        [] => Vec::new(),
        [n] => at(k, [n]).to_vec(),
        [m, n] => at(k, [m, n]).to_vec(),
        [l, m, n] => at(k, [l, m, n]).to_vec(),
        _ => at(k, padded(shape, 1))[MAX_RANK - shape.len()..].to_vec(),
    }
}

/// The row-major position of an index that is known to be inside the shape.
fn flat(ix: &[usize], shape: &[usize]) -> usize {
    use accel_kernels::index::ravel;
    match (ix, shape) {
        ([i], [_]) => *i,
        (&[i, j], &[m, n]) => ravel([m, n], [i, j]),
        (&[i, j, k], &[l, m, n]) => ravel([l, m, n], [i, j, k]),
        _ => ravel(padded(shape, 1), padded(ix, 0)),
    }
}

/// A bounds-checked read; out of range is `IndexOutOfBounds` in `op`.
fn read<'a>(a: &'a ArrayValue, ix: &[usize], op: &str) -> Result<&'a ElemValue> {
    check_inside(ix, &a.shape, op)?;
    Ok(&a.data[flat(ix, &a.shape)])
}

/// Whether `ix` lies inside `shape`: out of range is `IndexOutOfBounds` in `op`.
fn check_inside(ix: &[usize], shape: &[usize], op: &str) -> Result<()> {
    if ix.len() != shape.len() {
        return Err(ill_typed(format!("an index of rank {} into an array of rank {}", ix.len(), shape.len())));
    }
    if ix.iter().zip(shape).any(|(i, d)| i >= d) {
        return Err(Error::index_out_of_bounds(op, ix, shape));
    }
    Ok(())
}

/// An array result of a node of type `ty` (which gives its element type and rank).
fn new_array(ty: &Type, shape: Vec<usize>, data: Vec<ElemValue>) -> Result<Val> {
    let Some((elem, rank)) = ty.as_array() else {
        return Err(ill_typed(format!("an array operation of type {ty}")));
    };
    if shape.len() != rank {
        return Err(ill_typed(format!("an array of shape {shape:?} for type {ty}")));
    }
    ArrayValue::new(elem.clone(), shape, data).map(Val::array).map_err(ill_typed)
}
