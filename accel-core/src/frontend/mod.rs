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
mod inline;
mod lambda;
mod matching;
pub mod types;

use crate::ir::{Expr, Program, ReadSite, SourceRead, Var};
use crate::library::{self, Library};
use crate::types::Type;
use proc_macro2::Span;
use std::path::{Path, PathBuf};
use syn::{Error, FnArg, Pat};

/// Lowers a whole `#[accel]` function that calls no other one (see [`lower_calling`]).
pub fn lower(item: &syn::ItemFn) -> syn::Result<Program> {
    lower_calling(item, &NO_FUNCTIONS, Path::new("")).map(|l| l.program)
}

/// A function lowered with its library.
pub struct Lowered {
    pub program: Program,
    /// The paths, as written, of the package's `const` items and `#[accel]` functions that the
    /// body names and that Rust reads the same way: the macro refers to them, so that rustc sees
    /// them used.
    pub referenced: Vec<Vec<String>>,
}

/// Lowers a whole `#[accel]` function, written in the file `from`, whose calls of other
/// `#[accel]` functions name functions of `library` (inlined, see `inline`).
pub fn lower_calling(item: &syn::ItemFn, library: &Library, from: &Path) -> syn::Result<Lowered> {
    let mut lw = Lowerer::new(library, from, &item.sig.ident.to_string());
    let Signature { params: named, result, result_span } = signature(item)?;
    check_result_type(&result, result_span)?;
    let params = named.into_iter().map(|(name, ty)| (lw.bind(&name, ty.clone()), ty)).collect();
    let body = lw.block(&item.block, Some(&result))?;
    let body = lw.expect_type(body, &result, tail_expr(&item.block))?;
    let program =
        Program { name: item.sig.ident.to_string(), params, body, read_sites: lw.read_sites, fast_math: false };
    Ok(Lowered { program, referenced: lw.referenced })
}

/// Whether `item` is a scalar helper: an `#[accel]` function of elements (scalars or tuples of
/// them) to an element, such as `fn mix(x: u32) -> u32`, callable from closures. It is not a
/// program of its own.
pub fn is_scalar_helper(item: &syn::ItemFn) -> bool {
    let element = |t: &syn::Type| types::value_type(t).is_ok_and(|t| t.is_elem());
    let params = item.sig.inputs.iter().all(|input| match input {
        FnArg::Typed(pt) => element(&pt.ty),
        FnArg::Receiver(_) => false,
    });
    match &item.sig.output {
        syn::ReturnType::Type(_, ret) => params && element(ret),
        syn::ReturnType::Default => false,
    }
}

/// Lowers a scalar helper ([`is_scalar_helper`]) as a program of its own, to check it and to
/// evaluate it on the host with the interpreter.
pub fn lower_helper(item: &syn::ItemFn, library: &Library, from: &Path) -> syn::Result<Program> {
    let mut lw = Lowerer::new(library, from, &item.sig.ident.to_string());
    let Signature { params: named, result, .. } = signature(item)?;
    let params = named.into_iter().map(|(name, ty)| (lw.bind(&name, ty.clone()), ty)).collect();
    let body = lw.block(&item.block, Some(&result))?;
    let body = lw.expect_type(body, &result, tail_expr(&item.block))?;
    Ok(Program { name: item.sig.ident.to_string(), params, body, read_sites: lw.read_sites, fast_math: false })
}

/// A function's parameters and result, checked.
struct Signature<'a> {
    params: Vec<(String, Type)>,
    result: Type,
    result_span: &'a syn::Type,
}

/// The parameters and result type of `item`, with every rule a signature must follow.
fn signature(item: &syn::ItemFn) -> syn::Result<Signature<'_>> {
    check_signature(&item.sig)?;
    let mut params: Vec<(String, Type)> = Vec::new();
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
        if params.iter().any(|(n, _)| *n == name) {
            return Err(Error::new_spanned(&pt.pat, format!("parameter `{name}` is bound more than once")));
        }
        let ty = types::value_type(&pt.ty)?;
        if let Type::Tuple(_) | Type::Elem(crate::types::ElemType::Tuple(_)) = ty {
            return Err(Error::new_spanned(
                &pt.ty,
                "tuple parameters are not supported: pass each part as its own parameter",
            ));
        }
        params.push((name, ty));
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
    Ok(Signature { params, result, result_span: ret })
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
                "a #[accel] function of arrays returns arrays, not bare elements: return `Scalar<{e}>` (build it with `unit(e)`, or it comes from a reduction); a function of elements only, such as `fn mix(x: u32) -> u32`, is a scalar helper that #[accel] code calls"
            ),
        )),
        other => Err(Error::new_spanned(span, format!("`{other}` cannot be returned; return arrays or nested arrays"))),
    }
}

/// The names in scope, innermost last.
type Scope = Vec<(String, Binding)>;

/// What a name in scope stands for.
#[derive(Clone)]
enum Binding {
    /// A typed variable.
    Value(Var, Type),
    /// A `const` item of the body: a typed variable that later constants may name too.
    Constant(Var, Type),
    /// A `let` of an unsuffixed literal expression: typed at each use (see the module docs).
    Literal(Box<syn::Expr>),
    /// A stencil neighbourhood parameter `n`, read as `n[r][c]` (or `n[i]` for vectors).
    Neighbourhood { width: usize, rank: usize, points: Vec<Expr> },
    /// A `let` of a closure: lowered where it is passed to a combinator or called, in the scope
    /// it was defined in (so that it sees the values its definition saw).
    Closure { closure: Box<syn::ExprClosure>, scope: Scope },
}

/// The state of one lowering: fresh variable ids, the scope, whether we are inside a scalar
/// closure (where collective operations would be nested parallelism), the functions calls may
/// name and the calls being inlined.
struct Lowerer<'l> {
    next_id: u32,
    scope: Scope,
    scalar_closures: Vec<&'static str>,
    library: &'l Library,
    /// The file and module of the function whose body is being lowered (a callee's while it
    /// is inlined): where the names of calls resolve from.
    from: PathBuf,
    module: Vec<String>,
    /// The function being lowered and those whose bodies are being inlined, outermost first.
    calls: Vec<String>,
    /// See [`Lowered::referenced`].
    referenced: Vec<Vec<String>>,
    /// The file of the function as given (for [`SourceRead::file`]).
    file: String,
    /// The reads by index written in the source, in the order lowered ([`Program::read_sites`]).
    read_sites: Vec<SourceRead>,
    /// Where the call being inlined is written in the function, while a callee's body is
    /// lowered: the place its reads are reported at (a callee's text has no places of its own
    /// inside the macro, see [`SourceRead::line`]).
    inlined_at: Option<(u32, u32)>,
}

impl<'l> Lowerer<'l> {
    /// The lowering of the function `name` of the file `from`.
    fn new(library: &'l Library, from: &Path, name: &str) -> Lowerer<'l> {
        let module = library.module_of_function(from, name);
        Lowerer {
            next_id: 0,
            scope: Vec::new(),
            scalar_closures: Vec::new(),
            library,
            // Canonical once here: every call and constant resolves against this file.
            from: library::canonical(from),
            // The function's path, as a callee reaching it again would name it.
            calls: vec![module.iter().cloned().chain([name.to_string()]).collect::<Vec<_>>().join("::")],
            module,
            referenced: Vec::new(),
            file: from.display().to_string(),
            read_sites: Vec::new(),
            inlined_at: None,
        }
    }

    /// The read of `array` at `at`, numbered in the program's table of source reads.
    fn source_read(&mut self, array: &syn::Expr, at: Span) -> ReadSite {
        let (line, column) = self.inlined_at.unwrap_or_else(|| position(at));
        let callee = (self.calls.len() > 1).then(|| self.calls.last().cloned()).flatten();
        let array = quote::quote!(#array).to_string().split_whitespace().collect::<String>();
        self.read_sites.push(SourceRead { array, file: self.file.clone(), line, column, callee });
        ReadSite::Source(self.read_sites.len() as u32 - 1)
    }
}

/// The line and column (from 1) where `span` starts.
fn position(span: Span) -> (u32, u32) {
    let start = span.start();
    (start.line as u32, start.column as u32 + 1)
}

/// The library of a lowering that calls nothing.
static NO_FUNCTIONS: Library = Library::EMPTY;

impl Default for Lowerer<'static> {
    fn default() -> Self {
        Lowerer::new(&NO_FUNCTIONS, Path::new(""), "")
    }
}

impl Lowerer<'_> {
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
