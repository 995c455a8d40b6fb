//! The `#[accel]` attribute.
//!
//! Parsing and code generation live in `accel-core`; this crate only connects them to the
//! compiler: it lowers the function with `accel_core::frontend`, and emits
//!
//! - `fn f(rt: &Runtime, args..) -> accel::Result<T>`, which runs the program on the runtime's
//!   backend;
//! - `mod f` with `reference(args..)` (the interpreter), `plan()` and `program()`, plus the
//!   generated backend code.
//!
//! With the `cuda` feature, `mod f` also holds `PTX`, the package's PTX module, which the
//! package's build script (accel-build) compiled into the directory `ACCEL_PTX_DIR` names; the
//! wrapper hands it to the runtime's GPU when there is one. The build script writes a marker per
//! program it compiled (named by the program's fingerprint), so a function it did not see is a
//! compile error here rather than a missing kernel at run time.
//!
//! Errors are compile errors at the span the front end reports.

use accel_core::codegen;
use proc_macro::TokenStream;
use quote::{format_ident, quote};

/// Compiles an array function for the accel backends. See the `accel` crate for the language.
#[proc_macro_attribute]
pub fn accel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match accel_core::fusion::Options::parse(attr.into()) {
        Ok(options) => options,
        Err(e) => return e.to_compile_error().into(),
    };
    let item = syn::parse_macro_input!(item as syn::ItemFn);
    match expand(&item, options) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(item: &syn::ItemFn, options: accel_core::fusion::Options) -> syn::Result<proc_macro2::TokenStream> {
    let accel_core::Compiled { program, optimised, cpu } = accel_core::compile(item, options)?;
    let json = program.to_json();
    let optimised_json = optimised.to_json();

    let vis = &item.vis;
    let name = &item.sig.ident;
    let attrs = &item.attrs;
    let user_names: Vec<syn::Ident> = item
        .sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => pi.ident.clone(),
                _ => unreachable!("the front end accepts only identifiers"),
            },
            syn::FnArg::Receiver(_) => unreachable!("the front end rejects `self`"),
        })
        .collect();
    let program = &optimised;
    let param_types: Vec<_> = program.params.iter().map(|(_, t)| codegen::param_type(t)).collect();
    let ret = codegen::value_type(program.result_type());
    let rt = if user_names.iter().any(|n| n == "rt") { format_ident!("__rt") } else { format_ident!("rt") };
    let value_args = user_names.iter().zip(&program.params).map(|(n, (_, t))| {
        if t.is_elem() {
            quote!(::accel::IntoValue::into_value(&#n))
        } else {
            quote!(::accel::IntoValue::into_value(#n))
        }
    });
    let doc_mod = format!("The reference interpreter, plan and generated code of [`{name}()`].");

    let cpu_only = quote!(#rt.run_cpu(|__cx| #name::__cpu(__cx, #(#user_names),*)));
    #[cfg(feature = "cuda")]
    let Backends { body, items, error } = backends(item, program, cpu_only, &rt, &user_names, &ret);
    #[cfg(not(feature = "cuda"))]
    let Backends { body, items, error } = Backends { body: cpu_only, items: quote!(), error: None };
    let error = error.map(|e| e.to_compile_error());

    Ok(quote! {
        #error

        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #name(#rt: &::accel::Runtime, #(#user_names: #param_types),*) -> ::accel::Result<#ret> {
            #body
        }

        #[doc = #doc_mod]
        #[allow(dead_code)]
        #vis mod #name {
            /// Runs the program on the reference interpreter: slow, sequential, the oracle of
            /// every backend.
            #[allow(clippy::too_many_arguments)]
            pub fn reference(#(#user_names: #param_types),*) -> ::accel::Result<#ret> {
                let __args = ::std::vec![#(#value_args),*];
                let __out = ::accel::__private::interp::eval(program(), __args)?;
                <#ret as ::accel::FromValue>::from_value(__out)
            }

            /// The program's IR, as the front end wrote it (what [`reference`] runs).
            pub fn program() -> &'static ::accel::__private::Program {
                static PROGRAM: ::std::sync::OnceLock<::accel::__private::Program> = ::std::sync::OnceLock::new();
                PROGRAM.get_or_init(|| {
                    ::accel::__private::Program::from_json(#json)
                        .expect("the IR embedded by #[accel] is valid: the macro wrote it")
                })
            }

            /// The program's IR after fusion: what the backends run and [`plan`] shows.
            pub fn optimised() -> &'static ::accel::__private::Program {
                static PROGRAM: ::std::sync::OnceLock<::accel::__private::Program> = ::std::sync::OnceLock::new();
                PROGRAM.get_or_init(|| {
                    ::accel::__private::Program::from_json(#optimised_json)
                        .expect("the IR embedded by #[accel] is valid: the macro wrote it")
                })
            }

            /// The kernels the program runs, with what each reads and writes.
            pub fn plan() -> ::accel::Plan {
                ::accel::Plan::build(optimised())
            }

            #items

            #cpu
        }
    })
}

/// How the wrapper runs the program: its body, the items it needs in `mod f`, and an error to
/// report beside them (the wrapper then runs on the CPU only, so that the error is the only one).
struct Backends {
    body: proc_macro2::TokenStream,
    items: proc_macro2::TokenStream,
    error: Option<syn::Error>,
}

/// The CPU code on a CPU runtime, the embedded PTX on a GPU one.
#[cfg(feature = "cuda")]
fn backends(
    item: &syn::ItemFn,
    program: &accel_core::Program,
    cpu_only: proc_macro2::TokenStream,
    rt: &syn::Ident,
    user_names: &[syn::Ident],
    ret: &proc_macro2::TokenStream,
) -> Backends {
    let name = &item.sig.ident;
    let ptx = match ptx_module(name, program) {
        Ok(path) => path,
        Err(e) => return Backends { body: cpu_only, items: quote!(), error: Some(e) },
    };
    let device_args = user_names.iter().zip(&program.params).map(|(n, (_, t))| {
        let arg = if t.is_elem() { quote!(&#n) } else { quote!(#n) };
        quote!(::accel::__private::IntoDevice::to_device(#arg, __gpu)?)
    });
    Backends {
        body: quote! {
            #rt.run(
                |__cx| #name::__cpu(__cx, #(#user_names),*),
                |__gpu| {
                    let __args = ::std::vec![#(#device_args),*];
                    let __out = __gpu.execute(#name::optimised(), #name::PTX, __args)?;
                    <#ret as ::accel::__private::FromDevice>::from_device(__out)
                },
            )
        },
        items: quote! {
            /// The PTX module of all the `#[accel]` functions of this package, built by its
            /// build script.
            pub const PTX: &str = ::core::include_str!(#ptx);
        },
        error: None,
    }
}

/// The path of the PTX module that holds `program`'s kernels, or the error that says why there
/// is none: no build script, a build script that built no GPU code, or one that did not see
/// this function.
#[cfg(feature = "cuda")]
fn ptx_module(name: &syn::Ident, program: &accel_core::Program) -> syn::Result<String> {
    let Ok(dir) = std::env::var("ACCEL_PTX_DIR") else {
        return Err(syn::Error::new(
            name.span(),
            "this package has no build script compiling its `#[accel]` functions for the GPU: add `accel-build` \
             to [build-dependencies] and a `build.rs` containing `fn main() { accel_build::build(); }` (or turn \
             off the `cuda` feature of accel)",
        ));
    };
    let dir = std::path::Path::new(&dir);
    let ptx = dir.join("accel.ptx");
    if !ptx.is_file() {
        return Err(syn::Error::new(
            name.span(),
            "the build script of this package compiled no GPU code, because the `accel` it sees has no `cuda` \
             feature: depend on `accel` directly, with its default `cuda` feature, in [dependencies]",
        ));
    }
    if !dir.join("programs").join(format!("{:016x}", program.fingerprint())).is_file() {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "the build script did not see `#[accel] fn {name}`: it must be written literally in a .rs file \
                 under src/, tests/, examples/ or benches/ of this package (not produced by a macro such as \
                 `macro_rules!`); if it is, the build is stale: `touch build.rs`"
            ),
        ));
    }
    ptx.to_str().map(str::to_string).ok_or_else(|| {
        syn::Error::new(name.span(), format!("the path of the PTX module is not UTF-8: {}", ptx.display()))
    })
}
