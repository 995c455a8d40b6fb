//! `match` on scalars and tuples of them, lowered to a `let` of the matched value and nested
//! `if`s: each arm's pattern becomes a test (an `==` per literal or constant, bounds for a range,
//! `||` for `|`, field by field for a tuple) and its names `let`s of the value's fields, the arms
//! tried in order, a guard after its pattern.
//!
//! rustc's exhaustiveness check never sees the body (the macro replaces it), so it is made here,
//! conservatively: the last arm must match everything (`_`, a name, or a tuple of those), or the
//! arms of a `bool` must cover `true` and `false` without guards.

use super::Lowerer;
use crate::ir::{BinaryOp, Expr, ExprKind, Var};
use crate::types::{ElemType, Type};
use syn::{Error, Pat};

impl Lowerer<'_> {
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, expected: Option<&Type>) -> syn::Result<Expr> {
        let scrutinee = self.expr(&m.expr, None)?;
        if !scrutinee.ty.is_elem() {
            return Err(Error::new_spanned(
                &m.expr,
                format!("`match` applies to scalars and tuples of them, found `{}`", scrutinee.ty),
            ));
        }
        if !m.arms.last().is_some_and(|a| a.guard.is_none() && irrefutable(&a.pat)) && !covers_bool(m, &scrutinee.ty) {
            return Err(Error::new_spanned(
                m.match_token,
                "this `match` may not cover every value: end it with an arm `_ => ...` (rustc's exhaustiveness check does not run inside #[accel])",
            ));
        }
        let var = self.fresh("matched");
        let whole = Expr::var(var.clone(), scrutinee.ty.clone());
        let mut want = expected.cloned();
        // As rustc infers it: arms of unsuffixed literals take the type of the first other arm.
        if want.is_none()
            && let Some(arm) = m.arms.iter().find(|a| !super::expr::is_untyped_literal(self, &a.body))
        {
            let typed = self.scoped(|lw| {
                lw.pattern_test(&arm.pat, &whole, &mut Vec::new())?;
                lw.expr(&arm.body, None)
            })?;
            want = Some(typed.ty);
        }
        let mut arms = Vec::new();
        for arm in &m.arms {
            let lowered = self.scoped(|lw| {
                let mut lets = Vec::new();
                let test = lw.pattern_test(&arm.pat, &whole, &mut lets)?;
                let guard = match &arm.guard {
                    Some((_, g)) => Some(with_lets(&lets, lw.condition(g)?)),
                    None => None,
                };
                let body = lw.expr(&arm.body, want.as_ref())?;
                Ok::<_, Error>((and(test, guard), with_lets(&lets, body)))
            })?;
            match &want {
                Some(t) if *t != lowered.1.ty => {
                    return Err(Error::new_spanned(
                        &arm.body,
                        format!("this arm is `{}` but the `match` is `{t}`", lowered.1.ty),
                    ));
                }
                _ => want = Some(lowered.1.ty.clone()),
            }
            arms.push(lowered);
        }
        // From the last arm back: `if test { body } else { the arms after }`.
        let mut rest: Option<Expr> = None;
        for (test, body) in arms.into_iter().rev() {
            rest = Some(match (test, rest) {
                (Some(test), Some(els)) => {
                    let ty = body.ty.clone();
                    Expr::new(ExprKind::If { cond: Box::new(test), then: Box::new(body), els: Box::new(els) }, ty)
                }
                // An arm that always matches, or the last arm (the check above makes it total).
                (_, _) => body,
            });
        }
        let body = rest.expect("the check above found an arm");
        let ty = body.ty.clone();
        Ok(Expr::new(ExprKind::Let { var, value: Box::new(scrutinee), body: Box::new(body) }, ty))
    }

    /// A `bool` condition.
    fn condition(&mut self, e: &syn::Expr) -> syn::Result<Expr> {
        let bool_t = Type::Elem(ElemType::BOOL);
        let c = self.expr(e, Some(&bool_t))?;
        self.expect_type(c, &bool_t, e)
    }

    /// The test that `value` matches `pat` (`None`: always), binding the pattern's names to
    /// fields of `value` (recorded in `lets`).
    fn pattern_test(&mut self, pat: &Pat, value: &Expr, lets: &mut Vec<(Var, Expr)>) -> syn::Result<Option<Expr>> {
        let ty = value.ty.clone();
        let equal = |lw: &mut Self, e: &syn::Expr| -> syn::Result<Option<Expr>> {
            let x = lw.expr(e, Some(&ty))?;
            let x = lw.expect_type(x, &ty, e)?;
            Ok(Some(compare(BinaryOp::Eq, value, x)))
        };
        match pat {
            Pat::Wild(_) => Ok(None),
            Pat::Ident(pi) => {
                if pi.by_ref.is_some() || pi.mutability.is_some() {
                    return Err(Error::new_spanned(pi, "write a plain name here"));
                }
                if let Some((_, sub)) = &pi.subpat {
                    let test = self.pattern_test(sub, value, lets)?;
                    self.bind_pattern(&Pat::Ident(syn::PatIdent { subpat: None, ..pi.clone() }), value.clone(), lets)?;
                    return Ok(test);
                }
                // A name that is a constant in scope compares, as in Rust; any other binds.
                if let Some(constant) = self.constant_named(&pi.ident)? {
                    return Ok(Some(compare(BinaryOp::Eq, value, constant)));
                }
                self.bind_pattern(pat, value.clone(), lets)?;
                Ok(None)
            }
            Pat::Lit(l) => equal(self, &syn::Expr::Lit(l.clone())),
            Pat::Path(p) => equal(self, &syn::Expr::Path(p.clone())),
            Pat::Const(c) => equal(self, &syn::Expr::Const(c.clone())),
            Pat::Verbatim(tokens) => {
                // A negative literal such as `-1`.
                let e: syn::Expr = syn::parse2(tokens.clone())
                    .map_err(|_| Error::new_spanned(tokens, "this pattern is not supported inside #[accel]"))?;
                equal(self, &e)
            }
            Pat::Range(r) => {
                let bound = |lw: &mut Self, e: &Option<Box<syn::Expr>>| -> syn::Result<Option<Expr>> {
                    e.as_deref()
                        .map(|e| {
                            let x = lw.expr(e, Some(&ty))?;
                            lw.expect_type(x, &ty, e)
                        })
                        .transpose()
                };
                let low = bound(self, &r.start)?.map(|lo| compare(BinaryOp::Ge, value, lo));
                let upper = match r.limits {
                    syn::RangeLimits::HalfOpen(_) => BinaryOp::Lt,
                    syn::RangeLimits::Closed(_) => BinaryOp::Le,
                };
                let high = bound(self, &r.end)?.map(|hi| compare(upper, value, hi));
                Ok(and(low, high))
            }
            Pat::Or(o) => {
                let mut any: Option<Expr> = None;
                for case in &o.cases {
                    let mut inner = Vec::new();
                    let test = self.pattern_test(case, value, &mut inner)?;
                    if !inner.is_empty() {
                        return Err(Error::new_spanned(
                            case,
                            "the alternatives of `|` cannot bind names inside #[accel]",
                        ));
                    }
                    let Some(test) = test else { return Ok(None) };
                    any = Some(match any {
                        Some(a) => compare(BinaryOp::Or, &a, test),
                        None => test,
                    });
                }
                Ok(any)
            }
            Pat::Tuple(t) => {
                let Some(parts) = ty.tuple_parts() else {
                    return Err(Error::new_spanned(t, format!("a tuple pattern needs a tuple, found `{ty}`")));
                };
                if parts.len() != t.elems.len() {
                    return Err(Error::new_spanned(
                        t,
                        format!("the pattern has {} fields but the value `{ty}` has {}", t.elems.len(), parts.len()),
                    ));
                }
                let mut all = None;
                for (k, (p, part)) in t.elems.iter().zip(parts).enumerate() {
                    let field = Expr::new(ExprKind::Proj(Box::new(value.clone()), k), part);
                    all = and(all, self.pattern_test(p, &field, lets)?);
                }
                Ok(all)
            }
            Pat::Paren(p) => self.pattern_test(&p.pat, value, lets),
            other => Err(Error::new_spanned(
                other,
                "this pattern is not supported inside #[accel]: match literals, ranges, constants, `_`, names, `|` and tuples of them",
            )),
        }
    }
}

impl Lowerer<'_> {
    /// The value of the constant `name` names in scope (a `const` of the body, or one of the
    /// package that Rust would find from here), if any.
    fn constant_named(&mut self, name: &syn::Ident) -> syn::Result<Option<Expr>> {
        let text = name.to_string();
        if let Some(super::Binding::Constant(var, ty)) = self.lookup(&text) {
            return Ok(Some(Expr::var(var.clone(), ty.clone())));
        }
        let path = [text];
        let library = self.library;
        let found = library.resolve(crate::library::Kind::Const, &path, &self.from, &self.module).ok().flatten();
        match found {
            Some(entry) if entry.path == library.rust_reading(&path, &self.from, &self.module) => {
                self.library_const(&path, name.span())
            }
            _ => Ok(None),
        }
    }
}

/// `a op b`, a `bool`.
fn compare(op: BinaryOp, a: &Expr, b: Expr) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new(a.clone()), Box::new(b)), Type::Elem(ElemType::BOOL))
}

/// Both tests (`None` is always true).
fn and(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(compare(BinaryOp::And, &a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `body` under the `let`s of a pattern's names.
fn with_lets(lets: &[(Var, Expr)], body: Expr) -> Expr {
    lets.iter().rev().fold(body, |body, (var, value)| {
        let ty = body.ty.clone();
        Expr::new(ExprKind::Let { var: var.clone(), value: Box::new(value.clone()), body: Box::new(body) }, ty)
    })
}

/// Whether a pattern matches every value: `_`, a name, or a tuple of those.
fn irrefutable(p: &Pat) -> bool {
    match p {
        Pat::Wild(_) => true,
        Pat::Ident(pi) => pi.subpat.as_ref().is_none_or(|(_, sub)| irrefutable(sub)),
        Pat::Tuple(t) => t.elems.iter().all(irrefutable),
        Pat::Paren(p) => irrefutable(&p.pat),
        _ => false,
    }
}

/// Whether the arms of a match on a `bool` cover `true` and `false` without guards.
fn covers_bool(m: &syn::ExprMatch, ty: &Type) -> bool {
    if *ty != Type::Elem(ElemType::BOOL) {
        return false;
    }
    let mut seen = [false; 2];
    fn note(p: &Pat, seen: &mut [bool; 2]) {
        match p {
            Pat::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => seen[usize::from(b.value)] = true,
            Pat::Or(o) => o.cases.iter().for_each(|c| note(c, seen)),
            Pat::Paren(p) => note(&p.pat, seen),
            _ => {}
        }
    }
    m.arms.iter().filter(|a| a.guard.is_none()).for_each(|a| note(&a.pat, &mut seen));
    seen == [true, true]
}

#[cfg(test)]
mod tests {
    use crate::interp;
    use crate::types::{ElemType, ScalarType};
    use crate::value::{ArrayValue, ElemValue, ScalarValue, Value};

    fn run_i32(src: &str, xs: &[i32]) -> Result<Vec<i32>, String> {
        let item: syn::ItemFn = syn::parse_str(src).map_err(|e| e.to_string())?;
        let program = crate::frontend::lower(&item).map_err(|e| e.to_string())?;
        let data = xs.iter().map(|&x| ElemValue::Scalar(ScalarValue::I32(x))).collect();
        let v = Value::Array(ArrayValue::new(ElemType::Scalar(ScalarType::I32), vec![xs.len()], data).unwrap());
        let out = interp::eval(&program, vec![v]).map_err(|e| e.to_string())?.into_array().unwrap();
        Ok(out
            .data
            .iter()
            .map(|e| match e {
                ElemValue::Scalar(ScalarValue::I32(x)) => *x,
                other => panic!("{other:?}"),
            })
            .collect())
    }

    #[test]
    fn arms_are_tried_in_order_with_literals_ranges_alternatives_guards_and_names() {
        let src = "fn f(xs: Vector<i32>) -> Vector<i32> {
            const LIMIT: i32 = 77;
            xs.map(|x| match x {
                0 => 100,
                1 | 2 => 200,
                -5..=-1 => 300,
                LIMIT => 400,
                n if n > 1000 => n / 2,
                10..20 => 500,
                _ => -1,
            })
        }";
        let xs = [0, 1, 2, -5, -1, -6, 77, 2000, 1000, 10, 19, 20, 3];
        let want = [100, 200, 200, 300, 300, -1, 400, 1000, -1, 500, 500, -1, -1];
        assert_eq!(run_i32(src, &xs).unwrap(), want);
    }

    #[test]
    fn tuples_and_bools() {
        let src = "fn f(xs: Vector<i32>) -> Vector<i32> {
            xs.map(|x| match (x % 3, x > 0) {
                (0, true) => 1,
                (0, false) => 2,
                (r, _) => match r > 1 { true => r * 10, false => -r },
            })
        }";
        assert_eq!(run_i32(src, &[3, 0, -3, 5, 4, -4]).unwrap(), [1, 2, 2, 20, -1, 1]);
    }

    #[test]
    fn a_match_that_may_cover_nothing_is_an_error() {
        let src = "fn f(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| match x { 0 => 1, n if n > 0 => 2 }) }";
        assert!(run_i32(src, &[1]).unwrap_err().contains("end it with an arm `_ => ...`"));
        let src = "fn f(xs: Vector<i32>) -> Vector<i32> { xs.map(|x| match x { 0 => 1, _ => x as f64 }) }";
        let e = run_i32(src, &[1]).unwrap_err();
        assert!(e.contains("this arm is `f64` but the `match` is `i32`"), "{e}");
    }
}
