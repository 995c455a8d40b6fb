//! Scan kernels (`accel_kernels::scan`): `scanl`, `scanr` and their variants over the rows of a
//! regular array (one pass with decoupled look-back) or over segments (chunk totals, carries,
//! the scan), and the module-wide exclusive prefix sum of `usize` counts that `expand`, `filter`
//! and segments from lengths use.

use super::reduce::{partial, store_partial};
use super::{Gen, Results};
use crate::codegen::rank_of;
use crate::ir::{Expr, Lambda, ScanKind};
use crate::kernel::{self, Role};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Rows of a scan of a regular array: its innermost dimension.
pub(super) fn innermost_rows(a: &Expr) -> TokenStream {
    let d = rank_of(a) - 1;
    quote!(Uniform { rows: __rt::outer(__a0.shape), len: __a0.shape[#d] })
}

/// The scan family over rows (plain or segmented): chunk totals, carries, then the scan.
#[allow(clippy::too_many_arguments)]
pub(super) fn kernels(
    cg: &Gen,
    kind: ScanKind,
    reverse: bool,
    seeded: bool,
    f: &Lambda,
    rows: TokenStream,
    outs: &[Ident],
    results: &Results,
    segmented: bool,
) -> syn::Result<Vec<(Role, TokenStream)>> {
    let fl = cg.lambda(f)?;
    // Rows of a regular array: one pass over block tiles of `items` elements a thread.
    let single_pass = if segmented { None } else { f.result_type().as_elem().and_then(kernel::single_pass_items) };
    // Scan order is descending for right scans: the earlier operand in scan order is the later
    // element, so the combining function takes its operands the other way round.
    let g = if reverse { quote!(|__x, __y| __f(__y, __x)) } else { quote!(__f) };
    let seed = if seeded { quote!(Some(__s0)) } else { quote!(None) };
    let epilogue = results.setup();
    let setup = quote! {
        let __f = #fl;
        let __g = #g;
        let __rows = #rows;
        #epilogue
    };
    let write = |at: TokenStream, v: TokenStream| results.write(at, v);
    let store = store_partial("__p", "__pf");
    // Chunk totals do not depend on the order of a commutative operator's operands.
    let chunks = if kernel::is_commutative(f) {
        quote! {
            #setup
            reduce::reduce_chunks_striped(__rows, __parts, |__i| __a0.get_linear(__i), __g, #store)
        }
    } else {
        quote! {
            #setup
            reduce::reduce_chunks(__rows, __parts, #reverse, |__i| __a0.get_linear(__i), __g, #store)
        }
    };
    // Per row: the seed's own slot of a seeded scan, and the total of an empty row.
    let row_end = match (kind, reverse) {
        (ScanKind::WithSeed, false) => {
            let w = write(quote!(__s + __r), quote!(__s0));
            quote!({ let (__s, _) = __rows.bounds(__r); #w })
        }
        (ScanKind::WithSeed, true) => {
            let w = write(quote!(__e + __r), quote!(__s0));
            quote!({ let (_, __e) = __rows.bounds(__r); #w })
        }
        (ScanKind::ExclusiveAndTotal, _) => {
            let total = &outs[1];
            quote!({ let (__s, __e) = __rows.bounds(__r); if __s == __e { #total.set_linear(__r, __s0) } })
        }
        (ScanKind::Inclusive, _) => quote!({}),
    };
    let load = partial("__p", "__pf");
    let carry_store = store_partial("__c", "__cf");
    let carries = quote! {
        #setup
        let __load = #load;
        scan::scan_partials(
            __rows.count(),
            __parts,
            #reverse,
            |_| #seed,
            |__r, __k| if __parts > 1 { __load(__r, __k) } else { None },
            __g,
            #carry_store,
            |__r, _| #row_end,
        )
    };
    let emit = match (kind, reverse) {
        (ScanKind::Inclusive, _) => write(quote!(__i), quote!(__incl)),
        (ScanKind::WithSeed, false) => write(quote!(__i + __r + 1), quote!(__incl)),
        (ScanKind::WithSeed, true) => write(quote!(__i + __r), quote!(__incl)),
        (ScanKind::ExclusiveAndTotal, _) => {
            // Never under an epilogue (see `kernel::epilogue_source`).
            let (out, total) = (&outs[0], &outs[1]);
            let is_last = if reverse { quote!(__i == __s) } else { quote!(__i + 1 == __e) };
            quote! {
                #out.set_linear(__i, match __excl { Some(__v) => __v, None => __s0 });
                let (__s, __e) = __rows.bounds(__r);
                if #is_last { #total.set_linear(__r, __incl) }
            }
        }
    };
    let carry = partial("__c", "__cf");
    let chunks_scan = quote! {
        scan::scan_chunks(__rows, __parts, #reverse, #carry, |__i| __a0.get_linear(__i), __g, |__r, __i, __excl, __incl| { #emit })
    };
    // Rows of a regular array: one pass with decoupled look-back when they have several parts
    // (the executor zeroes the flags and sizes the tiles), else from the carries (the seeds);
    // segmented rows keep the three phases.
    let scan = if let Some(items) = single_pass {
        quote! {
            #setup
            if __parts > 1 {
                let __status = scan::Lookback::in_scratch(__p.ptr, __pf, __c.ptr, __cf, __rows.count() * __parts);
                scan::scan_single_pass::<_, #items>(
                    __rows,
                    __parts,
                    #reverse,
                    __status,
                    |_| #seed,
                    |__i| __a0.get_linear(__i),
                    __g,
                    |__r, __i, __excl, __incl| { #emit },
                    |__r| #row_end,
                    |__lo, __hi| __a0.prefetch_l2(__lo, __hi),
                )
            } else {
                #chunks_scan
            }
        }
    } else {
        quote! {
            #setup
            #chunks_scan
        }
    };
    Ok(if segmented {
        vec![(Role::Chunks, chunks), (Role::Carries, carries), (Role::Scan, scan)]
    } else {
        vec![(Role::Carries, carries), (Role::Scan, scan)]
    })
}

/// The module-wide exclusive prefix sum of `usize` counts (see [`kernel::offsets_scan`]): in one
/// pass with decoupled look-back over several chunks, else one warp from 0, so that the offsets of
/// a small `filter` or `expand` cost one launch.
pub(super) fn offsets_scan() -> TokenStream {
    let scan = format_ident!("{}", kernel::offsets_scan::SCAN);
    let items = kernel::offsets_scan::ITEMS;
    quote! {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn #scan(
            w0: u64, w1: u64, w2: u64, w3: u64, w4: u64, w5: u64, w6: u64, w7: u64, w8: u64, w9: u64, w10: u64,
            w11: u64, w12: u64,
        ) {
            // w0 (the error slot), w3 and w6 (the scratch vectors' lengths) go unread: it cannot fail.
            let __len = w1 as usize;
            let __rows = Uniform { rows: 1, len: __len };
            let __parts = w2 as usize;
            let __counts = w9 as *const usize;
            let __offsets = w10 as *mut usize;
            let __add = |a: usize, b: usize| a.wrapping_add(b);
            let __load = |__i| unsafe { *__counts.add(__i) };
            let (__total, __mirror) = (w11 as *mut usize, w12 as *mut usize);
            let __emit = |_, __i, __excl: Option<usize>, _| unsafe {
                let __v = __excl.unwrap_or(0);
                *__offsets.add(__i) = __v;
                if __i + 1 == __len {
                    if !__total.is_null() { *__total = __v }
                    if !__mirror.is_null() { *__mirror = __v }
                }
            };
            unsafe {
                if __parts > 1 {
                    let (__partials, __carries) = (w4 as *mut usize, w7 as *mut usize);
                    let __status = scan::Lookback::in_scratch(__partials, w5 as *mut bool, __carries, w8 as *mut bool, __parts);
                    scan::scan_single_pass::<_, #items>(__rows, __parts, false, __status, |_| Some(0usize), __load, __add, __emit, |_| {},
                        |__lo, __hi| usize::prefetch_l2(__counts.cast_mut(), __lo, __hi))
                } else {
                    scan::scan_chunks(__rows, 1, false, |_, _| None, __load, __add, __emit)
                }
            }
        }
    }
}
