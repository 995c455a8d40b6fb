//! Elementwise kernels (`accel_kernels::generate`): one body per operation, the element at the
//! output's index `__ix` (row-major position `__i`): a `generate` (every producer is lowered to
//! one by the pipeline), `concat`, `slice_row`/`slice_col`, 1-D stencils and segment lengths;
//! 2-D stencils run the `accel_kernels::stencil` skeleton instead.

use super::{Gen, index_body, not_here};
use crate::codegen::{elem_type, rank_of, var_ident};
use crate::ir::{ArrayOp, Axis, Boundary, Expr, Lambda, StencilShape};
use crate::kernel::Role;
use crate::types::Type;
use accel_kernels::boundary::Rule;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The body of the one kernel of elementwise operation `op`, writing `out` of type `ty`, in the
/// skeleton of its `role` (`kernel::elementwise_role`).
pub(super) fn body(cg: &Gen, op: &ArrayOp, ty: &Type, out: &Ident, role: Role) -> syn::Result<TokenStream> {
    use ArrayOp::*;
    let skeleton =
        if role == Role::GenerateEach { quote!(generate::generate_each) } else { quote!(generate::generate) };
    let elementwise = |value: TokenStream| {
        let rank = ty.as_array().map_or(0, |(_, r)| r);
        quote! {
            #skeleton(
                #out.len(),
                |__i| {
                    let __ix: [usize; #rank] = __rt::unravel(__i, #out.shape);
                    #value
                },
                |__i, __v| #out.set_linear(__i, __v),
            )
        }
    };
    let at = |a: &str, ix: TokenStream| {
        let a = format_ident!("{a}");
        quote!(#a.at(#ix))
    };
    let last = |e: &Expr| rank_of(e) - 1;
    let value = match op {
        Generate { shape, f, .. } => index_body(cg, f, rank_of(shape))?,
        Concat { a, .. } => {
            let d = last(a);
            let first = at("__a0", quote!(__ix));
            let second = at("__a1", quote!({ let mut __j = __ix; __j[#d] -= __a0.shape[#d]; __j }));
            quote!(if __ix[#d] < __a0.shape[#d] { #first } else { #second })
        }
        Slice { axis, .. } => {
            let ix =
                if *axis == Axis::Rows { quote!([__s0 as usize, __ix[0]]) } else { quote!([__ix[0], __s0 as usize]) };
            at("__a0", ix)
        }
        Stencil { shape, boundary, f, .. } if shape.rank() == 2 => {
            return stencil2d(cg, *shape, boundary, f, out);
        }
        Stencil { shape, boundary, f, .. } => stencil(cg, *shape, boundary, f)?,
        SegmentLengths(_) => quote!({
            let (__s, __e) = __a0.range(__i);
            __e - __s
        }),
        Producer(_) | Fold { .. } | FoldAll { .. } | FoldSeg { .. } | Scan { .. } | ScanSeg { .. } | Permute { .. } => {
            return Err(not_here(op, "elementwise"));
        }
        Expand { .. } | Filter { .. } | SegmentsFromLengths(_) | Unit(_) | The(_) | Unzip(_) | Reshape { .. } => {
            return Err(not_here(op, "elementwise"));
        }
        Awhile { .. } | SegmentOffsets(_) | NestedFromParts { .. } | NestedValues(_) | NestedSegments(_) => {
            return Err(not_here(op, "elementwise"));
        }
        NestedMap { .. } | Seq(_) | ExpandPermute { .. } => return Err(not_here(op, "elementwise")),
    };
    Ok(elementwise(value))
}

/// The element of a 1-D stencil at `__ix`: its neighbours, then the closure. Where the whole
/// neighbourhood lies inside the array (all but a rim of `radius` elements), the neighbours are
/// read at constant offsets from the element's own position; elsewhere through the boundary.
fn stencil(cg: &Gen, shape: StencilShape, boundary: &Boundary, f: &Lambda) -> syn::Result<TokenStream> {
    let r = shape.radius();
    let edge = edge_read(shape, boundary, f);
    let names: Vec<_> = f.params.iter().map(|(v, _)| var_ident(v)).collect();
    let through_boundary = (-(r as isize)..=r as isize).map(|o| quote!(__edge([__ix[0] as isize + #o])));
    let inner = (0..=2 * r).map(|c| quote!(__a0.get_linear(__ix[0] - #r + #c)));
    let body = cg.scalar(&f.body)?;
    Ok(quote!({
        #edge
        let (#(#names,)*) = if __ix[0] >= #r && __ix[0] + #r < __a0.shape[0] {
            (#(#inner,)*)
        } else {
            (#(#through_boundary,)*)
        };
        #body
    }))
}

/// A 2-D stencil: the `stencil` skeleton, the closure taking the window's elements in row-major
/// order.
fn stencil2d(cg: &Gen, shape: StencilShape, boundary: &Boundary, f: &Lambda, out: &Ident) -> syn::Result<TokenStream> {
    let k = 2 * shape.radius() + 1;
    let edge = edge_read(shape, boundary, f);
    let elem = elem_type(f.params[0].1.as_elem().expect("an element"));
    let names: Vec<_> = f.params.iter().map(|(v, _)| var_ident(v)).collect();
    let window = (0..k).flat_map(|row| (0..k).map(move |c| quote!(__n[#row][#c])));
    let body = cg.scalar(&f.body)?;
    Ok(quote! {
        #edge
        stencil::stencil2d::<_, _, #k>(
            __a0.shape[0],
            __a0.shape[1],
            stencil::Reads { inside: |__r: usize, __c: usize| __a0.at([__r, __c]), edge: |__r: isize, __c: isize| __edge([__r, __c]) },
            |__n: &[[#elem; #k]; #k]| { let (#(#names,)*) = (#(#window,)*); #body },
            |__i, __v| #out.set_linear(__i, __v),
        )
    })
}

/// `__edge`: the stencil's input at a position that may lie outside it, through the boundary
/// rule (only a constant boundary leaves the array; the others always land inside).
fn edge_read(shape: StencilShape, boundary: &Boundary, f: &Lambda) -> TokenStream {
    let rank = shape.rank();
    let kind = match boundary.rule() {
        Rule::Clamp => quote!(Clamp),
        Rule::Mirror => quote!(Mirror),
        Rule::Wrap => quote!(Wrap),
        Rule::Constant => quote!(Constant),
    };
    let elem = elem_type(f.params[0].1.as_elem().expect("an element"));
    let outside = if boundary.rule() == Rule::Constant { quote!(__s0) } else { quote!(<#elem as DeviceElem>::zero()) };
    let coords = (0..rank).map(
        |d| quote!(::accel_kernels::boundary::resolve(::accel_kernels::boundary::Rule::#kind, __p[#d], __a0.shape[#d])),
    );
    let cs: Vec<_> = (0..rank).map(|d| format_ident!("__c{d}")).collect();
    quote! {
        let __edge = |__p: [isize; #rank]| match (#(#coords,)*) {
            (#(Some(#cs),)*) => __a0.at([#(#cs),*]),
            _ => #outside,
        };
    }
}
