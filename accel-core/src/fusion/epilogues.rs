//! Epilogue fusion: elementwise work on the results of a reduction or a scan moves into the
//! kernel that writes those results (fused form 3 of [`super`]): `xs.sum()` then a division is
//! one kernel (a mean), and a `map` after a scan is done by the scan's write.
//!
//! The reduction `r` (a `fold`, `fold_all`, `fold_seg`, `scanl`/`scanr`, `scanl1`/`scanr1` or
//! segmented scan) must have exactly one consumer, and that consumer must be
//! - a delayed array over `r`'s own shape (or, for a `fold_seg`, over its segments) that reads `r`
//!   only at its own index (what a `map` or `imap` of `r` becomes), or
//! - `unit(e)` of a rank-0 `r` whose host expression `e` reads `r` only with `get` and runs no
//!   other collective operation;
//!
//! reached from `r`'s `let` without crossing a closure or a branch (so that `r` still runs
//! exactly when it did).

use super::rewrite::{Fresh, index_type, var};
use crate::ir::visit::{self, map_children};
use crate::ir::{ArrayOp, Expr, ExprKind, Lambda, Producer, Program, ScanKind, Var};
use crate::types::Type;

/// Runs the pass.
pub fn run(program: Program) -> Program {
    super::rewrite::rewrite_body(program, rewrite)
}

fn rewrite(e: &Expr, fresh: &mut Fresh) -> Expr {
    let e = map_children(e, &mut |c| rewrite(c, fresh));
    match &e.kind {
        ExprKind::Let { var: r, value, body } if has_epilogue_form(value) => {
            let mut done = false;
            let body = absorb(body, r, value, &mut done, fresh);
            if done { body } else { e }
        }
        ExprKind::Array(op) => match &**op {
            ArrayOp::Unit(x) => unit_of_direct_read(x, &e.ty, fresh).unwrap_or(e),
            _ => e,
        },
        _ => e,
    }
}

/// Whether `e` is a reduction or scan node that can take an epilogue.
fn has_epilogue_form(e: &Expr) -> bool {
    let ExprKind::Array(op) = &e.kind else { return false };
    match &**op {
        ArrayOp::Fold { .. } | ArrayOp::FoldAll { .. } | ArrayOp::FoldSeg { .. } | ArrayOp::ScanSeg { .. } => true,
        ArrayOp::Scan { kind, .. } => *kind != ScanKind::ExclusiveAndTotal,
        _ => false,
    }
}

/// `e` with the one consumer of `r` (bound to `reduction`) replaced by the fused node, searched
/// along straight-line positions; `done` tells whether it was found. Returns `e` unchanged when
/// `r` is used anywhere else.
fn absorb(e: &Expr, r: &Var, reduction: &Expr, done: &mut bool, fresh: &mut Fresh) -> Expr {
    let uses = count_uses(e, r.id);
    if uses == 0 {
        return e.clone();
    }
    if let Some(fused) = consume(e, r, reduction, uses, fresh) {
        *done = true;
        return fused;
    }
    match &e.kind {
        ExprKind::Let { .. } | ExprKind::Tuple(_) | ExprKind::Proj(..) => {
            // Only one child can hold all the uses; descend into it.
            map_children(e, &mut |c| if *done { c.clone() } else { absorb(c, r, reduction, done, fresh) })
        }
        ExprKind::Array(_) => {
            let mut out = e.clone();
            if let ExprKind::Array(op) = &e.kind
                && !has_lambda_use(op, r.id)
            {
                out = map_children(e, &mut |c| {
                    if *done || count_uses(c, r.id) != uses { c.clone() } else { absorb(c, r, reduction, done, fresh) }
                });
            }
            out
        }
        _ => e.clone(),
    }
}

/// `e` as the fused node if `e` is the consumer holding all `uses` uses of `r`.
fn consume(e: &Expr, r: &Var, reduction: &Expr, uses: usize, fresh: &mut Fresh) -> Option<Expr> {
    let ExprKind::Array(op) = &e.kind else { return None };
    let rank = reduction.ty.as_array()?.1;
    let elem = Type::Elem(reduction.ty.as_array()?.0.clone());
    let v = fresh.var("result");
    match &**op {
        ArrayOp::Generate { shape, f, .. } => {
            let own_shape = match &shape.kind {
                ExprKind::Shape(x) => matches!(&x.kind, ExprKind::Var(y) if y.id == r.id),
                ExprKind::Tuple(parts) => rank == 0 && parts.is_empty(),
                // A segmented fold has a result per segment (what a nested map's per-row code
                // is generated over).
                ExprKind::Len(s) => matches!(&reduction.kind, ExprKind::Array(op)
                    if matches!(&**op, ArrayOp::FoldSeg { segments, .. } if **s == *segments)),
                _ => false,
            };
            let shape_uses = usize::from(matches!(&shape.kind, ExprKind::Shape(_)));
            let ix = &f.params[0].0;
            let mut replaced = 0;
            let body = replace_reads(&f.body, r.id, Some(ix.id), &v, &elem, &mut replaced);
            if !own_shape || replaced + shape_uses != uses || count_uses(&body, r.id) != 0 {
                return None;
            }
            let f = Lambda { params: vec![f.params[0].clone(), (v, elem)], body: Box::new(body) };
            Some(Expr::array(Producer::IMap { f, a: reduction.clone() }.into(), e.ty.clone()))
        }
        ArrayOp::Unit(x) if rank == 0 => {
            let mut replaced = 0;
            let body = replace_reads(x, r.id, None, &v, &elem, &mut replaced);
            if replaced != uses || count_uses(&body, r.id) != 0 || !kernel_safe(&body) {
                return None;
            }
            let ix = fresh.var("ix");
            let f = Lambda { params: vec![(ix, index_type(0)), (v, elem)], body: Box::new(body) };
            Some(Expr::array(Producer::IMap { f, a: reduction.clone() }.into(), e.ty.clone()))
        }
        _ => None,
    }
}

/// `unit(e)` where `e` reads a reduction node itself with `get` (`unit(xs.sum().get() / n)`).
fn unit_of_direct_read(x: &Expr, ty: &Type, fresh: &mut Fresh) -> Option<Expr> {
    let mut found: Vec<&Expr> = Vec::new();
    visit::pre_order(x, &mut |e| {
        if let ExprKind::Array(op) = &e.kind
            && let ArrayOp::The(inner) = &**op
            && has_epilogue_form(inner)
            && inner.ty.as_array().is_some_and(|(_, r)| r == 0)
        {
            found.push(inner);
        }
    });
    let [reduction] = found.as_slice() else { return None };
    let reduction = (*reduction).clone();
    let r = fresh.var("reduced");
    // Name the reduction, then fuse as for a `let`-bound one.
    let named = replace_node(x, &reduction, &var(&r, &reduction.ty));
    let unit = Expr::array(ArrayOp::Unit(named), ty.clone());
    consume(&unit, &r, &reduction, count_uses(&unit, r.id), fresh)
}

/// `e` with the node equal to `node` replaced by `with`.
fn replace_node(e: &Expr, node: &Expr, with: &Expr) -> Expr {
    if e == node { with.clone() } else { map_children(e, &mut |c| replace_node(c, node, with)) }
}

/// `e` with every read of `r` at index `ix` (`r[ix]`, or `r.get()` when `ix` is `None`)
/// replaced by `v`, counting them.
fn replace_reads(e: &Expr, r: u32, ix: Option<u32>, v: &Var, elem: &Type, n: &mut usize) -> Expr {
    let is = |x: &Expr, id: u32| matches!(&x.kind, ExprKind::Var(y) if y.id == id);
    match &e.kind {
        ExprKind::Index { array, index, .. } if is(array, r) && ix.is_some_and(|i| is(index, i)) => {
            *n += 1;
            var(v, elem)
        }
        ExprKind::Array(op) if matches!(&**op, ArrayOp::The(a) if is(a, r)) => {
            *n += 1;
            var(v, elem)
        }
        _ => map_children(e, &mut |c| replace_reads(c, r, ix, v, elem, n)),
    }
}

fn count_uses(e: &Expr, id: u32) -> usize {
    let mut n = 0;
    visit::pre_order(e, &mut |x| n += usize::from(matches!(&x.kind, ExprKind::Var(v) if v.id == id)));
    n
}

/// Whether `r` is used inside a closure of `op` (a branch of work that runs per element or per
/// iteration, where the reduction cannot move).
fn has_lambda_use(op: &ArrayOp, id: u32) -> bool {
    let mut inside = false;
    visit::for_each_operand(op, &mut |child, bound, _| {
        inside |= bound.is_closure_body() && count_uses(child, id) > 0;
    });
    inside
}

/// Whether host code can run inside a kernel: no collective operation but reads of variables.
fn kernel_safe(e: &Expr) -> bool {
    let mut safe = true;
    visit::pre_order(e, &mut |x| {
        if let ExprKind::Array(op) = &x.kind {
            safe &= matches!(&**op, ArrayOp::The(a) if matches!(a.kind, ExprKind::Var(_)));
        }
    });
    safe
}
