//! # accel: an array language for GPUs, embedded in Rust
//!
//! Mark a function `#[accel]` and write its body with array combinators; at build time it
//! becomes a combinator program that runs on the CPU backend (rayon) or on a GPU, and that the
//! reference interpreter can always check.
//!
//! ```
//! use accel::prelude::*;
//!
//! #[accel]
//! pub fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
//!     xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
//! }
//!
//! # fn main() -> accel::Result<()> {
//! let rt = Runtime::new()?;
//! let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
//! let ys = Vector::from_vec(vec![4.0f32, 5.0, 6.0]);
//! let r = dotp(&rt, &xs, &ys)?;
//! assert_eq!(r.get(), 32.0);
//! assert_eq!(dotp::reference(&xs, &ys)?.get(), 32.0);
//! println!("{}", dotp::plan());
//! # Ok(())
//! # }
//! ```
//!
//! The generated API of `fn f(params) -> T` is `f(&rt, params..) -> accel::Result<T>` (arrays by
//! reference, scalars by value), `f::reference(params..)` (the interpreter) and `f::plan()`.
//!
//! ## The language
//! Inside `#[accel]`: `let`, `if`/`else`, tuples, arithmetic, comparisons, `&& || !`, bit
//! operations, `as` casts, the `f32`/`f64` methods (`sqrt exp ln sin cos tan powf powi abs min max
//! floor ceil round mul_add erf` and more), constants like `f32::MAX`, reads of any array in scope
//! (`xs[i]`, `m[(i, j)]`), `xs.len()`, `xs.shape()` and `s.get()`; and the combinators:
//!
//! | group | combinators |
//! | --- | --- |
//! | build | `generate(shape, \|ix\| e)`, `fill(shape, v)`, `iota(n)`, `unit(e)` |
//! | elementwise | `map`, `imap`, `zip_with`, `zip`, `unzip` |
//! | reduce | `fold`, `fold1`, `fold_all`, `fold1_all`, `sum`, `product`, `maximum`, `minimum`, `fold_seg`, `fold1_seg` |
//! | scan | `scanl`, `scanl1`, `scanr`, `scanr1`, `scanl_total`, `scanr_total`, `scanl_seg`, `scanl1_seg` |
//! | move | `backpermute`, `permute`, `reverse`, `transpose`, `reshape`, `take`, `drop`, `concat`, `replicate_rows`, `replicate_cols`, `slice_row`, `slice_col` |
//! | neighbourhood | `stencil3`, `stencil5`, `stencil3x3`, `stencil5x5` with `Clamp`, `Mirror`, `Wrap`, `Constant(v)` |
//! | irregular | `expand`, `filter`, and on `Nested`: `values`, `lengths`, `offsets`, per-row `fold`/`sum`/... |
//! | control | array `if`, `awhile(init, cond, step)`; in scalar code `iterate(n, init, f)`, `while_loop(init, cond, step)` |
//!
//! The exact semantics of each are in `docs/semantics.md`. Combining functions must be
//! associative: backends regroup them (never reorder them), so float results may differ from the
//! interpreter's by rounding. Anything else is a compile error at its span that says what to
//! write instead.

pub use accel_core::{Error, Plan, Result};
pub use accel_macros::accel;
pub use accel_runtime::{
    Array, BackendKind, Columns, Elem, FromValue, IndexLike, IntoValue, Matrix, Nested, Runtime, Scalar, Segments,
    Vector,
};

/// Everything a program using accel needs: `use accel::prelude::*;`.
pub mod prelude {
    pub use crate::accel;
    pub use accel_runtime::cpu::Boundary::{self, Clamp, Constant, Mirror, Wrap};
    pub use accel_runtime::{Array, Matrix, Nested, Runtime, Scalar, Vector};
}

/// Items the generated code refers to; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use accel_core::ir::{self, Program};
    pub use accel_core::{interp, ops};
    pub use accel_runtime::cpu;
}
