//! Kernels of the operations whose result size comes from per-element counts
//! (`accel_kernels::expand`): a counts kernel, the module's offsets scan between launches, then
//! (for `expand` and `filter`) the write of each element at its offset.

use super::Gen;
use crate::codegen::elem_type;
use crate::ir::{Expr, Lambda};
use crate::kernel::Role;
use crate::types::{ElemType, ScalarType};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `expand(count, value)`: `count(x)` outputs per source element `x`, output `j` of `x` being
/// `value(x, j)`.
pub(super) fn expand(cg: &Gen, count: &Lambda, value: &Lambda, out: &Ident) -> syn::Result<Vec<(Role, TokenStream)>> {
    let ct = count.result_type().as_elem().and_then(ElemType::as_scalar).expect("an integer count");
    let c = cg.lambda(count)?;
    let v = cg.lambda(value)?;
    let counts = counts(quote!((#c)(__a0.get_linear(__i))), ct, quote!(abi::code::NEGATIVE_COUNT));
    let t = elem_type(value.params[1].1.as_elem().expect("an index"));
    let write = quote! {
        generate::for_each_index(#out.len(), |__k| {
            let __s = expand::source_of(__offsets, __n, __k);
            let __j = __k - *__offsets.add(__s);
            #out.set_linear(__k, (#v)(__a0.get_linear(__s), __j as #t));
        })
    };
    Ok(vec![(Role::Counts, counts), (Role::Write, write)])
}

/// `filter(pred)`: the elements that satisfy `pred`, in order.
pub(super) fn filter(cg: &Gen, pred: &Lambda, out: &Ident) -> syn::Result<Vec<(Role, TokenStream)>> {
    let p = cg.lambda(pred)?;
    let counts = counts_with_end(quote!((#p)(__a0.get_linear(__i)) as usize));
    let write = quote! {
        generate::for_each_index(__n, |__i| {
            let __x = __a0.get_linear(__i);
            if (#p)(__x) { #out.set_linear(*__offsets.add(__i), __x) }
        })
    };
    // Its scratch words carry the total's word and host mirror where the others carry the counts
    // and the offsets (`Role::Compact`).
    let compact = quote! {{
        let (__total, __mirror) = (__counts, __offsets as *mut usize);
        expand::compact_in_block(
            __n,
            |__i| __a0.get_linear(__i),
            |__x| (#p)(__x),
            |__k, __x| #out.set_linear(__k, __x),
            __total,
            __mirror,
        )
    }};
    Ok(vec![(Role::Counts, counts), (Role::Write, write), (Role::Compact, compact)])
}

/// Segments from the lengths `l`: the counts are the lengths (checked for being negative); the
/// offsets scan is the result.
pub(super) fn segments_from_lengths(l: &Expr) -> Vec<(Role, TokenStream)> {
    let lt = l.ty.as_array().and_then(|(e, _)| e.as_scalar()).expect("integer lengths");
    vec![(Role::Counts, counts(quote!(__a0.get_linear(__i)), lt, quote!(abi::code::NEGATIVE_LENGTH)))]
}

/// The counts kernel: `count` as `usize` per source element, a negative one recorded as `code`.
fn counts(count: TokenStream, t: ScalarType, code: TokenStream) -> TokenStream {
    counts_with_end(checked_count_as(count, t, code))
}

/// The counts kernel writing `count` (a `usize`) for each source `__i < __n`, and the 0 after
/// them that the offsets scan turns into the total: launched over `n + 1` items, so that no
/// zeroing of the counts precedes it.
fn counts_with_end(count: TokenStream) -> TokenStream {
    quote!(generate::for_each_index(__n + 1, |__i| *__counts.add(__i) = if __i < __n { #count } else { 0 }))
}

/// The count `count` of source `__i` of `expand` as `usize`, a negative one recorded (and
/// counted as 0).
pub(super) fn checked_count(count: TokenStream, t: ScalarType) -> TokenStream {
    checked_count_as(count, t, quote!(abi::code::NEGATIVE_COUNT))
}

/// [`checked_count`], recording a negative value as `code`.
fn checked_count_as(count: TokenStream, t: ScalarType, code: TokenStream) -> TokenStream {
    if t.is_signed() {
        quote!({
            let __c = #count;
            if __c < 0 {
                __cx.fail(#code, 0, &[__i], &[__n], __c as i64 as u64);
                0
            } else {
                __c as usize
            }
        })
    } else {
        quote!(((#count) as usize))
    }
}
