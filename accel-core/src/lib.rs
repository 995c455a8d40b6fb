//! The accel compiler.
//!
//! Everything between the user's `#[accel]` function and code that runs, as plain Rust:
//!
//! - [`types`] and [`ir`]: the typed combinator IR;
//! - [`frontend`]: syn's AST to typed IR, with errors at exact spans;
//! - [`interp`]: the reference interpreter, the oracle of every test;
//! - [`plan`]: kernel plans, the end of the pipeline;
//! - [`kernel`]: what each collective operation's kernels take as parameters;
//! - [`codegen`]: Rust code for the CPU backend and for the device;
//! - [`ops`]: the scalar semantics shared by the interpreter and generated code;
//! - [`value`] and [`error`]: dynamic values and `accel::Error`.

pub mod codegen;
pub mod error;
pub mod frontend;
pub mod interp;
pub mod ir;
pub mod kernel;
pub use accel_kernels::ops;
pub mod plan;
pub mod types;
pub mod value;

pub use error::{Error, Result};
pub use ir::Program;
pub use plan::Plan;

/// What the compiler produces for one `#[accel]` function.
pub struct Compiled {
    /// The typed IR (what the interpreter runs).
    pub program: Program,
    /// The Rust code of the CPU backend: the function `__cpu`.
    pub cpu: proc_macro2::TokenStream,
}

/// The compiler pipeline, top to bottom. Passes that rewrite the IR (fusion, flattening) go
/// between the front end and code generation; the interpreter always sees the unrewritten IR.
pub fn compile(item: &syn::ItemFn) -> syn::Result<Compiled> {
    let program = frontend::lower(item)?;
    let cpu = codegen::cpu_function(&program)?;
    Ok(Compiled { program, cpu })
}
