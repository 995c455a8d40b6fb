//! The types of the accel language.
//!
//! Two levels, as in Accelerate: *elements* (scalars and tuples of scalars, the values that
//! closures compute) and *collective* values (arrays of any rank, nested arrays, segment
//! descriptors, streams, and tuples of those). `usize` is the index type of the scalar language;
//! it may also be an array element (segment offsets and lengths are `Vector<usize>`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A scalar type of the language.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ScalarType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Usize,
    F32,
    F64,
}

impl ScalarType {
    /// All scalar types, in a fixed order.
    pub const ALL: [ScalarType; 12] = [
        ScalarType::Bool,
        ScalarType::I8,
        ScalarType::I16,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::Usize,
        ScalarType::F32,
        ScalarType::F64,
    ];

    /// The Rust name of the type (`f32`, `usize`, ...).
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::I8 => "i8",
            ScalarType::I16 => "i16",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::Usize => "usize",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }

    /// The Rust names of all scalar types, separated by spaces (for messages that list them).
    pub fn all_names() -> String {
        ScalarType::ALL.map(ScalarType::rust_name).join(" ")
    }

    /// Parses a Rust type name.
    pub fn from_rust_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.rust_name() == name)
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_integer(self) -> bool {
        !self.is_float() && self != ScalarType::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64 | ScalarType::F32 | ScalarType::F64
        )
    }

    pub fn is_numeric(self) -> bool {
        self != ScalarType::Bool
    }

    /// The least and the greatest value of an integer type (`usize` as 64 bits); `None` for `bool`
    /// and the floats.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            ScalarType::I8 => (i8::MIN.into(), i8::MAX.into()),
            ScalarType::I16 => (i16::MIN.into(), i16::MAX.into()),
            ScalarType::I32 => (i32::MIN.into(), i32::MAX.into()),
            ScalarType::I64 => (i64::MIN.into(), i64::MAX.into()),
            ScalarType::U8 => (0, u8::MAX.into()),
            ScalarType::U16 => (0, u16::MAX.into()),
            ScalarType::U32 => (0, u32::MAX.into()),
            ScalarType::U64 | ScalarType::Usize => (0, u64::MAX.into()),
            ScalarType::Bool | ScalarType::F32 | ScalarType::F64 => return None,
        })
    }

    /// Size in bytes of one value (as stored in an array; `usize` counts 8 bytes).
    pub fn size_bytes(self) -> usize {
        match self {
            ScalarType::Bool | ScalarType::I8 | ScalarType::U8 => 1,
            ScalarType::I16 | ScalarType::U16 => 2,
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            ScalarType::I64 | ScalarType::U64 | ScalarType::Usize | ScalarType::F64 => 8,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// The type of an element: a scalar or a (possibly nested) tuple of elements. The empty tuple is
/// the type of rank-0 indices, `()`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum ElemType {
    Scalar(ScalarType),
    Tuple(Vec<ElemType>),
}

impl ElemType {
    pub const BOOL: ElemType = ElemType::Scalar(ScalarType::Bool);
    pub const USIZE: ElemType = ElemType::Scalar(ScalarType::Usize);

    pub fn unit() -> ElemType {
        ElemType::Tuple(Vec::new())
    }

    /// The type of a multi-dimensional index of the given rank: `()`, `usize`,
    /// `(usize, usize)`, `(usize, usize, usize)`.
    pub fn index(rank: usize) -> ElemType {
        if rank == 1 { ElemType::USIZE } else { ElemType::Tuple(vec![ElemType::USIZE; rank]) }
    }

    pub fn as_scalar(&self) -> Option<ScalarType> {
        match self {
            ElemType::Scalar(s) => Some(*s),
            ElemType::Tuple(_) => None,
        }
    }

    /// The scalar leaves, left to right (the structure-of-arrays columns).
    pub fn leaves(&self) -> Vec<ScalarType> {
        let mut out = Vec::new();
        fn go(t: &ElemType, out: &mut Vec<ScalarType>) {
            match t {
                ElemType::Scalar(s) => out.push(*s),
                ElemType::Tuple(ts) => ts.iter().for_each(|t| go(t, out)),
            }
        }
        go(self, &mut out);
        out
    }

    /// Bytes one element occupies in structure-of-arrays storage.
    pub fn size_bytes(&self) -> usize {
        self.leaves().iter().map(|s| s.size_bytes()).sum()
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElemType::Scalar(s) => write!(f, "{s}"),
            ElemType::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if ts.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// The type of any value of the language.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Type {
    /// A scalar-language value (a scalar or a tuple of scalars).
    Elem(ElemType),
    /// A dense, row-major array of rank 0 to 3.
    Array { elem: ElemType, rank: usize },
    /// A segment descriptor: the offsets (and so the lengths) of consecutive segments.
    Segments,
    /// An irregular vector of vectors: a segment descriptor plus the flat values.
    Nested(ElemType),
    /// A stream of values of the inner type (Haskell'17 §2).
    Seq(Box<Type>),
    /// A tuple that holds at least one collective value. Tuples of elements are `Elem(Tuple)`.
    Tuple(Vec<Type>),
}

impl Type {
    pub fn scalar(s: ScalarType) -> Type {
        Type::Elem(ElemType::Scalar(s))
    }

    pub fn array(elem: ElemType, rank: usize) -> Type {
        Type::Array { elem, rank }
    }

    /// Builds a tuple type, folding a tuple of elements into an element tuple.
    pub fn tuple(parts: Vec<Type>) -> Type {
        if !parts.iter().all(|p| matches!(p, Type::Elem(_))) {
            return Type::Tuple(parts);
        }
        let elems = parts.into_iter().filter_map(|p| if let Type::Elem(e) = p { Some(e) } else { None });
        Type::Elem(ElemType::Tuple(elems.collect()))
    }

    /// The components of a tuple type (element tuples included).
    pub fn tuple_parts(&self) -> Option<Vec<Type>> {
        match self {
            Type::Tuple(ts) => Some(ts.clone()),
            Type::Elem(ElemType::Tuple(ts)) => Some(ts.iter().cloned().map(Type::Elem).collect()),
            _ => None,
        }
    }

    pub fn as_elem(&self) -> Option<&ElemType> {
        match self {
            Type::Elem(e) => Some(e),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<(&ElemType, usize)> {
        match self {
            Type::Array { elem, rank } => Some((elem, *rank)),
            _ => None,
        }
    }

    /// True for values that live in the scalar language (closure arguments and results).
    pub fn is_elem(&self) -> bool {
        matches!(self, Type::Elem(_))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Elem(e) => write!(f, "{e}"),
            Type::Array { elem, rank } => match rank {
                0 => write!(f, "Scalar<{elem}>"),
                1 => write!(f, "Vector<{elem}>"),
                2 => write!(f, "Matrix<{elem}>"),
                r => write!(f, "Array<{elem}, {r}>"),
            },
            Type::Segments => f.write_str("Segments"),
            Type::Nested(e) => write!(f, "Nested<{e}>"),
            Type::Seq(t) => write!(f, "Seq<{t}>"),
            Type::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuple_of_elements_is_an_element() {
        let t = Type::tuple(vec![Type::scalar(ScalarType::F32), Type::scalar(ScalarType::I32)]);
        assert_eq!(
            t,
            Type::Elem(ElemType::Tuple(vec![ElemType::Scalar(ScalarType::F32), ElemType::Scalar(ScalarType::I32)]))
        );
        let t = Type::tuple(vec![Type::array(ElemType::USIZE, 1), Type::scalar(ScalarType::F32)]);
        assert!(matches!(t, Type::Tuple(_)));
    }

    #[test]
    fn display_uses_user_names() {
        assert_eq!(Type::array(ElemType::Scalar(ScalarType::F32), 1).to_string(), "Vector<f32>");
        assert_eq!(ElemType::index(2).to_string(), "(usize, usize)");
        assert_eq!(ElemType::index(0).to_string(), "()");
    }
}
