//! The device side of the kernel ABI: a node's `u64` words turned into the views and values
//! that its kernel bodies read, by walking its [`kernel::layout`] (the executor writes the words by
//! walking the same list).

use super::{Gen, index_body, unsupported};
use crate::codegen::{elem_type, rank_of, value_type, var_ident};
use crate::ir::ArrayOp;
use crate::kernel::{self, Param, Scratch};
use crate::types::{ElemType, Type};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Hands out the kernel parameters `w0, w1, ..` and binds values to them.
pub(super) struct Words {
    /// The type of each parameter handed out: `u64`, or for an array column the pointer type
    /// (the same 64-bit word in the ABI), which tells NVPTX that the column is in global memory.
    types: Vec<TokenStream>,
    pub(super) binds: Vec<TokenStream>,
    /// Whether the kernel takes an error slot (binds `__cx`, which its end must flush: a context
    /// that defers its failures writes them there).
    pub(super) error_slot: bool,
}

impl Words {
    fn new() -> Words {
        Words { types: Vec::new(), binds: Vec::new(), error_slot: false }
    }

    fn typed_word(&mut self, ty: TokenStream) -> Ident {
        let w = format_ident!("w{}", self.types.len());
        self.types.push(ty);
        w
    }

    fn word(&mut self) -> Ident {
        self.typed_word(quote!(u64))
    }

    pub(super) fn params(&self) -> TokenStream {
        let ws = (0..self.types.len()).map(|i| format_ident!("w{i}"));
        let types = &self.types;
        quote!(#(#ws: #types),*)
    }

    fn bind(&mut self, name: TokenStream, value: TokenStream) {
        self.binds.push(quote!(let #name = #value;));
    }

    /// An element value from its leaf words.
    fn elem(&mut self, t: &ElemType) -> TokenStream {
        match t {
            ElemType::Scalar(s) => {
                let ty = crate::codegen::scalar_type(*s);
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
                let ty = crate::codegen::scalar_type(*s);
                let w = self.typed_word(quote!(*mut #ty));
                quote!(unsafe { ::accel_kernels::view::column(#w) })
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

/// The prologue (words to views) shared by every kernel of a node: a walk of its
/// [`kernel::layout`], and the names of its outputs (`__out` for one array, `__out0, __out1` for a
/// pair).
pub(super) fn prologue(cg: &Gen, op: &ArrayOp, ty: &Type) -> syn::Result<(Words, Vec<Ident>)> {
    let mut w = Words::new();
    let mut outs = Vec::new();
    let (mut scalars, mut operands) = (0, 0);
    // A delayed operand's closure reads the captures, so it is bound after them.
    let mut delayed = Vec::new();
    for param in kernel::layout(op, ty) {
        match param {
            Param::ErrorSlot => {
                let slot = w.word();
                // Each kernel of the node says whether it defers its failures (`__DEFER`).
                w.bind(quote!(__cx), quote!(unsafe { Ctx::<__DEFER>::new(#slot as *mut u64) }));
                w.error_slot = true;
            }
            Param::Output(t) => {
                let name = if matches!(ty, Type::Tuple(_)) {
                    format_ident!("__out{}", outs.len())
                } else {
                    format_ident!("__out")
                };
                let v = w.value(&t)?;
                w.bind(quote!(#name), v);
                outs.push(name);
            }
            Param::Scratch(kind, elem) => scratch(&mut w, kind, elem.as_ref())?,
            Param::HostScalar(e) => {
                let name = format_ident!("__s{scalars}");
                scalars += 1;
                let v = w.value(&e.ty)?;
                w.bind(quote!(#name), v);
            }
            Param::Operand(e) => {
                let name = format_ident!("__a{operands}");
                operands += 1;
                let v = w.value(&e.ty)?;
                w.bind(quote!(#name), v);
            }
            Param::Delayed(e) => {
                let name = format_ident!("__a{operands}");
                operands += 1;
                let Some(ArrayOp::Generate { f, .. }) = kernel::as_generate(e) else {
                    return Err(unsupported("a delayed operand that is not a `generate`"));
                };
                let rank = rank_of(e);
                let dims: Vec<_> = (0..rank).map(|_| w.word()).collect();
                let t = value_type(f.result_type());
                let body = index_body(cg, f, rank)?;
                delayed.push(quote! {
                    let #name = Delayed { shape: [#(#dims as usize),*], f: |__ix: [usize; #rank]| -> #t #body };
                });
            }
            Param::Capture(var, t) => {
                let name = var_ident(&var);
                let v = w.value(&t)?;
                // Generated scalar code sees collective variables as references.
                let v = if t.is_elem() { v } else { quote!(&#v) };
                w.bind(quote!(#name), v);
            }
        }
    }
    w.binds.extend(delayed);
    Ok((w, outs))
}

/// Binds the scratch words of a skeleton that combines elements of type `elem`.
fn scratch(w: &mut Words, kind: Scratch, elem: Option<&ElemType>) -> syn::Result<()> {
    match (kind, elem) {
        (Scratch::None, _) => {}
        (Scratch::Reduce | Scratch::Scan, Some(elem)) => {
            let parts = w.word();
            w.bind(quote!(__parts), quote!(#parts as usize));
            let p = w.array(elem, 1);
            w.bind(quote!(__p), p);
            let pf = w.word();
            w.bind(quote!(__pf), quote!(#pf as *mut bool));
            if kind == Scratch::Reduce {
                let t = w.word();
                w.bind(quote!(__tickets), quote!(#t as *mut u32));
                let m = w.word();
                w.bind(quote!(__mirror), quote!(#m as *mut u8));
                let starts = w.word();
                w.bind(quote!(__starts), quote!(#starts as *const usize));
                let width = w.word();
                w.bind(quote!(__width), quote!(#width as usize));
            } else {
                let c = w.array(elem, 1);
                w.bind(quote!(__c), c);
                let cf = w.word();
                w.bind(quote!(__cf), quote!(#cf as *mut bool));
            }
        }
        (Scratch::Reduce | Scratch::Scan, None) => return Err(unsupported("a reduction without an element type")),
        (Scratch::Permute, _) => {
            let l = w.word();
            w.bind(quote!(__locks), quote!(#l as *mut u32));
        }
        (Scratch::Offsets | Scratch::Spread, _) => {
            let (n, counts, offsets) = (w.word(), w.word(), w.word());
            w.bind(quote!(__n), quote!(#n as usize));
            w.bind(quote!(__counts), quote!(#counts as *mut usize));
            w.bind(quote!(__offsets), quote!(#offsets as *const usize));
            if kind == Scratch::Spread {
                let (locks, strategy, sizes) = (w.word(), w.word(), w.word());
                w.bind(quote!(__locks), quote!(#locks as *mut u32));
                w.bind(quote!(__strategy), quote!(#strategy));
                w.bind(quote!(__sizes), quote!(#sizes as *mut usize));
            }
        }
    }
    Ok(())
}
