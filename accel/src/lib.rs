//! # accel: an array language for GPUs, embedded in Rust
//!
//! Mark a function `#[accel]` and write its body with array combinators; at build time it
//! becomes a combinator program that runs on the CPU backend (rayon) or on a GPU, and that the
//! reference interpreter can always check.
//!
//! ```ignore
//! use accel::prelude::*;
//!
//! /// `Σ xs[i] * ys[i]` over the common length of `xs` and `ys`.
//! #[accel]
//! pub fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
//!     xs.zip_with(ys, |x, y| x * y).fold_all(0.0, |a, b| a + b)
//! }
//! ```
//!
//! This is `examples/src/dotp.rs`, built and tested with the examples: a doc test has no build
//! script to compile it for the GPU, so the block above is not compiled here. It is called as
//! `dotp(&rt, &xs, &ys)?` with `let rt = Runtime::new()?` (see `examples/src/bin/dotp.rs`).
//!
//! The generated API of `fn f(params) -> T` is `f(&rt, params..) -> accel::Result<T>` (arrays by
//! reference, scalars by value), `f::reference(params..)` (the interpreter) and `f::plan()`.
//!
//! ## The language
//! Inside `#[accel]`: `let`, `if`/`else`, tuples, arithmetic, comparisons, `&& || !`, bit
//! operations, `as` casts, the `f32`/`f64` methods (`sqrt exp ln sin cos tan hypot powf powi abs
//! min max clamp floor ceil round fract mul_add erf` and more), the integer methods (`pow
//! count_ones leading_zeros rotate_left saturating_add wrapping_mul rem_euclid clamp`,
//! `a.checked_add(b).unwrap_or(d)`, ...), constants like `f32::MAX`, reads of any array in scope
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
//! One `#[accel]` function may call another of the package, in any module: the call is inlined
//! at build time, so the callee fuses with the caller. A function of elements only is a scalar
//! helper that closures call:
//!
//! ```ignore
//! use accel::prelude::*;
//!
//! #[accel]
//! fn mix(x: u32) -> u32 {
//!     let h = (x ^ (x >> 16)).wrapping_mul(0x045d_9f3b);
//!     h ^ (h >> 16)
//! }
//!
//! #[accel]
//! fn squares(xs: Vector<f32>) -> Vector<f32> {
//!     xs.map(|x| x * x)
//! }
//!
//! #[accel]
//! fn hash_and_norm(xs: Vector<f32>, ks: Vector<u32>) -> (Scalar<f32>, Vector<u32>) {
//!     (unit(squares(xs).sum().get().sqrt()), ks.map(|k| mix(mix(k))))
//! }
//!
//! # fn main() -> accel::Result<()> {
//! let rt = Runtime::cpu();
//! let (norm, hashes) = hash_and_norm(&rt, &Vector::from_vec(vec![3.0, 4.0]), &Vector::from_vec(vec![7]))?;
//! assert_eq!(norm.get(), 5.0);
//! assert_eq!(hashes.to_vec(), [mix(mix(7)?)?]);
//! // `squares` fused into the sum: one kernel for the norm, one for the hashes.
//! assert_eq!(hash_and_norm::plan().kernels().count(), 2);
//! # Ok(())
//! # }
//! ```
//!
//! (Not compiled here, for the reason given above; `accel-tests/tests/compile_pass/` builds a
//! crate with calls across modules, and the test corpus runs them on every backend.)
//!
//! The exact semantics of each are in `docs/semantics.md`. Combining functions must be
//! associative: backends regroup them (never reorder them), so float results may differ from the
//! interpreter's by rounding. Anything else is a compile error at its span that says what to
//! write instead.
//!
//! ## Building for the GPU
//! With the `cuda` feature (on by default) a package that uses `#[accel]` has a build script,
//! `build.rs` containing `fn main() { accel_build::build(); }` with `accel-build` in its
//! `[build-dependencies]`: it compiles the package's `#[accel]` functions to one PTX module with
//! the pinned nightly toolchain (which rustup installs on the first build), and the macro embeds
//! it. At run time `Runtime::new()` picks a GPU when one is present (`ACCEL_BACKEND=cpu|cuda`
//! forces a backend). Without `cuda` only the CPU backend exists and no build script is needed.

pub use accel_core::{Error, Plan, Result};
pub use accel_macros::accel;
// The CUDA device (`Runtime::gpu`): only in builds with the `cuda` feature.
#[cfg(feature = "cuda")]
pub use accel_runtime::cuda::Gpu;
// The seam between a compiled function and the backends, for code written once for all of them.
pub use accel_runtime::backend;
pub use accel_runtime::{
    Array, BackendKind, Columns, Elem, FromValue, IndexLike, IntoValue, Matrix, Nested, Runtime, Scalar, Segments,
    Strategy, Vector,
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
    #[cfg(feature = "cuda")]
    pub use accel_runtime::backend::DeviceProgram;
    pub use accel_runtime::backend::Function;
    pub use accel_runtime::cpu;
    #[cfg(feature = "cuda")]
    pub use accel_runtime::cuda::{DValue, DeviceModule, FromDevice, Gpu, IntoDevice};
}
