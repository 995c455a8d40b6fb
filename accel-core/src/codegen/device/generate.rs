//! Elementwise kernels (`accel_kernels::generate`): one body per operation, the element at the
//! output's index `__ix` (row-major position `__i`): a `generate` (every producer is lowered to
//! one by the pipeline), `concat`, `slice_row`/`slice_col`, stencils and segment lengths.

use super::{Gen, index_body, not_here};
use crate::codegen::{elem_type, rank_of, var_ident};
use crate::ir::{ArrayOp, Axis, Boundary, Expr, Lambda, StencilShape};
use crate::kernel;
use crate::types::Type;
use accel_kernels::boundary::Rule;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The body of the one kernel of elementwise operation `op`, writing `out` of type `ty`.
pub(super) fn body(cg: &Gen, op: &ArrayOp, ty: &Type, out: &Ident) -> syn::Result<TokenStream> {
    use ArrayOp::*;
    let skeleton =
        if kernel::is_compute_heavy(op) { quote!(generate::generate_each) } else { quote!(generate::generate) };
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

/// The element of a stencil at `__ix`: its neighbours, then the closure. Where the whole
/// neighbourhood lies inside the array (all but a rim of `radius` elements), the neighbours are
/// read at constant offsets from the element's own position; elsewhere through the boundary.
fn stencil(cg: &Gen, shape: StencilShape, boundary: &Boundary, f: &Lambda) -> syn::Result<TokenStream> {
    let radius = shape.radius() as isize;
    let rule = boundary.rule();
    let kind = match rule {
        Rule::Clamp => quote!(Clamp),
        Rule::Mirror => quote!(Mirror),
        Rule::Wrap => quote!(Wrap),
        Rule::Constant => quote!(Constant),
    };
    let offsets: Vec<Vec<isize>> = if shape.rank() == 1 {
        (-radius..=radius).map(|d| vec![d]).collect()
    } else {
        (-radius..=radius).flat_map(|r| (-radius..=radius).map(move |c| vec![r, c])).collect()
    };
    let elem = elem_type(f.params[0].1.as_elem().expect("an element"));
    // Only a constant boundary leaves the array; the others always land inside.
    let outside = if rule == Rule::Constant { quote!(__s0) } else { quote!(<#elem as DeviceElem>::zero()) };
    let names: Vec<_> = f.params.iter().map(|(v, _)| var_ident(v)).collect();
    let through_boundary = offsets.iter().map(|off| {
        let coords =
            off.iter().enumerate().map(|(d, o)| quote!(::accel_kernels::boundary::resolve(::accel_kernels::boundary::Rule::#kind, __ix[#d] as isize + #o, __a0.shape[#d])));
        let cs: Vec<_> = (0..off.len()).map(|d| format_ident!("__c{d}")).collect();
        quote! {
            match (#(#coords,)*) {
                (#(Some(#cs),)*) => __a0.at([#(#cs),*]),
                _ => #outside,
            }
        }
    });
    // Inside: element `corner + row * len + col` for the neighbour at (row - r, col - r), where
    // `corner` is the position of the neighbour at (-r, -r).
    let r = radius as usize;
    let inner = offsets.iter().map(|off| {
        let (row, col) = match off[..] {
            [c] => (0, (c + radius) as usize),
            [rr, c] => ((rr + radius) as usize, (c + radius) as usize),
            _ => unreachable!("stencils are rank 1 or 2"),
        };
        quote!(__a0.get_linear(__corner + #row * __len + #col))
    });
    let (interior, corner, len) = if shape.rank() == 1 {
        (quote!(__ix[0] >= #r && __ix[0] + #r < __a0.shape[0]), quote!(__ix[0] - #r), quote!(0usize))
    } else {
        (
            quote!(__ix[0] >= #r && __ix[0] + #r < __a0.shape[0] && __ix[1] >= #r && __ix[1] + #r < __a0.shape[1]),
            quote!((__ix[0] - #r) * __a0.shape[1] + __ix[1] - #r),
            quote!(__a0.shape[1]),
        )
    };
    let body = cg.scalar(&f.body)?;
    Ok(quote!({
        let (#(#names,)*) = if #interior {
            let (__corner, __len): (usize, usize) = (#corner, #len);
            (#(#inner,)*)
        } else {
            (#(#through_boundary,)*)
        };
        #body
    }))
}
