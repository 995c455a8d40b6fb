//! Fusion: rewrites a program so that producers run inside their consumers (ICFP'13 §3-4).
//!
//! The passes only rewrite the IR; what they produce is an ordinary program that the interpreter
//! runs with the same results, plus three *fused forms* that the front end never writes and that
//! every backend implements:
//!
//! 1. **Delayed operands.** The array operand of a consumer may be a `Generate` node itself
//!    (not a variable): the consumer computes element `ix` as the generate's closure applied to
//!    `ix`, inside its own kernel, and no array is allocated. The consumer positions are the
//!    `a` of `Fold`, `FoldAll`, `FoldSeg`, `Scan`, `ScanSeg`, `Permute` (and its `defaults`),
//!    `Stencil`, `Expand` and `Filter`.
//! 2. **Delayed reads.** Inside a kernel's closures, `Index { array: Generate { .. }, .. }` reads
//!    one element of a delayed array: the index is checked against the generate's shape (an
//!    error names the read's `site`), then the element is computed in place.
//! 3. **Epilogues.** `IMap { f, a }` whose `a` is a `Fold`, `FoldAll`, `FoldSeg`, `Scan` (not
//!    `scanl_total`/`scanr_total`) or `ScanSeg` node itself: the reduction or scan writes
//!    `f(ix, v)` instead of each result `v`, in its last kernel.
//!
//! A backend launches kernels only for the collective nodes that are not absorbed into another:
//! see [`crate::kernel::launched`].
//!
//! The pipeline, in order ([`PASSES`]):
//! 1. [`producers`]: producers become delayed arrays and fuse into their consumers; `let`s are
//!    inlined or kept manifest by the sharing rule;
//! 2. [`siblings`]: reductions of the same extent become one reduction of tuples;
//! 3. [`epilogues`]: elementwise work on a reduction's or scan's results moves into its last
//!    step.

mod epilogues;
mod producers;
mod rewrite;
mod siblings;
#[cfg(test)]
mod tests;

use crate::ir::Program;

/// What the compiler does to a program before code generation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Options {
    /// Run the fusion passes (on by default; `#[accel(fusion = false)]` or `ACCEL_FUSION=off`
    /// at build time turns them off, for measurement and debugging).
    pub fusion: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { fusion: true }
    }
}

impl Options {
    /// The options of one function: the arguments of its `#[accel(..)]` attribute (`fusion =
    /// false` or `fusion = true`), then the build's environment: `ACCEL_FUSION=off` turns fusion
    /// off for every function.
    pub fn parse(args: proc_macro2::TokenStream) -> syn::Result<Options> {
        let mut options = Options::default();
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("fusion") {
                let on: syn::LitBool = meta.value()?.parse()?;
                options.fusion = on.value;
                Ok(())
            } else {
                Err(meta.error("unknown `#[accel]` argument: the only one is `fusion = false` (or `true`)"))
            }
        });
        syn::parse::Parser::parse2(parser, args)?;
        match std::env::var("ACCEL_FUSION").as_deref() {
            Err(_) | Ok("" | "on" | "1" | "true") => {}
            Ok("off" | "0" | "false") => options.fusion = false,
            Ok(other) => {
                let msg = format!("ACCEL_FUSION is `{other}`: set it to `off` (or `on`, the default)");
                return Err(syn::Error::new(proc_macro2::Span::call_site(), msg));
            }
        }
        Ok(options)
    }
}

/// A pass: a program in, the rewritten program out.
pub type Pass = fn(Program) -> Program;

/// The fusion passes, in the order they run.
pub const PASSES: &[(&str, Pass)] =
    &[("producers", producers::run), ("siblings", siblings::run), ("epilogues", epilogues::run)];

/// Runs the pipeline on `program` (unless `options` turn fusion off).
pub fn run(program: &Program, options: Options) -> Program {
    let mut p = program.clone();
    if options.fusion {
        for (_, pass) in PASSES {
            p = pass(p);
        }
    }
    p
}
