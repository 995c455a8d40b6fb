//! # accel: an array language for GPUs, embedded in Rust
//!
//! Mark a function `#[accel]` and write its body with array combinators; at build time it
//! becomes a combinator program, fused into few kernels, that runs on a GPU (CUDA) or on the CPU
//! backend (rayon), and that the reference interpreter can always check. This page is a tour:
//! what to write, how to build and call it, the types and their host API, errors, backends.
//!
//! ## What you write
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
//! script to compile it for the GPU, so the blocks with `#[accel]` on this page are not
//! compiled here (`examples/` and `accel-tests/tests/compile_pass/` build them). The other
//! examples on this page, of the host API, run as doc tests on the CPU backend.
//!
//! The macro turns `fn f(params) -> T` into three things (modules and functions live in
//! different namespaces, so they share the name):
//! - `f(&rt, params..) -> accel::Result<T>`: the function, run on the runtime's backend; arrays
//!   by reference, scalars (`f32`, `u32`, tuples, ...) by value, several results as a tuple;
//! - `f::reference(params..) -> accel::Result<T>`: the same program evaluated by the reference
//!   interpreter, plain and sequential: the oracle to test against;
//! - `f::plan() -> Plan`: the kernels the backends run after fusion (skeleton, fused operations,
//!   inputs, outputs), as text with `{}` and as Graphviz with `to_dot()`.
//!
//! ## Building
//! `Cargo.toml` depends on `accel` and, for the GPU, on `accel-build` in
//! `[build-dependencies]`; `build.rs` is one line:
//!
//! ```ignore
//! fn main() { accel_build::build(); }
//! ```
//!
//! With the `cuda` feature (on by default) the build script finds the package's `#[accel]`
//! functions (in `src/`, `tests/`, `examples/`, `benches/`) and compiles those of each file to a
//! PTX module of its own with the pinned nightly toolchain (which rustup installs on the first build; assembled to
//! SASS for sm_80 and sm_90 when `ptxas` is found), and the macro embeds it: nothing is
//! compiled at run time. Without `cuda` (`default-features = false`) only the CPU backend
//! exists and no build script is needed. The `ndarray` feature adds conversions to and from
//! `ndarray` arrays.
//!
//! ## Calling
//!
//! ```ignore
//! use accel::prelude::*;
//!
//! fn main() -> accel::Result<()> {
//!     let rt = Runtime::new()?; // a GPU when one can be used, else the CPU
//!     let xs = Vector::from_vec(vec![1.0f32; 1 << 20]);
//!     let ys = Vector::from_vec(vec![2.0f32; 1 << 20]);
//!     let r = dotp(&rt, &xs, &ys)?; // arrays in, arrays out; errors are values
//!     let want = dotp::reference(&xs, &ys)?; // the interpreter
//!     // Sums in another order: floats agree within rounding.
//!     assert!((r.get() - want.get()).abs() <= 1e-4 * want.get().abs());
//!     println!("{}", dotp::plan()); // one kernel: the zip_with fused into the fold
//!     Ok(())
//! }
//! ```
//!
//! ## The language
//! Inside `#[accel]`: `let`, `if`/`else`, `match` on scalars and tuples, `const` items, closures
//! bound by `let`, tuples, arithmetic, comparisons, `&& || !`, bit operations, `as` casts, the
//! `f32`/`f64` methods (`sqrt exp ln sin cos tan hypot powf powi abs min max clamp floor ceil
//! round fract mul_add erf` and more), the integer methods (`pow count_ones leading_zeros
//! rotate_left saturating_add wrapping_mul rem_euclid clamp`, `a.checked_add(b).unwrap_or(d)`,
//! ...), constants like `f32::MAX`, reads of any array in scope (`xs[i]`, `m[(i, j)]`),
//! `xs.len()`, `xs.shape()`, `m.rows()`, `m.cols()` and `s.get()`; and the combinators:
//!
//! | group | combinators |
//! | --- | --- |
//! | build | `generate(shape, \|ix\| e)`, `fill(shape, v)`, `iota(n)`, `unit(e)` |
//! | elementwise | `map`, `imap`, `zip_with`, `zip`, `unzip` |
//! | reduce | `fold`, `fold1`, `fold_all`, `fold1_all`, `sum`, `product`, `maximum`, `minimum`, `fold_seg`, `fold1_seg` |
//! | scan | `scanl`, `scanl1`, `scanr`, `scanr1`, `scanl_total`, `scanr_total`, `scanl_seg`, `scanl1_seg` |
//! | move | `backpermute`, `permute`, `reverse`, `transpose`, `reshape`, `take`, `drop`, `concat`, `replicate_rows`, `replicate_cols`, `slice_row`, `slice_col` |
//! | neighbourhood | `stencil3`, `stencil5`, `stencil3x3`, `stencil5x5` with `Clamp`, `Mirror`, `Wrap`, `Constant(v)` |
//! | irregular | `expand`, `filter`, on `Nested`: `values`, `lengths`, `offsets`, per-row `fold`/`sum`/..., and `map` with parallel code per row; `map_rows` on a `Matrix` |
//! | control | array `if`, `awhile(init, cond, step)`; in scalar code `iterate(n, init, f)`, `while_loop(init, cond, step)` |
//!
//! One `#[accel]` function may call another of the package, in any module, or of an accel package
//! it depends on (`shapes::lengths(xs, ys)`, or `lengths(xs, ys)` after a `use`): the call is
//! inlined at build time, so the callee fuses with the caller. A function of elements only is a
//! scalar helper that closures call:
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
//! The examples crate (`examples/src/`) holds complete programs written this way: k-means with
//! its steps as functions called inside `awhile`, the Game of Life as a `stencil3x3`,
//! breadth-first search, quicksort as nested data parallelism, sparse matrix products, and more,
//! each checked against its `reference`.
//!
//! ## Types
//! - [`Array<E, R>`](Array): dense, row-major, rank `R` from 0 to 3, shape `[usize; R]`;
//!   [`Scalar<E>`](Scalar), [`Vector<E>`](Vector) and [`Matrix<E>`](Matrix) are its ranks 0, 1
//!   and 2.
//! - Elements `E` ([`Elem`]): `f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 usize bool` and tuples of
//!   them, stored as structure of arrays (one column per field), each scalar at its own width on
//!   the host and on the device (a `Vector<u8>` is one byte per element).
//! - [`Nested<E>`](Nested): an irregular vector of vectors, flat values cut into rows by
//!   [`Segments`] (offsets); a `Matrix` is the regular case.
//!
//! ## The host API
//! Arrays are made and read on the host with the methods below; they are immutable, so a
//! program's inputs are never changed by it.
//!
//! ```
//! use accel::{Array, Matrix, Nested, Scalar, Vector};
//!
//! let xs = Vector::from_vec(vec![1.0f32, 2.0, 3.0]);
//! assert_eq!((xs.shape(), xs.len(), xs.is_empty()), ([3], 3, false));
//! let m = Matrix::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?; // row after row
//! assert_eq!((m.rows(), m.cols(), m.at([1, 0])), (2, 3, Some(4)));
//! let cube = Array::from_shape_fn([2, 2, 2], |[i, j, k]| (i * 4 + j * 2 + k) as u32);
//! assert_eq!(cube.to_vec(), (0..8).collect::<Vec<u32>>());
//! let pairs: Vector<(u32, bool)> = (0..4).map(|i| (i, i % 2 == 0)).collect();
//! let (ids, even) = pairs.unzip(); // the columns, not copied
//! assert_eq!((ids.to_vec(), even.to_vec()), (vec![0, 1, 2, 3], vec![true, false, true, false]));
//! assert_eq!(Scalar::new(2.5f64).get(), 2.5);
//! let rows = Nested::from_rows(vec![vec![1u32, 2], vec![], vec![3]]);
//! assert_eq!(rows.offsets().to_vec(), [0, 2, 2, 3]);
//! assert_eq!(Nested::from_parts(vec![0, 2, 2, 3], vec![1, 2, 3])?, rows); // the CSR form
//! # Ok::<(), accel::Error>(())
//! ```
//!
//! ## Device-resident arrays
//! On a GPU a result stays in device memory until the host reads it, and passing it to the next
//! call hands the kernels the device copy: a chain of `#[accel]` calls on one runtime moves no
//! data through the host, and a host input is uploaded once however often it is passed. See
//! [`Array`]'s "Device-resident arrays" for when downloads happen, [`Array::download`] and
//! [`Runtime::synchronize`].
//!
//! ## Errors
//! Every fallible operation returns [`Result`], whose [`Error`] says what failed and where:
//! `IndexOutOfBounds` (a read or a scatter outside an array), `ShapeMismatch`,
//! `EmptyReduction` (`fold1` of nothing), `DivisionByZero` (integer division in a closure),
//! `InvalidSegments`, `InvalidArgument`, `InvalidCombine` (checked mode, below),
//! `OutOfDeviceMemory`, `OutOfHostMemory`, `NoDevice`, `Backend` (the enum is
//! `#[non_exhaustive]`: a `match` on it has a `_` arm). An error of a call says where: its
//! [`Error::location`] (and its message) names the `#[accel]` function, and an index error of a
//! read written in the source names the array and the line, as in ``index [4] is out of bounds
//! for shape [3] in `index` reading `b` at src/lib.rs:12:30 (in `gather`)``. A program's
//! run-time error is the same, location included, on every backend and from `reference`, so
//! tests can compare errors as they compare results.
//!
//! ```
//! use accel::{Error, Matrix, Nested};
//!
//! let e = Matrix::from_shape_vec([2, 3], vec![1, 2, 3]).unwrap_err();
//! assert!(matches!(e, Error::ShapeMismatch { .. }));
//! let e = Nested::from_parts(vec![0, 2, 1], vec![1, 2]).unwrap_err();
//! assert!(matches!(e, Error::InvalidSegments { .. }));
//! println!("{e}"); // says which offset decreases
//! ```
//!
//! Combining functions must be associative: backends regroup them (never reorder them), so
//! float results may differ from the interpreter's by rounding. Checked mode
//! ([`Runtime::set_checked`], or `ACCEL_CHECK=1`) tests each fold's, scan's and permute's
//! function on samples of the data it combines before the call runs, and reports one that is
//! not associative (or, for `permute`, not commutative) as `Error::InvalidCombine` with the
//! counter-example. Anything the language does not
//! accept is a compile error at its span that says what to write instead.
//!
//! ## Backends and environment variables
//! [`Runtime::new`] picks a GPU when the build has the `cuda` feature and a device can be
//! opened, else the CPU (with a one-line notice); [`Runtime::cpu`] is always the CPU, and
//! [`Runtime::backend`] says which a runtime got. At run time:
//!
//! | variable | effect |
//! | --- | --- |
//! | `ACCEL_BACKEND` | `auto` (default), `cpu` or `cuda` (a GPU or `Error::NoDevice`): what [`Runtime::new`] opens |
//! | `RAYON_NUM_THREADS` | the CPU backend's threads ([`Runtime::cpu_with_threads`] sets them in code) |
//! | `ACCEL_EXPAND` | forces how a fused `expand` and `permute` spreads its work on the GPU: `thread`, `warp`, `block`, `tiles` ([`Runtime::set_expand_strategy`]) |
//! | `ACCEL_SASS` | `off` loads the PTX through the driver's JIT even where SASS was built |
//! | `ACCEL_CHECK` | `1` (any value but empty, `0`, `off`, `false`): runtimes start in checked mode ([`Runtime::set_checked`]) |
//!
//! At build time:
//!
//! | variable | effect |
//! | --- | --- |
//! | `ACCEL_FUSION` | `off` compiles every function without fusion (one function: `#[accel(fusion = false)]`) |
//! | `ACCEL_FAST_MATH` | `on` compiles every function's GPU code with fast math (one function: `#[accel(fast_math)]`; docs/semantics.md says what changes) |
//! | `ACCEL_DUMP` | `ir`, `fused`, `plan`, `rust`, `ptx` or `all`: writes those stages of every function under `target/<profile>/accel-dump/` |
//! | `ACCEL_PTXAS` | the `ptxas` to assemble SASS with (else `ptxas` on `PATH`, else `$CUDA_HOME/bin/ptxas`) |
//! | `ACCEL_NO_TOOLCHAIN_INSTALL` | never install the pinned nightly (the build fails if it is missing) |
//!
//! ## Where the semantics live
//! `docs/semantics.md` in the repository is the contract every backend and the interpreter
//! implement: shapes and indices, the typing of literals, scalar arithmetic (integers wrap,
//! division by zero is an error), each combinator, calls between functions, and where backends
//! may differ (the rounding of regrouped float reductions, the order of colliding `permute`
//! writes). `docs/fusion.md` says which operations fuse into one kernel.

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
