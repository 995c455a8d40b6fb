//! The compiler, top to bottom, as one list: the front end, the passes that rewrite the IR
//! (flattening of `Nested::map`, then fusion), code generation. The options that steer the
//! passes live here, not in the passes.
//!
//! ```text
//! syn::ItemFn ──frontend::lower──► Program ──passes()──► optimised Program ──codegen──► Rust (CPU)
//!                                     │                        │
//!                                     ▼                        ▼
//!                         interpreter (the oracle)     kernel plans, device code (accel-build),
//!                                                      the CUDA executor
//! ```
//!
//! [`ir::check`](crate::ir::check) runs on the front end's program and after every pass: a pass
//! that breaks the IR's types is an internal error at the function's name, not a miscompiled
//! kernel.

use crate::ir::{Program, check};
use crate::library::Library;
use crate::{codegen, flatten, frontend, fusion};
use std::path::Path;

/// What the compiler does to a program before code generation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Options {
    /// Run the fusion passes (on by default; `#[accel(fusion = false)]` or `ACCEL_FUSION=off`
    /// at build time turns them off, for measurement and debugging: then every combinator is a
    /// kernel of its own).
    pub fusion: bool,
    /// Fuse a `permute` with the `expand` it scatters (fused form 4 of [`fusion`]; on by
    /// default, with fusion). `#[accel(expand_permute = false)]` keeps the expanded array, for
    /// measuring what the fusion saves.
    pub expand_permute: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { fusion: true, expand_permute: true }
    }
}

impl Options {
    /// No fusion at all: every combinator a kernel of its own.
    pub const UNFUSED: Options = Options { fusion: false, expand_permute: false };
}

impl Options {
    /// The options of one function: the arguments of its `#[accel(..)]` attribute (`fusion =
    /// false` or `true`, `expand_permute = false` or `true`), then the build's environment:
    /// `ACCEL_FUSION=off` turns fusion off for every function.
    pub fn parse(args: proc_macro2::TokenStream) -> syn::Result<Options> {
        let mut options = Options::default();
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("fusion") {
                let on: syn::LitBool = meta.value()?.parse()?;
                options.fusion = on.value;
                Ok(())
            } else if meta.path.is_ident("expand_permute") {
                let on: syn::LitBool = meta.value()?.parse()?;
                options.expand_permute = on.value;
                Ok(())
            } else {
                Err(meta.error(
                    "unknown `#[accel]` argument: the arguments are `fusion = false` and `expand_permute = false` (or \
                     `true`)",
                ))
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

/// Every pass between the front end and code generation under `options`, in the order they run:
/// flattening (`Nested::map`), then fusion. Without fusion, producers are still lowered to `generate`s (each its own kernel), since that
/// lowering is where each producer's index function is written and no backend reads them as
/// the front end wrote them.
pub fn passes(options: Options) -> impl Iterator<Item = (&'static str, fusion::Pass)> {
    let fusion = if options.fusion { fusion::PASSES } else { fusion::UNFUSED };
    let wanted = move |(name, _): &(&str, fusion::Pass)| options.expand_permute || *name != fusion::EXPAND_PERMUTE;
    std::iter::once(("flatten", flatten::run as fusion::Pass)).chain(fusion.iter().copied().filter(wanted))
}

/// What the compiler produces for one `#[accel]` function.
pub struct Compiled {
    /// The typed IR as the front end wrote it (what the interpreter runs).
    pub program: Program,
    /// The IR after the passes (what the backends run and the plan shows).
    pub optimised: Program,
    /// The Rust code of the CPU backend: the function `__cpu`.
    pub cpu: proc_macro2::TokenStream,
    /// The package's items the function names ([`frontend::Lowered::referenced`]).
    pub referenced: Vec<Vec<String>>,
}

/// The whole pipeline for one function that calls no other `#[accel]` function.
pub fn compile(item: &syn::ItemFn, options: Options) -> syn::Result<Compiled> {
    compile_calling(item, options, &Library::EMPTY, Path::new(""))
}

/// The whole pipeline for one function, written in the file `from`, whose calls name functions
/// of `library`.
pub fn compile_calling(item: &syn::ItemFn, options: Options, library: &Library, from: &Path) -> syn::Result<Compiled> {
    let frontend::Lowered { program, referenced } = frontend::lower_calling(item, library, from)?;
    let internal = |e: String| syn::Error::new_spanned(&item.sig.ident, format!("internal compiler error: {e}"));
    check::program(&program).map_err(|e| internal(format!("after the front end: {e}")))?;
    let optimised = try_optimise(&program, options).map_err(internal)?;
    let cpu = codegen::cpu_function(&optimised)?;
    Ok(Compiled { program, optimised, cpu, referenced })
}

/// `program` after the passes that `options` turn on, each followed by the type checker.
pub fn try_optimise(program: &Program, options: Options) -> Result<Program, String> {
    let mut p = program.clone();
    for (name, pass) in passes(options) {
        p = pass(p);
        check::program(&p).map_err(|e| format!("after the `{name}` pass: {e}"))?;
    }
    Ok(p)
}

/// [`try_optimise`] for programs known to be well-typed (tests, tools): a pass that breaks one
/// is a bug in the compiler, reported with the program.
pub fn optimise(program: &Program, options: Options) -> Program {
    try_optimise(program, options).unwrap_or_else(|e| panic!("{e}\n{program}"))
}
