//! `accel::Error`: every way a program can fail at run time, as a value.

use std::fmt;

/// Formats a shape or an index as `[a, b, c]`.
pub(crate) struct Dims<'a>(pub &'a [usize]);

impl fmt::Display for Dims<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// The error of every fallible accel operation.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An index outside an array: an `xs[i]` read, a `backpermute` source, a `permute`
    /// destination, a slice index, ...
    #[error(
        "index {} is out of bounds for shape {} in `{op}`; check the index computation, or guard it with `if` or `.min(len - 1)`",
        Dims(index),
        Dims(shape)
    )]
    IndexOutOfBounds { op: String, index: Vec<usize>, shape: Vec<usize> },

    /// Two shapes that had to agree did not.
    #[error("shape mismatch in `{op}`: expected {expected}, found {found}")]
    ShapeMismatch { op: String, expected: String, found: String },

    /// `fold1`, `scanl1`-style reductions, `maximum` or `minimum` of no elements.
    #[error("`{op}` of an empty array (or an empty segment) has no value; use `fold` with a seed instead")]
    EmptyReduction { op: String },

    /// Integer division or remainder by zero inside a closure.
    #[error("integer division by zero in `{op}`; guard the divisor with `if`")]
    DivisionByZero { op: String },

    /// Segment lengths that are negative or do not add up to the segmented dimension.
    #[error("invalid segments in `{op}`: {reason}")]
    InvalidSegments { op: String, reason: String },

    /// An argument outside what the operation accepts (a negative count, a value of the wrong
    /// type handed to the interpreter, ...).
    #[error("invalid argument to `{op}`: {reason}")]
    InvalidArgument { op: String, reason: String },

    /// A device allocation failed.
    #[error(
        "out of device memory: {requested} bytes requested with {free} of {total} bytes free; process the input in smaller pieces or free device arrays first"
    )]
    OutOfDeviceMemory { requested: usize, free: usize, total: usize },

    /// A host allocation failed (or would not fit the address space).
    #[error(
        "out of host memory: {requested} bytes requested; process the input in smaller pieces, or check the shape computation (a size that wrapped below zero, such as `xs.len() - 1` of an empty array, is huge)"
    )]
    OutOfHostMemory { requested: usize },

    /// No device of the requested kind can be used.
    #[error("no device: {reason}")]
    NoDevice { reason: String },

    /// A backend (driver, thread pool) failed.
    #[error("{backend} error while {context}: {message}")]
    Backend { backend: String, context: String, message: String },
}

impl Error {
    pub fn index_out_of_bounds(op: &str, index: &[usize], shape: &[usize]) -> Error {
        Error::IndexOutOfBounds { op: op.to_string(), index: index.to_vec(), shape: shape.to_vec() }
    }

    pub fn shape_mismatch(op: &str, expected: impl fmt::Display, found: impl fmt::Display) -> Error {
        Error::ShapeMismatch { op: op.to_string(), expected: expected.to_string(), found: found.to_string() }
    }

    pub fn out_of_host_memory(requested: usize) -> Error {
        Error::OutOfHostMemory { requested }
    }

    pub fn empty_reduction(op: &str) -> Error {
        Error::EmptyReduction { op: op.to_string() }
    }

    pub fn division_by_zero(op: &str) -> Error {
        Error::DivisionByZero { op: op.to_string() }
    }

    pub fn invalid_segments(op: &str, reason: impl Into<String>) -> Error {
        Error::InvalidSegments { op: op.to_string(), reason: reason.into() }
    }

    pub fn invalid_argument(op: &str, reason: impl Into<String>) -> Error {
        Error::InvalidArgument { op: op.to_string(), reason: reason.into() }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_and_what_to_do() {
        let e = Error::index_out_of_bounds("backpermute", &[7], &[5]);
        let text = e.to_string();
        assert!(text.contains("index [7]") && text.contains("shape [5]") && text.contains("backpermute"));
        assert!(Error::empty_reduction("fold1").to_string().contains("use `fold`"));
    }
}
