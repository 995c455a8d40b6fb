//! The accel compiler.
//!
//! Everything between the user's `#[accel]` function and code that runs, as plain Rust:
//!
//! - [`types`] and [`ir`]: the typed combinator IR, its one traversal ([`ir::visit`]) and its
//!   type checker ([`ir::check`]);
//! - [`frontend`]: syn's AST to typed IR, with errors at exact spans; [`library`]: the
//!   package's `#[accel]` functions, which calls inline;
//! - [`pipeline`]: the compiler as one list, front end to code generation, and its options;
//! - [`fusion`]: the passes that fuse producers into consumers; [`in_bounds`]: the pass that
//!   proves reads inside their arrays;
//! - [`interp`]: the reference interpreter, the oracle of every test;
//! - [`plan`]: kernel plans, the end of the pipeline;
//! - [`schedule`]: the steps a device backend's host takes to run a program, worked out once;
//! - [`shape`]: the result shapes of the operations that move elements, for every backend;
//! - [`kernel`]: what each collective operation's kernels take as parameters;
//! - [`codegen`]: Rust code for the CPU backend and for the device; [`ptx_dir`]: where the build
//!   script leaves a package's GPU code for the macro;
//! - [`ops`]: the scalar semantics shared by the interpreter and generated code;
//! - [`value`] and [`error`]: dynamic values and `accel::Error`.

pub mod codegen;
pub mod error;
pub mod flatten;
pub mod frontend;
pub mod fusion;
pub mod in_bounds;
pub mod interp;
pub mod ir;
pub mod kernel;
pub mod library;
pub use accel_kernels::ops;
pub mod pipeline;
pub mod plan;
pub mod ptx_dir;
pub mod schedule;
pub mod shape;
pub mod types;
pub mod value;

pub use error::{Error, Result};
pub use ir::Program;
pub use pipeline::{Compiled, compile};
pub use plan::Plan;
