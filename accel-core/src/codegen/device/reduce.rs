//! Reduction kernels (`accel_kernels::reduce`): `fold`, `fold1`, `fold_all` and `fold_seg`, over
//! uniform rows or segments, with the seed (or the empty-row check) applied by the warp that
//! finishes a row.

use super::{Gen, Results, own_reads};
use crate::codegen::{elem_type, rank_of};
use crate::ir::visit::{self, map_children};
use crate::ir::{ArrayOp, Expr, ExprKind, Lambda, Var};
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

/// How a walker reads element `i` of row `row`: operand 0's element, computed in place when
/// delayed, in two steps so that a walker can issue the reads of all its elements before it
/// works any of them out. `prefetch(i)` makes the element's reads of manifest arrays at its own
/// index (which cannot fail and wait on nothing); `finish(p, i, row)` runs the rest of its code
/// on what they read. Without them a checked read inside the element (a CSR product's
/// `x[column]`) keeps each element's reads waiting on the previous element's check.
pub(super) struct Load {
    pub prefetch: TokenStream,
    /// `prefetch` with streaming loads (`View::at_streaming`), for the ranges walk: it reads each
    /// value once, and its loads should not push out of L2 what the element's other reads (a
    /// CSR product's gathers `x[column]`) come back for.
    pub prefetch_streaming: TokenStream,
    /// `|i| [element reads; RANGE_ITEMS]`: `prefetch_streaming` for the run of elements from `i`
    /// (a multiple of `RANGE_ITEMS`), 16 bytes a load, for a lane of the ranges walk whose run is
    /// whole.
    pub prefetch_run_streaming: TokenStream,
    pub finish: TokenStream,
    /// Whether `finish` reads the row (else a walker need not work rows out per element).
    pub reads_row: bool,
}

impl Load {
    /// The two steps as one `|i, row|` closure, for walkers that read one element at a time.
    pub(super) fn joined(&self) -> TokenStream {
        let (prefetch, finish) = (&self.prefetch, &self.finish);
        quote! {{
            let __prefetch = #prefetch;
            let __finish = #finish;
            move |__i: usize, __row: usize| __finish(__prefetch(__i), __i, __row)
        }}
    }
}

/// The [`Load`] of operand 0 of reduction `op`. A delayed operand of a segmented fold over a
/// vector that looks its own segment up (a nested map's per-row values read at each value's row:
/// `ExprKind::SegmentOf` of the fold's segments at the element's index) gets the row the walker
/// is in instead of a search. The reads of a delayed vector's element that `prefetch` makes are
/// its leading `let`s of manifest arrays read at the element's index (`ReadSite::Elementwise` or
/// `ReadSite::Flattened`, unchecked on the device).
pub(super) fn load(cg: &Gen, op: &ArrayOp) -> syn::Result<Load> {
    let (ArrayOp::Fold { a, .. } | ArrayOp::FoldAll { a, .. } | ArrayOp::FoldSeg { a, .. }) = op else {
        return Err(syn::Error::new(proc_macro2::Span::call_site(), format!("`{}` is not a reduction", op.name())));
    };
    let Some(ArrayOp::Generate { f, .. }) = kernel::as_generate(a) else {
        // A manifest operand: the read is the whole element.
        return Ok(Load {
            prefetch: quote!(|__i: usize| __a0.get_linear(__i)),
            prefetch_streaming: quote!(|__i: usize| __a0.at_streaming([__i])),
            prefetch_run_streaming: own_reads::runs_streaming(&[quote!(__a0)]),
            finish: quote!(|__x, _: usize, _: usize| __x),
            reads_row: false,
        });
    };
    if rank_of(a) != 1 {
        // The index of a delayed array of higher rank is unravelled from the linear one.
        return Ok(Load {
            prefetch: quote!(|__i: usize| __i),
            prefetch_streaming: quote!(|__i: usize| __i),
            prefetch_run_streaming: own_reads::runs_streaming(&[]),
            finish: quote!(|_, __i: usize, _: usize| __a0.get_linear(__i)),
            reads_row: false,
        });
    }
    let index = f.params[0].0.clone();
    let row = Var { id: visit::max_var_id_of_lambda(f) + 1, name: "row".into() };
    let mut given = 0;
    let body = match op {
        ArrayOp::FoldSeg { segments, .. } => given_segment(&f.body, segments, &mut vec![index.id], &row, &mut given),
        _ => (*f.body).clone(),
    };
    // The leading reads at the element's own index.
    let p = Var { id: row.id + 1, name: "prefetched".into() };
    let own_reads::Closures { prefetch, prefetch_streaming, prefetch_run_streaming, finish } =
        own_reads::split(&body, &index, p).closures(cg, index, row)?;
    Ok(Load { prefetch, prefetch_streaming, prefetch_run_streaming, finish, reads_row: given > 0 })
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
            // The value read whatever the flag (every entry lies in the column), so that the
            // two loads do not wait for each other: a fold of partials then waits for one round
            // trip a batch, not two (the rows walk's sparse product on an H200: a fifth less
            // time, docs/benchmarks.md).
            let __v = #p.get_linear(__j);
            (*#flags.add(__j)).then_some(__v)
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
/// or from a second kernel. With `walks_ranges` (a segmented fold over a vector,
/// [`kernel::walks_ranges`]) also the kernels of the walks over ranges of values, narrow and
/// wide, and their shared second launch (`accel_kernels::ranges`), which the host launches
/// instead when it selects one of those walks.
#[allow(clippy::too_many_arguments)]
pub(super) fn kernels(
    cg: &Gen,
    seeded: bool,
    f: &Lambda,
    rows: TokenStream,
    load: Load,
    walks_ranges: bool,
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
    let partial = partial("__p", "__pf");
    let elements = load.joined();
    // A commutative operator may fold in any order: the striped skeletons.
    let striped = kernel::is_commutative(f);
    let (rows_fn, order) = if striped {
        (quote!(reduce::reduce_rows_striped), quote!())
    } else {
        (quote!(reduce::reduce_rows), quote!(false,))
    };
    let finish_fn = if striped { quote!(reduce::finish_rows_striped) } else { quote!(reduce::finish_rows) };
    let setup = quote! {
        let __f = #fl;
        let __rows = #rows;
        #epilogue
        let __emit = |__r: usize, __t: Option<#elem>| #write;
    };
    let chunks = quote! {
        let __meet = reduce::Meeting { parts: __parts, store: #store, load: #partial, tickets: __tickets };
        #rows_fn(__rows, #order #elements, __f, __meet, __emit)
    };
    let finish = quote!(#finish_fn(__rows.count(), __parts, #partial, __f, __emit));
    let mut kernels = vec![(Role::Reduce, quote!(#setup #chunks)), (Role::Finish, quote!(#setup #finish))];
    if walks_ranges {
        // The walks by ranges of values, narrow and wide, two partials per range
        // (`accel_kernels::ranges`, `__parts` is 2), after the module's range starts for
        // `__width` values a range.
        let partials = quote!(let __partials = ranges::Partials { store: #store, load: #partial };);
        let (prefetch, prefetch_run, finish, reads_row) =
            (&load.prefetch_streaming, &load.prefetch_run_streaming, &load.finish, load.reads_row);
        let range_reduce = quote! {
            #setup
            #partials
            let __reads = ranges::Reads {
                prefetch: #prefetch,
                prefetch_run: #prefetch_run,
                finish: #finish,
                by_row: #reads_row,
            };
            ranges::reduce_ranges(__a1, __starts, __reads, __f, &__partials, __emit)
        };
        // Twice: the build for more resident blocks is launched where it does not spill.
        kernels.push((Role::RangeReduce, range_reduce.clone()));
        kernels.push((Role::RangeReduceDense, range_reduce));
        kernels.push((
            Role::WideReduce,
            quote! {
                #setup
                #partials
                ranges::reduce_wide(__a1, __starts, __width, #striped, #elements, __f, &__partials, __emit)
            },
        ));
        kernels.push((
            Role::RangeFinish,
            quote!(#setup #partials ranges::finish_ranges(__a1, __starts, __width, __f, &__partials, __emit)),
        ));
    }
    Ok(kernels)
}

/// The module-wide kernel of the ranges walk (see [`kernel::range_starts`]).
pub(super) fn range_starts() -> TokenStream {
    let name = format_ident!("{}", kernel::range_starts::NAME);
    quote! {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn #name(w0: u64, w1: u64, w2: u64, w3: u64, w4: u64) {
            let __segments = SegView { count: w0 as usize, total: w1 as usize, offsets: w2 as *const usize };
            unsafe { ranges::range_starts(__segments, w4 as usize, w3 as *mut usize) }
        }
    }
}
