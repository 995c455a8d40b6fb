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
use crate::{codegen, flatten, frontend, fusion, in_bounds};
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
    /// Fast math on the GPU (off by default; `#[accel(fast_math)]`, or `ACCEL_FAST_MATH=on` at
    /// build time for every function): the device code may contract and reassociate float
    /// arithmetic and uses the hardware's approximate division, reciprocal, square root, `exp`
    /// and `ln` ([`accel_kernels::fmath`]). The interpreter and the CPU backend keep IEEE
    /// semantics, so results differ from theirs in the last bits (docs/semantics.md).
    pub fast_math: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { fusion: true, expand_permute: true, fast_math: false }
    }
}

impl Options {
    /// No fusion at all: every combinator a kernel of its own.
    pub const UNFUSED: Options = Options { fusion: false, expand_permute: false, fast_math: false };
}

impl Options {
    /// The options of one function: the arguments of its `#[accel(..)]` attribute
    /// ([`Options::from_attribute`]), then the build's environment: `ACCEL_FUSION=off` turns
    /// fusion off and `ACCEL_FAST_MATH=on` fast math on for every function.
    pub fn parse(args: proc_macro2::TokenStream) -> syn::Result<Options> {
        let mut options = Options::from_attribute(args)?;
        if switched("ACCEL_FUSION", "off")? {
            options.fusion = false;
        }
        if switched("ACCEL_FAST_MATH", "on")? {
            options.fast_math = true;
        }
        Ok(options)
    }

    /// The options that the arguments of an `#[accel(..)]` attribute ask for: `fusion = false`
    /// or `true`, `expand_permute = false` or `true`, `fast_math` or `fast_math = true` or
    /// `false`.
    pub fn from_attribute(args: proc_macro2::TokenStream) -> syn::Result<Options> {
        let mut options = Options::default();
        let parser = syn::meta::parser(|meta| {
            let switch = |meta: &syn::meta::ParseNestedMeta| -> syn::Result<bool> {
                Ok(meta.value()?.parse::<syn::LitBool>()?.value)
            };
            if meta.path.is_ident("fusion") {
                options.fusion = switch(&meta)?;
                Ok(())
            } else if meta.path.is_ident("expand_permute") {
                options.expand_permute = switch(&meta)?;
                Ok(())
            } else if meta.path.is_ident("fast_math") {
                options.fast_math = meta.input.is_empty() || meta.input.peek(syn::Token![,]) || switch(&meta)?;
                Ok(())
            } else {
                Err(meta.error(
                    "unknown `#[accel]` argument: the arguments are `fusion = false`, `expand_permute = false` (or \
                     `true`) and `fast_math`",
                ))
            }
        });
        syn::parse::Parser::parse2(parser, args)?;
        Ok(options)
    }
}

/// Whether the build's environment sets the switch `key` to `to` (`on` or `off`, or a synonym:
/// `1` or `0`, `true` or `false`); unset, empty or the default value leaves the attributes'
/// choice, anything else is an error.
fn switched(key: &str, to: &str) -> syn::Result<bool> {
    let (on, off) = (["on", "1", "true"], ["off", "0", "false"]);
    let (set, default) = if to == "on" { (on, off) } else { (off, on) };
    match std::env::var(key).as_deref() {
        Err(_) | Ok("") => Ok(false),
        Ok(v) if set.contains(&v) => Ok(true),
        Ok(v) if default.contains(&v) => Ok(false),
        Ok(other) => {
            let msg = format!("{key} is `{other}`: set it to `{}` (or `{}`, the default)", set[0], default[0]);
            Err(syn::Error::new(proc_macro2::Span::call_site(), msg))
        }
    }
}

/// Every pass between the front end and code generation under `options`, in the order they run:
/// flattening (`Nested::map`), then fusion, then [`in_bounds`] (reads proved inside their
/// arrays, on the closures as fusion left them). Without fusion, producers are still lowered to
/// `generate`s (each its own kernel), since that lowering is where each producer's index
/// function is written and no backend reads them as the front end wrote them.
pub fn passes(options: Options) -> impl Iterator<Item = (&'static str, fusion::Pass)> {
    let fusion = if options.fusion { fusion::PASSES } else { fusion::UNFUSED };
    let wanted = move |(name, _): &(&str, fusion::Pass)| options.expand_permute || *name != fusion::EXPAND_PERMUTE;
    std::iter::once(("flatten", flatten::run as fusion::Pass))
        .chain(fusion.iter().copied().filter(wanted))
        .chain(std::iter::once(("in_bounds", in_bounds::run as fusion::Pass)))
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
    let mut p = Program { fast_math: options.fast_math, ..program.clone() };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &str) -> syn::Result<Options> {
        Options::from_attribute(args.parse().expect("tokens"))
    }

    #[test]
    fn attribute_arguments_set_the_options() {
        assert_eq!(parse("").unwrap(), Options::default());
        assert!(parse("fast_math").unwrap().fast_math);
        assert!(parse("fast_math = true").unwrap().fast_math);
        assert!(!parse("fast_math = false").unwrap().fast_math);
        let both = parse("fusion = false, fast_math").unwrap();
        assert!(!both.fusion && both.fast_math && both.expand_permute);
        let both = parse("fast_math, expand_permute = false").unwrap();
        assert!(both.fusion && both.fast_math && !both.expand_permute);
        assert!(parse("fast_math = 1").is_err());
        assert!(parse("gpu").unwrap_err().to_string().contains("`fast_math`"));
    }
}
