//! The one traversal of the IR: the direct children of every node, with the variables each child
//! sees bound by the node and the role the child plays. Every analysis and rewrite of the
//! compiler derives from it — pre-order walks, free variables, fresh variables, rebuilding a node
//! from rewritten children, the delayed operands of consumers — so that a new node kind is
//! described once, here.
//!
//! The shared and the mutable traversal come from one definition (the `each_child!` macro), so they
//! cannot disagree on the children, their order or their binders. The order is the order of
//! the node's fields, with closure bodies last; kernel names number collective nodes in this
//! pre-order ([`crate::kernel::array_nodes`]).
//!
//! ```
//! use accel_core::ir::visit;
//! # let program = accel_core::frontend::lower(&syn::parse_quote! {
//! #     fn f(xs: Vector<f32>, c: f32) -> Vector<f32> { xs.map(|x| x * c) }
//! # }).unwrap();
//! let mut nodes = 0;
//! visit::pre_order(&program.body, &mut |_| nodes += 1);
//! assert!(nodes > 1);
//! // `c` and `xs` are the body's free variables: the program's parameters.
//! assert_eq!(visit::free_vars(&program.body).len(), 2);
//! ```

use super::{ArrayOp, Boundary, Expr, ExprKind, Lambda, Producer as P, Program, SeqOp, Var};
use crate::types::Type;
use std::collections::BTreeMap;

/// The variables a child sees bound by its parent.
#[derive(Clone, Copy, Debug)]
pub enum Bound<'a> {
    /// None: the child is in the parent's scope.
    Nothing,
    /// The body of a `let`: its variable, of its value's type.
    Let(&'a Var, &'a Type),
    /// A closure body: the closure's parameters.
    Params(&'a [(Var, Type)]),
}

impl<'a> Bound<'a> {
    /// The bound variables with their types.
    pub fn vars(self) -> impl Iterator<Item = (&'a Var, &'a Type)> {
        let single = match self {
            Bound::Let(v, t) => Some((v, t)),
            Bound::Nothing | Bound::Params(_) => None,
        };
        let params: &'a [(Var, Type)] = match self {
            Bound::Params(ps) => ps,
            Bound::Nothing | Bound::Let(..) => &[],
        };
        single.into_iter().chain(params.iter().map(|(v, t)| (v, t)))
    }

    /// Whether the child is a closure body.
    pub fn is_closure_body(self) -> bool {
        matches!(self, Bound::Params(_))
    }
}

/// What a child is to its parent.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// Any child without a special meaning to the fused forms.
    Plain,
    /// An array operand that a consumer reads element by element: after fusion it may be a
    /// delayed array (fused form 1 of [`crate::fusion`]). These are the `a` of `Fold`,
    /// `FoldAll`, `FoldSeg`, `Scan`, `ScanSeg`, `Stencil`, `Expand`, `Filter` and `Permute`, and
    /// permute's `defaults`.
    Delayable,
}

/// The body of the traversal, written once for `&` and `&mut` (`[$r]` is `[&]` or `[&mut]`,
/// `$lam` splits a closure into its body and binders with that mutability).
macro_rules! each_child {
    (expr $e:expr, $f:ident, $lam:ident, [$($r:tt)+]) => {
        match $($r)+ $e.kind {
            ExprKind::Var(_) | ExprKind::Const(_) => {}
            ExprKind::Let { var, value, body } => {
                $f($($r)+ **value, Bound::Nothing, Role::Plain);
                $f($($r)+ **body, Bound::Let(var, &value.ty), Role::Plain);
            }
            ExprKind::Tuple(parts) | ExprKind::Math(_, parts) => {
                for p in parts {
                    $f(p, Bound::Nothing, Role::Plain);
                }
            }
            ExprKind::Proj(x, _)
            | ExprKind::Unary(_, x)
            | ExprKind::Cast(x, _)
            | ExprKind::Shape(x)
            | ExprKind::Len(x) => $f($($r)+ **x, Bound::Nothing, Role::Plain),
            ExprKind::If { cond, then, els } => {
                $f($($r)+ **cond, Bound::Nothing, Role::Plain);
                $f($($r)+ **then, Bound::Nothing, Role::Plain);
                $f($($r)+ **els, Bound::Nothing, Role::Plain);
            }
            ExprKind::Binary(_, a, b) => {
                $f($($r)+ **a, Bound::Nothing, Role::Plain);
                $f($($r)+ **b, Bound::Nothing, Role::Plain);
            }
            ExprKind::SegmentOf { segments, index } => {
                $f($($r)+ **segments, Bound::Nothing, Role::Plain);
                $f($($r)+ **index, Bound::Nothing, Role::Plain);
            }
            ExprKind::Index { array, index, site: _ } => {
                $f($($r)+ **array, Bound::Nothing, Role::Plain);
                $f($($r)+ **index, Bound::Nothing, Role::Plain);
            }
            ExprKind::Iterate { count, init, f: g } => {
                $f($($r)+ **count, Bound::Nothing, Role::Plain);
                $f($($r)+ **init, Bound::Nothing, Role::Plain);
                let (body, bound) = $lam(g);
                $f(body, bound, Role::Plain);
            }
            ExprKind::WhileLoop { init, cond, step } => {
                $f($($r)+ **init, Bound::Nothing, Role::Plain);
                for l in [cond, step] {
                    let (body, bound) = $lam(l);
                    $f(body, bound, Role::Plain);
                }
            }
            ExprKind::Array(op) => each_child!(op $($r)+ **op, $f, $lam, [$($r)+]),
        }
    };
    (op $op:expr, $f:ident, $lam:ident, [$($r:tt)+]) => {{
        use ArrayOp::*;
        // Each arm visits the expression children in field order, then returns the closures.
        let plain = Role::Plain;
        let delayable = Role::Delayable;
        let lambdas = match $op {
            Generate { shape, f: g, from: _ } => {
                $f(shape, Bound::Nothing, plain);
                vec![g]
            }
            Unit(x) | The(x) | Unzip(x) => {
                $f(x, Bound::Nothing, plain);
                vec![]
            }
            Producer(p) => match p {
                P::Fill { shape, value } => {
                    $f(shape, Bound::Nothing, plain);
                    $f(value, Bound::Nothing, plain);
                    vec![]
                }
                P::Iota { n } => {
                    $f(n, Bound::Nothing, plain);
                    vec![]
                }
                P::Reverse(x) | P::Transpose(x) => {
                    $f(x, Bound::Nothing, plain);
                    vec![]
                }
                P::Map { f: g, a } | P::IMap { f: g, a } => {
                    $f(a, Bound::Nothing, plain);
                    vec![g]
                }
                P::ZipWith { f: g, a, b } => {
                    $f(a, Bound::Nothing, plain);
                    $f(b, Bound::Nothing, plain);
                    vec![g]
                }
                P::Backpermute { shape, f: g, a } => {
                    $f(shape, Bound::Nothing, plain);
                    $f(a, Bound::Nothing, plain);
                    vec![g]
                }
                P::Take { n: x, a } | P::Drop { n: x, a } | P::Replicate { n: x, a, axis: _ } => {
                    $f(x, Bound::Nothing, plain);
                    $f(a, Bound::Nothing, plain);
                    vec![]
                }
            },
            SegmentsFromLengths(x) | SegmentLengths(x) | SegmentOffsets(x) | NestedValues(x) | NestedSegments(x) => {
                $f(x, Bound::Nothing, plain);
                vec![]
            }
            NestedMap { f: g, a } => {
                $f(a, Bound::Nothing, plain);
                vec![g]
            }
            Fold { z, f: g, a } | FoldAll { z, f: g, a } | Scan { z, f: g, a, dir: _, kind: _ } => {
                if let Some(z) = z {
                    $f(z, Bound::Nothing, plain);
                }
                $f(a, Bound::Nothing, delayable);
                vec![g]
            }
            FoldSeg { z, f: g, a, segments } | ScanSeg { z, f: g, a, segments, kind: _ } => {
                if let Some(z) = z {
                    $f(z, Bound::Nothing, plain);
                }
                $f(a, Bound::Nothing, delayable);
                $f(segments, Bound::Nothing, plain);
                vec![g]
            }
            Permute { defaults, f: g, combine, a } => {
                $f(defaults, Bound::Nothing, delayable);
                $f(a, Bound::Nothing, delayable);
                vec![g, combine]
            }
            ExpandPermute { defaults, count, value, a, target, elem, combine } => {
                $f(defaults, Bound::Nothing, delayable);
                $f(a, Bound::Nothing, delayable);
                vec![count, value, target, elem, combine]
            }
            Reshape { shape: x, a } => {
                $f(x, Bound::Nothing, plain);
                $f(a, Bound::Nothing, plain);
                vec![]
            }
            Slice { index, a, axis: _ } => {
                $f(index, Bound::Nothing, plain);
                $f(a, Bound::Nothing, plain);
                vec![]
            }
            Concat { a, b } | NestedFromParts { segments: a, values: b } => {
                $f(a, Bound::Nothing, plain);
                $f(b, Bound::Nothing, plain);
                vec![]
            }
            Stencil { boundary, f: g, a, shape: _ } => {
                match boundary {
                    Boundary::Constant(v) => $f($($r)+ **v, Bound::Nothing, plain),
                    Boundary::Clamp | Boundary::Mirror | Boundary::Wrap => {}
                }
                $f(a, Bound::Nothing, delayable);
                vec![g]
            }
            Expand { count, value, a } => {
                $f(a, Bound::Nothing, delayable);
                vec![count, value]
            }
            Filter { pred, a } => {
                $f(a, Bound::Nothing, delayable);
                vec![pred]
            }
            Awhile { init, cond, step } => {
                $f(init, Bound::Nothing, plain);
                vec![cond, step]
            }
            Seq(s) => match s {
                SeqOp::StreamIn(x) | SeqOp::Elements(x) | SeqOp::Tabulate(x) | SeqOp::Collect(x) => {
                    $f(x, Bound::Nothing, plain);
                    vec![]
                }
                SeqOp::Produce { n, f: g } => {
                    $f(n, Bound::Nothing, plain);
                    vec![g]
                }
                SeqOp::Map { f: g, s } => {
                    $f(s, Bound::Nothing, plain);
                    vec![g]
                }
                SeqOp::ZipWith { f: g, a, b } => {
                    $f(a, Bound::Nothing, plain);
                    $f(b, Bound::Nothing, plain);
                    vec![g]
                }
                SeqOp::Fold { z, f: g, s } => {
                    $f(z, Bound::Nothing, plain);
                    $f(s, Bound::Nothing, plain);
                    vec![g]
                }
            },
        };
        for l in lambdas {
            let (body, bound) = $lam(l);
            $f(body, bound, plain);
        }
    }};
}

fn lambda(l: &Lambda) -> (&Expr, Bound<'_>) {
    (&l.body, Bound::Params(&l.params))
}

fn lambda_mut(l: &mut Lambda) -> (&mut Expr, Bound<'_>) {
    (&mut l.body, Bound::Params(&l.params))
}

/// Calls `f(child, bound, role)` on each direct child of `e` (closure bodies included), in order.
pub fn for_each_child<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr, Bound<'a>, Role)) {
    each_child!(expr e, f, lambda, [&])
}

/// [`for_each_child`] with mutable children (for rewriting in place).
pub fn for_each_child_mut(e: &mut Expr, f: &mut impl FnMut(&mut Expr, Bound<'_>, Role)) {
    each_child!(expr e, f, lambda_mut, [&mut])
}

/// The children of a collective operation, as [`for_each_child`] gives them for its node.
pub fn for_each_operand<'a>(op: &'a ArrayOp, f: &mut impl FnMut(&'a Expr, Bound<'a>, Role)) {
    each_child!(op op, f, lambda, [&])
}

/// [`for_each_operand`] with mutable children.
pub fn for_each_operand_mut(op: &mut ArrayOp, f: &mut impl FnMut(&mut Expr, Bound<'_>, Role)) {
    each_child!(op op, f, lambda_mut, [&mut])
}

/// Calls `f` on every node of `e` in pre-order.
pub fn pre_order<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    for_each_child(e, &mut |child, _, _| pre_order(child, f));
}

/// The operands of `op` in [`Role::Delayable`] positions.
pub fn delayable(op: &ArrayOp) -> Vec<&Expr> {
    let mut out = Vec::new();
    for_each_operand(op, &mut |child, _, role| {
        if role == Role::Delayable {
            out.push(child);
        }
    });
    out
}

/// The variables `e` reads without binding them, by id, with their types.
pub fn free_vars(e: &Expr) -> BTreeMap<u32, (Var, Type)> {
    let mut out = BTreeMap::new();
    collect_free(e, &mut Vec::new(), &mut out);
    out
}

/// The variables a closure reads besides its parameters, by id, with their types.
pub fn free_vars_of_lambda(l: &Lambda) -> BTreeMap<u32, (Var, Type)> {
    let mut out = BTreeMap::new();
    let mut bound: Vec<u32> = l.params.iter().map(|(v, _)| v.id).collect();
    collect_free(&l.body, &mut bound, &mut out);
    out
}

fn collect_free(e: &Expr, bound: &mut Vec<u32>, out: &mut BTreeMap<u32, (Var, Type)>) {
    if let ExprKind::Var(v) = &e.kind {
        if !bound.contains(&v.id) {
            out.entry(v.id).or_insert_with(|| (v.clone(), e.ty.clone()));
        }
        return;
    }
    for_each_child(e, &mut |child, binders, _| {
        let depth = bound.len();
        bound.extend(binders.vars().map(|(v, _)| v.id));
        collect_free(child, bound, out);
        bound.truncate(depth);
    });
}

/// The largest variable id of `program` (parameters, binders and uses); fresh variables start
/// above it.
pub fn max_var_id(program: &Program) -> u32 {
    max_var_id_in(&program.params, &program.body)
}

/// [`max_var_id`] of an expression.
pub fn max_var_id_of_expr(e: &Expr) -> u32 {
    max_var_id_in(&[], e)
}

/// [`max_var_id`] of a closure.
pub fn max_var_id_of_lambda(l: &Lambda) -> u32 {
    max_var_id_in(&l.params, &l.body)
}

fn max_var_id_in(params: &[(Var, Type)], body: &Expr) -> u32 {
    fn go(e: &Expr, max: &mut u32) {
        if let ExprKind::Var(v) = &e.kind {
            *max = (*max).max(v.id);
        }
        for_each_child(e, &mut |child, bound, _| {
            for (v, _) in bound.vars() {
                *max = (*max).max(v.id);
            }
            go(child, max);
        });
    }
    let mut max = params.iter().map(|(v, _)| v.id).max().unwrap_or(0);
    go(body, &mut max);
    max
}

/// Rebuilds `e` with every direct child (closure bodies included) replaced by `f(child)`, in
/// the order of [`for_each_child`].
pub fn map_children(e: &Expr, f: &mut impl FnMut(&Expr) -> Expr) -> Expr {
    let mut replaced = Vec::new();
    for_each_child(e, &mut |child, _, _| replaced.push(f(child)));
    let mut out = e.clone();
    let mut replaced = replaced.into_iter();
    for_each_child_mut(&mut out, &mut |child, _, _| {
        *child = replaced.next().expect("the same children on both traversals");
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::tests::program;

    #[test]
    fn shared_and_mutable_traversals_agree() {
        let p = program(
            "fn f(xs: Vector<f32>, m: Matrix<i32>, s: Vector<usize>) -> (Vector<f32>, Vector<i32>, Scalar<f32>) {
                 let t = xs.map(|x| x * 2.0).scanl(1.0, |a, b| a + b);
                 let r = m.stencil3x3(Constant(7), |n| n[0][0] + n[2][2]).fold(0, |a, b| a + b);
                 let k = iterate(3, 0.5f32, |v| v * 2.0);
                 (t, r.permute(fill(4, 0), |i| s[i] % 4, |a, b| a + b), unit(k))
             }",
        );
        let mut shared = Vec::new();
        pre_order(&p.body, &mut |e| shared.push(e.clone()));
        let mut copy = p.body.clone();
        fn collect(e: &mut Expr, out: &mut Vec<Expr>) {
            out.push(e.clone());
            for_each_child_mut(e, &mut |c, _, _| collect(c, out));
        }
        let mut mutable = Vec::new();
        collect(&mut copy, &mut mutable);
        assert_eq!(shared, mutable);
        assert_eq!(map_children(&p.body, &mut |c| c.clone()), p.body);
    }

    #[test]
    fn binders_scope_their_bodies_only() {
        let p = program("fn f(xs: Vector<f32>, c: f32) -> Vector<f32> { let d = c + 1.0; xs.map(|x| x * d) }");
        let names: Vec<String> = free_vars(&p.body).into_values().map(|(v, _)| v.name).collect();
        assert_eq!(names, ["xs", "c"]);
        let mut lambdas = 0;
        pre_order(&p.body, &mut |e| {
            if let ExprKind::Array(op) = &e.kind
                && let ArrayOp::Producer(P::Map { f, .. }) = &**op
            {
                lambdas += 1;
                let names: Vec<String> = free_vars_of_lambda(f).into_values().map(|(v, _)| v.name).collect();
                assert_eq!(names, ["d"]);
            }
        });
        assert_eq!(lambdas, 1);
        assert!(max_var_id(&p) >= 4);
    }

    #[test]
    fn delayable_positions_are_the_consumers_operands() {
        let p = program(
            "fn f(xs: Vector<f32>, d: Vector<usize>) -> (Scalar<f32>, Vector<f32>, Vector<f32>) {
                 (xs.sum(), xs.permute(fill(3, 0.0f32), |i| d[i] % 3, |a, b| a + b), xs.map(|x| x))
             }",
        );
        let mut counts = Vec::new();
        pre_order(&p.body, &mut |e| {
            if let ExprKind::Array(op) = &e.kind {
                counts.push((op.name(), delayable(op).len()));
            }
        });
        assert!(counts.contains(&("fold", 1)), "{counts:?}");
        assert!(counts.contains(&("permute", 2)), "{counts:?}");
        assert!(counts.contains(&("map", 0)), "{counts:?}");
    }
}
