//! Fusion of `permute` with the `expand` it scatters (thesis on expand/permute, ch. 3-4): fused
//! form 4, [`ArrayOp::ExpandPermute`], one kernel that computes each expanded element where it
//! is scattered, so the expanded array is never written.
//!
//! Runs after the producers pass, which has turned maps between the two into the permute's
//! delayed source. A `permute` fuses with an `expand` when
//!
//! - its source is the `expand` itself, or the `let`-bound variable of one, or a delayed array
//!   over that variable's shape whose closure reads the variable only at its own index; and
//! - its target function reads the variable only at its own index; and
//! - nothing else reads the variable (the `permute` is its only consumer, and not under a
//!   closure, which would run the expansion again each time it runs).
//!
//! Each read of the expanded array at the permute's index becomes the expanded element `y`, a
//! parameter of the fused node's `target` and `elem` closures, and the `let` goes away.
//! [`unfused`] is the inverse: what the fused node computes, as the interpreter and the CPU
//! backend run it.

use super::rewrite::{self, Fresh};
use crate::ir::visit;
use crate::ir::{ArrayOp, Expr, ExprKind, Lambda, Program, ReadSite, Var};
use crate::types::{ElemType, Type};

/// The pass: every `permute` of an `expand` that can fuse, fused.
pub fn run(program: Program) -> Program {
    rewrite::rewrite_body(program, fuse)
}

/// `e` with its fusible pairs fused, innermost first.
fn fuse(e: &Expr, fresh: &mut Fresh) -> Expr {
    let e = visit::map_children(e, &mut |child| fuse(child, fresh));
    let fused = match &e.kind {
        ExprKind::Array(op) => match &**op {
            // The expansion as the permute's source itself: its target cannot read it.
            ArrayOp::Permute { defaults, f, combine, a } => match &a.kind {
                ExprKind::Array(inner) => expanded_element(inner).and_then(|y_ty| {
                    let y = fresh.var("y");
                    let target =
                        Lambda { params: vec![f.params[0].clone(), (y.clone(), y_ty.clone())], body: f.body.clone() };
                    let elem = the_element(fresh, &y, &y_ty);
                    fused_node(inner, defaults, combine, target, elem, &e.ty)
                }),
                _ => None,
            },
            _ => None,
        },
        ExprKind::Let { var, value, body } => match &value.kind {
            ExprKind::Array(op) if matches!(**op, ArrayOp::Expand { .. }) => fuse_let(var, op, body, fresh),
            _ => None,
        },
        _ => None,
    };
    fused.unwrap_or(e)
}

/// `let ms = expand; body` with the one `permute` of `ms` in `body` fused, if it can be.
fn fuse_let(ms: &Var, expand: &ArrayOp, body: &Expr, fresh: &mut Fresh) -> Option<Expr> {
    let uses = uses_of(body, ms.id);
    if uses == 0 {
        return None;
    }
    let y_ty = expanded_element(expand)?;
    replace_consumer(body, &mut |e| {
        let ExprKind::Array(op) = &e.kind else { return None };
        let ArrayOp::Permute { defaults, f, combine, a } = &**op else { return None };
        let seen = uses_of_lambda(f, ms.id) + uses_of(a, ms.id);
        if seen != uses || uses_of(defaults, ms.id) + uses_of_lambda(combine, ms.id) > 0 {
            return None;
        }
        let y = fresh.var("y");
        let target = own_reads(f, ms.id, &y, &y_ty)?;
        let elem = match &a.kind {
            ExprKind::Var(v) if v.id == ms.id => the_element(fresh, &y, &y_ty),
            ExprKind::Array(g) => match &**g {
                ArrayOp::Generate { shape, f: g, .. } if is_shape_of(shape, ms.id) => own_reads(g, ms.id, &y, &y_ty)?,
                _ => return None,
            },
            _ => return None,
        };
        fused_node(expand, defaults, combine, target, elem, &e.ty)
    })
}

/// The fused node of `expand` (an `Expand`) and a permute with `defaults` and `combine`, whose
/// result has type `ty`.
fn fused_node(
    expand: &ArrayOp,
    defaults: &Expr,
    combine: &Lambda,
    target: Lambda,
    elem: Lambda,
    ty: &Type,
) -> Option<Expr> {
    let ArrayOp::Expand { count, value, a } = expand else { return None };
    let node = ArrayOp::ExpandPermute {
        defaults: defaults.clone(),
        count: count.clone(),
        value: value.clone(),
        a: a.clone(),
        target,
        elem,
        combine: combine.clone(),
    };
    Some(Expr::array(node, ty.clone()))
}

/// The element type of the array `expand` writes, if it is an `Expand`.
fn expanded_element(expand: &ArrayOp) -> Option<Type> {
    match expand {
        ArrayOp::Expand { value, .. } => Some(value.result_type().clone()),
        _ => None,
    }
}

/// `|k, y| y`: the permute's source element when the permute scatters the expansion itself.
fn the_element(fresh: &mut Fresh, y: &Var, y_ty: &Type) -> Lambda {
    let k = fresh.var("k");
    Lambda {
        params: vec![(k, rewrite::index_type(1)), (y.clone(), y_ty.clone())],
        body: Box::new(rewrite::var(y, y_ty)),
    }
}

/// `e` with the first collective expression (not under a closure, whose body may run many times)
/// for which `try_fuse` gives a replacement, replaced; `None` if there is none. Only the path to
/// the replaced expression is rebuilt.
fn replace_consumer(e: &Expr, try_fuse: &mut impl FnMut(&Expr) -> Option<Expr>) -> Option<Expr> {
    if let Some(fused) = try_fuse(e) {
        return Some(fused);
    }
    let (mut found, mut position) = (None, 0);
    visit::for_each_child(e, &mut |child, bound, _| {
        if found.is_none() && !bound.is_closure_body() {
            found = replace_consumer(child, try_fuse).map(|r| (position, r));
        }
        position += 1;
    });
    let (at, replacement) = found?;
    let (mut out, mut replacement, mut position) = (e.clone(), Some(replacement), 0);
    visit::for_each_child_mut(&mut out, &mut |child, _, _| {
        if position == at {
            *child = replacement.take().expect("one replacement");
        }
        position += 1;
    });
    Some(out)
}

/// `f`, a closure of an index `k`, as a closure of `k` and the element `y` of the expanded array
/// `ms` at `k`: its reads `ms[k]` become `y`. `None` if it uses `ms` any other way.
fn own_reads(f: &Lambda, ms: u32, y: &Var, y_ty: &Type) -> Option<Lambda> {
    let k = &f.params[0].0;
    let body = substitute(&f.body, ms, k.id, &rewrite::var(y, y_ty))?;
    Some(Lambda { params: vec![f.params[0].clone(), (y.clone(), y_ty.clone())], body: Box::new(body) })
}

/// `e` with every `ms[k]` replaced by `by`; `None` if `ms` occurs any other way.
fn substitute(e: &Expr, ms: u32, k: u32, by: &Expr) -> Option<Expr> {
    match &e.kind {
        ExprKind::Index { array, index, .. } if is_var(array, ms) => is_var(index, k).then(|| by.clone()),
        ExprKind::Var(v) if v.id == ms => None,
        _ => {
            let mut ok = true;
            let out = visit::map_children(e, &mut |child| {
                substitute(child, ms, k, by).unwrap_or_else(|| {
                    ok = false;
                    child.clone()
                })
            });
            ok.then_some(out)
        }
    }
}

fn is_var(e: &Expr, id: u32) -> bool {
    matches!(&e.kind, ExprKind::Var(v) if v.id == id)
}

/// `shape(ms)`, the extent the producers pass gives a delayed array over `ms`.
fn is_shape_of(shape: &Expr, ms: u32) -> bool {
    matches!(&shape.kind, ExprKind::Shape(a) if is_var(a, ms))
}

/// The number of occurrences of variable `id` in `e`.
fn uses_of(e: &Expr, id: u32) -> usize {
    let mut n = 0;
    visit::pre_order(e, &mut |e| n += usize::from(is_var(e, id)));
    n
}

fn uses_of_lambda(f: &Lambda, id: u32) -> usize {
    uses_of(&f.body, id)
}

/// What [`ArrayOp::ExpandPermute`] `op` (of result type `ty`) computes, unfused: the expansion
/// bound to a fresh variable `ms`, then `permute(defaults, |k| target(k, ms[k]), combine,
/// generate(shape(ms), |k| elem(k, ms[k])))`, `ms` a variable above every one `op` uses. The
/// interpreter and the CPU backend run this.
///
/// # Panics
/// If `op` is not an `ExpandPermute` (a bug of the caller's dispatch).
pub fn unfused(op: &ArrayOp, ty: &Type) -> Expr {
    let ArrayOp::ExpandPermute { defaults, count, value, a, target, elem, combine } = op else {
        panic!("`unfused` of `{}`", op.name())
    };
    let y_elem: ElemType = value.result_type().as_elem().expect("an element per output").clone();
    let node = Expr::array(op.clone(), ty.clone());
    let ms = Fresh::starting_at(visit::max_var_id_of_expr(&node) + 1).var("expanded");
    let ms_ty = Type::array(y_elem.clone(), 1);
    let ms_e = rewrite::var(&ms, &ms_ty);
    // `f(k, y)` as a closure of `k` alone, reading `y = ms[k]`.
    let at_own_index = |f: &Lambda| {
        let (k, y) = (&f.params[0], &f.params[1]);
        let read = Expr::new(
            ExprKind::Index {
                array: Box::new(ms_e.clone()),
                index: Box::new(rewrite::var(&k.0, &k.1)),
                site: ReadSite::Elementwise,
            },
            y.1.clone(),
        );
        Lambda { params: vec![k.clone()], body: Box::new(rewrite::let_in(&y.0, read, (*f.body).clone())) }
    };
    let source_ty = Type::array(elem.result_type().as_elem().expect("an element").clone(), 1);
    let source = ArrayOp::Generate { shape: rewrite::shape_of(&ms_e), f: at_own_index(elem), from: Vec::new() };
    let permute = ArrayOp::Permute {
        defaults: defaults.clone(),
        f: at_own_index(target),
        combine: combine.clone(),
        a: Expr::array(source, source_ty),
    };
    let expand = ArrayOp::Expand { count: count.clone(), value: value.clone(), a: a.clone() };
    rewrite::let_in(&ms, Expr::array(expand, ms_ty), Expr::array(permute, ty.clone()))
}
