//! Dynamic values: what the reference interpreter computes with, and the neutral form in which
//! typed host arrays cross into it.

use crate::error::{Error, Result};
use crate::types::{ElemType, ScalarType, Type};
use std::fmt;

/// One scalar.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum ScalarValue {
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Usize(usize),
    F32(f32),
    F64(f64),
}

impl ScalarValue {
    pub fn scalar_type(&self) -> ScalarType {
        match self {
            ScalarValue::Bool(_) => ScalarType::Bool,
            ScalarValue::I8(_) => ScalarType::I8,
            ScalarValue::I16(_) => ScalarType::I16,
            ScalarValue::I32(_) => ScalarType::I32,
            ScalarValue::I64(_) => ScalarType::I64,
            ScalarValue::U8(_) => ScalarType::U8,
            ScalarValue::U16(_) => ScalarType::U16,
            ScalarValue::U32(_) => ScalarType::U32,
            ScalarValue::U64(_) => ScalarType::U64,
            ScalarValue::Usize(_) => ScalarType::Usize,
            ScalarValue::F32(_) => ScalarType::F32,
            ScalarValue::F64(_) => ScalarType::F64,
        }
    }

    /// The all-zero value of a type (`false` for `bool`).
    pub fn zero(t: ScalarType) -> ScalarValue {
        match t {
            ScalarType::Bool => ScalarValue::Bool(false),
            ScalarType::I8 => ScalarValue::I8(0),
            ScalarType::I16 => ScalarValue::I16(0),
            ScalarType::I32 => ScalarValue::I32(0),
            ScalarType::I64 => ScalarValue::I64(0),
            ScalarType::U8 => ScalarValue::U8(0),
            ScalarType::U16 => ScalarValue::U16(0),
            ScalarType::U32 => ScalarValue::U32(0),
            ScalarType::U64 => ScalarValue::U64(0),
            ScalarType::Usize => ScalarValue::Usize(0),
            ScalarType::F32 => ScalarValue::F32(0.0),
            ScalarType::F64 => ScalarValue::F64(0.0),
        }
    }

    /// The value of an integer or float constant at a type, with Rust's `as` semantics.
    pub fn from_i128(v: i128, t: ScalarType) -> ScalarValue {
        match t {
            ScalarType::Bool => ScalarValue::Bool(v != 0),
            ScalarType::I8 => ScalarValue::I8(v as i8),
            ScalarType::I16 => ScalarValue::I16(v as i16),
            ScalarType::I32 => ScalarValue::I32(v as i32),
            ScalarType::I64 => ScalarValue::I64(v as i64),
            ScalarType::U8 => ScalarValue::U8(v as u8),
            ScalarType::U16 => ScalarValue::U16(v as u16),
            ScalarType::U32 => ScalarValue::U32(v as u32),
            ScalarType::U64 => ScalarValue::U64(v as u64),
            ScalarType::Usize => ScalarValue::Usize(v as usize),
            ScalarType::F32 => ScalarValue::F32(v as f32),
            ScalarType::F64 => ScalarValue::F64(v as f64),
        }
    }

    /// `self as t`, exactly as Rust's `as` does it.
    pub fn cast(self, t: ScalarType) -> ScalarValue {
        macro_rules! to {
            ($x:expr) => {
                match t {
                    ScalarType::Bool => ScalarValue::Bool($x as i128 != 0),
                    ScalarType::I8 => ScalarValue::I8($x as i8),
                    ScalarType::I16 => ScalarValue::I16($x as i16),
                    ScalarType::I32 => ScalarValue::I32($x as i32),
                    ScalarType::I64 => ScalarValue::I64($x as i64),
                    ScalarType::U8 => ScalarValue::U8($x as u8),
                    ScalarType::U16 => ScalarValue::U16($x as u16),
                    ScalarType::U32 => ScalarValue::U32($x as u32),
                    ScalarType::U64 => ScalarValue::U64($x as u64),
                    ScalarType::Usize => ScalarValue::Usize($x as usize),
                    ScalarType::F32 => ScalarValue::F32($x as f32),
                    ScalarType::F64 => ScalarValue::F64($x as f64),
                }
            };
        }
        match self {
            // Rust has no `bool as f32`; the front end only allows bool -> integer.
            ScalarValue::Bool(x) => to!(x as u8),
            ScalarValue::I8(x) => to!(x),
            ScalarValue::I16(x) => to!(x),
            ScalarValue::I32(x) => to!(x),
            ScalarValue::I64(x) => to!(x),
            ScalarValue::U8(x) => to!(x),
            ScalarValue::U16(x) => to!(x),
            ScalarValue::U32(x) => to!(x),
            ScalarValue::U64(x) => to!(x),
            ScalarValue::Usize(x) => to!(x),
            ScalarValue::F32(x) => to!(x),
            ScalarValue::F64(x) => to!(x),
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ScalarValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value as an index or count; `None` for floats, bools and negative integers.
    pub fn as_usize(&self) -> Option<usize> {
        match *self {
            ScalarValue::I8(x) => usize::try_from(x).ok(),
            ScalarValue::I16(x) => usize::try_from(x).ok(),
            ScalarValue::I32(x) => usize::try_from(x).ok(),
            ScalarValue::I64(x) => usize::try_from(x).ok(),
            ScalarValue::U8(x) => Some(usize::from(x)),
            ScalarValue::U16(x) => Some(usize::from(x)),
            ScalarValue::U32(x) => usize::try_from(x).ok(),
            ScalarValue::U64(x) => usize::try_from(x).ok(),
            ScalarValue::Usize(x) => Some(x),
            ScalarValue::Bool(_) | ScalarValue::F32(_) | ScalarValue::F64(_) => None,
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Bool(x) => write!(f, "{x}"),
            ScalarValue::I8(x) => write!(f, "{x}"),
            ScalarValue::I16(x) => write!(f, "{x}"),
            ScalarValue::I32(x) => write!(f, "{x}"),
            ScalarValue::I64(x) => write!(f, "{x}"),
            ScalarValue::U8(x) => write!(f, "{x}"),
            ScalarValue::U16(x) => write!(f, "{x}"),
            ScalarValue::U32(x) => write!(f, "{x}"),
            ScalarValue::U64(x) => write!(f, "{x}"),
            ScalarValue::Usize(x) => write!(f, "{x}"),
            ScalarValue::F32(x) => write!(f, "{x}"),
            ScalarValue::F64(x) => write!(f, "{x}"),
        }
    }
}

/// An element: a scalar or a tuple of elements.
#[derive(Clone, PartialEq, Debug)]
pub enum ElemValue {
    Scalar(ScalarValue),
    Tuple(Vec<ElemValue>),
}

impl ElemValue {
    pub fn unit() -> ElemValue {
        ElemValue::Tuple(Vec::new())
    }

    /// The all-zero element of a type.
    pub fn zero(t: &ElemType) -> ElemValue {
        match t {
            ElemType::Scalar(s) => ElemValue::Scalar(ScalarValue::zero(*s)),
            ElemType::Tuple(ts) => ElemValue::Tuple(ts.iter().map(ElemValue::zero).collect()),
        }
    }

    pub fn has_type(&self, t: &ElemType) -> bool {
        match (self, t) {
            (ElemValue::Scalar(v), ElemType::Scalar(s)) => v.scalar_type() == *s,
            (ElemValue::Tuple(vs), ElemType::Tuple(ts)) => {
                vs.len() == ts.len() && vs.iter().zip(ts).all(|(v, t)| v.has_type(t))
            }
            _ => false,
        }
    }

    pub fn as_scalar(&self) -> Option<ScalarValue> {
        match self {
            ElemValue::Scalar(s) => Some(*s),
            ElemValue::Tuple(_) => None,
        }
    }

    /// An index value (`()`, `usize` or a tuple of `usize`) as a list of coordinates.
    pub fn to_index(&self) -> Option<Vec<usize>> {
        match self {
            ElemValue::Scalar(ScalarValue::Usize(i)) => Some(vec![*i]),
            ElemValue::Tuple(parts) => parts
                .iter()
                .map(|p| match p {
                    ElemValue::Scalar(ScalarValue::Usize(i)) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// The index value of the given coordinates (see [`ElemType::index`]).
    pub fn from_index(ix: &[usize]) -> ElemValue {
        if ix.len() == 1 {
            ElemValue::Scalar(ScalarValue::Usize(ix[0]))
        } else {
            ElemValue::Tuple(ix.iter().map(|&i| ElemValue::Scalar(ScalarValue::Usize(i))).collect())
        }
    }
}

impl From<ScalarValue> for ElemValue {
    fn from(s: ScalarValue) -> Self {
        ElemValue::Scalar(s)
    }
}

/// A dense row-major array.
#[derive(Clone, PartialEq, Debug)]
pub struct ArrayValue {
    pub elem: ElemType,
    pub shape: Vec<usize>,
    pub data: Vec<ElemValue>,
}

impl ArrayValue {
    /// Checks that the data fill the shape and have the element type.
    pub fn new(elem: ElemType, shape: Vec<usize>, data: Vec<ElemValue>) -> Result<ArrayValue> {
        let size: usize = shape.iter().product();
        if size != data.len() {
            return Err(Error::shape_mismatch(
                "array",
                format!("{size} elements for shape {shape:?}"),
                format!("{} elements", data.len()),
            ));
        }
        if let Some(bad) = data.iter().find(|d| !d.has_type(&elem)) {
            return Err(Error::invalid_argument("array", format!("element {bad:?} is not of type {elem}")));
        }
        Ok(ArrayValue { elem, shape, data })
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// A segment descriptor: `offsets` has one more entry than there are segments, starts at 0 and
/// never decreases.
#[derive(Clone, PartialEq, Debug)]
pub struct SegmentsValue {
    pub offsets: Vec<usize>,
}

impl SegmentsValue {
    pub fn from_lengths(op: &str, lengths: impl IntoIterator<Item = usize>) -> Result<SegmentsValue> {
        let mut offsets = vec![0usize];
        for l in lengths {
            let last = *offsets.last().expect("never empty");
            let next =
                last.checked_add(l).ok_or_else(|| Error::invalid_segments(op, "the segment lengths overflow usize"))?;
            offsets.push(next);
        }
        Ok(SegmentsValue { offsets })
    }

    /// The segment that holds value `index` (see `ExprKind::SegmentOf`).
    pub fn segment_of(&self, index: usize) -> usize {
        accel_kernels::search::last_at_most(self.count(), |s| self.offsets[s], index)
    }

    pub fn count(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn total(&self) -> usize {
        *self.offsets.last().expect("never empty")
    }

    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.offsets[i]..self.offsets[i + 1]
    }
}

/// Any value of the language.
#[derive(Clone, PartialEq, Debug)]
pub enum Value {
    Elem(ElemValue),
    Array(ArrayValue),
    Segments(SegmentsValue),
    Nested { segments: SegmentsValue, values: ArrayValue },
    Seq(Vec<Value>),
    Tuple(Vec<Value>),
}

impl Value {
    /// A tuple value; a tuple of elements is an element tuple (as in [`Type::tuple`]).
    pub fn tuple(parts: Vec<Value>) -> Value {
        if parts.iter().all(|p| matches!(p, Value::Elem(_))) {
            Value::Elem(ElemValue::Tuple(parts.into_iter().filter_map(Value::into_elem).collect()))
        } else {
            Value::Tuple(parts)
        }
    }

    /// Whether the value is of the type (shapes and lengths are not part of types).
    pub fn has_type(&self, t: &Type) -> bool {
        match (self, t) {
            (Value::Elem(e), Type::Elem(et)) => e.has_type(et),
            (Value::Array(a), Type::Array { elem, rank }) => a.elem == *elem && a.rank() == *rank,
            (Value::Segments(_), Type::Segments) => true,
            (Value::Nested { values, .. }, Type::Nested(e)) => values.elem == *e,
            (Value::Seq(vs), Type::Seq(inner)) => vs.iter().all(|v| v.has_type(inner)),
            (Value::Tuple(vs), Type::Tuple(ts)) => {
                vs.len() == ts.len() && vs.iter().zip(ts).all(|(v, t)| v.has_type(t))
            }
            _ => false,
        }
    }

    pub fn into_array(self) -> Option<ArrayValue> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn into_elem(self) -> Option<ElemValue> {
        match self {
            Value::Elem(e) => Some(e),
            _ => None,
        }
    }

    /// The components of a tuple value (element tuples included).
    pub fn into_tuple(self) -> Option<Vec<Value>> {
        match self {
            Value::Tuple(vs) => Some(vs),
            Value::Elem(ElemValue::Tuple(es)) => Some(es.into_iter().map(Value::Elem).collect()),
            _ => None,
        }
    }
}
