//! Permute kernels (`accel_kernels::atomic`): the scatter, combining colliding writes with a
//! native atomic, a compare-and-swap loop or a lock per destination, and the kernel that writes
//! delayed defaults first.

use super::{Gen, index_body};
use crate::codegen::{ix_to_array, rank_of};
use crate::ir::{Expr, Lambda};
use crate::kernel::{self, PermuteCombine, Role};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The kernels of `permute(defaults, f, combine, a)` writing `out`.
pub(super) fn kernels(
    cg: &Gen,
    defaults: &Expr,
    f: &Lambda,
    combine: &Lambda,
    a: &Expr,
    out: &Ident,
) -> syn::Result<Vec<(Role, TokenStream)>> {
    let delayed = kernel::as_generate(a).is_some();
    let scatter = (Role::Scatter, permute(cg, f, combine, rank_of(a), rank_of(defaults), out, delayed)?);
    if kernel::as_generate(defaults).is_some() {
        let init = quote!(generate::for_each_index(#out.len(), |__i| #out.set_linear(__i, __a1.get_linear(__i))));
        Ok(vec![(Role::Defaults, init), scatter])
    } else {
        Ok(vec![scatter])
    }
}

/// The scatter of permute (from a delayed source when `delayed`).
fn permute(
    cg: &Gen,
    f: &Lambda,
    combine: &Lambda,
    rank: usize,
    dst_rank: usize,
    out: &Ident,
    delayed: bool,
) -> syn::Result<TokenStream> {
    let target = index_body(cg, f, rank)?;
    let dst = ix_to_array(dst_rank, quote!(__dst));
    let c = cg.lambda(combine)?;
    let how = kernel::permute_combine(combine);
    let apply = match how {
        // Through `permute_add`'s target: a block's copy in shared memory when the output is small.
        PermuteCombine::Add => quote!(__target.add(__j, __x)),
        PermuteCombine::Min => quote!(atomic::atomic_min(#out.ptr, __j, __x)),
        PermuteCombine::Max => quote!(atomic::atomic_max(#out.ptr, __j, __x)),
        PermuteCombine::CompareAndSwap => {
            quote!(atomic::AtomicElem::atomic_update(#out.ptr, __j, |__old| (#c)(__x, __old)))
        }
        PermuteCombine::Lock => quote! {
            atomic::with_lock(__locks, __j, || {
                let __old = #out.get_linear(__j);
                #out.set_linear(__j, (#c)(__x, __old));
            })
        },
    };
    // A delayed source element is computed even where it is dropped, so that it fails where the
    // array it stands for would have. Targets and sources are computed for a thread's indices
    // before any update (`generate::generate`), so that their loads overlap.
    let x = if delayed { quote!(__a0.at(__ix)) } else { quote!(__a0.get_linear(__i)) };
    let scatter = quote! {
        generate::generate(
            __a0.len(),
            |__i| {
                let __ix: [usize; #rank] = __rt::unravel(__i, __a0.shape);
                let __x = #x;
                let (__keep, __dst) = #target;
                let __d: [usize; #dst_rank] = if __keep { #dst } else { [0; #dst_rank] };
                (__keep, __d, __x)
            },
            |_, (__keep, __d, __x)| {
                if __keep {
                    if __rt::contains(#out.shape, __d) {
                        let __j = __rt::ravel(#out.shape, __d);
                        #apply;
                    } else {
                        __cx.fail(abi::code::INDEX_OUT_OF_BOUNDS, abi::site::PERMUTE, &__d, &#out.shape, 0);
                    }
                }
            },
        )
    };
    Ok(match how {
        PermuteCombine::Add => quote!(atomic::permute_add(#out.ptr, #out.len(), |__target| #scatter)),
        _ => scatter,
    })
}
