//! The accel runtime: host arrays, nested arrays, conversions to the reference interpreter's
//! values, and the backends that run compiled `#[accel]` programs.
//!
//! - [`Array`] (with [`Scalar`], [`Vector`], [`Matrix`]): dense row-major arrays whose elements
//!   ([`Elem`]) are stored as structure of arrays ([`Columns`]);
//! - [`Nested`] and [`Segments`]: irregular vectors of vectors;
//! - [`IntoValue`] / [`FromValue`]: typed values to and from `accel_core::value::Value`;
//! - [`cpu`]: the CPU backend's rayon skeletons, which generated code instantiates;
//! - `cuda` (with the `cuda` feature): the CUDA device layer (`Gpu`, device buffers, kernels);
//! - [`backend`]: the seam every backend implements ([`backend::Backend`]: run a compiled
//!   [`backend::Function`]), the CPU backend ([`backend::Cpu`]);
//! - [`Runtime`]: picks the backend and owns its resources.
//!
//! ```
//! use accel_runtime::{Runtime, Vector, cpu};
//!
//! let rt = Runtime::cpu();
//! let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
//! let ys = Vector::from_vec(vec![4.0f32, 5.0, 6.0]);
//! // `xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)` without fusion.
//! let dot = rt.run_cpu(|cx| {
//!     let n = xs.len().min(ys.len());
//!     let prod = cpu::generate(cx, [n], |[i]| xs.get_linear(i) * ys.get_linear(i))?;
//!     cpu::fold_all(cx, &prod, Some(0.0), |a, b| a + b, "fold_all")
//! })?;
//! assert_eq!(dot.get(), 32.0);
//! # Ok::<(), accel_runtime::Error>(())
//! ```

pub mod array;
pub mod backend;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod elem;
pub mod nested;
pub mod runtime;
pub mod shape;
mod storage;
pub mod value;

pub use accel_core::kernel::Strategy;
pub use accel_core::{Error, Result};
pub use array::{Array, Matrix, Scalar, Vector};
pub use elem::{Columns, ColumnsFresh, ColumnsMut, ColumnsRef, Elem, IndexLike};
pub use nested::{Nested, SegmentStats, Segments};
pub use runtime::{BackendKind, Runtime};
pub use value::{FromValue, IntoValue};
