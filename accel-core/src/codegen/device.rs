//! Code generation for the GPU: the `lib.rs` of a `no_std` crate that instantiates the
//! `accel-kernels` skeletons with each program's closures, built for `nvptx64-nvidia-cuda` by
//! `accel-build` into one PTX module.
//!
//! Each launched collective node ([`kernel::launched`]) gets the kernels [`kernel::roles`] lists,
//! named by [`kernel::kernel_name`]; their parameters are `u64` words laid out as [`crate::kernel`]
//! describes, and the CUDA executor of `accel-runtime` passes exactly those words. All kernels of
//! a node share one prologue that turns words into views; the scalar code of closures is the CPU
//! backend's (the same [`Gen`](super::Gen)), so both backends compute the same elements.
//!
//! The fused forms of [`crate::fusion`]: a delayed operand becomes an `accel_kernels::Delayed`
//! (its shape from the words, the generate's closure over the captures) that kernels read like a
//! view, so no skeleton changes; delayed reads in closures are the scalar generator's; an epilogue
//! node emits its reduction's or scan's kernels with every result write passed through the
//! epilogue's closure.

use super::{Gen, elem_type, ix_from_array, ix_to_array, rank_of, value_type, var_ident};
use crate::ir::{ArrayOp, Axis, Boundary, Expr, Lambda, Program, ScanKind, StencilShape};
use crate::kernel::{self, PermuteCombine, Scratch, role};
use crate::types::{ElemType, ScalarType, Type};
use accel_kernels::boundary::Rule;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// The `lib.rs` of the device crate holding the kernels of `programs` (each fingerprint once).
pub fn module_source(programs: &[Program]) -> syn::Result<String> {
    let mut items = vec![header(), offsets_scan()];
    let mut seen = std::collections::HashSet::new();
    for p in programs {
        // The prefix hashes the whole program: computed once, not per kernel.
        let prefix = p.kernel_prefix();
        if !seen.insert(prefix.clone()) {
            continue;
        }
        let launched = kernel::launched(p);
        for (id, op) in kernel::array_nodes(p).into_iter().enumerate() {
            if launched[id] && !kernel::roles(op).is_empty() {
                items.push(node_kernels(p, &prefix, id, op)?);
            }
        }
    }
    Ok(items.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("\n\n"))
}

fn header() -> TokenStream {
    quote! {
        #![no_std]
        #![feature(abi_ptx)]
        #![allow(unused, non_snake_case, unused_parens, unused_braces, clippy::all)]

        use ::accel_kernels::prelude::*;
        use ::accel_kernels::{abi, atomic, expand, generate, reduce, scan};

        /// Index arithmetic of the generated kernels.
        use ::accel_kernels::index as __rt;
    }
}

/// The module-wide exclusive prefix sum of `usize` counts (see [`kernel::offsets_scan`]).
fn offsets_scan() -> TokenStream {
    let carries = format_ident!("{}", kernel::offsets_scan::CARRIES);
    let scan = format_ident!("{}", kernel::offsets_scan::SCAN);
    let prologue = quote! {
        let __cx = unsafe { Ctx::new(w0 as *mut u64) };
        let __rows = Uniform { rows: 1, len: w1 as usize };
        let __parts = w2 as usize;
        let __p = View::<usize, 1> { ptr: w4 as *mut usize, shape: [w3 as usize] };
        let __pf = w5 as *mut bool;
        let __c = View::<usize, 1> { ptr: w7 as *mut usize, shape: [w6 as usize] };
        let __cf = w8 as *mut bool;
        let __counts = w9 as *const usize;
        let __offsets = w10 as *mut usize;
        let __add = |a: usize, b: usize| a.wrapping_add(b);
    };
    let params =
        quote!(w0: u64, w1: u64, w2: u64, w3: u64, w4: u64, w5: u64, w6: u64, w7: u64, w8: u64, w9: u64, w10: u64);
    quote! {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn #carries(#params) {
            #prologue
            unsafe {
                scan::scan_partials(
                    1,
                    __parts,
                    false,
                    |_| Some(0usize),
                    |__r, __k| {
                        let __j = __r * __parts + __k;
                        if __parts > 1 && *__pf.add(__j) { Some(__p.get_linear(__j)) } else { None }
                    },
                    __add,
                    |__r, __k, __v: Option<usize>| {
                        let __j = __r * __parts + __k;
                        *__cf.add(__j) = __v.is_some();
                        if let Some(__v) = __v { __c.set_linear(__j, __v) }
                    },
                    |_, _| {},
                )
            }
        }

        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn #scan(#params) {
            #prologue
            let __emit = |_, __i, __excl: Option<usize>, _| unsafe { *__offsets.add(__i) = __excl.unwrap_or(0) };
            unsafe {
                if __parts > 1 {
                    let __status = scan::Lookback::in_scratch(__p.ptr, __pf, __c.ptr, __cf, __parts);
                    scan::scan_single_pass(__rows, __parts, false, __status, |_| Some(0usize), |__i| *__counts.add(__i), __add, __emit, |_| {})
                } else {
                    scan::scan_chunks(
                        __rows,
                        __parts,
                        false,
                        |__r, __k| {
                            let __j = __r * __parts + __k;
                            if *__cf.add(__j) { Some(__c.get_linear(__j)) } else { None }
                        },
                        |__i| *__counts.add(__i),
                        __add,
                        __emit,
                    )
                }
            }
        }
    }
}

/// Hands out the kernel parameters `w1, w2, ..` and binds values to them.
struct Words {
    next: usize,
    binds: Vec<TokenStream>,
}

impl Words {
    fn new() -> Words {
        // w0 is the error slot.
        Words { next: 1, binds: Vec::new() }
    }

    fn word(&mut self) -> Ident {
        let w = format_ident!("w{}", self.next);
        self.next += 1;
        w
    }

    fn params(&self) -> TokenStream {
        let ws = (0..self.next).map(|i| format_ident!("w{i}"));
        quote!(#(#ws: u64),*)
    }

    fn bind(&mut self, name: TokenStream, value: TokenStream) {
        self.binds.push(quote!(let #name = #value;));
    }

    /// An element value from its leaf words.
    fn elem(&mut self, t: &ElemType) -> TokenStream {
        match t {
            ElemType::Scalar(s) => {
                let ty = super::scalar_type(*s);
                let w = self.word();
                quote!(<#ty as ::accel_kernels::abi::Word>::from_word(#w))
            }
            ElemType::Tuple(parts) => {
                let parts: Vec<_> = parts.iter().map(|p| self.elem(p)).collect();
                quote!((#(#parts,)*))
            }
        }
    }

    /// The column pointers of an array of `t`.
    fn columns(&mut self, t: &ElemType) -> TokenStream {
        match t {
            ElemType::Scalar(s) => {
                let ty = super::scalar_type(*s);
                let w = self.word();
                quote!((#w as *mut #ty))
            }
            ElemType::Tuple(parts) => {
                let parts: Vec<_> = parts.iter().map(|p| self.columns(p)).collect();
                quote!((#(#parts,)*))
            }
        }
    }

    fn array(&mut self, elem: &ElemType, rank: usize) -> TokenStream {
        let dims: Vec<_> = (0..rank).map(|_| self.word()).collect();
        let ptr = self.columns(elem);
        let e = elem_type(elem);
        quote!(View::<#e, #rank> { ptr: #ptr, shape: [#(#dims as usize),*] })
    }

    fn segments(&mut self) -> TokenStream {
        let (count, total, offsets) = (self.word(), self.word(), self.word());
        quote!(SegView { count: #count as usize, total: #total as usize, offsets: #offsets as *const usize })
    }

    /// A value of any type, as kernel code sees it (collective values as views).
    fn value(&mut self, t: &Type) -> syn::Result<TokenStream> {
        Ok(match t {
            Type::Elem(e) => {
                let ty = elem_type(e);
                let v = self.elem(e);
                quote!({ let __v: #ty = #v; __v })
            }
            Type::Array { elem, rank } => self.array(elem, *rank),
            Type::Segments => self.segments(),
            Type::Nested(e) => {
                let s = self.segments();
                let v = self.array(e, 1);
                quote!(NestedView { segments: #s, values: #v })
            }
            Type::Tuple(parts) => {
                let parts = parts.iter().map(|p| self.value(p)).collect::<syn::Result<Vec<_>>>()?;
                quote!((#(#parts,)*))
            }
            Type::Seq(_) => return Err(unsupported("a stream")),
        })
    }
}

fn unsupported(what: &str) -> syn::Error {
    syn::Error::new(Span::call_site(), format!("{what} cannot be used on the GPU yet"))
}

/// The view names of a node's outputs: `__out` for one array, `__out0, __out1` for a pair.
fn outputs(ty: &Type) -> Vec<Ident> {
    match ty {
        Type::Tuple(parts) => (0..parts.len()).map(|i| format_ident!("__out{i}")).collect(),
        _ => vec![format_ident!("__out")],
    }
}

/// The prologue (words to views) shared by every kernel of a node, and the number of words.
fn prologue(cg: &Gen, op: &ArrayOp, ty: &Type) -> syn::Result<(Words, Vec<Ident>)> {
    let iface = kernel::interface(op);
    let mut w = Words::new();
    let outs = outputs(ty);
    let out_types = match ty {
        Type::Tuple(parts) => parts.clone(),
        t => vec![t.clone()],
    };
    for (name, t) in outs.iter().zip(&out_types) {
        let v = w.value(t)?;
        w.bind(quote!(#name), v);
    }
    let elem = reduced_elem(kernel::epilogue_source(op).unwrap_or(op));
    match iface.scratch {
        Scratch::None => {}
        Scratch::Reduce | Scratch::Scan => {
            let elem = elem.expect("reductions and scans have an element type");
            let parts = w.word();
            w.bind(quote!(__parts), quote!(#parts as usize));
            let p = w.array(&elem, 1);
            w.bind(quote!(__p), p);
            let pf = w.word();
            w.bind(quote!(__pf), quote!(#pf as *mut bool));
            if iface.scratch == Scratch::Reduce {
                let t = w.word();
                w.bind(quote!(__tickets), quote!(#t as *mut u32));
            } else {
                let c = w.array(&elem, 1);
                w.bind(quote!(__c), c);
                let cf = w.word();
                w.bind(quote!(__cf), quote!(#cf as *mut bool));
            }
        }
        Scratch::Permute => {
            let l = w.word();
            w.bind(quote!(__locks), quote!(#l as *mut u32));
        }
        Scratch::Offsets => {
            let (n, counts, offsets) = (w.word(), w.word(), w.word());
            w.bind(quote!(__n), quote!(#n as usize));
            w.bind(quote!(__counts), quote!(#counts as *mut usize));
            w.bind(quote!(__offsets), quote!(#offsets as *const usize));
        }
    }
    for (i, e) in iface.host_scalars.iter().enumerate() {
        let name = format_ident!("__s{i}");
        let v = w.value(&e.ty)?;
        w.bind(quote!(#name), v);
    }
    // A delayed operand's closure reads the captures, so it is bound after them.
    let mut delayed = Vec::new();
    for (i, e) in iface.operands.iter().enumerate() {
        let name = format_ident!("__a{i}");
        if let Some(ArrayOp::Generate { f, .. }) = kernel::as_generate(e) {
            let rank = rank_of(e);
            let dims: Vec<_> = (0..rank).map(|_| w.word()).collect();
            let t = value_type(f.result_type());
            let body = index_body(cg, f, rank)?;
            delayed.push(quote! {
                let #name = Delayed { shape: [#(#dims as usize),*], f: |__ix: [usize; #rank]| -> #t #body };
            });
        } else {
            let v = w.value(&e.ty)?;
            w.bind(quote!(#name), v);
        }
    }
    for (var, t) in &iface.captures {
        let name = var_ident(var);
        let v = w.value(t)?;
        // Generated scalar code sees collective variables as references.
        let v = if t.is_elem() { v } else { quote!(&#v) };
        w.bind(quote!(#name), v);
    }
    w.binds.extend(delayed);
    Ok((w, outs))
}

/// The element type a reduction or scan combines.
fn reduced_elem(op: &ArrayOp) -> Option<ElemType> {
    match op {
        ArrayOp::Fold { f, .. }
        | ArrayOp::FoldAll { f, .. }
        | ArrayOp::FoldSeg { f, .. }
        | ArrayOp::Scan { f, .. }
        | ArrayOp::ScanSeg { f, .. } => f.params[0].1.as_elem().cloned(),
        _ => None,
    }
}

fn node_kernels(program: &Program, prefix: &str, id: usize, op: &ArrayOp) -> syn::Result<TokenStream> {
    let ty = node_type(program, id);
    let cg = Gen::for_device();
    let (words, outs) = prologue(&cg, op, &ty)?;
    let params = words.params();
    let binds = &words.binds;
    // An epilogue runs the kernels of its reduction or scan, whose errors name that node.
    let (computed, epilogue, error_id) = match (kernel::epilogue_source(op), op) {
        (Some(inner), ArrayOp::IMap { f, .. }) => {
            let inner_id = kernel::array_nodes(program).iter().position(|n| std::ptr::eq(*n, inner));
            (inner, Some(f), inner_id.expect("the reduction is a node of the program"))
        }
        _ => (op, None, id),
    };
    let results = Results::new(&cg, &outs[0], epilogue, &ty)?;
    let mut kernels = Vec::new();
    for (role, body) in bodies(&cg, computed, &ty, &outs, &results, error_id)? {
        let name = format_ident!("{}", kernel::kernel_name_in(prefix, id, role));
        kernels.push(quote! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn #name(#params) {
                let __cx = unsafe { Ctx::new(w0 as *mut u64) };
                #(#binds)*
                unsafe { #body }
            }
        });
    }
    Ok(quote!(#(#kernels)*))
}

/// The type of node `id` of `program`.
fn node_type(program: &Program, id: usize) -> Type {
    let mut k = 0;
    let mut found = None;
    crate::ir::visit::pre_order(&program.body, &mut |e| {
        if let crate::ir::ExprKind::Array(_) = &e.kind {
            if k == id {
                found = Some(e.ty.clone());
            }
            k += 1;
        }
    });
    found.expect("the node exists")
}

/// Binds a lambda's index parameter to `__ix` (a `[usize; rank]`) and returns its body.
fn index_body(cg: &Gen, f: &Lambda, rank: usize) -> syn::Result<TokenStream> {
    let p = var_ident(&f.params[0].0);
    let conv = ix_from_array(rank, &quote!(__ix));
    let body = cg.scalar(&f.body)?;
    Ok(quote!({ let #p = #conv; #body }))
}

/// How a reduction or scan writes its results into `out`: as they are, or through an epilogue
/// (fused form 3 of [`crate::fusion`]) that maps `(index, value)` to the element written.
struct Results<'a> {
    out: &'a Ident,
    /// The epilogue's closure and the rank of the results.
    epilogue: Option<(TokenStream, usize)>,
}

impl<'a> Results<'a> {
    fn new(cg: &Gen, out: &'a Ident, epilogue: Option<&Lambda>, ty: &Type) -> syn::Result<Results<'a>> {
        let rank = ty.as_array().map_or(0, |(_, r)| r);
        Ok(Results { out, epilogue: epilogue.map(|f| cg.lambda(f).map(|l| (l, rank))).transpose()? })
    }

    /// The binding of the epilogue's closure, for the kernels that write results.
    fn setup(&self) -> TokenStream {
        match &self.epilogue {
            Some((f, _)) => quote!(let __epi = #f;),
            None => quote!(),
        }
    }

    /// Writes result `v` at row-major position `at` of the output.
    fn write(&self, at: TokenStream, v: TokenStream) -> TokenStream {
        let out = self.out;
        match &self.epilogue {
            None => quote!(#out.set_linear(#at, #v)),
            Some((_, rank)) => {
                let ix = ix_from_array(*rank, &quote!(__ix));
                quote!({
                    let __at = #at;
                    let __ix: [usize; #rank] = __rt::unravel(__at, #out.shape);
                    #out.set_linear(__at, __epi(#ix, #v))
                })
            }
        }
    }
}

/// One kernel body per role of the node (`op` is the reduction or scan of an epilogue, whose
/// writes `results` rewrites; `id` is the node errors name).
fn bodies(
    cg: &Gen,
    op: &ArrayOp,
    ty: &Type,
    outs: &[Ident],
    results: &Results,
    id: usize,
) -> syn::Result<Vec<(&'static str, TokenStream)>> {
    use ArrayOp::*;
    let out = &outs[0];
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
    Ok(match op {
        Generate { shape, f, .. } => vec![(role::GENERATE, elementwise(index_body(cg, f, rank_of(shape))?))],
        Fill { .. } => vec![(role::GENERATE, elementwise(quote!(__s0)))],
        Iota { .. } => {
            let t = elem_type(ty.as_array().expect("an array").0);
            vec![(role::GENERATE, elementwise(quote!((__i as #t))))]
        }
        Map { f, .. } => {
            let f = cg.lambda(f)?;
            vec![(role::GENERATE, elementwise(quote!((#f)(__a0.get_linear(__i)))))]
        }
        IMap { f, a } => {
            let rank = rank_of(a);
            let conv = ix_from_array(rank, &quote!(__ix));
            let f = cg.lambda(f)?;
            vec![(role::GENERATE, elementwise(quote!((#f)(#conv, __a0.get_linear(__i)))))]
        }
        ZipWith { f, .. } => {
            let f = cg.lambda(f)?;
            let (x, y) = (at("__a0", quote!(__ix)), at("__a1", quote!(__ix)));
            vec![(role::GENERATE, elementwise(quote!((#f)(#x, #y))))]
        }
        Backpermute { shape, f, a } => {
            let src = ix_to_array(rank_of(a), index_body(cg, f, rank_of(shape))?);
            let v = quote!(__cx.read_at(abi::site::BACKPERMUTE, &__a0, #src));
            vec![(role::GENERATE, elementwise(v))]
        }
        Reverse(a) => {
            let d = last(a);
            let v = at("__a0", quote!({ let mut __j = __ix; __j[#d] = __a0.shape[#d] - 1 - __j[#d]; __j }));
            vec![(role::GENERATE, elementwise(v))]
        }
        Transpose(_) => vec![(role::GENERATE, elementwise(at("__a0", quote!([__ix[1], __ix[0]]))))],
        Take { .. } => vec![(role::GENERATE, elementwise(at("__a0", quote!(__ix))))],
        Drop { a, .. } => {
            let d = last(a);
            let v = at("__a0", quote!({ let mut __j = __ix; __j[#d] += __a0.shape[#d] - #out.shape[#d]; __j }));
            vec![(role::GENERATE, elementwise(v))]
        }
        Concat { a, .. } => {
            let d = last(a);
            let first = at("__a0", quote!(__ix));
            let second = at("__a1", quote!({ let mut __j = __ix; __j[#d] -= __a0.shape[#d]; __j }));
            let v = quote!(if __ix[#d] < __a0.shape[#d] { #first } else { #second });
            vec![(role::GENERATE, elementwise(v))]
        }
        Replicate { axis, .. } => {
            let i = if *axis == Axis::Rows { 1usize } else { 0 };
            vec![(role::GENERATE, elementwise(quote!(__a0.get_linear(__ix[#i]))))]
        }
        Slice { axis, .. } => {
            let ix =
                if *axis == Axis::Rows { quote!([__s0 as usize, __ix[0]]) } else { quote!([__ix[0], __s0 as usize]) };
            vec![(role::GENERATE, elementwise(at("__a0", ix)))]
        }
        Stencil { shape, boundary, f, .. } => vec![(role::GENERATE, elementwise(stencil(cg, *shape, boundary, f)?))],
        SegmentLengths(_) => {
            vec![(
                role::GENERATE,
                elementwise(quote!({
                    let (__s, __e) = __a0.range(__i);
                    __e - __s
                })),
            )]
        }
        Fold { z, f, a } | FoldAll { z, f, a } | FoldSeg { z, f, a, .. } => {
            let rows = match op {
                Fold { .. } => {
                    let d = last(a);
                    quote!(Uniform { rows: #out.len(), len: __a0.shape[#d] })
                }
                FoldAll { .. } => quote!(Uniform { rows: 1, len: __a0.len() }),
                _ => segmented_rows(a),
            };
            reduce(cg, z.is_some(), f, rows, results, id as u64)?
        }
        Scan { kind, z, f, a, .. } | ScanSeg { kind, z, f, a, .. } => {
            let rows = if matches!(op, Scan { .. }) {
                let d = last(a);
                quote!(Uniform { rows: __rt::outer(__a0.shape), len: __a0.shape[#d] })
            } else {
                segmented_rows(a)
            };
            let single_pass = matches!(op, Scan { .. });
            scan(cg, *kind, kernel::is_reverse_scan(op), z.is_some(), f, rows, outs, results, single_pass)?
        }
        Permute { defaults, f, combine, a } => {
            let delayed = kernel::as_generate(a).is_some();
            let scatter = (role::SCATTER, permute(cg, f, combine, rank_of(a), rank_of(defaults), out, delayed)?);
            if kernel::as_generate(defaults).is_some() {
                let init =
                    quote!(generate::for_each_index(#out.len(), |__i| #out.set_linear(__i, __a1.get_linear(__i))));
                vec![(role::DEFAULTS, init), scatter]
            } else {
                vec![scatter]
            }
        }
        Expand { count, value, .. } => {
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
            vec![(role::COUNTS, counts), (role::WRITE, write)]
        }
        Filter { pred, .. } => {
            let p = cg.lambda(pred)?;
            let counts = quote! {
                generate::for_each_index(__n, |__i| *__counts.add(__i) = (#p)(__a0.get_linear(__i)) as usize)
            };
            let write = quote! {
                generate::for_each_index(__n, |__i| {
                    let __x = __a0.get_linear(__i);
                    if (#p)(__x) { #out.set_linear(*__offsets.add(__i), __x) }
                })
            };
            vec![(role::COUNTS, counts), (role::WRITE, write)]
        }
        SegmentsFromLengths(l) => {
            let lt = l.ty.as_array().and_then(|(e, _)| e.as_scalar()).expect("integer lengths");
            vec![(role::COUNTS, counts(quote!(__a0.get_linear(__i)), lt, quote!(abi::code::NEGATIVE_LENGTH)))]
        }
        _ => vec![],
    })
}

/// The counts kernel: `count` as `usize` per source element, a negative one recorded as `code`.
fn counts(count: TokenStream, t: ScalarType, code: TokenStream) -> TokenStream {
    let check = if t.is_signed() {
        quote! {
            if __c < 0 {
                __cx.fail(#code, 0, &[__i], &[__n], __c as i64 as u64);
                0
            } else {
                __c as usize
            }
        }
    } else {
        quote!(__c as usize)
    };
    quote! {
        generate::for_each_index(__n, |__i| {
            let __c = #count;
            *__counts.add(__i) = #check;
        })
    }
}

/// Rows of a segmented operation: operand 1 holds the segments of operand 0's innermost dimension.
fn segmented_rows(a: &Expr) -> TokenStream {
    let d = rank_of(a) - 1;
    quote!(Segmented { offsets: __a1.offsets, segments: __a1.count, outer: __rt::outer(__a0.shape), row_len: __a0.shape[#d] })
}

/// Reading partial `(row, part)` back, `None` when its chunk was empty.
fn partial(p: &str, flags: &str) -> TokenStream {
    let (p, flags) = (format_ident!("{p}"), format_ident!("{flags}"));
    quote! {
        |__r: usize, __k: usize| {
            let __j = __r * __parts + __k;
            if *#flags.add(__j) { Some(#p.get_linear(__j)) } else { None }
        }
    }
}

fn store_partial(p: &str, flags: &str) -> TokenStream {
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
fn reduce(
    cg: &Gen,
    seeded: bool,
    f: &Lambda,
    rows: TokenStream,
    results: &Results,
    node: u64,
) -> syn::Result<Vec<(&'static str, TokenStream)>> {
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
    Ok(vec![(role::REDUCE, chunks), (role::FINISH, finish)])
}

/// The scan family over rows (plain or segmented): chunk totals, carries, then the scan.
#[allow(clippy::too_many_arguments)]
fn scan(
    cg: &Gen,
    kind: ScanKind,
    reverse: bool,
    seeded: bool,
    f: &Lambda,
    rows: TokenStream,
    outs: &[Ident],
    results: &Results,
    single_pass: bool,
) -> syn::Result<Vec<(&'static str, TokenStream)>> {
    let fl = cg.lambda(f)?;
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
    // (the executor zeroes the flags and sizes the chunks), else from the carries (the seeds);
    // segmented rows keep the three phases.
    let scan = if single_pass {
        quote! {
            #setup
            if __parts > 1 {
                let __status = scan::Lookback::in_scratch(__p.ptr, __pf, __c.ptr, __cf, __rows.count() * __parts);
                scan::scan_single_pass(
                    __rows,
                    __parts,
                    #reverse,
                    __status,
                    |_| #seed,
                    |__i| __a0.get_linear(__i),
                    __g,
                    |__r, __i, __excl, __incl| { #emit },
                    |__r| #row_end,
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
    Ok(if single_pass {
        vec![(role::CARRIES, carries), (role::SCAN, scan)]
    } else {
        vec![(role::CHUNKS, chunks), (role::CARRIES, carries), (role::SCAN, scan)]
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::tests::{inline_generates, program};

    #[test]
    fn every_kernel_of_every_node_is_emitted_once_and_parses() {
        let p = program(
            "fn f(xs: Vector<f32>, ls: Vector<i32>) -> (Vector<f32>, Vector<f32>, Scalar<f32>) {
                 let ys = xs.map(|x| x * 2.0);
                 let s = ys.scanl1(|a, b| a + b);
                 let t = xs.fold_seg(0.0, |a, b| a.max(b), ls);
                 (s, t, ys.filter(|y| y > 1.0).sum())
             }",
        );
        let src = module_source(&[p.clone(), p.clone()]).unwrap();
        syn::parse_file(&src).expect("the module is valid Rust");
        let nodes = kernel::array_nodes(&p);
        let mut names = 0;
        for (id, op) in nodes.iter().enumerate() {
            for role in kernel::roles(op) {
                let name = kernel::kernel_name(&p, id, role);
                assert_eq!(src.matches(&format!("fn {name} (")).count(), 1, "{name}");
                names += 1;
            }
        }
        assert!(names >= 8, "map, scan (3), fold_seg (2), filter (2), sum (2), segments (1)");
        assert_eq!(src.matches(&format!("fn {} (", kernel::offsets_scan::SCAN)).count(), 1);
        assert_eq!(src.matches(&format!("fn {} (", kernel::offsets_scan::CARRIES)).count(), 1);
    }

    /// `kernel::may_fail` against the generated code of each launched node: the kernels of a node
    /// that may not fail have no failing path. Float division goes through `__cx.div` too, which
    /// cannot fail for floats, so it is not counted.
    #[test]
    fn nodes_that_may_fail_are_those_whose_kernels_have_a_failing_path() {
        let failing = ["__cx.fail(", "__cx.read(", "__cx.read_at(", "__cx.check_index(", "__cx.rem("];
        let cases = [
            ("fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.zip_with(ys, |x, y| 2.5 * x + y) }", false),
            ("fn f(xs: Vector<f32>) -> Scalar<f32> { xs.fold_all(0.0, |a, b| a + b) }", false),
            ("fn f(xs: Vector<f64>) -> Vector<f64> { xs.map(|x| x / 3.0).scanl1(|a, b| a + b) }", false),
            // Fused movements read their source at a computed index, checked.
            ("fn f(xs: Matrix<i32>) -> Matrix<i32> { xs.transpose().reverse() }", true),
            // The host checks a slice's row before the launch.
            ("fn f(xs: Matrix<f32>) -> Vector<f32> { xs.map(|x| x + 1.0).slice_row(3) }", false),
            ("fn f(xs: Vector<u32>) -> Vector<u32> { xs.filter(|x| x % 2 == 0) }", true),
            ("fn f(xs: Vector<i64>, d: i64) -> Vector<i64> { xs.map(|x| x / d) }", true),
            ("fn f(xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.map(|x| x + ys[3]) }", true),
            ("fn f(xs: Vector<f32>) -> Scalar<f32> { xs.fold1_all(|a, b| a.max(b)) }", true),
            ("fn f(xs: Matrix<f32>) -> Vector<f32> { xs.fold(0.0, |a, b| a + b) }", false),
            ("fn f(xs: Vector<f32>, ls: Vector<i32>) -> Vector<f32> { xs.fold1_seg(|a, b| a + b, ls) }", true),
            ("fn f(xs: Vector<f32>) -> Vector<f32> { xs.backpermute(xs.len() / 2, |i| i * 2) }", true),
            ("fn f(xs: Vector<f32>) -> Vector<f32> { xs.permute(fill(8, 0.0f32), |i| i, |a, b| a + b) }", true),
            ("fn f(ls: Vector<u32>) -> Vector<usize> { ls.expand(|l| l, |x, j| j) }", false),
            ("fn f(ls: Vector<i32>) -> Vector<usize> { ls.expand(|l| l, |x, j| j) }", true),
            ("fn f(xs: Vector<f32>, ls: Vector<u64>) -> Vector<f32> { xs.fold_seg(0.0, |a, b| a + b, ls) }", false),
            ("fn f(xs: Vector<f32>, ls: Vector<i64>) -> Vector<f32> { xs.fold_seg(0.0, |a, b| a + b, ls) }", true),
            (
                "fn f(xs: Vector<f32>) -> Vector<f32> {
                     let g = generate(xs.len(), |i| xs[i] * 2.0);
                     g.map(|y| y + 1.0)
                 }",
                true,
            ),
        ];
        for (src, fails) in cases {
            let p = crate::pipeline::optimise(&program(src), crate::pipeline::Options::default());
            let prefix = p.kernel_prefix();
            let launched = kernel::launched(&p);
            let mut any = false;
            for (id, op) in kernel::array_nodes(&p).into_iter().enumerate() {
                if !launched[id] || kernel::roles(op).is_empty() {
                    continue;
                }
                let code: String = node_kernels(&p, &prefix, id, op).unwrap().to_string().split_whitespace().collect();
                let (failing_path, division) = (failing.iter().any(|f| code.contains(f)), code.contains("__cx.div("));
                let what = format!("node {id} ({}) of {src}", op.name());
                if kernel::may_fail(op) {
                    assert!(failing_path || division, "{what} may fail but its kernels have no failing path");
                } else {
                    assert!(!failing_path, "{what} may not fail but its kernels have a failing path:\n{code}");
                }
                any |= kernel::may_fail(op);
            }
            assert_eq!(kernel::program_may_fail(&p), fails, "{src}");
            assert_eq!(any, fails, "{src}");
        }
    }

    #[test]
    fn captured_variables_become_parameters() {
        let p = program("fn g(a: f32, xs: Vector<f32>, ys: Vector<f32>) -> Vector<f32> { xs.map(|x| a * x + ys[0]) }");
        let map = kernel::array_nodes(&p)[0];
        let names: Vec<String> = kernel::interface(map).captures.iter().map(|(v, _)| v.name.clone()).collect();
        assert_eq!(names, ["a", "ys"]);
        // The error slot, the output (1 dimension, 1 column), the operand (2), `a` (1) and `ys` (2).
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        let name = kernel::kernel_name(&p, 0, role::GENERATE);
        assert!(
            src.contains(&format!(
                "fn {name} (w0 : u64 , w1 : u64 , w2 : u64 , w3 : u64 , w4 : u64 , w5 : u64 , w6 : u64 , w7 : u64)"
            )),
            "{src}"
        );
    }

    /// The words a node's kernels take, counted from the interface as the executor passes them.
    fn expected_words(program: &Program, id: usize, op: &ArrayOp) -> usize {
        let iface = kernel::interface(op);
        let leaves = reduced_elem(kernel::epilogue_source(op).unwrap_or(op)).map_or(0, |e| e.leaves().len());
        let scratch = match iface.scratch {
            Scratch::None => 0,
            Scratch::Reduce => 4 + leaves,
            Scratch::Scan => 5 + 2 * leaves,
            Scratch::Permute => 1,
            Scratch::Offsets => 3,
        };
        let operand = |e: &&Expr| if kernel::as_generate(e).is_some() { rank_of(e) } else { kernel::word_count(&e.ty) };
        1 + kernel::word_count(&node_type(program, id))
            + scratch
            + iface.host_scalars.iter().map(|e| kernel::word_count(&e.ty)).sum::<usize>()
            + iface.operands.iter().map(operand).sum::<usize>()
            + iface.captures.iter().map(|(_, t)| kernel::word_count(t)).sum::<usize>()
    }

    /// The number of parameters of kernel `name` in `src`.
    fn params_of(src: &str, name: &str) -> usize {
        let start = src.find(&format!("fn {name} (")).unwrap_or_else(|| panic!("{name} is emitted"));
        let params = &src[start..start + src[start..].find(')').unwrap()];
        params.matches(": u64").count()
    }

    #[test]
    fn fused_forms_emit_kernels_only_for_launched_nodes_with_the_interfaces_words() {
        let p = inline_generates(&program(
            "fn f(xs: Vector<f32>, m: Matrix<i32>, ls: Vector<i32>, k: f32) -> (Vector<f32>, Vector<f64>, Matrix<i32>, Vector<i32>, Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>, Scalar<f64>, Vector<bool>, Matrix<(i32, usize)>) {
                 let n = xs.len();
                 let g = generate(n, |i| xs[i] * k);
                 let gm = generate(m.shape(), |(i, j)| m[(i, j)] + (i as i32));
                 let s = g.scanl(0.0, |a, b| a + b).imap(|i, v| v + (i as f32));
                 let t = g.fold_seg(0.0, |a, b| a.max(b), ls).imap(|i, v| (v as f64) * 2.0);
                 let u = gm.scanr1(|a, b| a - b);
                 let w = gm.fold(0, |a, b| a + b).imap(|i, v| v / ((i as i32) + 1));
                 let q = g.scanl1_seg(|a, b| a + b, ls);
                 let h = g.permute(generate(n, |i| (i as f32) - k), |i| Some((n - 1 - i,)), |a, b| a + b);
                 let st = g.stencil3(Clamp, |l, c, r| l + c + r);
                 let e = g.filter(|x| x > 1.0);
                 let all = g.fold_all(0.0, |a, b| a + b).imap(|_, v| (v as f64) + g[0] as f64);
                 let x = g.expand(|x| 2, |x, k| x > (k as f32));
                 let sm = gm.stencil3x3(Constant(7), |n| n[0][0] - n[2][2]).scanl_seg(1, |a, b| a * b, ls).imap(|(i, j), v| (v, i + j));
                 (s, t, u, w, q, h, st, e, all, x, sm)
             }",
        ));
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        syn::parse_file(&src).expect("the module is valid Rust");
        let nodes = kernel::array_nodes(&p);
        let launched = kernel::launched(&p);
        assert!(launched.iter().filter(|l| !**l).count() >= 15, "the generates and the reductions under epilogues");
        for (id, op) in nodes.iter().enumerate() {
            let prefix = format!("fn {}", kernel::kernel_name(&p, id, ""));
            if !launched[id] {
                assert!(!src.contains(&prefix), "node {id} ({}) is absorbed but has kernels", op.name());
                continue;
            }
            for role in kernel::roles(op) {
                let name = kernel::kernel_name(&p, id, role);
                assert_eq!(params_of(&src, &name), expected_words(&p, id, op), "{name} ({})", op.name());
            }
        }
        let generates = nodes.iter().zip(&launched).filter(|(op, _)| matches!(op, ArrayOp::Generate { .. }));
        assert!(generates.clone().count() >= 10 && generates.clone().all(|(_, l)| !l), "every generate is delayed");
        assert_eq!(src.matches("_defaults (").count(), 1, "permute's delayed defaults have a kernel");
        assert!(src.contains("Delayed { shape"), "{src}");
        assert!(src.contains("__epi ("), "{src}");
        assert!(src.contains("check_index"), "`g[0]` is a delayed read");
    }

    #[test]
    fn a_dot_product_over_a_delayed_zip_reads_no_array_of_products() {
        let p = program(
            "fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> { generate(xs.len(), |i| xs[i] * ys[i]).sum() }",
        );
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        let reduce = kernel::kernel_name(&p, 0, role::REDUCE);
        // The error slot; the result (1 column); parts, partials (1 dimension, 1 column), their
        // flags and the tickets; the seed; the delayed operand's one dimension; `xs` and `ys` (2
        // each).
        assert_eq!(params_of(&src, &reduce), 13);
        assert_eq!(src.matches("_n1_").count(), 0, "the generate has no kernel");
        assert!(src.contains("let __a0 = Delayed { shape : [w8 as usize]"), "{src}");
    }

    #[test]
    fn unzip_emits_nothing() {
        let p = program("fn uz(xs: Vector<(f32, i32)>) -> (Vector<f32>, Vector<i32>) { xs.unzip() }");
        let src = module_source(std::slice::from_ref(&p)).unwrap();
        assert!(!src.contains("_n0_"), "{src}");
    }
}
