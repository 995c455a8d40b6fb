//! Conversions between typed host values and the reference interpreter's dynamic
//! [`Value`]s.
//!
//! Scalars and tuples of elements become `Value::Elem`; a tuple with a collective part becomes
//! `Value::Tuple`, exactly as [`Value::tuple`] and [`Type::tuple`] normalise them, so that the
//! type a host value claims and the value it converts to always agree.

use crate::array::Array;
use crate::elem::Elem;
use crate::nested::{Nested, Segments};
use accel_core::types::{ElemType, Type};
use accel_core::value::{ArrayValue, ElemValue, SegmentsValue, Value};
use accel_core::{Error, Result};

/// A host value that converts to a dynamic [`Value`].
///
/// ```
/// use accel_runtime::{IntoValue, Vector};
///
/// let v = (Vector::from_vec(vec![1.0f32, 2.0]), 3i32);
/// assert_eq!(<(Vector<f32>, i32)>::value_type().to_string(), "(Vector<f32>, i32)");
/// assert!(v.into_value().has_type(&<(Vector<f32>, i32)>::value_type()));
/// ```
pub trait IntoValue {
    /// Takes `&self`: host arrays stay usable after the interpreter has seen them (the name is
    /// part of the contract with generated code).
    #[allow(clippy::wrong_self_convention)]
    fn into_value(&self) -> Value;

    /// The type of every value this produces.
    fn value_type() -> Type;
}

/// A host value that can be read back from a dynamic [`Value`].
///
/// ```
/// use accel_runtime::{FromValue, IntoValue, Matrix};
///
/// let m = Matrix::from_shape_vec([1, 2], vec![(1u32, true), (2, false)])?;
/// assert_eq!(Matrix::<(u32, bool)>::from_value(m.into_value())?, m);
/// assert!(f32::from_value(m.into_value()).is_err());
/// # Ok::<(), accel_runtime::Error>(())
/// ```
pub trait FromValue: Sized {
    fn from_value(v: Value) -> Result<Self>;
}

/// The type of a dynamic value, for messages.
fn type_of(v: &Value) -> String {
    fn elem(e: &ElemValue) -> ElemType {
        match e {
            ElemValue::Scalar(s) => ElemType::Scalar(s.scalar_type()),
            ElemValue::Tuple(parts) => ElemType::Tuple(parts.iter().map(elem).collect()),
        }
    }
    fn go(v: &Value) -> Option<Type> {
        Some(match v {
            Value::Elem(e) => Type::Elem(elem(e)),
            Value::Array(a) => Type::array(a.elem.clone(), a.rank()),
            Value::Segments(_) => Type::Segments,
            Value::Nested { values, .. } => Type::Nested(values.elem.clone()),
            // The element type of an empty stream is not known.
            Value::Seq(vs) => Type::Seq(Box::new(go(vs.first()?)?)),
            Value::Tuple(vs) => Type::Tuple(vs.iter().map(go).collect::<Option<_>>()?),
        })
    }
    go(v).map_or_else(|| "a stream".to_string(), |t| t.to_string())
}

fn wrong_type<T: IntoValue>(found: &Value) -> Error {
    Error::invalid_argument(
        "from_value",
        format!("expected a value of type `{}`, found one of type `{}`", T::value_type(), type_of(found)),
    )
}

macro_rules! scalar_value {
    ($($t:ty),*) => {$(
        impl IntoValue for $t {
            fn into_value(&self) -> Value {
                Value::Elem(self.to_value())
            }

            fn value_type() -> Type {
                Type::Elem(<$t as Elem>::elem_type())
            }
        }

        impl FromValue for $t {
            fn from_value(v: Value) -> Result<Self> {
                match &v {
                    Value::Elem(e) => <$t as Elem>::from_value(e),
                    _ => None,
                }
                .ok_or_else(|| wrong_type::<$t>(&v))
            }
        }
    )*};
}

scalar_value!(bool, i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64);

macro_rules! tuple_value {
    ($n:literal; $($T:ident $idx:tt),+) => {
        impl<$($T: IntoValue),+> IntoValue for ($($T,)+) {
            fn into_value(&self) -> Value {
                Value::tuple(vec![$(self.$idx.into_value()),+])
            }

            fn value_type() -> Type {
                Type::tuple(vec![$($T::value_type()),+])
            }
        }

        impl<$($T: FromValue + IntoValue),+> FromValue for ($($T,)+) {
            fn from_value(v: Value) -> Result<Self> {
                // Checked before `into_tuple` consumes the value, which the message still needs.
                let arity = match &v {
                    Value::Tuple(parts) => parts.len(),
                    Value::Elem(ElemValue::Tuple(parts)) => parts.len(),
                    _ => 0,
                };
                if arity != $n {
                    return Err(wrong_type::<Self>(&v));
                }
                let mut parts = v.into_tuple().unwrap_or_default().into_iter();
                Ok(($($T::from_value(parts.next().unwrap_or_else(|| unreachable!("{}", $idx)))?,)+))
            }
        }
    };
}

tuple_value!(2; A 0, B 1);
tuple_value!(3; A 0, B 1, C 2);
tuple_value!(4; A 0, B 1, C 2, D 3);
tuple_value!(5; A 0, B 1, C 2, D 3, F 4);
tuple_value!(6; A 0, B 1, C 2, D 3, F 4, G 5);

fn array_value<E: Elem, const R: usize>(a: &Array<E, R>) -> ArrayValue {
    ArrayValue { elem: E::elem_type(), shape: a.shape().to_vec(), data: a.iter().map(Elem::to_value).collect() }
}

/// The typed array of a dynamic one, `None` if its element type, rank or size is wrong.
fn array_from<E: Elem, const R: usize>(a: &ArrayValue) -> Option<Array<E, R>> {
    if a.elem != E::elem_type() {
        return None;
    }
    let shape: [usize; R] = a.shape.as_slice().try_into().ok()?;
    let data = a.data.iter().map(E::from_value).collect::<Option<Vec<E>>>()?;
    Array::from_shape_vec(shape, data).ok()
}

impl<E: Elem, const R: usize> IntoValue for Array<E, R> {
    fn into_value(&self) -> Value {
        Value::Array(array_value(self))
    }

    fn value_type() -> Type {
        Type::array(E::elem_type(), R)
    }
}

impl<E: Elem, const R: usize> FromValue for Array<E, R> {
    fn from_value(v: Value) -> Result<Self> {
        match &v {
            Value::Array(a) => array_from(a),
            _ => None,
        }
        .ok_or_else(|| wrong_type::<Self>(&v))
    }
}

impl IntoValue for Segments {
    fn into_value(&self) -> Value {
        Value::Segments(SegmentsValue { offsets: self.offsets().to_vec() })
    }

    fn value_type() -> Type {
        Type::Segments
    }
}

impl FromValue for Segments {
    fn from_value(v: Value) -> Result<Self> {
        match v {
            Value::Segments(s) => Segments::from_offsets(s.offsets),
            other => Err(wrong_type::<Self>(&other)),
        }
    }
}

impl<E: Elem> IntoValue for Nested<E> {
    fn into_value(&self) -> Value {
        Value::Nested {
            segments: SegmentsValue { offsets: self.segments().offsets().to_vec() },
            values: array_value(self.values()),
        }
    }

    fn value_type() -> Type {
        Type::Nested(E::elem_type())
    }
}

impl<E: Elem> FromValue for Nested<E> {
    fn from_value(v: Value) -> Result<Self> {
        let Value::Nested { segments, values } = &v else {
            return Err(wrong_type::<Self>(&v));
        };
        let values = array_from::<E, 1>(values).ok_or_else(|| wrong_type::<Self>(&v))?;
        Nested::from_segments(Segments::from_offsets(segments.offsets.clone())?, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{Matrix, Scalar, Vector};
    use accel_core::types::ScalarType;

    fn round_trip<T: IntoValue + FromValue + PartialEq + std::fmt::Debug>(x: T) {
        let v = x.into_value();
        assert!(v.has_type(&T::value_type()), "{v:?} is not a {}", T::value_type());
        assert_eq!(T::from_value(v).unwrap(), x);
    }

    #[test]
    fn every_kind_of_value_round_trips() {
        round_trip(1.5f32);
        round_trip(usize::MAX);
        round_trip((1i32, (2u64, true)));
        round_trip(Scalar::new(2.0f64));
        round_trip(Vector::from_vec(vec![(1.0f32, -1i32), (2.0, -2)]));
        round_trip(Matrix::from_shape_vec([2, 0], Vec::<u32>::new()).unwrap());
        round_trip(Array::from_shape_fn([2, 3, 4], |[i, j, k]| i + j + k));
        round_trip(Nested::from_rows(vec![vec![1i64], vec![], vec![2, 3]]));
        round_trip(Segments::from_offsets(vec![0, 0, 4]).unwrap());
        round_trip((Vector::from_vec(vec![1u32]), 2.0f32, Segments::from_offsets(vec![0]).unwrap()));
    }

    #[test]
    fn types_follow_the_core_normalisation() {
        let t = <(f32, (i32, bool))>::value_type();
        assert_eq!(Type::Elem(<(f32, (i32, bool)) as Elem>::elem_type()), t);
        assert!(matches!(<(Vector<f32>, f32)>::value_type(), Type::Tuple(_)));
        assert_eq!(Matrix::<u64>::value_type(), Type::array(ElemType::Scalar(ScalarType::U64), 2));
    }

    #[test]
    fn wrong_types_name_both_types() {
        let v = Vector::from_vec(vec![1i32]).into_value();
        let e = Matrix::<i32>::from_value(v.clone()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }));
        assert!(e.to_string().contains("`Matrix<i32>`") && e.to_string().contains("`Vector<i32>`"), "{e}");
        let e = <(f32, f32) as FromValue>::from_value(1.0f32.into_value()).unwrap_err();
        assert!(e.to_string().contains("`(f32, f32)`") && e.to_string().contains("found one of type `f32`"));
        let e = Nested::<f32>::from_value(Value::Seq(vec![])).unwrap_err();
        assert!(e.to_string().contains("a stream"), "{e}");
        let bad = Value::Array(ArrayValue { elem: ElemType::Scalar(ScalarType::I32), shape: vec![3], data: vec![] });
        assert!(Vector::<i32>::from_value(bad).is_err());
    }
}
