//! Closures: arity and parameter types from the combinator, tuple patterns desugared into
//! projections, and the stencil neighbourhood forms (`|l, c, r|`, `|n|` read as `n[r][c]`, or
//! `|[[a, b, c], [d, e, f], [g, h, i]]|`).

use super::{Binding, Lowerer, Scope};
use crate::ir::{Expr, ExprKind, Lambda, StencilShape, Var};
use crate::types::{ElemType, Type};
use syn::{Error, Pat};

/// Whether a closure computes elements (scalar code) or collective values (`awhile`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Scalar,
    Collective,
}

impl Lowerer<'_> {
    /// Lowers a closure argument of `what` taking `params`, whose body is lowered by `body`.
    pub(super) fn lambda_with(
        &mut self,
        e: &syn::Expr,
        what: &'static str,
        params: &[Type],
        level: Level,
        body: impl FnOnce(&mut Self, &syn::Expr) -> syn::Result<Expr>,
    ) -> syn::Result<Lambda> {
        // A closure bound by `let` is lowered here, in the scope of its definition.
        if let Some((bound, scope)) = self.closure_binding(e) {
            let bound = syn::Expr::Closure(*bound);
            return self.elsewhere(scope, None, |lw| lw.lambda_with(&bound, what, params, level, body));
        }
        let c = closure(e, what, params.len())?;
        let declared_ret = match &c.output {
            syn::ReturnType::Type(_, t) => Some((super::types::value_type(t)?, t)),
            syn::ReturnType::Default => None,
        };
        self.scoped(|lw| {
            let mut vars = Vec::new();
            let mut lets = Vec::new();
            for (pat, ty) in c.inputs.iter().zip(params) {
                let (pat, annotation) = match pat {
                    Pat::Type(pt) => (&*pt.pat, Some(&pt.ty)),
                    p => (p, None),
                };
                if let Some(a) = annotation {
                    let declared = super::types::value_type(a)?;
                    if &declared != ty {
                        return Err(Error::new_spanned(a, format!("this parameter of `{what}`'s closure is `{ty}`, not `{declared}`")));
                    }
                }
                let var = match pat {
                    Pat::Ident(pi) if pi.mutability.is_none() && pi.by_ref.is_none() && pi.subpat.is_none() => {
                        lw.bind(&pi.ident.to_string(), ty.clone())
                    }
                    other => {
                        let var = lw.fresh("arg");
                        lw.bind_pattern(other, Expr::var(var.clone(), ty.clone()), &mut lets)?;
                        var
                    }
                };
                vars.push((var, ty.clone()));
            }
            if level == Level::Scalar {
                lw.scalar_closures.push(what);
            }
            let result = body(lw, &c.body);
            if level == Level::Scalar {
                lw.scalar_closures.pop();
            }
            let mut body = result?;
            if let Some((declared, t)) = &declared_ret
                && *declared != body.ty
            {
                return Err(Error::new_spanned(t, format!("this closure returns `{}`, not `{declared}`", body.ty)));
            }
            if level == Level::Scalar && !body.ty.is_elem() {
                return Err(Error::new_spanned(&c.body,
                    format!("the closure of `{what}` computes one element (a scalar or a tuple of scalars), but this is `{}`", body.ty),
                ));
            }
            for (var, value) in lets.into_iter().rev() {
                let ty = body.ty.clone();
                body = Expr::new(ExprKind::Let { var, value: Box::new(value), body: Box::new(body) }, ty);
            }
            Ok(Lambda { params: vars, body: Box::new(body) })
        })
    }

    /// A closure whose body has the expected type `ret` (when known).
    pub(super) fn lambda(
        &mut self,
        e: &syn::Expr,
        what: &'static str,
        params: &[Type],
        ret: Option<&Type>,
        level: Level,
    ) -> syn::Result<Lambda> {
        self.lambda_with(e, what, params, level, |lw, body| {
            let x = lw.expr(body, ret)?;
            match ret {
                Some(want) if &x.ty != want => Err(Error::new_spanned(
                    body,
                    format!("the closure of `{what}` must return `{want}`, found `{}`", x.ty),
                )),
                _ => Ok(x),
            }
        })
    }

    /// The closure of a stencil: one parameter per neighbour, or one neighbourhood parameter.
    pub(super) fn stencil_lambda(
        &mut self,
        e: &syn::Expr,
        shape: StencilShape,
        elem: &ElemType,
    ) -> syn::Result<Lambda> {
        let what = shape.method_name();
        let points = shape.points();
        let width = 2 * shape.radius() + 1;
        let rank = shape.rank();
        let elem_t = Type::Elem(elem.clone());
        let c = match e {
            syn::Expr::Closure(c) => c,
            _ => {
                return Err(Error::new_spanned(
                    e,
                    format!("`{what}` takes a closure here, such as {}", stencil_example(shape)),
                ));
            }
        };
        if c.inputs.len() == points {
            return self.lambda(e, what, &vec![elem_t; points], None, Level::Scalar);
        }
        if c.inputs.len() != 1 {
            return Err(Error::new_spanned(
                c.or1_token,
                format!(
                    "`{what}` takes a closure of {} or of one neighbourhood parameter, such as {}",
                    plural(points, "parameter"),
                    stencil_example(shape)
                ),
            ));
        }
        let (pat, annotation) = match &c.inputs[0] {
            Pat::Type(pt) => (&*pt.pat, Some(&pt.ty)),
            p => (p, None),
        };
        if let Some(a) = annotation {
            check_neighbourhood_type(a, elem, width, rank, what)?;
        }
        self.scoped(|lw| {
            let vars: Vec<Var> = (0..points).map(|i| lw.fresh(&format!("n{i}"))).collect();
            let exprs: Vec<Expr> = vars.iter().map(|v| Expr::var(v.clone(), elem_t.clone())).collect();
            match pat {
                Pat::Ident(pi) => {
                    lw.scope.push((pi.ident.to_string(), Binding::Neighbourhood { width, rank, points: exprs }));
                }
                Pat::Slice(_) => lw.bind_grid(pat, &exprs, width, rank)?,
                other => {
                    return Err(Error::new_spanned(
                        other,
                        format!("write the neighbourhood as a name, such as {}", stencil_example(shape)),
                    ));
                }
            }
            lw.scalar_closures.push(what);
            let body = lw.expr(&c.body, None);
            lw.scalar_closures.pop();
            let body = body?;
            if !body.ty.is_elem() {
                return Err(Error::new_spanned(
                    &c.body,
                    format!("the closure of `{what}` computes one element, but this is `{}`", body.ty),
                ));
            }
            Ok(Lambda { params: vars.into_iter().map(|v| (v, elem_t.clone())).collect(), body: Box::new(body) })
        })
    }

    /// Binds a slice pattern `[[a, b, c], ...]` to the neighbour expressions.
    fn bind_grid(&mut self, pat: &Pat, points: &[Expr], width: usize, rank: usize) -> syn::Result<()> {
        let Pat::Slice(s) = pat else {
            return Err(Error::new_spanned(pat, "expected a pattern like `[a, b, c]`"));
        };
        if s.elems.len() != width {
            return Err(Error::new_spanned(s, format!("this neighbourhood has {width} entries per dimension")));
        }
        let stride = points.len() / width;
        for (i, p) in s.elems.iter().enumerate() {
            let part = &points[i * stride..(i + 1) * stride];
            if rank > 1 {
                self.bind_grid(p, part, width, rank - 1)?;
            } else {
                match p {
                    Pat::Ident(pi) => {
                        let Expr { kind: ExprKind::Var(v), ty } = &part[0] else {
                            unreachable!("points are variables")
                        };
                        self.scope.push((pi.ident.to_string(), Binding::Value(v.clone(), ty.clone())));
                    }
                    Pat::Wild(_) => {}
                    other => return Err(Error::new_spanned(other, "write a name or `_` for each neighbour")),
                }
            }
        }
        Ok(())
    }
}

fn closure<'a>(e: &'a syn::Expr, what: &str, arity: usize) -> syn::Result<&'a syn::ExprClosure> {
    match e {
        syn::Expr::Closure(c) => {
            if let Some(a) = &c.asyncness {
                return Err(Error::new_spanned(a, "closures cannot be `async` inside #[accel]"));
            }
            if c.inputs.len() != arity {
                let index_first = matches!(what, "generate" | "backpermute" | "permute" | "imap");
                let hint = if index_first && c.inputs.len() > arity {
                    if what == "imap" {
                        "; a multi-dimensional index is one tuple parameter: write `|(i, j), x| ...`"
                    } else {
                        "; a multi-dimensional index is one tuple parameter: write `|(i, j)| ...`"
                    }
                } else {
                    ""
                };
                let message = format!(
                    "`{what}` takes a closure of {}, this one has {}{hint}",
                    plural(arity, "parameter"),
                    c.inputs.len()
                );
                return Err(if c.inputs.is_empty() {
                    Error::new_spanned(c, message)
                } else {
                    Error::new_spanned(&c.inputs, message)
                });
            }
            Ok(c)
        }
        syn::Expr::Paren(p) => closure(&p.expr, what, arity),
        other => Err(Error::new_spanned(
            other,
            format!("`{what}` takes a closure of {} here, written inline like `|x| ...`", plural(arity, "parameter")),
        )),
    }
}

impl Lowerer<'_> {
    /// The closure and its defining scope, when `e` names a closure bound by `let`.
    pub(super) fn closure_binding(&self, e: &syn::Expr) -> Option<(Box<syn::ExprClosure>, Scope)> {
        let syn::Expr::Path(p) = e else { return None };
        match self.lookup(&p.path.get_ident()?.to_string()) {
            Some(Binding::Closure { closure, scope }) => Some((closure.clone(), scope.clone())),
            _ => None,
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

fn stencil_example(shape: StencilShape) -> &'static str {
    match shape {
        StencilShape::S3 => "`|l, c, r| (l + c + r) / 3.0`",
        StencilShape::S5 => "`|a, b, c, d, e| c`",
        StencilShape::S3x3 => "`|n| n[1][1]` (with `n: [[E; 3]; 3]`)",
        StencilShape::S5x5 => "`|n| n[2][2]` (with `n: [[E; 5]; 5]`)",
    }
}

fn check_neighbourhood_type(ty: &syn::Type, elem: &ElemType, width: usize, rank: usize, what: &str) -> syn::Result<()> {
    let wrong = || {
        let inner = format!("[{elem}; {width}]");
        let want = if rank == 1 { inner } else { format!("[{inner}; {width}]") };
        Error::new_spanned(ty, format!("the neighbourhood of `{what}` has type `{want}`"))
    };
    let mut t = ty;
    for _ in 0..rank {
        let syn::Type::Array(a) = t else { return Err(wrong()) };
        match &a.len {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. })
                if i.base10_parse::<usize>().ok() == Some(width) => {}
            _ => return Err(wrong()),
        }
        t = &a.elem;
    }
    if &super::types::elem_type(t).map_err(|_| wrong())? != elem {
        return Err(wrong());
    }
    Ok(())
}
