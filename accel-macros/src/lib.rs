//! The `#[accel]` attribute.
//!
//! Parsing and code generation live in `accel-core`; this crate only connects them to the
//! compiler: it lowers the function with `accel_core::frontend`, and emits
//!
//! - `fn f(rt: &Runtime, args..) -> accel::Result<T>`, which runs the program on the runtime's
//!   backend: `rt.call::<f::Function>((args..))`;
//! - `mod f` with `reference(args..)` (the interpreter), `plan()`, `program()` and
//!   `optimised()`, `Function` (the function as the backends see it, `accel_runtime::backend`),
//!   plus the generated CPU code.
//!
//! With the `cuda` feature, `mod f` also holds `module()`, the PTX module of the function's source
//! file (its unit, `accel_core::ptx_dir`) and the SASS that ptxas made of it (embedded once per crate, see `embedded_module`), which the package's build script (accel-build) compiled into the
//! directory `ACCEL_PTX_DIR` names; `f::Function` hands it to the runtime's GPU when there is one. The build script writes a marker per
//! program it compiled (named by the program's fingerprint), so a function it did not see is a
//! compile error here rather than a missing kernel at run time.
//!
//! Calls of other `#[accel]` functions are inlined by the front end, which finds the callees'
//! source in the package's `accel_core::library::Library`: this crate scans the package's source
//! directories, and those of the accel dependencies the build script listed beside the module,
//! for it once per compiler process (`with_library`), as the build script does.
//!
//! A scalar helper (an `#[accel]` function whose result is an element, such as `fn mix(x: u32)
//! -> u32`) is not a program of its own: it is inlined where it is called, and on the host it
//! becomes `fn mix(x: u32) -> accel::Result<u32>`, evaluated by the interpreter.
//!
//! Errors are compile errors at the span the front end reports.

use accel_core::codegen;
use accel_core::library::{Dependency, Library};
#[cfg(feature = "cuda")]
use accel_core::ptx_dir;
use proc_macro::TokenStream;
use quote::{format_ident, quote};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Compiles an array function for the accel backends. See the `accel` crate for the language.
#[proc_macro_attribute]
pub fn accel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match accel_core::pipeline::Options::parse(attr.into()) {
        Ok(options) => options,
        Err(e) => return e.to_compile_error().into(),
    };
    let item = syn::parse_macro_input!(item as syn::ItemFn);
    let from = proc_macro::Span::call_site().local_file().unwrap_or_default();
    let expanded = with_library(&from, |library| {
        let name = item.sig.ident.to_string();
        if library.is_in_impl(&from, &name) {
            Err(syn::Error::new(
                item.sig.ident.span(),
                format!(
                    "#[accel] functions are free functions: move `{name}` out of the `impl` or `trait` block to the module, and call it as `{name}(&rt, ..)`"
                ),
            ))
        } else if accel_core::frontend::is_scalar_helper(&item) {
            helper(&item, library, &from)
        } else {
            expand(&item, options, library, &from)
        }
    });
    match expanded {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Runs `f` with the library of the package being compiled (`CARGO_MANIFEST_DIR`) and of its
/// accel dependencies (as the build script listed them in `ACCEL_PTX_DIR`), found once per
/// compiler process and kept as text (see `accel_core::library`), and with the functions of the
/// file `from`, which may lie outside the package's source directories (a test case compiled on
/// its own).
fn with_library<T>(from: &Path, f: impl FnOnce(&Library) -> T) -> T {
    // Keyed by the package and its build script's directory: the list there is read once.
    type Cached = (PathBuf, Option<PathBuf>, Library);
    thread_local! {
        static LIBRARY: RefCell<Option<Cached>> = const { RefCell::new(None) };
    }
    let root = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
    let ptx_dir = std::env::var_os("ACCEL_PTX_DIR").map(PathBuf::from);
    LIBRARY.with(|cell| {
        let mut cached = cell.borrow_mut();
        if cached.as_ref().is_none_or(|(r, d, _)| *r != root || *d != ptx_dir) {
            let dependencies = ptx_dir
                .as_ref()
                .map(|dir| Dependency::read_list(&dir.join(accel_core::library::DEPENDENCIES_FILE)))
                .unwrap_or_default();
            let library = Library::of_package(&root, &dependencies).0;
            *cached = Some((root.clone(), ptx_dir, library));
        }
        let (_, _, library) = cached.as_mut().expect("filled above");
        if from.is_file() {
            library.add_file(&root, from);
        }
        f(library)
    })
}

/// A scalar helper: checked by lowering it, callable on the host through the interpreter.
fn helper(item: &syn::ItemFn, library: &Library, from: &Path) -> syn::Result<proc_macro2::TokenStream> {
    let program = accel_core::frontend::lower_helper(item, library, from)?;
    let json = program.to_json();
    let (vis, name, attrs) = (&item.vis, &item.sig.ident, &item.attrs);
    let user_names = parameter_names(item);
    let param_types: Vec<_> = program.params.iter().map(|(_, t)| codegen::param_type(t)).collect();
    let ret = codegen::value_type(program.result_type());
    let named_args = value_args(user_names.iter().map(|n| quote!(#n)), &program);
    let doc_mod = format!("The reference interpreter and IR of the scalar helper [`{name}()`].");
    let reference = reference_fn(
        " Evaluates the helper on the reference interpreter.",
        &user_names,
        &param_types,
        &named_args,
        &ret,
    );
    let program = embedded_program("program", " The helper's IR, as the front end wrote it.", &json);
    Ok(quote! {
        #(#attrs)*
        /// A scalar helper of `#[accel]` code (inlined where it is called there), evaluated here
        /// by the reference interpreter.
        #[allow(clippy::too_many_arguments, dead_code)]
        #vis fn #name(#(#user_names: #param_types),*) -> ::accel::Result<#ret> {
            #name::reference(#(#user_names),*)
        }

        #[doc = #doc_mod]
        #[allow(dead_code)]
        #vis mod #name {
            #reference
            #program
        }
    })
}

/// `pub fn reference(..)`: the function evaluated by the interpreter, over `program()`.
fn reference_fn(
    doc: &str,
    user_names: &[syn::Ident],
    param_types: &[proc_macro2::TokenStream],
    value_args: &[proc_macro2::TokenStream],
    ret: &proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        pub fn reference(#(#user_names: #param_types),*) -> ::accel::Result<#ret> {
            let __args = ::std::vec![#(#value_args),*];
            let __out = ::accel::__private::interp::eval(program(), __args)?;
            <#ret as ::accel::FromValue>::from_value(__out)
        }
    }
}

/// `pub fn #name() -> &'static Program`: a program embedded as JSON, parsed on first use.
fn embedded_program(name: &str, doc: &str, json: &str) -> proc_macro2::TokenStream {
    let name = format_ident!("{name}");
    quote! {
        #[doc = #doc]
        pub fn #name() -> &'static ::accel::__private::Program {
            static PROGRAM: ::std::sync::OnceLock<::accel::__private::Program> = ::std::sync::OnceLock::new();
            PROGRAM.get_or_init(|| {
                ::accel::__private::Program::from_json(#json)
                    .expect("the IR embedded by #[accel] is valid: the macro wrote it")
            })
        }
    }
}

/// References to the constants and functions that the body names as Rust reads the names
/// (inlined into the program), written beside the function in the caller's module, so that
/// rustc does not report them unused and checks that a dependency's are public.
fn references(paths: &[Vec<String>]) -> proc_macro2::TokenStream {
    if paths.is_empty() {
        return quote!();
    }
    let paths = paths.iter().map(|p| {
        let segments = p.iter().map(|s| format_ident!("{s}"));
        quote!(#(#segments)::*)
    });
    quote! {
        const _: () = { #(let _ = #paths;)* };
    }
}

/// The names of a function's parameters (the front end accepts only identifiers).
fn parameter_names(item: &syn::ItemFn) -> Vec<syn::Ident> {
    item.sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => pi.ident.clone(),
                _ => unreachable!("the front end accepts only identifiers"),
            },
            syn::FnArg::Receiver(_) => unreachable!("the front end rejects `self`"),
        })
        .collect()
}

/// The arguments as the interpreter's values: elements by value, arrays by reference.
fn value_args(
    args: impl IntoIterator<Item = proc_macro2::TokenStream>,
    program: &accel_core::Program,
) -> Vec<proc_macro2::TokenStream> {
    args.into_iter()
        .zip(&program.params)
        .map(|(a, (_, t))| {
            if t.is_elem() {
                quote!(::accel::IntoValue::into_value(&#a))
            } else {
                quote!(::accel::IntoValue::into_value(#a))
            }
        })
        .collect()
}

fn expand(
    item: &syn::ItemFn,
    options: accel_core::pipeline::Options,
    library: &Library,
    from: &Path,
) -> syn::Result<proc_macro2::TokenStream> {
    let accel_core::Compiled { program, optimised, cpu, referenced } =
        accel_core::pipeline::compile_calling(item, options, library, from)?;
    let referenced = references(&referenced);
    let json = program.to_json();
    let optimised_json = optimised.to_json();

    let vis = &item.vis;
    let name = &item.sig.ident;
    let attrs = &item.attrs;
    let user_names = parameter_names(item);
    let program = &optimised;
    let param_types: Vec<_> = program.params.iter().map(|(_, t)| codegen::param_type(t)).collect();
    let ret = codegen::value_type(program.result_type());
    let rt = if user_names.iter().any(|n| n == "rt") { format_ident!("__rt") } else { format_ident!("rt") };
    let named_args = value_args(user_names.iter().map(|n| quote!(#n)), program);
    let doc_mod = format!("The reference interpreter, plan and generated code of [`{name}()`].");
    let reference = reference_fn(
        " Runs the program on the reference interpreter: slow, sequential, the oracle of every backend.",
        &user_names,
        &param_types,
        &named_args,
        &ret,
    );
    let source_program =
        embedded_program("program", " The program's IR, as the front end wrote it (what [`reference`] runs).", &json);
    let optimised_program = embedded_program(
        "optimised",
        " The program's IR after fusion: what the backends run and [`plan`] shows.",
        &optimised_json,
    );

    #[cfg(feature = "cuda")]
    let GpuCode { methods, items, error } = gpu_code(item, program, &ret);
    #[cfg(not(feature = "cuda"))]
    let GpuCode { methods, items, error } = GpuCode { methods: quote!(), items: quote!(), error: None };
    let error = error.map(|e| e.to_compile_error());
    let arg_types = program.params.iter().map(|(_, t)| {
        let v = codegen::value_type(t);
        if t.is_elem() { v } else { quote!(&'a #v) }
    });
    let name_text = name.to_string();
    // The arguments by position, so that no parameter name can shadow the generated ones.
    let positions: Vec<syn::Index> = (0..user_names.len()).map(syn::Index::from).collect();
    let checked_args = value_args(positions.iter().map(|i| quote!(__args.#i)), program);
    let function = quote! {
        /// The function as the backends see it: `Runtime::call::<Function>` runs it.
        pub struct Function;

        impl ::accel::__private::Function for Function {
            type Args<'a> = (#(#arg_types,)*);
            type Output = #ret;
            const NAME: &'static str = #name_text;

            fn cpu(__cx: &::accel::__private::cpu::Ctx, __args: Self::Args<'_>) -> ::accel::Result<#ret> {
                self::__cpu(__cx, #(__args.#positions),*)
            }

            fn read_sites() -> &'static [::accel::__private::ir::SourceRead] {
                &program().read_sites
            }

            fn check_laws(__args: &Self::Args<'_>) -> ::accel::Result<()> {
                ::accel::__private::interp::check(program(), ::std::vec![#(#checked_args),*])
            }

            #methods
        }
    };

    Ok(quote! {
        #error

        #referenced

        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #name(#rt: &::accel::Runtime, #(#user_names: #param_types),*) -> ::accel::Result<#ret> {
            #rt.call::<#name::Function>((#(#user_names,)*))
        }

        #[doc = #doc_mod]
        #[allow(dead_code)]
        #vis mod #name {
            #reference
            #source_program
            #optimised_program

            /// The kernels the program runs, with what each reads and writes.
            pub fn plan() -> ::accel::Plan {
                ::accel::Plan::build(optimised())
            }

            #function

            #items

            #cpu
        }
    })
}

/// The GPU side of `f::Function` (its methods `device`, `to_device` and `from_device`), the items
/// they need in `mod f`, and an error to report beside them (the function then has no GPU code,
/// so that the error is the only one).
struct GpuCode {
    methods: proc_macro2::TokenStream,
    items: proc_macro2::TokenStream,
    error: Option<syn::Error>,
}

/// The embedded PTX, and how to pass the arguments to the executor and take its result.
#[cfg(feature = "cuda")]
fn gpu_code(item: &syn::ItemFn, program: &accel_core::Program, ret: &proc_macro2::TokenStream) -> GpuCode {
    let name = &item.sig.ident;
    let (ptx, sass) = match ptx_module(name, program) {
        Ok(paths) => paths,
        Err(e) => return GpuCode { methods: quote!(), items: quote!(), error: Some(e) },
    };
    let module = embedded_module(&ptx, &sass);
    let prefix = program.kernel_prefix();
    // The arguments by position (elements by value, arrays by reference), so that no parameter
    // name can shadow the generated ones.
    let device_args = program.params.iter().enumerate().map(|(i, (_, t))| {
        let i = syn::Index::from(i);
        let arg = if t.is_elem() { quote!(&__args.#i) } else { quote!(__args.#i) };
        quote!(::accel::__private::IntoDevice::to_device(#arg, __gpu)?)
    });
    GpuCode {
        methods: quote! {
            fn device() -> ::std::option::Option<::accel::__private::DeviceProgram> {
                ::std::option::Option::Some(::accel::__private::DeviceProgram {
                    program: optimised(),
                    prefix: #prefix,
                    module: module(),
                })
            }

            fn to_device(
                __args: &Self::Args<'_>,
                __gpu: &::accel::__private::Gpu,
            ) -> ::accel::Result<::std::vec::Vec<::accel::__private::DValue>> {
                ::std::result::Result::Ok(::std::vec![#(#device_args),*])
            }

            fn from_device(__out: ::accel::__private::DValue) -> ::accel::Result<#ret> {
                <#ret as ::accel::__private::FromDevice>::from_device(__out)
            }
        },
        items: module,
        error: None,
    }
}

/// `module()`, the GPU code of the `#[accel]` functions of the function's unit (the PTX module of
/// its source file, `accel_core::ptx_dir`, and its SASS for the architectures ptxas made it for),
/// embedded once per crate: the first function of the unit that this compiler process expands
/// for the crate defines it under a symbol named after the crate and the module's path, and every
/// function of the unit (that one included) refers to it by that symbol. A definition in each
/// function would put a copy of the module into every codegen unit.
#[cfg(feature = "cuda")]
fn embedded_module(ptx: &str, sass: &[(u32, String)]) -> proc_macro2::TokenStream {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, PoisonError};
    static DEFINED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let krate = std::env::var("CARGO_CRATE_NAME").unwrap_or_default();
    let hash = ptx.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let symbol = format!("__accel_module_{krate}_{hash:016x}");
    let first = DEFINED.lock().unwrap_or_else(PoisonError::into_inner).insert(symbol.clone());
    let definition = first.then(|| {
        let sass = sass.iter().map(|(sm, path)| quote!((#sm, ::core::include_bytes!(#path))));
        quote! {
            #[doc(hidden)]
            #[unsafe(export_name = #symbol)]
            pub static __ACCEL_MODULE_DEFINITION: ::accel::__private::DeviceModule = ::accel::__private::DeviceModule {
                ptx: ::core::include_str!(#ptx),
                sass: &[#(#sass),*],
            };
        }
    });
    quote! {
        #definition

        unsafe extern "Rust" {
            #[link_name = #symbol]
            static __ACCEL_MODULE: ::accel::__private::DeviceModule;
        }

        /// The GPU code of the `#[accel]` functions of this function's source file, built by the
        /// package's build script: the PTX module and its SASS for the architectures ptxas made
        /// it for.
        pub fn module() -> &'static ::accel::__private::DeviceModule {
            // SAFETY: the symbol is the crate's one definition of the module (see above).
            unsafe { &__ACCEL_MODULE }
        }
    }
}

/// The path of the PTX module that holds `program`'s kernels and the `(sm version, path)` of the
/// cubins made from it, from the directory the package's build script named (`ACCEL_PTX_DIR`).
#[cfg(feature = "cuda")]
fn ptx_module(name: &syn::Ident, program: &accel_core::Program) -> syn::Result<(String, Vec<(u32, String)>)> {
    let dir = std::env::var_os("ACCEL_PTX_DIR").map(std::path::PathBuf::from);
    find_ptx_module(name, dir.as_deref(), program.fingerprint())
}

/// What [`ptx_module`] finds in `dir`, or the error that says why there is nothing: no build
/// script, a build script that built no GPU code, or one that did not see this function.
#[cfg(feature = "cuda")]
fn find_ptx_module(
    name: &syn::Ident,
    dir: Option<&std::path::Path>,
    fingerprint: u64,
) -> syn::Result<(String, Vec<(u32, String)>)> {
    let Some(dir) = dir else {
        return Err(syn::Error::new(
            name.span(),
            "this package has no build script compiling its `#[accel]` functions for the GPU: add `accel-build` \
             to [build-dependencies] and a `build.rs` containing `fn main() { accel_build::build(); }` (or turn \
             off the `cuda` feature of accel)",
        ));
    };
    if !dir.join(ptx_dir::UNITS).is_dir() {
        return Err(syn::Error::new(
            name.span(),
            "the build script of this package compiled no GPU code, because the `accel` it sees has no `cuda` \
             feature: depend on `accel` directly, with its default `cuda` feature, in [dependencies]",
        ));
    }
    let marker = std::fs::read_to_string(ptx_dir::marker(dir, fingerprint)).unwrap_or_default();
    let Some(unit) = ptx_dir::unit_of_marker(&marker) else {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "the build script did not see `#[accel] fn {name}`: it must be written literally in a .rs file \
                 under src/, tests/, examples/ or benches/ of this package (not produced by a macro such as \
                 `macro_rules!`); if it is, the build is stale: `touch build.rs`"
            ),
        ));
    };
    let unit_dir = ptx_dir::unit_dir(dir, unit);
    if !ptx_dir::module(&unit_dir).is_file() {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "the build script saw `#[accel] fn {name}` but its GPU module `{}` is missing: the build is \
                 stale, `touch build.rs`",
                ptx_dir::module(&unit_dir).display()
            ),
        ));
    }
    let utf8 = |path: &std::path::Path| {
        path.to_str().map(str::to_string).ok_or_else(|| {
            syn::Error::new(name.span(), format!("the path of the GPU code is not UTF-8: {}", path.display()))
        })
    };
    let mut sass = Vec::new();
    for sm in ptx_dir::SASS_ARCHS {
        let cubin = ptx_dir::cubin(&unit_dir, sm);
        if cubin.is_file() {
            sass.push((sm, utf8(&cubin)?));
        }
    }
    Ok((utf8(&ptx_dir::module(&unit_dir))?, sass))
}

/// The GPU build's errors. They cannot be trybuild snapshots: trybuild compiles its cases in a
/// package of its own that keeps none of the features that turn on `accel/cuda`, so there the
/// macro never needs a build script (`accel-tests/tests/compile_fail.rs` checks that side).
#[cfg(all(test, feature = "cuda"))]
mod tests {
    use super::find_ptx_module;
    use accel_core::ptx_dir;
    use std::path::Path;

    /// A directory of the system's temporary one, removed when dropped.
    struct BuildDir(std::path::PathBuf);

    impl std::ops::Deref for BuildDir {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for BuildDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A fresh directory laid out like a build script's `ACCEL_PTX_DIR`: `files` as (path, text).
    fn build_dir(case: &str, files: &[(&str, &str)]) -> BuildDir {
        let dir = BuildDir(std::env::temp_dir().join(format!("accel-macros-test-{}-{case}", std::process::id())));
        let _ = std::fs::remove_dir_all(&*dir);
        std::fs::create_dir_all(dir.join(ptx_dir::PROGRAMS)).unwrap();
        for (file, text) in files {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn error(dir: Option<&Path>) -> String {
        let name = syn::Ident::new("double", proc_macro2::Span::call_site());
        find_ptx_module(&name, dir, 0xabc).unwrap_err().to_string()
    }

    #[test]
    fn no_build_script() {
        assert!(error(None).starts_with("this package has no build script compiling its `#[accel]` functions"));
    }

    #[test]
    fn build_script_without_cuda() {
        let dir = build_dir("no-cuda", &[]);
        assert!(error(Some(&dir)).starts_with("the build script of this package compiled no GPU code"));
    }

    #[test]
    fn function_not_seen() {
        let marker = ptx_dir::marker_text("src-lib-rs", "other", Path::new("src/lib.rs"));
        let dir = build_dir("not-seen", &[("units/src-lib-rs/accel.ptx", ""), ("programs/0000000000000def", &marker)]);
        assert!(error(Some(&dir)).starts_with("the build script did not see `#[accel] fn double`"));
        // A marker that names no unit is no marker.
        let dir = build_dir("no-unit", &[("units/src-lib-rs/accel.ptx", ""), ("programs/0000000000000abc", "")]);
        assert!(error(Some(&dir)).starts_with("the build script did not see `#[accel] fn double`"));
        // A unit without its module is a stale build.
        let marker = ptx_dir::marker_text("src-gone-rs", "double", Path::new("src/gone.rs"));
        let dir = build_dir("stale", &[("units/src-lib-rs/accel.ptx", ""), ("programs/0000000000000abc", &marker)]);
        assert!(error(Some(&dir)).contains("is missing: the build is stale"), "{}", error(Some(&dir)));
    }

    #[test]
    fn module_and_cubins_of_the_unit() {
        let marker = ptx_dir::marker_text("src-b-rs", "double", Path::new("src/b.rs"));
        let dir = build_dir(
            "found",
            &[
                ("units/src-a-rs/accel.ptx", ""),
                ("units/src-a-rs/accel.sm_80.cubin", ""),
                ("units/src-b-rs/accel.ptx", ""),
                ("units/src-b-rs/accel.sm_90.cubin", ""),
                ("programs/0000000000000abc", &marker),
            ],
        );
        let name = syn::Ident::new("double", proc_macro2::Span::call_site());
        let (ptx, sass) = find_ptx_module(&name, Some(&dir), 0xabc).unwrap();
        assert_eq!(Path::new(&ptx), dir.join("units/src-b-rs/accel.ptx"));
        assert_eq!(sass, [(90, dir.join("units/src-b-rs/accel.sm_90.cubin").to_str().unwrap().to_string())]);
    }
}
