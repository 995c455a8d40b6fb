//! The front end: a `#[accel]` function's syn AST to a typed [`Program`].
//!
//! Lowering and type checking are one pass. Types flow bottom-up, with an *expected* type passed
//! down where the context knows it, so that unsuffixed literals take the type Rust would give them
//! (`x * 2.0` with `x: f32` is `f32`; a literal with no context is `i32` or `f64`). A `let` bound
//! to an unsuffixed literal expression stays untyped and is typed at each use, as rustc would infer
//! it. Every rejection is a `syn::Error` at the exact span, saying what to write instead.
//!
//! Module map: [`types`] parses source types; `expr` lowers expressions and statements; `call`
//! lowers combinators and free functions; `lambda` lowers closures.

mod call;
mod expr;
mod lambda;
pub mod types;

use crate::ir::{Expr, Program, Var};
use crate::types::Type;
use syn::{Error, FnArg, Pat};

/// Lowers a whole `#[accel]` function.
pub fn lower(item: &syn::ItemFn) -> syn::Result<Program> {
    check_signature(&item.sig)?;
    let mut lw = Lowerer::default();
    let mut params = Vec::new();
    for input in &item.sig.inputs {
        let FnArg::Typed(pt) = input else {
            return Err(Error::new_spanned(input, "#[accel] functions take no `self`; make it a free function"));
        };
        let name = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if let Some(m) = &pi.mutability {
                    return Err(Error::new_spanned(
                        m,
                        "parameters cannot be `mut`: values are immutable inside #[accel]; bind a new name with `let`",
                    ));
                }
                pi.ident.to_string()
            }
            other => return Err(Error::new_spanned(other, "write each parameter as `name: Type`")),
        };
        if params.iter().any(|(v, _): &(crate::ir::Var, Type)| v.name == name) {
            return Err(Error::new_spanned(&pt.pat, format!("parameter `{name}` is bound more than once")));
        }
        let ty = types::value_type(&pt.ty)?;
        if let Type::Tuple(_) | Type::Elem(crate::types::ElemType::Tuple(_)) = ty {
            return Err(Error::new_spanned(
                &pt.ty,
                "tuple parameters are not supported: pass each part as its own parameter",
            ));
        }
        let var = lw.bind(&name, ty.clone());
        params.push((var, ty));
    }
    let syn::ReturnType::Type(_, ret) = &item.sig.output else {
        return Err(Error::new_spanned(
            &item.sig.ident,
            "a #[accel] function returns arrays: add a result type such as `-> Vector<f32>` or `-> Scalar<f32>`",
        ));
    };
    if let syn::Type::Reference(r) = &**ret {
        return Err(Error::new_spanned(r, "return the array itself, without `&`: for example `-> Vector<f32>`"));
    }
    let result = types::value_type(ret)?;
    check_result_type(&result, ret)?;
    let body = lw.block(&item.block, Some(&result))?;
    let body = lw.expect_type(body, &result, tail_expr(&item.block))?;
    Ok(Program { name: item.sig.ident.to_string(), params, body })
}

/// The expression that gives a block its value (for errors about the result).
fn tail_expr(block: &syn::Block) -> proc_macro2::TokenStream {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => match e {
            syn::Expr::Block(b) => tail_expr(&b.block),
            e => quote::quote!(#e),
        },
        _ => quote::quote!(#block),
    }
}

fn check_signature(sig: &syn::Signature) -> syn::Result<()> {
    if let Some(g) = sig.generics.params.first() {
        return Err(Error::new_spanned(
            g,
            "generic #[accel] functions are not supported: write one function per element type",
        ));
    }
    if let Some(w) = &sig.generics.where_clause {
        return Err(Error::new_spanned(w, "`where` clauses are not supported in #[accel] functions"));
    }
    if let Some(a) = &sig.asyncness {
        return Err(Error::new_spanned(
            a,
            "#[accel] functions cannot be `async`; they return when the result is ready",
        ));
    }
    if let Some(u) = &sig.unsafety {
        return Err(Error::new_spanned(
            u,
            "#[accel] functions cannot be `unsafe`: there is nothing unsafe to do inside them",
        ));
    }
    if let Some(c) = &sig.constness {
        return Err(Error::new_spanned(c, "#[accel] functions cannot be `const`"));
    }
    if let Some(v) = &sig.variadic {
        return Err(Error::new_spanned(v, "variadic #[accel] functions are not supported"));
    }
    Ok(())
}

/// Results are collective values: arrays, nested arrays and tuples of them.
fn check_result_type(t: &Type, span: &syn::Type) -> syn::Result<()> {
    let parts = match span {
        syn::Type::Tuple(tt) => Some(tt.elems.iter().collect::<Vec<_>>()),
        syn::Type::Paren(p) => return check_result_type(t, &p.elem),
        _ => None,
    };
    if let Some(parts) = parts {
        let types = t.tuple_parts().unwrap_or_default();
        return parts.iter().zip(&types).try_for_each(|(s, t)| check_result_type(t, s));
    }
    match t {
        Type::Array { .. } | Type::Nested(_) => Ok(()),
        Type::Tuple(parts) => parts.iter().try_for_each(|p| check_result_type(p, span)),
        Type::Elem(e) => Err(Error::new_spanned(
            span,
            format!(
                "a #[accel] function returns arrays, not bare elements: return `Scalar<{e}>` (build it with `unit(e)`, or it comes from a reduction)"
            ),
        )),
        other => Err(Error::new_spanned(span, format!("`{other}` cannot be returned; return arrays or nested arrays"))),
    }
}

/// What a name in scope stands for.
#[derive(Clone)]
enum Binding {
    /// A typed variable.
    Value(Var, Type),
    /// A `let` of an unsuffixed literal expression: typed at each use (see the module docs).
    Literal(Box<syn::Expr>),
    /// A stencil neighbourhood parameter `n`, read as `n[r][c]` (or `n[i]` for vectors).
    Neighbourhood { width: usize, rank: usize, points: Vec<Expr> },
}

/// The state of one lowering: fresh variable ids, the scope, and whether we are inside a scalar
/// closure (where collective operations would be nested parallelism).
#[derive(Default)]
struct Lowerer {
    next_id: u32,
    scope: Vec<(String, Binding)>,
    scalar_closures: Vec<&'static str>,
}

impl Lowerer {
    fn fresh(&mut self, name: &str) -> Var {
        self.next_id += 1;
        Var { id: self.next_id, name: name.to_string() }
    }

    /// Binds a name to a fresh variable of the type, returning the variable.
    fn bind(&mut self, name: &str, ty: Type) -> Var {
        let var = self.fresh(name);
        self.scope.push((name.to_string(), Binding::Value(var.clone(), ty)));
        var
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scope.iter().rev().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// Runs `f` with the scope restored afterwards.
    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let depth = self.scope.len();
        let out = f(self);
        self.scope.truncate(depth);
        out
    }

    fn expect_type(&self, e: Expr, want: &Type, at: impl quote::ToTokens) -> syn::Result<Expr> {
        if &e.ty == want {
            return Ok(e);
        }
        let hint = match (want, &e.ty) {
            (Type::Elem(crate::types::ElemType::Scalar(w)), Type::Elem(crate::types::ElemType::Scalar(_))) => {
                format!(" (convert with `as {w}`)")
            }
            (Type::Array { rank: 0, elem }, Type::Elem(f)) if elem == f => " (wrap the element in `unit(..)`)".into(),
            (Type::Elem(w), Type::Array { rank: 0, elem }) if elem == w => " (read the element with `.get()`)".into(),
            (Type::Array { rank: a, .. }, Type::Array { rank: b, .. }) if a != b => {
                " (the ranks differ: check the declared type, or use `fold`, `reshape` or `replicate_rows`)".into()
            }
            _ => String::new(),
        };
        Err(Error::new_spanned(at, format!("mismatched types: expected `{want}`, found `{}`{hint}", e.ty)))
    }
}
