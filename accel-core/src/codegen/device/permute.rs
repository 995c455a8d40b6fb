//! Permute kernels (`accel_kernels::atomic`): the scatter, combining colliding writes with a
//! native atomic, a compare-and-swap loop or a lock per destination, and the kernel that writes
//! delayed defaults first; and the kernels of a permute fused with an expand
//! (`accel_kernels::expand::spread`), which combine the same way.

use super::{Gen, index_body};
use crate::codegen::{ix_to_array, rank_of};
use crate::ir::{ArrayOp, Expr, Lambda};
use crate::kernel::{self, PermuteCombine, Role};
use crate::types::ElemType;
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
        Ok(vec![(Role::Defaults, defaults_kernel(out)), scatter])
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
    let combine = Combine::new(cg, combine)?;
    let update = combine.update(out);
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
            |_, (__keep, __d, __x)| #update,
        )
    };
    Ok(combine.around(out, scatter))
}

/// The kernels of an `expand` fused with `permute` (fused form 4) writing `out`: the delayed
/// defaults if any, the counts (the total and the longest count), then the spread scatter
/// (`accel_kernels::expand`). Operand 0 is the expand's source, operand 1 delayed defaults.
pub(super) fn expand_permute(cg: &Gen, op: &ArrayOp, out: &Ident) -> syn::Result<Vec<(Role, TokenStream)>> {
    let ArrayOp::ExpandPermute { defaults, count, value, target, elem, combine, .. } = op else {
        return Err(super::not_here(op, "fused expand and permute"));
    };
    let dst_rank = rank_of(defaults);
    let (c, v, t, e) = (cg.lambda(count)?, cg.lambda(value)?, cg.lambda(target)?, cg.lambda(elem)?);
    let ct = count.result_type().as_elem().and_then(ElemType::as_scalar).expect("an integer count");
    let checked = super::expand::checked_count(quote!((#c)(__a0.get_linear(__i))), ct);
    let counts = quote!(expand::counts(__n, __counts, __sizes, |__i| #checked));
    let recount = super::expand::checked_count(quote!((#c)(__x)), ct);
    let combine = Combine::new(cg, combine)?;
    let update = combine.update(out);
    let dst = ix_to_array(dst_rank, quote!(__dst));
    // As in `permute`: the source element is computed even where it is dropped.
    let too_many = quote!(|__longest: usize| __cx.fail(abi::code::TOO_MANY_OUTPUTS, 0, &[__n], &[], __longest as u64));
    let scatter = quote! {
        if let Some(__strategy) = expand::chosen(__strategy, __n, __sizes, #too_many) { expand::spread(
            __strategy,
            __n,
            __offsets,
            |__s| __a0.get_linear(__s),
            |__i, __x| #recount,
            |__x, __j, __k| {
                let __y = (#v)(__x, __j);
                let __x = (#e)(__k, __y);
                let (__keep, __dst) = (#t)(__k, __y);
                let __d: [usize; #dst_rank] = if __keep { #dst } else { [0; #dst_rank] };
                #update
            },
        ) }
    };
    let mut kernels = Vec::new();
    if kernel::as_generate(defaults).is_some() {
        kernels.push((Role::Defaults, defaults_kernel(out)));
    }
    kernels.push((Role::Counts, counts));
    kernels.push((Role::Spread, combine.around(out, scatter)));
    Ok(kernels)
}

/// The kernel that writes delayed defaults (operand 1) into the output.
fn defaults_kernel(out: &Ident) -> TokenStream {
    quote!(generate::for_each_index(#out.len(), |__i| #out.set_linear(__i, __a1.get_linear(__i))))
}

/// How a scatter combines an element into its destination (`kernel::PermuteCombine`), as code.
struct Combine {
    how: PermuteCombine,
    closure: TokenStream,
}

impl Combine {
    fn new(cg: &Gen, combine: &Lambda) -> syn::Result<Combine> {
        Ok(Combine { how: kernel::permute_combine(combine), closure: cg.lambda(combine)? })
    }

    /// The update of one source: element `__x` into destination `__d` (an index array) of `out`
    /// when `__keep`, a destination out of range recorded as the permute's error.
    fn update(&self, out: &Ident) -> TokenStream {
        let c = &self.closure;
        let apply = match self.how {
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
        quote! {
            if __keep {
                if __rt::contains(#out.shape, __d) {
                    let __j = __rt::ravel(#out.shape, __d);
                    #apply;
                } else {
                    __cx.fail(abi::code::INDEX_OUT_OF_BOUNDS, abi::site::PERMUTE, &__d, &#out.shape, 0);
                }
            }
        }
    }

    /// `scatter` as the whole kernel body: inside `permute_add` for `+`, which gives it its
    /// `__target`.
    fn around(&self, out: &Ident, scatter: TokenStream) -> TokenStream {
        match self.how {
            PermuteCombine::Add => quote!(atomic::permute_add(#out.ptr, #out.len(), |__target| #scatter)),
            PermuteCombine::Min | PermuteCombine::Max | PermuteCombine::CompareAndSwap | PermuteCombine::Lock => {
                scatter
            }
        }
    }
}
