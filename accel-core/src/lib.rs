//! The accel compiler.
//!
//! Everything between the user's `#[accel]` function and code that runs, as plain Rust:
//!
//! - [`types`] and [`ir`]: the typed combinator IR;
//! - [`frontend`]: syn's AST to typed IR, with errors at exact spans;
//! - [`fusion`]: the passes that fuse producers into consumers;
//! - [`interp`]: the reference interpreter, the oracle of every test;
//! - [`plan`]: kernel plans, the end of the pipeline;
//! - [`kernel`]: what each collective operation's kernels take as parameters;
//! - [`codegen`]: Rust code for the CPU backend and for the device;
//! - [`ops`]: the scalar semantics shared by the interpreter and generated code;
//! - [`value`] and [`error`]: dynamic values and `accel::Error`.

pub mod codegen;
pub mod error;
pub mod frontend;
pub mod fusion;
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
    /// The typed IR as the front end wrote it (what the interpreter runs).
    pub program: Program,
    /// The IR after the passes (what the backends run and the plan shows).
    pub optimised: Program,
    /// The Rust code of the CPU backend: the function `__cpu`.
    pub cpu: proc_macro2::TokenStream,
}

/// The compiler pipeline, top to bottom: the front end, the passes that rewrite the IR
/// ([`fusion::PASSES`]), code generation. The interpreter always sees the unrewritten IR.
pub fn compile(item: &syn::ItemFn, options: fusion::Options) -> syn::Result<Compiled> {
    let program = frontend::lower(item)?;
    let optimised = fusion::run(&program, options);
    let cpu = codegen::cpu_function(&optimised)?;
    Ok(Compiled { program, optimised, cpu })
}
