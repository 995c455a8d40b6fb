//! Code generation: typed IR to Rust for the CPU backend.
//!
//! Each collective operation becomes a call of the matching rayon skeleton in
//! `accel_runtime::cpu` with the operation's closures as Rust closures; scalar code becomes plain
//! Rust through the `ops` traits of this crate, so it computes exactly what the interpreter does.
//! Failures inside closures (an index out of range, an integer division by zero) are recorded in
//! the call's `Ctx` instead of unwinding, and each skeleton returns the first one.
//!
//! Conventions of the generated code: every collective variable is a *reference* (parameters are
//! `&Array`, `let`s bind `&value`), operations yield owned values, and each operation's result is
//! bound with its IR type so that ranks never depend on inference.

use crate::fusion::expand_permute;
use crate::ir::{
    ArrayOp, Axis, BinaryOp, Boundary, Const, Direction, Expr, ExprKind, Lambda, Producer as P, Program, ReadSite,
    ScanKind, StencilShape, UnaryOp, Var,
};
use crate::kernel;
use crate::types::{ElemType, ScalarType, Type};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

pub mod device;

/// The Rust type of an element.
pub fn elem_type(t: &ElemType) -> TokenStream {
    match t {
        ElemType::Scalar(s) => scalar_type(*s),
        ElemType::Tuple(ts) => {
            let parts = ts.iter().map(elem_type);
            quote!((#(#parts,)*))
        }
    }
}

pub(crate) fn scalar_type(s: ScalarType) -> TokenStream {
    let id = format_ident!("{}", s.rust_name());
    quote!(#id)
}

/// The Rust type of any value (owned form).
pub fn value_type(t: &Type) -> TokenStream {
    match t {
        Type::Elem(e) => elem_type(e),
        Type::Array { elem, rank } => {
            let e = elem_type(elem);
            quote!(::accel::Array<#e, #rank>)
        }
        Type::Segments => quote!(::accel::Segments),
        Type::Nested(e) => {
            let e = elem_type(e);
            quote!(::accel::Nested<#e>)
        }
        Type::Seq(inner) => {
            let i = value_type(inner);
            quote!(::std::vec::Vec<#i>)
        }
        Type::Tuple(ts) => {
            let parts = ts.iter().map(value_type);
            quote!((#(#parts,)*))
        }
    }
}

/// The type of a parameter of the generated functions: collective values by reference.
pub fn param_type(t: &Type) -> TokenStream {
    let v = value_type(t);
    if t.is_elem() { v } else { quote!(&#v) }
}

/// The identifier a variable has in generated code.
pub fn var_ident(v: &Var) -> proc_macro2::Ident {
    let base = v.name.trim_start_matches("r#");
    format_ident!("{}_{}", base, v.id)
}

/// The CPU entry point `__cpu(__cx, params..) -> Result<T>` of a program.
pub fn cpu_function(program: &Program) -> syn::Result<TokenStream> {
    let params = program.params.iter().map(|(v, t)| {
        let id = var_ident(v);
        let ty = param_type(t);
        quote!(#id: #ty)
    });
    let ret = value_type(program.result_type());
    let body = Gen::default().tail(&program.body)?;
    Ok(quote! {
        #[doc(hidden)]
        #[allow(unused_variables, unused_parens, unused_braces, non_snake_case, clippy::all)]
        pub fn __cpu(__cx: &::accel::__private::cpu::Ctx, #(#params),*) -> ::accel::Result<#ret> {
            ::std::result::Result::Ok(#body)
        }
    })
}

/// A generated expression: its tokens, and whether they denote a reference (a variable) or an
/// owned value (a fresh result).
struct Code {
    tokens: TokenStream,
    is_ref: bool,
}

impl Code {
    fn owned(tokens: TokenStream) -> Code {
        Code { tokens, is_ref: false }
    }
}

/// The generator. `owned_bindings` are the `let`s whose value the generated code owns (bound as
/// `name_o`, with `name` a reference to it), which the result may move out instead of copying,
/// unless `still_read` holds them: variables that another part of the result's tuple still
/// reads.
/// With `device` set it generates the scalar code of kernels for `accel-kernels` instead (see
/// [`device`]): the same expressions over device views, whose float arithmetic is fast math
/// (`accel_kernels::fmath::Fast`) where `fast_math` is set, and whose reads proved in bounds are
/// streaming loads (`View::at_streaming`) where `streaming` is set.
#[derive(Default)]
pub(crate) struct Gen {
    owned_bindings: std::cell::RefCell<std::collections::HashSet<u32>>,
    still_read: std::cell::RefCell<Vec<u32>>,
    device: bool,
    fast_math: bool,
    streaming: bool,
}

fn owned_ident(v: &Var) -> proc_macro2::Ident {
    format_ident!("{}_o", var_ident(v))
}

fn unsupported(what: &str) -> syn::Error {
    syn::Error::new(Span::call_site(), format!("`{what}` is not supported by the CPU backend yet"))
}

pub(crate) fn ix_from_array(rank: usize, arr: &TokenStream) -> TokenStream {
    match rank {
        0 => quote!(()),
        1 => quote!(#arr[0]),
        _ => {
            let parts = (0..rank).map(|i| quote!(#arr[#i]));
            quote!((#(#parts),*))
        }
    }
}

pub(crate) fn ix_to_array(rank: usize, ix: TokenStream) -> TokenStream {
    match rank {
        0 => quote!({ let _: () = #ix; [] }),
        1 => quote!([#ix]),
        _ => {
            let parts = (0..rank).map(|i| {
                let f = syn::Index::from(i);
                quote!(__i.#f)
            });
            quote!({ let __i = #ix; [#(#parts),*] })
        }
    }
}

pub(crate) fn rank_of(e: &Expr) -> usize {
    match &e.ty {
        Type::Array { rank, .. } => *rank,
        Type::Elem(ElemType::Scalar(_)) => 1,
        Type::Elem(ElemType::Tuple(ts)) => ts.len(),
        _ => 0,
    }
}

fn constant(c: &Const) -> TokenStream {
    let span = Span::call_site();
    match *c {
        Const::Bool(b) => quote!(#b),
        Const::Int(v, t) => {
            let ty = scalar_type(t);
            let lit = syn::LitInt::new(&format!("{}i128", v.unsigned_abs()), span);
            if v < 0 {
                quote!(((-#lit) as #ty))
            } else {
                let lit = syn::LitInt::new(&format!("{v}{}", t.rust_name()), span);
                quote!(#lit)
            }
        }
        Const::Float(v, t) => {
            let ty = scalar_type(t);
            if v.is_nan() {
                return quote!(#ty::NAN);
            }
            if v.is_infinite() {
                return if v > 0.0 { quote!(#ty::INFINITY) } else { quote!(#ty::NEG_INFINITY) };
            }
            let text = if t == ScalarType::F32 { format!("{:?}", (v as f32).abs()) } else { format!("{:?}", v.abs()) };
            let lit = syn::LitFloat::new(&format!("{text}{}", t.rust_name()), span);
            if v.is_sign_negative() { quote!((-#lit)) } else { quote!(#lit) }
        }
    }
}

impl Gen {
    /// An owned value in tail position (the function's result): a `let`-bound value that the
    /// result names is moved out rather than copied.
    fn tail(&self, e: &Expr) -> syn::Result<TokenStream> {
        match &e.kind {
            ExprKind::Var(v)
                if self.owned_bindings.borrow().contains(&v.id) && !self.still_read.borrow().contains(&v.id) =>
            {
                let id = owned_ident(v);
                Ok(quote!(#id))
            }
            ExprKind::Let { var, value, body } => {
                let bind = self.let_statement(var, value)?;
                let body = self.tail(body)?;
                Ok(quote!({ #bind #body }))
            }
            ExprKind::If { cond, then, els } if !e.ty.is_elem() => {
                let (c, t, f) = (self.scalar(cond)?, self.tail(then)?, self.tail(els)?);
                Ok(quote!((if #c { #t } else { #f })))
            }
            ExprKind::Tuple(parts) if distinct_vars(parts) => {
                // The computed parts run first, in order, into temporaries, and the variables
                // move out last: fusion inlines computations into the result's tuple, and those
                // may read a variable that the result moves. Inside a computed part, nothing that
                // another part reads moves out.
                let tail = |p: &Expr| if p.ty.is_elem() { self.scalar(p) } else { self.tail(p) };
                let (mut binds, mut items) = (Vec::new(), Vec::new());
                for (i, p) in parts.iter().enumerate() {
                    if let ExprKind::Var(_) = p.kind {
                        items.push(tail(p)?);
                        continue;
                    }
                    let depth = self.still_read.borrow().len();
                    for other in parts.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, q)| q) {
                        crate::ir::visit::pre_order(other, &mut |x| {
                            if let ExprKind::Var(v) = &x.kind {
                                self.still_read.borrow_mut().push(v.id);
                            }
                        });
                    }
                    let part = tail(p);
                    self.still_read.borrow_mut().truncate(depth);
                    let t = format_ident!("__part{i}");
                    let part = part?;
                    binds.push(quote!(let #t = #part;));
                    items.push(quote!(#t));
                }
                Ok(quote!({ #(#binds)* (#(#items,)*) }))
            }
            _ => self.owned(e),
        }
    }

    /// The statements of a `let`: an element by value; a collective value by reference, owning
    /// it in `name_o` when it is a fresh result.
    fn let_statement(&self, var: &Var, value: &Expr) -> syn::Result<TokenStream> {
        let id = var_ident(var);
        let v = self.expr(value)?;
        let t = v.tokens;
        if value.ty.is_elem() || v.is_ref {
            Ok(quote!(let #id = #t;))
        } else {
            self.owned_bindings.borrow_mut().insert(var.id);
            let o = owned_ident(var);
            Ok(quote!(let #o = #t; let #id = &#o;))
        }
    }

    fn owned(&self, e: &Expr) -> syn::Result<TokenStream> {
        let c = self.expr(e)?;
        Ok(if c.is_ref {
            let t = c.tokens;
            quote!(::core::clone::Clone::clone(#t))
        } else {
            c.tokens
        })
    }

    fn reference(&self, e: &Expr) -> syn::Result<TokenStream> {
        let c = self.expr(e)?;
        let t = c.tokens;
        Ok(if c.is_ref { t } else { quote!(&#t) })
    }

    /// The generator of the kernels of `program`.
    pub(crate) fn for_device(program: &Program) -> Gen {
        Gen { device: true, fast_math: program.fast_math, ..Gen::default() }
    }

    /// A generator of the same kernels whose reads proved in bounds are streaming loads: for code
    /// that reads each element of a stream once (`accel_kernels::view::View::at_streaming`).
    pub(crate) fn streaming(&self) -> Gen {
        Gen { device: self.device, fast_math: self.fast_math, streaming: true, ..Gen::default() }
    }

    /// Whether the operations on `x` take their fast-math form.
    fn fast(&self, x: &Expr) -> bool {
        self.fast_math && x.ty.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_float)
    }

    /// The path of the scalar semantics (`Arith`, `Bits`, `Float`).
    fn ops(&self) -> TokenStream {
        if self.device { quote!(::accel_kernels::ops) } else { quote!(::accel::__private::ops) }
    }

    pub(crate) fn scalar(&self, e: &Expr) -> syn::Result<TokenStream> {
        Ok(self.expr(e)?.tokens)
    }

    fn expr(&self, e: &Expr) -> syn::Result<Code> {
        Ok(match &e.kind {
            ExprKind::Var(v) => {
                let id = var_ident(v);
                Code { tokens: quote!(#id), is_ref: !e.ty.is_elem() }
            }
            ExprKind::Const(c) => Code::owned(constant(c)),
            ExprKind::Let { var, value, body } => {
                let bind = self.let_statement(var, value)?;
                let body = self.expr(body)?;
                let b = body.tokens;
                // A reference into the block's own binding cannot escape it: copy it out.
                let b = if body.is_ref { quote!(::core::clone::Clone::clone(#b)) } else { b };
                Code::owned(quote!({ #bind #b }))
            }
            ExprKind::Tuple(parts) => {
                let parts = parts
                    .iter()
                    .map(|p| if p.ty.is_elem() { self.scalar(p) } else { self.owned(p) })
                    .collect::<syn::Result<Vec<_>>>()?;
                Code::owned(quote!((#(#parts,)*)))
            }
            ExprKind::Proj(x, i) => {
                let idx = syn::Index::from(*i);
                let inner = self.expr(x)?;
                let t = inner.tokens;
                if e.ty.is_elem() {
                    Code::owned(quote!((#t).#idx))
                } else if inner.is_ref {
                    Code { tokens: quote!((&(#t).#idx)), is_ref: true }
                } else {
                    Code::owned(quote!((#t).#idx))
                }
            }
            ExprKind::If { cond, then, els } => {
                let c = self.scalar(cond)?;
                let (t, f) = if e.ty.is_elem() {
                    (self.scalar(then)?, self.scalar(els)?)
                } else {
                    (self.owned(then)?, self.owned(els)?)
                };
                Code::owned(quote!((if #c { #t } else { #f })))
            }
            ExprKind::Unary(op, x) => {
                let s = x.ty.as_elem().and_then(ElemType::as_scalar).expect("typed scalar");
                let v = self.scalar(x)?;
                let ops = self.ops();
                Code::owned(match (op, s) {
                    (UnaryOp::Neg, s) if s.is_float() => quote!((-(#v))),
                    (UnaryOp::Neg, _) => quote!(#ops::Arith::neg(#v)),
                    (UnaryOp::Not, ScalarType::Bool) => quote!((!(#v))),
                    (UnaryOp::Not, _) => quote!(#ops::Bits::bit_not(#v)),
                })
            }
            ExprKind::Binary(op, a, b) => Code::owned(self.binary(*op, a, b)?),
            ExprKind::Cast(x, t) => {
                let v = self.scalar(x)?;
                let ty = scalar_type(*t);
                let from_float = x.ty.as_elem().and_then(ElemType::as_scalar).is_some_and(ScalarType::is_float);
                let wide_int = matches!(
                    t,
                    ScalarType::I32 | ScalarType::U32 | ScalarType::I64 | ScalarType::U64 | ScalarType::Usize
                );
                Code::owned(if from_float && wide_int {
                    // The result of `as` in fewer instructions than LLVM's lowering
                    // (`accel_kernels::ops::ToInt`): on the GPU `cvt.rzi` (and a NaN test where
                    // PTX gives NaN no 0), on an x86-64 host the usual range tested first.
                    let ops = self.ops();
                    quote!(#ops::ToInt::<#ty>::to_int(#v))
                } else {
                    quote!(((#v) as #ty))
                })
            }
            ExprKind::Math(f, args) => {
                let vs = args.iter().map(|a| self.scalar(a)).collect::<syn::Result<Vec<_>>>()?;
                let name = format_ident!("{}", f.method_name());
                let tr = format_ident!("{}", f.ops_trait());
                let ops = self.ops();
                Code::owned(if f.has_fast_form() && self.fast(&args[0]) {
                    quote!(::accel_kernels::fmath::Fast::#name(#(#vs),*))
                } else {
                    quote!(#ops::#tr::#name(#(#vs),*))
                })
            }
            ExprKind::Index { array, index, site } if matches!(&array.kind, ExprKind::Array(op) if matches!(**op, ArrayOp::Generate { .. })) => {
                Code::owned(self.delayed_read(array, index, *site, e)?)
            }
            ExprKind::Index { array, index, site } => {
                let a = self.reference(array)?;
                let rank = rank_of(array);
                let ix = ix_to_array(rank, self.scalar(index)?);
                Code::owned(match (site, self.device) {
                    (ReadSite::Index, _) => quote!(__cx.read(#a, #ix)),
                    (ReadSite::Source(n), false) => quote!(__cx.read_source(#n, #a, #ix)),
                    // The host checks only the components not proved: in a loop over the proved
                    // ones (a matrix product's `j` in `b[(p, j)]`) the check of the others does
                    // not change and the reads of neighbouring elements vectorise.
                    // SAFETY (of the generated code): the components in `proved` lie inside the
                    // array, as `crate::in_bounds` proved.
                    (ReadSite::SourcePartly { read, proved }, false) => {
                        quote!(unsafe { __cx.read_source_within(#read, #proved, #a, #ix) })
                    }
                    // A device checks the whole index, as for any read written in the source.
                    (ReadSite::Source(n) | ReadSite::SourcePartly { read: n, .. }, true) => {
                        quote!(__cx.read_at(::accel_kernels::abi::site::source(#n), #a, #ix))
                    }
                    // SAFETY (of the generated code): the index is inside the array's shape, by
                    // the construction `ReadSite::Elementwise` and `ReadSite::Flattened` stand for.
                    // Read unchecked on both backends: on the host a check (or an error path)
                    // would keep the loop around the read from vectorising.
                    (ReadSite::Elementwise | ReadSite::Flattened, false) => quote!(unsafe { (#a).element(#ix) }),
                    (ReadSite::Elementwise | ReadSite::Flattened, true) if self.streaming => {
                        quote!(unsafe { (#a).at_streaming(#ix) })
                    }
                    (ReadSite::Elementwise | ReadSite::Flattened, true) => quote!(unsafe { (#a).at(#ix) }),
                    (ReadSite::Backpermute, false) => quote!(__cx.read_in("backpermute", #a, #ix)),
                    (ReadSite::Backpermute, true) => {
                        quote!(__cx.read_at(::accel_kernels::abi::site::BACKPERMUTE, #a, #ix))
                    }
                })
            }
            ExprKind::Shape(a) => {
                let r = self.reference(a)?;
                let rank = rank_of(a);
                let s = quote!(__s);
                let ix = ix_from_array(rank, &s);
                Code::owned(quote!({ let __s = (#r).shape(); #ix }))
            }
            ExprKind::Len(a) => {
                let r = self.reference(a)?;
                Code::owned(match a.ty {
                    Type::Segments => quote!((#r).count()),
                    _ => quote!((#r).len()),
                })
            }
            ExprKind::SegmentOf { segments, index } => {
                let s = self.reference(segments)?;
                let i = self.scalar(index)?;
                Code::owned(quote!((#s).segment_of(#i)))
            }
            ExprKind::Iterate { count, init, f } => {
                let n = self.scalar(count)?;
                let i = self.scalar(init)?;
                let (p, _) = &f.params[0];
                let p = var_ident(p);
                let body = self.scalar(&f.body)?;
                Code::owned(quote!({
                    let __n: usize = #n;
                    let mut __acc = #i;
                    for _ in 0..__n { let #p = __acc; __acc = #body; }
                    __acc
                }))
            }
            ExprKind::WhileLoop { init, cond, step } => {
                let i = self.scalar(init)?;
                let cp = var_ident(&cond.params[0].0);
                let c = self.scalar(&cond.body)?;
                let sp = var_ident(&step.params[0].0);
                let s = self.scalar(&step.body)?;
                Code::owned(quote!({
                    let mut __state = #i;
                    loop {
                        let #cp = __state;
                        if !(#c) { break __state; }
                        let #sp = __state;
                        __state = #s;
                    }
                }))
            }
            ExprKind::Array(op) if self.device => self.array_in_kernel(op)?,
            ExprKind::Array(op) => self.array(op, &e.ty)?,
        })
    }

    fn binary(&self, op: BinaryOp, a: &Expr, b: &Expr) -> syn::Result<TokenStream> {
        let x = self.scalar(a)?;
        let y = self.scalar(b)?;
        let ops = self.ops();
        // Fast math: float `+ - * /` take their fast form (`accel_kernels::fmath::Fast`).
        let fast = |name: &str| {
            let name = format_ident!("{name}");
            quote!(::accel_kernels::fmath::Fast::#name(#x, #y))
        };
        let fast_math = self.fast(a);
        Ok(match op {
            BinaryOp::Add if fast_math => fast("add"),
            BinaryOp::Sub if fast_math => fast("sub"),
            BinaryOp::Mul if fast_math => fast("mul"),
            BinaryOp::Div if fast_math => fast("div"),
            BinaryOp::Add => quote!(#ops::Arith::add(#x, #y)),
            BinaryOp::Sub => quote!(#ops::Arith::sub(#x, #y)),
            BinaryOp::Mul => quote!(#ops::Arith::mul(#x, #y)),
            BinaryOp::Div => quote!(__cx.div(#x, #y)),
            BinaryOp::Rem => quote!(__cx.rem(#x, #y)),
            BinaryOp::DivEuclid => quote!(__cx.div_euclid(#x, #y)),
            BinaryOp::RemEuclid => quote!(__cx.rem_euclid(#x, #y)),
            BinaryOp::BitAnd => quote!(#ops::Bits::bit_and(#x, #y)),
            BinaryOp::BitOr => quote!(#ops::Bits::bit_or(#x, #y)),
            BinaryOp::BitXor => quote!(#ops::Bits::bit_xor(#x, #y)),
            BinaryOp::Shl => quote!(#ops::Bits::shl(#x, (#y) as u32)),
            BinaryOp::Shr => quote!(#ops::Bits::shr(#x, (#y) as u32)),
            BinaryOp::And => quote!(((#x) && (#y))),
            BinaryOp::Or => quote!(((#x) || (#y))),
            BinaryOp::Eq => quote!(((#x) == (#y))),
            BinaryOp::Ne => quote!(((#x) != (#y))),
            BinaryOp::Lt => quote!(((#x) < (#y))),
            BinaryOp::Le => quote!(((#x) <= (#y))),
            BinaryOp::Gt => quote!(((#x) > (#y))),
            BinaryOp::Ge => quote!(((#x) >= (#y))),
        })
    }

    /// A read of a delayed array (the fusion pass's `Index` of a `generate`): the element
    /// computed in place, after the same bounds check a read of the array would make.
    fn delayed_read(&self, array: &Expr, index: &Expr, site: ReadSite, e: &Expr) -> syn::Result<TokenStream> {
        let ExprKind::Array(op) = &array.kind else { unreachable!("checked by the caller") };
        let ArrayOp::Generate { shape, f, .. } = &**op else { unreachable!("checked by the caller") };
        let rank = rank_of(array);
        let ix = ix_to_array(rank, self.scalar(index)?);
        let shape = ix_to_array(rank, self.scalar(shape)?);
        let p = var_ident(&f.params[0].0);
        let conv = ix_from_array(rank, &quote!(__j));
        let body = self.scalar(&f.body)?;
        let t = value_type(&e.ty);
        let (check, zero) = if self.device {
            let site = match site {
                ReadSite::Index | ReadSite::Elementwise => quote!(::accel_kernels::abi::site::INDEX),
                ReadSite::Source(n) | ReadSite::SourcePartly { read: n, .. } => {
                    quote!(::accel_kernels::abi::site::source(#n))
                }
                ReadSite::Backpermute => quote!(::accel_kernels::abi::site::BACKPERMUTE),
                // In bounds by construction: no check.
                ReadSite::Flattened => {
                    return Ok(quote!({ let __j: [usize; #rank] = #ix; let #p = #conv; #body }));
                }
            };
            (quote!(__cx.check_index(#site, __j, __shape)), quote!(<#t as ::accel_kernels::elem::DeviceElem>::zero()))
        } else {
            let check = match site {
                // `crate::in_bounds` proves reads of array variables only, never of a delayed
                // array: its index is checked whole.
                ReadSite::Source(n) | ReadSite::SourcePartly { read: n, .. } => {
                    quote!(__cx.check_source_index(#n, __j, __shape))
                }
                ReadSite::Index | ReadSite::Backpermute | ReadSite::Elementwise | ReadSite::Flattened => {
                    let op = site.name();
                    quote!(__cx.check_index(#op, __j, __shape))
                }
            };
            (check, quote!(<#t as ::core::default::Default>::default()))
        };
        Ok(quote!({
            let __j: [usize; #rank] = #ix;
            let __shape: [usize; #rank] = #shape;
            if #check { let #p = #conv; #body } else { #zero }
        }))
    }

    /// The collective operations kernel code can contain: reads of values in scope.
    fn array_in_kernel(&self, op: &ArrayOp) -> syn::Result<Code> {
        Ok(match op {
            ArrayOp::The(a) => {
                let r = self.reference(a)?;
                Code::owned(quote!((#r).get()))
            }
            ArrayOp::NestedValues(n) => {
                let n = self.reference(n)?;
                Code { tokens: quote!((#n).values()), is_ref: true }
            }
            ArrayOp::NestedSegments(n) => {
                let n = self.reference(n)?;
                Code { tokens: quote!((#n).segments()), is_ref: true }
            }
            // The front end keeps collective operations out of closures; fusion only puts
            // delayed reads (`Index` of a `Generate`) there.
            ArrayOp::Generate { .. }
            | ArrayOp::Producer(_)
            | ArrayOp::Unit(_)
            | ArrayOp::Fold { .. }
            | ArrayOp::FoldAll { .. }
            | ArrayOp::FoldSeg { .. }
            | ArrayOp::Scan { .. }
            | ArrayOp::ScanSeg { .. }
            | ArrayOp::Permute { .. }
            | ArrayOp::ExpandPermute { .. }
            | ArrayOp::Reshape { .. }
            | ArrayOp::Unzip(_)
            | ArrayOp::Concat { .. }
            | ArrayOp::Slice { .. }
            | ArrayOp::Stencil { .. }
            | ArrayOp::Expand { .. }
            | ArrayOp::Filter { .. }
            | ArrayOp::Awhile { .. }
            | ArrayOp::SegmentsFromLengths(_)
            | ArrayOp::SegmentLengths(_)
            | ArrayOp::SegmentOffsets(_)
            | ArrayOp::NestedFromParts { .. }
            | ArrayOp::NestedMap { .. }
            | ArrayOp::Seq(_) => {
                let msg = format!("`{}` cannot run inside a kernel's closure", op.name());
                return Err(syn::Error::new(Span::call_site(), msg));
            }
        })
    }

    /// A closure over elements: `|p0: T0, ..| -> R { body }`.
    pub(crate) fn lambda(&self, l: &Lambda) -> syn::Result<TokenStream> {
        let params = l.params.iter().map(|(v, t)| {
            let id = var_ident(v);
            let ty = elem_type(t.as_elem().expect("scalar closure"));
            quote!(#id: #ty)
        });
        let ret = value_type(l.result_type());
        let body = self.scalar(&l.body)?;
        Ok(self.capturing(l, quote!(|#(#params),*| -> #ret { #body })))
    }

    /// `closure` (the code of `l`) capturing the arrays it reads as views (`cpu::View`), made
    /// once, before the skeleton's loop: reading an array itself finds its host columns on every
    /// read, a path that may write memory, so no load the closure makes left the loop and no
    /// loop vectorised. The views are moved in; the closure's other captures are references
    /// and elements, which it copies. Device code is left as it is: a kernel binds its arrays
    /// as views of its parameters already.
    fn capturing(&self, l: &Lambda, closure: TokenStream) -> TokenStream {
        if self.device {
            return closure;
        }
        let views: Vec<TokenStream> = crate::ir::visit::free_vars_of_lambda(l)
            .into_values()
            .filter(|(_, t)| matches!(t, Type::Array { .. }))
            .map(|(v, _)| {
                let id = var_ident(&v);
                quote!(let #id = ::accel::__private::cpu::View::of(#id);)
            })
            .collect();
        if views.is_empty() {
            return closure;
        }
        quote!({ #(#views)* move #closure })
    }

    /// `l` as a closure whose first parameter is an index, received as `[usize; R]`.
    fn index_closure(&self, l: &Lambda, rank: usize) -> syn::Result<TokenStream> {
        let ret = value_type(l.result_type());
        let body = self.scalar(&l.body)?;
        Ok(self.index_lambda(l, rank, ret, body))
    }

    /// A closure whose first parameter is an index, received as `[usize; R]`.
    fn index_lambda(&self, l: &Lambda, rank: usize, ret: TokenStream, body: TokenStream) -> TokenStream {
        let ix = var_ident(&l.params[0].0);
        let arr = quote!(__ix);
        let conv = ix_from_array(rank, &arr);
        let rest = l.params[1..].iter().map(|(v, t)| {
            let id = var_ident(v);
            let ty = elem_type(t.as_elem().expect("scalar closure"));
            quote!(, #id: #ty)
        });
        self.capturing(l, quote!(|__ix: [usize; #rank] #(#rest)*| -> #ret { let #ix = #conv; #body }))
    }

    fn seed(&self, z: &Option<Expr>) -> syn::Result<TokenStream> {
        Ok(match z {
            Some(z) => {
                let v = self.scalar(z)?;
                quote!(::std::option::Option::Some(#v))
            }
            None => quote!(::std::option::Option::None),
        })
    }

    fn shape_arg(&self, shape: &Expr) -> syn::Result<TokenStream> {
        Ok(ix_to_array(rank_of(shape), self.scalar(shape)?))
    }

    /// An operand in a position that may hold a delayed array (fused form 1 of
    /// [`crate::fusion`]): a `generate` node there becomes a `Delayed` source whose elements the
    /// skeleton computes where it reads them; any other operand is a reference as usual.
    fn operand(&self, a: &Expr) -> syn::Result<TokenStream> {
        let Some(ArrayOp::Generate { shape, f, .. }) = kernel::as_generate(a) else { return self.reference(a) };
        let s = self.shape_arg(shape)?;
        let f = self.index_closure(f, rank_of(shape))?;
        Ok(quote!(&::accel::__private::cpu::Delayed::new(#s, #f)?))
    }

    /// The call of the skeleton of a reduction or scan node; with `post`, an epilogue (fused form
    /// 3 of [`crate::fusion`]), of the skeleton's `_imap` form, which writes `post(ix, v)` for
    /// each result `v`.
    fn reduction(&self, op: &ArrayOp, post: Option<TokenStream>) -> syn::Result<TokenStream> {
        use ArrayOp::*;
        let name = op.name();
        let (skeleton, args) = match op {
            Fold { z, f, a } | FoldAll { z, f, a } => {
                let skeleton = if matches!(op, Fold { .. }) { "fold" } else { "fold_all" };
                (skeleton, vec![self.operand(a)?, self.seed(z)?, self.lambda(f)?, quote!(#name)])
            }
            FoldSeg { z, f, a, segments } => {
                let (a, s) = (self.operand(a)?, self.reference(segments)?);
                ("fold_seg", vec![a, s, self.seed(z)?, self.lambda(f)?, quote!(#name)])
            }
            Scan { dir, kind: ScanKind::ExclusiveAndTotal, z, f, a } => {
                let z = self.scalar(z.as_ref().expect("scan_total has a seed"))?;
                ("scan_total", vec![self.operand(a)?, direction(*dir), z, self.lambda(f)?])
            }
            Scan { dir, kind, z, f, a } => {
                ("scan", vec![self.operand(a)?, direction(*dir), scan_kind(*kind), self.seed(z)?, self.lambda(f)?])
            }
            ScanSeg { kind, z, f, a, segments } => {
                let (a, s) = (self.operand(a)?, self.reference(segments)?);
                ("scan_seg", vec![a, s, scan_kind(*kind), self.seed(z)?, self.lambda(f)?])
            }
            Generate { .. } | Producer(_) | Permute { .. } | Concat { .. } | Slice { .. } | Stencil { .. } => {
                return Err(not_a_reduction(name));
            }
            ExpandPermute { .. } => return Err(not_a_reduction(name)),
            Expand { .. } | Filter { .. } | SegmentsFromLengths(_) | SegmentLengths(_) | Unit(_) | The(_) => {
                return Err(not_a_reduction(name));
            }
            Unzip(_) | Reshape { .. } | Awhile { .. } | SegmentOffsets(_) | NestedFromParts { .. } => {
                return Err(not_a_reduction(name));
            }
            NestedValues(_) | NestedSegments(_) | NestedMap { .. } | Seq(_) => return Err(not_a_reduction(name)),
        };
        Ok(match post {
            None => {
                let skeleton = format_ident!("{skeleton}");
                quote!(::accel::__private::cpu::#skeleton(__cx, #(#args),*))
            }
            Some(post) => {
                let skeleton = format_ident!("{skeleton}_imap");
                quote!(::accel::__private::cpu::#skeleton(__cx, #(#args,)* #post))
            }
        })
    }

    fn array(&self, op: &ArrayOp, ty: &Type) -> syn::Result<Code> {
        use ArrayOp::*;
        let cpu = quote!(::accel::__private::cpu);
        let name = op.name();
        let call = match op {
            Generate { shape, f, .. } => {
                let s = self.shape_arg(shape)?;
                let f = self.index_closure(f, rank_of(shape))?;
                quote!(#cpu::generate(__cx, #s, #f))
            }
            Unit(x) => {
                let v = self.scalar(x)?;
                return Ok(Code::owned(quote!(::accel::Scalar::new(#v))));
            }
            The(a) => {
                let r = self.reference(a)?;
                return Ok(Code::owned(quote!((#r).get())));
            }
            Producer(p) => {
                // The pipeline lowers every producer to a `generate`, except an epilogue.
                let (Some(inner), P::IMap { f, a }) = (kernel::epilogue_source(op), p) else {
                    return Err(not_lowered(name));
                };
                let f = self.index_closure(f, rank_of(a))?;
                self.reduction(inner, Some(f))?
            }
            Fold { .. } | FoldAll { .. } | FoldSeg { .. } | Scan { .. } | ScanSeg { .. } => self.reduction(op, None)?,
            Permute { defaults, f, combine, a } => {
                let (r, r2) = (rank_of(a), rank_of(defaults));
                let d = self.operand(defaults)?;
                let a = self.operand(a)?;
                let pair = self.scalar(&f.body)?;
                let dst = ix_to_array(r2, quote!(__dst));
                let body = quote!({
                    let (__keep, __dst) = #pair;
                    if __keep { ::std::option::Option::Some(#dst) } else { ::std::option::Option::None }
                });
                let f = self.index_lambda(f, r, quote!(::std::option::Option<[usize; #r2]>), body);
                let c = self.lambda(combine)?;
                match (kernel::permute_combine(combine), combine.params[0].1.as_elem().and_then(ElemType::as_scalar)) {
                    // `+` has an identity, so partial results need not track their first source.
                    // `-0.0` is a float `+`'s, bit for bit (`0.0 + -0.0` is `0.0`; `-0.0 + 0.0` would not be `-0.0`).
                    // The literal takes the element's type from the other operands.
                    (kernel::PermuteCombine::Add, Some(s)) => {
                        let zero = if s.is_float() { quote!(-0.0) } else { quote!(0) };
                        quote!(#cpu::permute_with_identity(__cx, #d, #a, #f, #c, #zero))
                    }
                    _ => quote!(#cpu::permute(__cx, #d, #a, #f, #c)),
                }
            }
            // The CPU runs fused form 4 as the expand and the permute it fuses.
            ExpandPermute { .. } => return self.expr(&expand_permute::unfused(op, ty)),
            Reshape { shape, a } => {
                let s = self.shape_arg(shape)?;
                let a = self.reference(a)?;
                quote!(#cpu::reshape(__cx, #a, #s))
            }
            Concat { a, b } => {
                let (a, b) = (self.reference(a)?, self.reference(b)?);
                quote!(#cpu::concat(__cx, #a, #b))
            }
            Slice { axis, index, a } => {
                let (i, a, ax) = (self.scalar(index)?, self.reference(a)?, axis_tokens(*axis));
                quote!(#cpu::slice(__cx, #a, #ax, #i))
            }
            Stencil { shape, boundary, f, a } => {
                let a = self.operand(a)?;
                let elem = elem_type(f.params[0].1.as_elem().expect("scalar closure"));
                let b = match boundary {
                    Boundary::Clamp => quote!(#cpu::Boundary::Clamp),
                    Boundary::Mirror => quote!(#cpu::Boundary::Mirror),
                    Boundary::Wrap => quote!(#cpu::Boundary::Wrap),
                    Boundary::Constant(v) => {
                        let v = self.scalar(v)?;
                        quote!(#cpu::Boundary::Constant(#v))
                    }
                };
                let points = shape.points();
                let binds = f.params.iter().enumerate().map(|(i, (v, _))| {
                    let id = var_ident(v);
                    quote!(let #id = __n[#i];)
                });
                let ret = value_type(f.result_type());
                let body = self.scalar(&f.body)?;
                let sh = stencil_shape(*shape);
                let f = self.capturing(f, quote!(|__n: &[#elem; #points]| -> #ret { #(#binds)* #body }));
                quote!(#cpu::stencil(__cx, #a, #sh, #b, #f))
            }
            Expand { count, value, a } => {
                let (a, c, v) = (self.operand(a)?, self.lambda(count)?, self.lambda(value)?);
                quote!(#cpu::expand(__cx, #a, #c, #v))
            }
            Filter { pred, a } => {
                let (a, p) = (self.operand(a)?, self.lambda(pred)?);
                quote!(#cpu::filter(__cx, #a, #p))
            }
            Awhile { init, cond, step } => {
                let t = value_type(ty);
                let i = self.owned(init)?;
                let cp = var_ident(&cond.params[0].0);
                let c = self.reference(&cond.body)?;
                let sp = var_ident(&step.params[0].0);
                let s = self.owned(&step.body)?;
                return Ok(Code::owned(quote!({
                    let mut __state: #t = #i;
                    loop {
                        let __go: bool = { let #cp = &__state; (#c).get() };
                        if !__go { break __state; }
                        __state = { let #sp = &__state; #s };
                    }
                })));
            }
            SegmentsFromLengths(l) => {
                let l = self.reference(l)?;
                quote!(::accel::Segments::from_lengths("segments", #l))
            }
            SegmentLengths(s) => {
                let s = self.reference(s)?;
                return Ok(Code::owned(quote!((#s).lengths())));
            }
            SegmentOffsets(s) => {
                let s = self.reference(s)?;
                return Ok(Code::owned(quote!((#s).offsets_vector())));
            }
            NestedFromParts { segments, values } => {
                let (s, v) = (self.owned(segments)?, self.owned(values)?);
                quote!(::accel::Nested::from_segments(#s, #v))
            }
            NestedValues(n) => {
                let n = self.reference(n)?;
                return Ok(Code { tokens: quote!((#n).values()), is_ref: true });
            }
            NestedSegments(n) => {
                let n = self.reference(n)?;
                return Ok(Code { tokens: quote!((#n).segments()), is_ref: true });
            }
            Unzip(a) => {
                let a = self.owned(a)?;
                return Ok(Code::owned(quote!((#a).unzip())));
            }
            NestedMap { .. } | Seq(_) => return Err(unsupported(name)),
        };
        let t = value_type(ty);
        Ok(Code::owned(quote!({ let __r: #t = #call?; __r })))
    }
}

/// Whether the variables among `parts` are all different (so each may be moved out once).
fn distinct_vars(parts: &[Expr]) -> bool {
    let ids: Vec<u32> = parts
        .iter()
        .filter_map(|p| match &p.kind {
            ExprKind::Var(v) => Some(v.id),
            _ => None,
        })
        .collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    unique.len() == ids.len()
}

/// The error for a producer that reached code generation without being lowered to a `generate`
/// (a bug of the caller: the pipeline lowers them all).
fn not_lowered(name: &str) -> syn::Error {
    syn::Error::new(Span::call_site(), format!("`{name}` reached code generation without being lowered"))
}

/// The error for an operation that reached the code of reductions and scans (a bug of the
/// caller: it passes only those).
fn not_a_reduction(name: &str) -> syn::Error {
    syn::Error::new(proc_macro2::Span::call_site(), format!("`{name}` is not a reduction or scan"))
}

fn direction(d: Direction) -> TokenStream {
    match d {
        Direction::Left => quote!(::accel::__private::ir::Direction::Left),
        Direction::Right => quote!(::accel::__private::ir::Direction::Right),
    }
}

fn scan_kind(k: ScanKind) -> TokenStream {
    match k {
        ScanKind::WithSeed => quote!(::accel::__private::ir::ScanKind::WithSeed),
        ScanKind::Inclusive => quote!(::accel::__private::ir::ScanKind::Inclusive),
        ScanKind::ExclusiveAndTotal => quote!(::accel::__private::ir::ScanKind::ExclusiveAndTotal),
    }
}

fn axis_tokens(a: Axis) -> TokenStream {
    match a {
        Axis::Rows => quote!(::accel::__private::ir::Axis::Rows),
        Axis::Cols => quote!(::accel::__private::ir::Axis::Cols),
    }
}

fn stencil_shape(s: StencilShape) -> TokenStream {
    match s {
        StencilShape::S3 => quote!(::accel::__private::ir::StencilShape::S3),
        StencilShape::S5 => quote!(::accel::__private::ir::StencilShape::S5),
        StencilShape::S3x3 => quote!(::accel::__private::ir::StencilShape::S3x3),
        StencilShape::S5x5 => quote!(::accel::__private::ir::StencilShape::S5x5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        crate::frontend::lower(&syn::parse_str(src).expect("a function")).expect("a valid program")
    }

    /// The CPU code of `p`, checked to be one valid Rust function.
    fn cpu_code(p: &Program) -> String {
        let tokens = cpu_function(p).expect("code generation succeeds");
        syn::parse2::<syn::ItemFn>(tokens.clone()).expect("the code is a valid function");
        tokens.to_string()
    }

    /// `p` with every `let`-bound `generate` substituted into the uses of its variable, which
    /// turns its reads into delayed reads and its operands into delayed operands.
    fn inline_generates(p: &Program) -> Program {
        fn subst(e: &mut serde_json::Value, id: &serde_json::Value, by: &serde_json::Value) {
            if e.pointer("/kind/Var/id") == Some(id) {
                *e = by.clone();
            } else if let Some(children) = e.as_object_mut() {
                children.values_mut().for_each(|c| subst(c, id, by));
            } else if let Some(items) = e.as_array_mut() {
                items.iter_mut().for_each(|c| subst(c, id, by));
            }
        }
        fn inline(e: &mut serde_json::Value) {
            if let Some(children) = e.as_object_mut() {
                children.values_mut().for_each(inline);
            } else if let Some(items) = e.as_array_mut() {
                items.iter_mut().for_each(inline);
            }
            if let Some(the_let) = e.pointer("/kind/Let")
                && the_let.pointer("/value/kind/Array/Generate").is_some()
            {
                let (id, value) = (the_let["var"]["id"].clone(), the_let["value"].clone());
                let mut body = the_let["body"].clone();
                subst(&mut body, &id, &value);
                *e = body;
            }
        }
        let mut json = serde_json::to_value(p).expect("serialisable");
        inline(&mut json);
        serde_json::from_value(json).expect("still a program")
    }

    #[test]
    fn delayed_operands_become_delayed_sources() {
        let p = program(
            "fn dotp(xs: Vector<f32>, ys: Vector<f32>) -> Scalar<f32> {
                 generate(xs.len(), |i| xs[i] * ys[i]).fold_all(0.0, |a, b| a + b)
             }",
        );
        let code = cpu_code(&p);
        assert!(code.contains("cpu :: fold_all (__cx , & :: accel :: __private :: cpu :: Delayed :: new"), "{code}");
        assert!(!code.contains("cpu :: generate"), "{code}");
    }

    #[test]
    fn a_result_tuple_moves_its_variables_after_the_parts_that_read_them() {
        let p = program(
            "fn f(xs: Vector<f64>) -> (Scalar<f64>, Vector<f64>, (Scalar<f64>, Vector<f64>)) {
                 let s = xs.sum();
                 let t = xs.sum();
                 (s, xs.map(|x| x / s.get()), (t, xs.map(|x| x * t.get())))
             }",
        );
        let code = cpu_code(&crate::pipeline::optimise(&p, crate::pipeline::Options::UNFUSED));
        // `s` moves out after the map that reads it, `t` after its sibling in the nested tuple.
        assert!(code.contains("_o , __part1 , __part2 ,)"), "{code}");
        assert!(code.contains("_o , __part1 ,)"), "{code}");
        assert!(!code.contains("Clone :: clone"), "nothing is copied: {code}");
    }

    #[test]
    fn every_delayed_position_and_epilogue_generates() {
        let p = program(
            "fn f(xs: Vector<f32>, m: Matrix<i32>, ls: Vector<i32>) -> (Vector<f32>, Vector<f32>, Matrix<i32>, Vector<i32>, Vector<f32>, Vector<f32>, Vector<f32>, Vector<f32>, Scalar<f64>, Vector<bool>) {
                 let n = xs.len();
                 let g = generate(n, |i| xs[i] * 2.0);
                 let gm = generate(m.shape(), |(i, j)| m[(i, j)] + (i as i32));
                 let s = g.scanl(0.0, |a, b| a + b).imap(|i, v| v + (i as f32));
                 let t = g.fold_seg(0.0, |a, b| a.max(b), ls).imap(|i, v| v * 2.0);
                 let u = gm.scanr1(|a, b| a - b);
                 let w = gm.fold(0, |a, b| a + b).imap(|i, v| v / ((i as i32) + 1));
                 let q = g.scanl1_seg(|a, b| a + b, ls);
                 let h = g.permute(g, |i| Some((n - 1 - i,)), |a, b| a + b);
                 let st = g.stencil3(Clamp, |l, c, r| l + c + r);
                 let e = g.filter(|x| x > 1.0);
                 let all = g.fold_all(0.0, |a, b| a + b).imap(|_, v| (v as f64) + g[0] as f64);
                 let x = g.expand(|x| 2, |x, k| x > (k as f32));
                 (s, t, u, w, q, h, st, e, all, x)
             }",
        );
        let code = cpu_code(&inline_generates(&p));
        for skeleton in [
            "scan_imap",
            "fold_seg_imap",
            "scan",
            "fold_imap",
            "scan_seg",
            "permute_with_identity",
            "stencil",
            "filter",
        ] {
            assert!(
                code.contains(&format!("cpu :: {skeleton} (__cx , & :: accel :: __private :: cpu :: Delayed")),
                "{skeleton}: {code}"
            );
        }
        assert!(code.contains("cpu :: fold_all_imap (__cx , & :: accel :: __private :: cpu :: Delayed"), "{code}");
        assert!(code.contains("cpu :: expand (__cx , & :: accel :: __private :: cpu :: Delayed"), "{code}");
        // `g[0]` in the epilogue is a delayed read, the source's third.
        assert!(code.contains("check_source_index (2u32"), "{code}");
        assert!(!code.contains("cpu :: generate"), "{code}");
        assert!(!code.contains("cpu :: imap"), "{code}");
    }
}
