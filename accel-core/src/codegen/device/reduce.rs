//! Reduction kernels (`accel_kernels::reduce`): `fold`, `fold1`, `fold_all` and `fold_seg`, over
//! uniform rows or segments, with the seed (or the empty-row check) applied by the warp that
//! finishes a row.

use super::{Gen, Results};
use crate::codegen::{elem_type, rank_of};
use crate::ir::{Expr, Lambda};
use crate::kernel::{self, Role};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Rows of `fold`: the innermost dimension of operand 0, one per element of `out`.
pub(super) fn innermost_rows(a: &Expr, out: &Ident) -> TokenStream {
    let d = rank_of(a) - 1;
    quote!(Uniform { rows: #out.len(), len: __a0.shape[#d] })
}

/// The one row of `fold_all`: all of operand 0.
pub(super) fn one_row() -> TokenStream {
    quote!(Uniform { rows: 1, len: __a0.len() })
}

/// Rows of a segmented operation: operand 1 holds the segments of operand 0's innermost dimension.
pub(super) fn segmented_rows(a: &Expr) -> TokenStream {
    let d = rank_of(a) - 1;
    quote!(Segmented { offsets: __a1.offsets, segments: __a1.count, outer: __rt::outer(__a0.shape), row_len: __a0.shape[#d] })
}

/// Reading partial `(row, part)` back, `None` when its chunk was empty.
pub(super) fn partial(p: &str, flags: &str) -> TokenStream {
    let (p, flags) = (format_ident!("{p}"), format_ident!("{flags}"));
    quote! {
        |__r: usize, __k: usize| {
            let __j = __r * __parts + __k;
            if *#flags.add(__j) { Some(#p.get_linear(__j)) } else { None }
        }
    }
}

pub(super) fn store_partial(p: &str, flags: &str) -> TokenStream {
    let (p, flags) = (format_ident!("{p}"), format_ident!("{flags}"));
    quote! {
        |__r: usize, __k: usize, __t| {
            let __j = __r * __parts + __k;
            *#flags.add(__j) = ::core::option::Option::is_some(&__t);
            if let Some(__v) = __t { #p.set_linear(__j, __v) }
        }
    }
}

/// fold, fold1, fold_all, fold_seg: per-chunk totals, and the row totals with the seed (row `r`'s
/// total is result `r`) from the last part of each row to finish, or from a second kernel.
pub(super) fn kernels(
    cg: &Gen,
    seeded: bool,
    f: &Lambda,
    rows: TokenStream,
    results: &Results,
    node: u64,
) -> syn::Result<Vec<(Role, TokenStream)>> {
    let fl = cg.lambda(f)?;
    let elem = elem_type(f.params[0].1.as_elem().expect("an element"));
    let total = if seeded {
        quote!(match __t {
            Some(__t) => __f(__s0, __t),
            None => __s0,
        })
    } else {
        quote!(match __t {
            Some(__t) => __t,
            None => {
                __cx.fail(abi::code::EMPTY_REDUCTION, #node, &[__r], &[], 0);
                <#elem as DeviceElem>::zero()
            }
        })
    };
    let epilogue = results.setup();
    let write = results.write(quote!(__r), total);
    let store = store_partial("__p", "__pf");
    let load = partial("__p", "__pf");
    // A commutative operator may fold in any order: the striped skeleton.
    let (rows_fn, order) = if kernel::is_commutative(f) {
        (quote!(reduce::reduce_rows_striped), quote!())
    } else {
        (quote!(reduce::reduce_rows), quote!(false,))
    };
    let finish_fn =
        if kernel::is_commutative(f) { quote!(reduce::finish_rows_striped) } else { quote!(reduce::finish_rows) };
    let setup = quote! {
        let __f = #fl;
        let __rows = #rows;
        #epilogue
        let __emit = |__r: usize, __t: Option<#elem>| #write;
    };
    let chunks = quote! {
        #setup
        let __meet = reduce::Meeting { parts: __parts, store: #store, load: #load, tickets: __tickets };
        #rows_fn(__rows, #order |__i| __a0.get_linear(__i), __f, __meet, __emit)
    };
    let finish = quote! {
        #setup
        #finish_fn(__rows.count(), __parts, #load, __f, __emit)
    };
    Ok(vec![(Role::Reduce, chunks), (Role::Finish, finish)])
}
