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
//! Errors are compile errors at the span the front end reports.

use accel_core::codegen;
use proc_macro::TokenStream;
use quote::{format_ident, quote};

/// Compiles an array function for the accel backends. See the `accel` crate for the language.
#[proc_macro_attribute]
pub fn accel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    if !attr.is_empty() {
        return syn::Error::new_spanned(attr, "`#[accel]` takes no arguments").to_compile_error().into();
    }
    let item = syn::parse_macro_input!(item as syn::ItemFn);
    match expand(&item) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(item: &syn::ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let accel_core::Compiled { program, cpu } = accel_core::compile(item)?;
    let json = program.to_json();

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

    Ok(quote! {
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #name(#rt: &::accel::Runtime, #(#user_names: #param_types),*) -> ::accel::Result<#ret> {
            #rt.run_cpu(|__cx| #name::__cpu(__cx, #(#user_names),*))
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

            /// The program's IR, as the compiler produced it.
            pub fn program() -> &'static ::accel::__private::Program {
                static PROGRAM: ::std::sync::OnceLock<::accel::__private::Program> = ::std::sync::OnceLock::new();
                PROGRAM.get_or_init(|| {
                    ::accel::__private::Program::from_json(#json)
                        .expect("the IR embedded by #[accel] is valid: the macro wrote it")
                })
            }

            /// The kernels the program runs, with what each reads and writes.
            pub fn plan() -> ::accel::Plan {
                ::accel::Plan::build(program())
            }

            #cpu
        }
    })
}
