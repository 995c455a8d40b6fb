//! Sibling fusion: reductions over the same extent become one reduction of tuples, so that one
//! pass over the data computes them all (the sum and the sum of squares of a vector in one
//! kernel).
//!
//! Two `fold_all`s (or two `fold`s) are siblings when both have a seed or neither has, and their
//! operands (delayed arrays or variables) have structurally equal shapes. They are found among
//! the parts of a tuple and along a chain of `let`s, where the later one may move up to the
//! earlier one because it reads none of the variables bound in between. The merged reduction
//! folds `(a, b)` pairs with `|(a1, a2), (b1, b2)| (f(a1, b1), g(a2, b2))`: the same operands
//! in the same grouping as each alone, so the results are those of the separate reductions.
//! Its result is split back with `unzip`, which copies nothing.

use super::rewrite::{Fresh, element, index_type, let_in, origin, rank, shape_of, var};
use crate::ir::visit::{free_vars, map_children};
use crate::ir::{ArrayOp, Expr, ExprKind, Lambda, Program, ReadSite, Var};
use crate::types::{ElemType, Type};

/// Runs the pass.
pub fn run(program: Program) -> Program {
    super::rewrite::rewrite_body(program, rewrite)
}

fn rewrite(e: &Expr, fresh: &mut Fresh) -> Expr {
    let e = map_children(e, &mut |c| rewrite(c, fresh));
    match &e.kind {
        ExprKind::Let { .. } => {
            let (lets, tail) = chain(e);
            merge_chain(lets, tail, fresh)
        }
        ExprKind::Tuple(parts) if !e.ty.is_elem() && has_siblings(parts) => {
            let mut lets = Vec::new();
            let tail_parts = parts
                .iter()
                .map(|p| {
                    if reduction(p).is_some() {
                        let v = fresh.var("part");
                        lets.push((v.clone(), p.clone()));
                        var(&v, &p.ty)
                    } else {
                        p.clone()
                    }
                })
                .collect();
            merge_chain(lets, Expr::new(ExprKind::Tuple(tail_parts), e.ty.clone()), fresh)
        }
        _ => e,
    }
}

/// The `let`s at the top of `e` and what they scope over.
fn chain(mut e: Expr) -> (Vec<(Var, Expr)>, Expr) {
    let mut lets = Vec::new();
    while let ExprKind::Let { var, value, body } = e.kind {
        lets.push((var, *value));
        e = *body;
    }
    (lets, e)
}

fn merge_chain(mut lets: Vec<(Var, Expr)>, tail: Expr, fresh: &mut Fresh) -> Expr {
    let mut i = 0;
    while i < lets.len() {
        let mut j = i + 1;
        while j < lets.len() {
            let movable = {
                let reads = free_vars(&lets[j].1);
                lets[i..j].iter().all(|(v, _)| !reads.contains_key(&v.id))
            };
            if movable && let Some(merged) = merge(&lets[i].1, &lets[j].1, fresh) {
                let (second_var, _) = lets.remove(j);
                let (first_var, _) = lets.remove(i);
                let (t, u) = (fresh.var("siblings"), fresh.var("split"));
                let t_ty = merged.ty.clone();
                let parts = Type::tuple(vec![first_type(&t_ty, 0), first_type(&t_ty, 1)]);
                let unzip = Expr::array(ArrayOp::Unzip(var(&t, &t_ty)), parts.clone());
                let proj = |k: usize| Expr::new(ExprKind::Proj(Box::new(var(&u, &parts)), k), first_type(&t_ty, k));
                let replacement = vec![(t, merged), (u.clone(), unzip), (first_var, proj(0)), (second_var, proj(1))];
                lets.splice(i..i, replacement);
                // The merged reduction is at `i` again: look for a third sibling after it.
                j = i + 1;
                continue;
            }
            j += 1;
        }
        i += 1;
    }
    lets.into_iter().rev().fold(tail, |body, (v, value)| let_in(&v, value, body))
}

/// Field `k` of an array of pairs, as an array type.
fn first_type(pairs: &Type, k: usize) -> Type {
    let (elem, rank) = pairs.as_array().expect("an array of pairs");
    let ElemType::Tuple(parts) = elem else { unreachable!("merged reductions make pairs") };
    Type::array(parts[k].clone(), rank)
}

fn has_siblings(parts: &[Expr]) -> bool {
    let rs: Vec<&Expr> = parts.iter().filter(|p| reduction(p).is_some()).collect();
    rs.iter().enumerate().any(|(i, a)| rs[i + 1..].iter().any(|b| compatible(a, b)))
}

/// `e` as a reduction that sibling fusion handles: `fold` or `fold_all` of a delayed array or a
/// variable.
fn reduction(e: &Expr) -> Option<(&Option<Expr>, &Lambda, &Expr)> {
    let ExprKind::Array(op) = &e.kind else { return None };
    let (ArrayOp::Fold { z, f, a } | ArrayOp::FoldAll { z, f, a }) = &**op else { return None };
    (crate::kernel::as_generate(a).is_some() || matches!(a.kind, ExprKind::Var(_))).then_some((z, f, a))
}

fn compatible(x: &Expr, y: &Expr) -> bool {
    let (Some((z1, _, a1)), Some((z2, _, a2))) = (reduction(x), reduction(y)) else { return false };
    let same_kind = matches!(
        (&x.kind, &y.kind),
        (ExprKind::Array(p), ExprKind::Array(q)) if std::mem::discriminant(&**p) == std::mem::discriminant(&**q)
    );
    same_kind && z1.is_some() == z2.is_some() && rank(a1) == rank(a2) && shape_of(a1) == shape_of(a2)
}

/// The one reduction computing both `x` and `y`, if they are siblings.
fn merge(x: &Expr, y: &Expr, fresh: &mut Fresh) -> Option<Expr> {
    if !compatible(x, y) {
        return None;
    }
    let ((z1, f1, a1), (z2, f2, a2)) = (reduction(x)?, reduction(y)?);
    let (e1, e2) = (a1.ty.as_array()?.0.clone(), a2.ty.as_array()?.0.clone());
    let pair = ElemType::Tuple(vec![e1, e2]);
    let r = rank(a1);

    let ix = fresh.var("ix");
    let ixt = index_type(r);
    let both = Expr::new(
        ExprKind::Tuple(vec![
            element(a1, var(&ix, &ixt), ReadSite::Elementwise),
            element(a2, var(&ix, &ixt), ReadSite::Elementwise),
        ]),
        Type::Elem(pair.clone()),
    );
    let from = [origin(a1), origin(a2)].concat();
    let operand = Expr::array(
        ArrayOp::Generate { shape: shape_of(a1), f: Lambda { params: vec![(ix, ixt)], body: Box::new(both) }, from },
        Type::array(pair.clone(), r),
    );

    let pt = Type::Elem(pair.clone());
    let (acc, next) = (fresh.var("acc"), fresh.var("next"));
    let field = |v: &Var, k: usize, t: &Type| Expr::new(ExprKind::Proj(Box::new(var(v, &pt)), k), t.clone());
    let results = Expr::new(ExprKind::Tuple(vec![(*f1.body).clone(), (*f2.body).clone()]), pt.clone());
    let body = [(f1, 0), (f2, 1)].into_iter().rev().fold(results, |body, (f, k)| {
        let (p0, t0) = &f.params[0];
        let (p1, t1) = &f.params[1];
        let_in(p0, field(&acc, k, t0), let_in(p1, field(&next, k, t1), body))
    });
    let f = Lambda { params: vec![(acc, pt.clone()), (next, pt.clone())], body: Box::new(body) };
    let z = match (z1, z2) {
        (Some(a), Some(b)) => Some(Expr::new(ExprKind::Tuple(vec![a.clone(), b.clone()]), pt)),
        _ => None,
    };
    let out_rank = x.ty.as_array()?.1;
    let op = match &x.kind {
        ExprKind::Array(op) if matches!(**op, ArrayOp::FoldAll { .. }) => ArrayOp::FoldAll { z, f, a: operand },
        _ => ArrayOp::Fold { z, f, a: operand },
    };
    Some(Expr::array(op, Type::array(pair, out_rank)))
}
