//! Reduction kernels (`accel_kernels::reduce`): `fold`, `fold1`, `fold_all` and `fold_seg`, over
//! uniform rows or segments, with the seed (or the empty-row check) applied by the warp that
//! finishes a row.

use super::{Gen, Results};
use crate::codegen::{elem_type, rank_of};
use crate::ir::visit::{self, map_children};
use crate::ir::{ArrayOp, Expr, ExprKind, Lambda, Var};
use crate::kernel::{self, Role};
use crate::types::{ElemType, Type};
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

/// How the walker reads element `i` of row `row` (`|i, row| ..`): operand 0's element, computed
/// in place when delayed. A delayed operand of a segmented fold over a vector that looks its own
/// segment up (a nested map's per-row values read at each value's row: `ExprKind::SegmentOf` of
/// the fold's segments at the element's index) gets the row the walker is in instead of a search.
pub(super) fn load(cg: &Gen, op: &ArrayOp) -> syn::Result<TokenStream> {
    if let ArrayOp::FoldSeg { a, segments, .. } = op
        && rank_of(a) == 1
        && let Some(ArrayOp::Generate { f, .. }) = kernel::as_generate(a)
    {
        let row = Var { id: visit::max_var_id_of_lambda(f) + 1, name: "row".into() };
        let mut given = 0;
        let body = given_segment(&f.body, segments, &mut vec![f.params[0].0.id], &row, &mut given);
        if given > 0 {
            let usize_t = Type::Elem(ElemType::USIZE);
            let l = cg.lambda(&Lambda { params: vec![f.params[0].clone(), (row, usize_t)], body: Box::new(body) })?;
            return Ok(quote!(#l));
        }
    }
    Ok(quote!(|__i: usize, _: usize| __a0.get_linear(__i)))
}

/// `e` with each lookup of the segment of `segments` holding the element at the index (a
/// variable of `index`, the closure's parameter or a `let` of it) replaced by `row`, counted in
/// `given`.
fn given_segment(e: &Expr, segments: &Expr, index: &mut Vec<u32>, row: &Var, given: &mut usize) -> Expr {
    let is_index = |x: &Expr, index: &[u32]| matches!(&x.kind, ExprKind::Var(v) if index.contains(&v.id));
    match &e.kind {
        ExprKind::SegmentOf { segments: s, index: i } if **s == *segments && is_index(i, index) => {
            *given += 1;
            Expr::var(row.clone(), e.ty.clone())
        }
        ExprKind::Let { var, value, .. } if is_index(value, index) => {
            index.push(var.id);
            map_children(e, &mut |c| given_segment(c, segments, index, row, given))
        }
        _ => map_children(e, &mut |c| given_segment(c, segments, index, row, given)),
    }
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

/// fold, fold1, fold_all, fold_seg (`elements` read by [`load`]): per-chunk totals, and the row
/// totals with the seed (row `r`'s total is result `r`) from the last part of each row to finish,
/// or from a second kernel. With `by_ranges` (a segmented fold over a vector) the kernels also
/// hold the walk over fixed ranges of values (`accel_kernels::ranges`), which the host selects
/// with the `walk` scratch word.
#[allow(clippy::too_many_arguments)]
pub(super) fn kernels(
    cg: &Gen,
    seeded: bool,
    f: &Lambda,
    rows: TokenStream,
    elements: TokenStream,
    by_ranges: bool,
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
        let __meet = reduce::Meeting { parts: __parts, store: #store, load: #load, tickets: __tickets };
        #rows_fn(__rows, #order #elements, __f, __meet, __emit)
    };
    let finish = quote!(#finish_fn(__rows.count(), __parts, #load, __f, __emit));
    if !by_ranges {
        return Ok(vec![(Role::Reduce, quote!(#setup #chunks)), (Role::Finish, quote!(#setup #finish))]);
    }
    // The walk the host chose (`abi::walk`): rows split into parts, or fixed ranges of values
    // with two partials per range (`accel_kernels::ranges`, `__parts` is 2).
    let partials = quote!(let __partials = ranges::Partials { store: #store, load: #load };);
    let chunks = quote! {
        #setup
        if __walk == abi::walk::RANGES {
            #partials
            ranges::reduce_ranges(__a1, #elements, __f, &__partials, __emit)
        } else {
            #chunks
        }
    };
    let finish = quote! {
        #setup
        if __walk == abi::walk::RANGES {
            #partials
            ranges::finish_ranges(__a1, __f, &__partials, __emit)
        } else {
            #finish
        }
    };
    Ok(vec![(Role::Reduce, chunks), (Role::Finish, finish)])
}
