//! The IR surgery the fusion passes share: fresh variables, `let` chains, and the small
//! expressions (indices, shapes, element reads) that delayed arrays are made of. Traversals,
//! free variables and rebuilding a node from rewritten children are [`crate::ir::visit`]'s.

use crate::ir::visit;
use crate::ir::{ArrayOp, BinaryOp, Expr, ExprKind, Program, ReadSite, Var};
use crate::types::{ElemType, ScalarType, Type};

/// Hands out variables that no other variable of the program uses.
pub struct Fresh {
    next: u32,
}

impl Fresh {
    pub fn for_program(p: &Program) -> Fresh {
        Fresh::starting_at(visit::max_var_id(p) + 1)
    }

    /// Variables from id `next` on.
    pub fn starting_at(next: u32) -> Fresh {
        Fresh { next }
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

/// `value` bound to a fresh variable named `name` (a `let` added to `lets`), and that variable.
pub fn bind(fresh: &mut Fresh, lets: &mut Vec<(Var, Expr)>, name: &str, value: Expr) -> Expr {
    let v = fresh.var(name);
    let ty = value.ty.clone();
    lets.push((v.clone(), value));
    var(&v, &ty)
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

/// Element `ix` of an array operand: a delayed array's closure body under `let param = ix`, a
/// read of anything else.
///
/// A backpermute's source index may lie outside the operand, so its read of a delayed array stays
/// a (checked) read. Any other index is inside the operand for a correct program, but only an
/// `Elementwise` one is so by construction: under a checked one (a `slice`'s row, say) the
/// closure's own elementwise reads become checked reads, so that a bad index is still reported.
pub fn element(a: &Expr, ix: Expr, site: ReadSite) -> Expr {
    let elem = Type::Elem(a.ty.as_array().expect("an array operand").0.clone());
    match &a.kind {
        ExprKind::Array(op) if site != ReadSite::Backpermute => {
            if let ArrayOp::Generate { f, .. } = &**op {
                let (p, _) = &f.params[0];
                if matches!(&ix.kind, ExprKind::Var(v) if v.id == p.id) {
                    return (*f.body).clone();
                }
                let mut body = (*f.body).clone();
                if site.is_checked() {
                    check_elementwise_reads(&mut body);
                }
                return let_in(p, ix, body);
            }
            Expr::new(ExprKind::Index { array: Box::new(a.clone()), index: Box::new(ix), site }, elem)
        }
        _ => Expr::new(ExprKind::Index { array: Box::new(a.clone()), index: Box::new(ix), site }, elem),
    }
}

/// Turns the `Elementwise` reads in `e` into checked `Index` reads.
fn check_elementwise_reads(e: &mut Expr) {
    if let ExprKind::Index { site, .. } = &mut e.kind
        && *site == ReadSite::Elementwise
    {
        *site = ReadSite::Index;
    }
    visit::for_each_child_mut(e, &mut |child, _, _| check_elementwise_reads(child));
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
