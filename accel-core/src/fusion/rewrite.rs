//! The IR surgery the fusion passes share: rebuilding a node from rewritten children, fresh
//! variables, free variables, and the small expressions (indices, shapes, element reads) that
//! delayed arrays are made of.

use crate::ir::{ArrayOp, BinaryOp, Boundary, Expr, ExprKind, Lambda, MathFn, Program, ReadSite, SeqOp, Var};
use crate::kernel::for_each_child;
use crate::types::{ElemType, ScalarType, Type};
use std::collections::BTreeSet;

/// Rebuilds `e` with every direct child (lambda bodies included) replaced by `f(child)`.
pub fn map_children(e: &Expr, f: &mut impl FnMut(&Expr) -> Expr) -> Expr {
    let mut b = |x: &Expr| Box::new(f(x));
    let kind = match &e.kind {
        ExprKind::Var(_) | ExprKind::Const(_) => e.kind.clone(),
        ExprKind::Let { var, value, body } => ExprKind::Let { var: var.clone(), value: b(value), body: b(body) },
        ExprKind::Tuple(parts) => ExprKind::Tuple(parts.iter().map(&mut *f).collect()),
        ExprKind::Proj(x, i) => ExprKind::Proj(b(x), *i),
        ExprKind::If { cond, then, els } => ExprKind::If { cond: b(cond), then: b(then), els: b(els) },
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, b(x)),
        ExprKind::Binary(op, x, y) => ExprKind::Binary(*op, b(x), b(y)),
        ExprKind::Cast(x, t) => ExprKind::Cast(b(x), *t),
        ExprKind::Math(m, args) => ExprKind::Math(*m, args.iter().map(&mut *f).collect()),
        ExprKind::Index { array, index, site } => ExprKind::Index { array: b(array), index: b(index), site: *site },
        ExprKind::Shape(x) => ExprKind::Shape(b(x)),
        ExprKind::Len(x) => ExprKind::Len(b(x)),
        ExprKind::Iterate { count, init, f: g } => {
            let (count, init) = (b(count), b(init));
            ExprKind::Iterate { count, init, f: lambda(g, f) }
        }
        ExprKind::WhileLoop { init, cond, step } => {
            let init = b(init);
            ExprKind::WhileLoop { init, cond: lambda(cond, f), step: lambda(step, f) }
        }
        ExprKind::Array(op) => ExprKind::Array(Box::new(map_op(op, f))),
    };
    Expr::new(kind, e.ty.clone())
}

/// `l` with its body replaced by `f(body)`.
pub fn lambda(l: &Lambda, f: &mut impl FnMut(&Expr) -> Expr) -> Lambda {
    Lambda { params: l.params.clone(), body: Box::new(f(&l.body)) }
}

fn map_op(op: &ArrayOp, f: &mut impl FnMut(&Expr) -> Expr) -> ArrayOp {
    use ArrayOp::*;
    let o = |z: &Option<Expr>, f: &mut dyn FnMut(&Expr) -> Expr| z.as_ref().map(f);
    match op {
        Generate { shape, f: g, from } => Generate { shape: f(shape), f: lambda(g, f), from: from.clone() },
        Fill { shape, value } => Fill { shape: f(shape), value: f(value) },
        Iota { n } => Iota { n: f(n) },
        Unit(x) => Unit(f(x)),
        The(x) => The(f(x)),
        Map { f: g, a } => Map { a: f(a), f: lambda(g, f) },
        IMap { f: g, a } => IMap { a: f(a), f: lambda(g, f) },
        ZipWith { f: g, a, b } => ZipWith { a: f(a), b: f(b), f: lambda(g, f) },
        Fold { z, f: g, a } => Fold { z: o(z, f), a: f(a), f: lambda(g, f) },
        FoldAll { z, f: g, a } => FoldAll { z: o(z, f), a: f(a), f: lambda(g, f) },
        FoldSeg { z, f: g, a, segments } => FoldSeg { z: o(z, f), a: f(a), segments: f(segments), f: lambda(g, f) },
        Scan { dir, kind, z, f: g, a } => Scan { dir: *dir, kind: *kind, z: o(z, f), a: f(a), f: lambda(g, f) },
        ScanSeg { kind, z, f: g, a, segments } => {
            ScanSeg { kind: *kind, z: o(z, f), a: f(a), segments: f(segments), f: lambda(g, f) }
        }
        Backpermute { shape, f: g, a } => Backpermute { shape: f(shape), a: f(a), f: lambda(g, f) },
        Permute { defaults, f: g, combine, a } => {
            Permute { defaults: f(defaults), a: f(a), f: lambda(g, f), combine: lambda(combine, f) }
        }
        Reverse(a) => Reverse(f(a)),
        Transpose(a) => Transpose(f(a)),
        Unzip(a) => Unzip(f(a)),
        Reshape { shape, a } => Reshape { shape: f(shape), a: f(a) },
        Take { n, a } => Take { n: f(n), a: f(a) },
        Drop { n, a } => Drop { n: f(n), a: f(a) },
        Concat { a, b } => Concat { a: f(a), b: f(b) },
        Replicate { axis, n, a } => Replicate { axis: *axis, n: f(n), a: f(a) },
        Slice { axis, index, a } => Slice { axis: *axis, index: f(index), a: f(a) },
        Stencil { shape, boundary, f: g, a } => {
            let boundary = match boundary {
                Boundary::Constant(v) => Boundary::Constant(Box::new(f(v))),
                other => other.clone(),
            };
            Stencil { shape: *shape, boundary, a: f(a), f: lambda(g, f) }
        }
        Expand { count, value, a } => Expand { a: f(a), count: lambda(count, f), value: lambda(value, f) },
        Filter { pred, a } => Filter { a: f(a), pred: lambda(pred, f) },
        Awhile { init, cond, step } => Awhile { init: f(init), cond: lambda(cond, f), step: lambda(step, f) },
        SegmentsFromLengths(x) => SegmentsFromLengths(f(x)),
        SegmentLengths(x) => SegmentLengths(f(x)),
        SegmentOffsets(x) => SegmentOffsets(f(x)),
        NestedFromParts { segments, values } => NestedFromParts { segments: f(segments), values: f(values) },
        NestedValues(x) => NestedValues(f(x)),
        NestedSegments(x) => NestedSegments(f(x)),
        NestedMap { f: g, a } => NestedMap { a: f(a), f: lambda(g, f) },
        Seq(s) => Seq(match s {
            SeqOp::StreamIn(x) => SeqOp::StreamIn(f(x)),
            SeqOp::Elements(x) => SeqOp::Elements(f(x)),
            SeqOp::Tabulate(x) => SeqOp::Tabulate(f(x)),
            SeqOp::Collect(x) => SeqOp::Collect(f(x)),
            SeqOp::Produce { n, f: g } => SeqOp::Produce { n: f(n), f: lambda(g, f) },
            SeqOp::Map { f: g, s } => SeqOp::Map { s: f(s), f: lambda(g, f) },
            SeqOp::ZipWith { f: g, a, b } => SeqOp::ZipWith { a: f(a), b: f(b), f: lambda(g, f) },
            SeqOp::Fold { z, f: g, s } => SeqOp::Fold { z: f(z), s: f(s), f: lambda(g, f) },
        }),
    }
}

/// Hands out variables that no other variable of the program uses.
pub struct Fresh {
    next: u32,
}

impl Fresh {
    pub fn for_program(p: &Program) -> Fresh {
        let mut max = p.params.iter().map(|(v, _)| v.id).max().unwrap_or(0);
        fn binders(e: &Expr, max: &mut u32) {
            if let ExprKind::Var(v) | ExprKind::Let { var: v, .. } = &e.kind {
                *max = (*max).max(v.id);
            }
            for_each_child(e, &mut |child, bound| {
                for (v, _) in bound {
                    *max = (*max).max(v.id);
                }
                binders(child, max);
            });
        }
        binders(&p.body, &mut max);
        Fresh { next: max + 1 }
    }

    pub fn var(&mut self, name: &str) -> Var {
        self.next += 1;
        Var { id: self.next - 1, name: name.into() }
    }
}

/// `program` with its body rewritten by `f`, which may draw fresh variables.
pub fn rewrite_body(program: Program, f: impl FnOnce(&Expr, &mut Fresh) -> Expr) -> Program {
    let mut fresh = Fresh::for_program(&program);
    let body = f(&program.body, &mut fresh);
    Program { body, ..program }
}

/// The ids of the variables `e` reads without binding them.
pub fn free_vars(e: &Expr) -> BTreeSet<u32> {
    fn go(e: &Expr, bound: &mut Vec<u32>, out: &mut BTreeSet<u32>) {
        match &e.kind {
            ExprKind::Var(v) if !bound.contains(&v.id) => {
                out.insert(v.id);
            }
            _ => for_each_child(e, &mut |child, binders| {
                let depth = bound.len();
                bound.extend(binders.iter().map(|(v, _)| v.id));
                go(child, bound, out);
                bound.truncate(depth);
            }),
        }
    }
    let mut out = BTreeSet::new();
    go(e, &mut Vec::new(), &mut out);
    out
}

pub fn var(v: &Var, ty: &Type) -> Expr {
    Expr::var(v.clone(), ty.clone())
}

pub fn let_in(v: &Var, value: Expr, body: Expr) -> Expr {
    let ty = body.ty.clone();
    Expr::new(ExprKind::Let { var: v.clone(), value: Box::new(value), body: Box::new(body) }, ty)
}

/// `body` under the `lets`, the first outermost.
pub fn wrap(lets: Vec<(Var, Expr)>, body: Expr) -> Expr {
    lets.into_iter().rev().fold(body, |body, (v, value)| let_in(&v, value, body))
}

/// Splits the `let`s off the top of a collective expression: `let a = x; let b = y; e` gives
/// `[(a, x), (b, y)]` and `e`. Variables are unique, so the `let`s can move up to any place
/// where the expression's own free variables are in scope.
pub fn peel(e: Expr) -> (Vec<(Var, Expr)>, Expr) {
    let mut lets = Vec::new();
    let mut e = e;
    while let ExprKind::Let { var, value, body } = e.kind {
        lets.push((var, *value));
        e = *body;
    }
    (lets, e)
}

pub fn index_type(rank: usize) -> Type {
    Type::Elem(ElemType::index(rank))
}

fn usize_type() -> Type {
    Type::scalar(ScalarType::Usize)
}

/// The components of an index value of `rank` dimensions.
pub fn components(ix: &Expr, rank: usize) -> Vec<Expr> {
    match rank {
        1 => vec![ix.clone()],
        _ => (0..rank).map(|i| Expr::new(ExprKind::Proj(Box::new(ix.clone()), i), usize_type())).collect(),
    }
}

/// The index value of the components.
pub fn index_of(mut parts: Vec<Expr>) -> Expr {
    if parts.len() == 1 {
        return parts.pop().expect("one component");
    }
    let rank = parts.len();
    Expr::new(ExprKind::Tuple(parts), index_type(rank))
}

pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() { Type::scalar(ScalarType::Bool) } else { a.ty.clone() };
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

pub fn min(a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    Expr::new(ExprKind::Math(MathFn::Min, vec![a, b]), ty)
}

/// The shape of an array operand: a delayed array's shape expression, else `Shape(a)`.
pub fn shape_of(a: &Expr) -> Expr {
    match &a.kind {
        ExprKind::Array(op) => match &**op {
            ArrayOp::Generate { shape, .. } => shape.clone(),
            _ => Expr::new(ExprKind::Shape(Box::new(a.clone())), index_type(rank(a))),
        },
        _ => Expr::new(ExprKind::Shape(Box::new(a.clone())), index_type(rank(a))),
    }
}

pub fn rank(a: &Expr) -> usize {
    a.ty.as_array().map_or(0, |(_, r)| r)
}

/// Element `ix` of an array operand: a delayed array's closure body under `let param = ix`
/// (the index is inside the shape by construction), a read of anything else.
pub fn element(a: &Expr, ix: Expr, site: ReadSite) -> Expr {
    let elem = Type::Elem(a.ty.as_array().expect("an array operand").0.clone());
    match &a.kind {
        ExprKind::Array(op) if site == ReadSite::Index => {
            if let ArrayOp::Generate { f, .. } = &**op {
                let (p, _) = &f.params[0];
                return if matches!(&ix.kind, ExprKind::Var(v) if v.id == p.id) {
                    (*f.body).clone()
                } else {
                    let_in(p, ix, (*f.body).clone())
                };
            }
            Expr::new(ExprKind::Index { array: Box::new(a.clone()), index: Box::new(ix), site }, elem)
        }
        _ => Expr::new(ExprKind::Index { array: Box::new(a.clone()), index: Box::new(ix), site }, elem),
    }
}

/// The combinators a delayed operand stands for (`["generate"]` for one the user wrote).
pub fn origin(a: &Expr) -> Vec<String> {
    match &a.kind {
        ExprKind::Array(op) => match &**op {
            ArrayOp::Generate { from, .. } if from.is_empty() => vec!["generate".into()],
            ArrayOp::Generate { from, .. } => from.clone(),
            _ => vec![],
        },
        _ => vec![],
    }
}
