//! `accel::Error`: every way a program can fail at run time, as a value.
//!
//! An error that arises in a call of an `#[accel]` function says where: every variant but
//! [`Error::NoDevice`] carries a [`Location`], which names the function, and for an index error
//! of a read written in the source (`xs[i]`), the array read and the line of the read. The
//! backends and the interpreter raise errors without it and the call fills it in
//! ([`Error::located`]), so that every backend reports the same place.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Formats a shape or an index as `[a, b, c]`.
pub(crate) struct Dims<'a>(pub &'a [usize]);

impl fmt::Display for Dims<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// A read by index written in an `#[accel]` function's source: `xs[i]`, `m[(r, c)]`.
///
/// The front end numbers these reads in the order it lowers them and lists them in the
/// program ([`Program::read_sites`](crate::Program::read_sites)); an index error of a read
/// carries its number until the call names the read ([`Error::located`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceRead {
    /// The array read, as written (`xs`, `row`, `m`).
    pub array: String,
    /// The file of the function's source, as the compiler names it.
    pub file: String,
    /// The line and column (both from 1) of the read; for a read inside another `#[accel]`
    /// function that this one calls, of the call, since the callee's body is inlined there.
    pub line: u32,
    pub column: u32,
    /// The called function whose body holds the read, for a read inside a call (`None` for a
    /// read in the function's own body).
    pub callee: Option<String>,
}

impl fmt::Display for SourceRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reading `{}`", self.array)?;
        if let Some(callee) = &self.callee {
            write!(f, " in `{callee}`, called")?;
        }
        write!(f, " at {}:{}:{}", self.file, self.line, self.column)
    }
}

/// Where an error arose: the `#[accel]` function called and, for an index error of a read
/// written in the source, that read. Empty for an error outside a call (a skeleton called
/// directly, an array built on the host).
///
/// ```
/// use accel_core::Error;
/// use accel_core::error::SourceRead;
///
/// let read = SourceRead { array: "b".into(), file: "src/lib.rs".into(), line: 12, column: 30, callee: None };
/// let e = Error::index_out_of_bounds("index", &[4], &[3]).at_read(0).located("gather", &[read]);
/// assert_eq!(e.location().function(), Some("gather"));
/// assert_eq!(e.location().read().map(|r| r.line), Some(12));
/// assert!(e.to_string().starts_with(
///     "index [4] is out of bounds for shape [3] in `index` reading `b` at src/lib.rs:12:30 (in `gather`)"
/// ));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location(Option<Box<Place>>);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Place {
    function: Option<String>,
    read: Option<SourceRead>,
    /// The number of the source read (see [`SourceRead`]) until the call names it.
    read_number: Option<u32>,
}

impl Location {
    /// The `#[accel]` function whose call failed.
    pub fn function(&self) -> Option<&str> {
        self.0.as_ref()?.function.as_deref()
    }

    /// The read written in the source that was out of bounds.
    pub fn read(&self) -> Option<&SourceRead> {
        self.0.as_ref()?.read.as_ref()
    }

    /// Whether nothing is known of where the error arose.
    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|p| p.function.is_none() && p.read.is_none())
    }

    fn place(&mut self) -> &mut Place {
        self.0.get_or_insert_with(Box::default)
    }
}

/// ` reading `xs` at file:line:col (in `f`)`, or less of it, or nothing.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(read) = self.read() {
            write!(f, " {read}")?;
        }
        if let Some(function) = self.function() {
            write!(f, " (in `{function}`)")?;
        }
        Ok(())
    }
}

/// The error of every fallible accel operation.
///
/// Every variant but [`Error::NoDevice`] has a field `at`, the [`Location`] of the error, which
/// its message includes; match variants with `..` to leave it out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An index outside an array: an `xs[i]` read, a `backpermute` source, a `permute`
    /// destination, a slice index, ...
    #[error(
        "index {} is out of bounds for shape {} in `{op}`{at}; check the index computation, or guard it with `if` or `.min(len - 1)`",
        Dims(index),
        Dims(shape)
    )]
    IndexOutOfBounds { op: String, index: Vec<usize>, shape: Vec<usize>, at: Location },

    /// Two shapes that had to agree did not.
    #[error("shape mismatch in `{op}`{at}: expected {expected}, found {found}")]
    ShapeMismatch { op: String, expected: String, found: String, at: Location },

    /// `fold1`, `scanl1`-style reductions, `maximum` or `minimum` of no elements.
    #[error("`{op}` of an empty array (or an empty segment) has no value{at}; use `fold` with a seed instead")]
    EmptyReduction { op: String, at: Location },

    /// Integer division or remainder by zero inside a closure.
    #[error("integer division by zero in `{op}`{at}; guard the divisor with `if`")]
    DivisionByZero { op: String, at: Location },

    /// Segment lengths that are negative or do not add up to the segmented dimension.
    #[error("invalid segments in `{op}`{at}: {reason}")]
    InvalidSegments { op: String, reason: String, at: Location },

    /// An argument outside what the operation accepts (a negative count, a value of the wrong
    /// type handed to the interpreter, ...).
    #[error("invalid argument to `{op}`{at}: {reason}")]
    InvalidArgument { op: String, reason: String, at: Location },

    /// Checked mode found the combining function of a fold, scan or permute breaking a law it
    /// must obey (`law`: "associative" or "commutative"), with the counter-example.
    #[error(
        "the combining function of `{op}`{at} is not {law}: {example}; accel combines elements in any grouping (and a permute's sources in any order), so the result would depend on the backend and the size: write a function that is {law}"
    )]
    InvalidCombine { op: String, law: String, example: String, at: Location },

    /// A device allocation failed.
    #[error(
        "out of device memory{at}: {requested} bytes requested with {free} of {total} bytes free; process the input in smaller pieces or free device arrays first"
    )]
    OutOfDeviceMemory { requested: usize, free: usize, total: usize, at: Location },

    /// A host allocation failed (or would not fit the address space).
    #[error(
        "out of host memory{at}: {requested} bytes requested; process the input in smaller pieces, or check the shape computation (a size that wrapped below zero, such as `xs.len() - 1` of an empty array, is huge)"
    )]
    OutOfHostMemory { requested: usize, at: Location },

    /// No device of the requested kind can be used (raised when a runtime is made, never by a
    /// call: it has no location).
    #[error("no device: {reason}")]
    NoDevice { reason: String },

    /// A backend (driver, thread pool) failed.
    #[error("{backend} error while {context}{at}: {message}")]
    Backend { backend: String, context: String, message: String, at: Location },
}

/// `$some` with `$at` bound to the error's location, or `$none` for a variant without one.
macro_rules! with_location {
    ($error:expr, $at:ident => $some:expr, $none:expr) => {
        match $error {
            Error::IndexOutOfBounds { $at, .. }
            | Error::ShapeMismatch { $at, .. }
            | Error::EmptyReduction { $at, .. }
            | Error::DivisionByZero { $at, .. }
            | Error::InvalidSegments { $at, .. }
            | Error::InvalidArgument { $at, .. }
            | Error::InvalidCombine { $at, .. }
            | Error::OutOfDeviceMemory { $at, .. }
            | Error::OutOfHostMemory { $at, .. }
            | Error::Backend { $at, .. } => $some,
            Error::NoDevice { .. } => $none,
        }
    };
}

/// The location of an error that has none.
static NOWHERE: Location = Location(None);

impl Error {
    pub fn index_out_of_bounds(op: &str, index: &[usize], shape: &[usize]) -> Error {
        Error::IndexOutOfBounds {
            op: op.to_string(),
            index: index.to_vec(),
            shape: shape.to_vec(),
            at: Location::default(),
        }
    }

    pub fn shape_mismatch(op: &str, expected: impl fmt::Display, found: impl fmt::Display) -> Error {
        Error::ShapeMismatch {
            op: op.to_string(),
            expected: expected.to_string(),
            found: found.to_string(),
            at: Location::default(),
        }
    }

    pub fn out_of_host_memory(requested: usize) -> Error {
        Error::OutOfHostMemory { requested, at: Location::default() }
    }

    pub fn out_of_device_memory(requested: usize, free: usize, total: usize) -> Error {
        Error::OutOfDeviceMemory { requested, free, total, at: Location::default() }
    }

    pub fn empty_reduction(op: &str) -> Error {
        Error::EmptyReduction { op: op.to_string(), at: Location::default() }
    }

    pub fn division_by_zero(op: &str) -> Error {
        Error::DivisionByZero { op: op.to_string(), at: Location::default() }
    }

    pub fn invalid_segments(op: &str, reason: impl Into<String>) -> Error {
        Error::InvalidSegments { op: op.to_string(), reason: reason.into(), at: Location::default() }
    }

    pub fn invalid_argument(op: &str, reason: impl Into<String>) -> Error {
        Error::InvalidArgument { op: op.to_string(), reason: reason.into(), at: Location::default() }
    }

    pub fn invalid_combine(op: &str, law: &str, example: impl Into<String>) -> Error {
        Error::InvalidCombine {
            op: op.to_string(),
            law: law.to_string(),
            example: example.into(),
            at: Location::default(),
        }
    }

    pub fn no_device(reason: impl Into<String>) -> Error {
        Error::NoDevice { reason: reason.into() }
    }

    pub fn backend(backend: &str, context: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Backend {
            backend: backend.to_string(),
            context: context.into(),
            message: message.into(),
            at: Location::default(),
        }
    }

    /// Where the error arose (empty for [`Error::NoDevice`] and outside calls).
    pub fn location(&self) -> &Location {
        with_location!(self, at => at, &NOWHERE)
    }

    fn location_mut(&mut self) -> Option<&mut Location> {
        with_location!(self, at => Some(at), None)
    }

    /// The error of the source read numbered `number` (what a backend raises for an `xs[i]` out
    /// of bounds; the call names the read, see [`Error::located`]).
    pub fn at_read(mut self, number: u32) -> Error {
        if let Some(at) = self.location_mut() {
            at.place().read_number = Some(number);
        }
        self
    }

    /// The error as a call of the `#[accel]` function `function` reports it: the function
    /// named (unless the error names one already) and a numbered read replaced by the read of
    /// `reads` it stands for (the program's [`read_sites`](crate::Program::read_sites)).
    pub fn located(mut self, function: &str, reads: &[SourceRead]) -> Error {
        if let Some(at) = self.location_mut() {
            let place = at.place();
            place.function.get_or_insert_with(|| function.to_string());
            if let Some(read) = place.read_number.take().and_then(|k| reads.get(k as usize)) {
                place.read = Some(read.clone());
            }
        }
        self
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

    #[test]
    fn a_call_names_its_function_and_the_read() {
        let read = |array: &str, callee: Option<&str>| SourceRead {
            array: array.into(),
            file: "src/lib.rs".into(),
            line: 7,
            column: 21,
            callee: callee.map(String::from),
        };
        let reads = [read("a", None), read("b", Some("helper"))];
        let e = Error::index_out_of_bounds("index", &[4], &[3]).at_read(1).located("gather", &reads);
        assert_eq!(e.location().read(), Some(&reads[1]));
        let text = e.to_string();
        assert!(
            text.starts_with(
                "index [4] is out of bounds for shape [3] in `index` reading `b` in `helper`, called at src/lib.rs:7:21 \
                 (in `gather`); check"
            ),
            "{text}"
        );
        // Every variant with a location names the function; the first function named stays.
        let e = Error::division_by_zero("/").located("inner", &[]).located("outer", &reads);
        assert_eq!(e.to_string(), "integer division by zero in `/` (in `inner`); guard the divisor with `if`");
        assert!(
            Error::out_of_host_memory(8).located("f", &[]).to_string().starts_with("out of host memory (in `f`): 8")
        );
        // A read number without a table to name it, and an error without a location.
        let e = Error::index_out_of_bounds("index", &[1], &[1]).at_read(9).located("f", &reads);
        assert_eq!((e.location().read(), e.location().function()), (None, Some("f")));
        assert!(Error::no_device("none").located("f", &reads).location().is_empty());
        assert!(Error::empty_reduction("fold1").location().is_empty());
    }
}
